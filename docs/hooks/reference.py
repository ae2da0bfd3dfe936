"""The manual's option reference, written while MkDocs builds (mkdocs.yml `hooks:`): one page per command
of mrtr_cli/definition/command_table.py, each from the page `mrtr COMMAND --help` shows (fast_paths/fast_help.py's
`help_page`, built from the command and option tables). One source: the help and the manual cannot
disagree, and no generated page is committed.
"""

from __future__ import annotations

import html
import os
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout's mrtr_cli, installed or not

from mkdocs.structure.files import File, Files  # noqa: E402

from mrtr_cli.definition.command_table import APP, CommandGroup, find  # noqa: E402
from mrtr_cli.fast_paths.fast_help import help_page  # noqa: E402
from mrtr_cli.commands.help_topics import reference_page  # noqa: E402
from mrtr_cli.render.help import ARGUMENTS, COMMANDS, Row  # noqa: E402

SECTION = "Option reference"
"""The nav section the pages are listed under, after the pages mkdocs.yml names."""
USAGE_COLUMNS = "80"
"""The width the usage line is wrapped for, whatever terminal builds the site (click's widest)."""


def paths(group: CommandGroup = APP, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """`mrtr` itself, each command, each group and each of its commands, in the help's order."""
    found = [path]
    for command in group.commands:
        found += paths(command, (*path, command.name)) if isinstance(command, CommandGroup) \
            else [(*path, command.name)]
    return found


def page_path(path: tuple[str, ...]) -> str:
    """The page of `mrtr PATH`: reference/index.md for mrtr itself, reference/auth-login.md (the
    name `mrtr help TOPIC` knows it by, to say which --help a link to it means)."""
    return reference_page(path) + ".md"


def on_config(config: Any) -> Any:
    config.nav.append({SECTION: [{" ".join(("mrtr", *path)): page_path(path)} for path in paths()]})
    return config


def on_files(files: Files, config: Any) -> Files:
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = USAGE_COLUMNS
    try:
        for path in paths():
            files.append(File.generated(config, page_path(path), content=markdown(list(path))))
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns
    return files


def markdown(path: list[str]) -> str:
    """The reference page of `mrtr PATH`: its help, as Markdown."""
    found = find(path)
    assert found is not None, path
    page = help_page(found, path)
    parts = [f"# mrtr {' '.join(path)}".rstrip(), _text(page.description)]
    parts += [_text(page.details)] if page.details else []
    parts += ["```text\n" + page.usage + "\n```"]
    for panel in page.panels:
        parts += [f"## {panel.title}", _table(panel.title, panel.rows, path)]
    return "\n\n".join(parts) + "\n"


def _table(title: str, rows: list[Row], path: list[str]) -> str:
    if title == COMMANDS:
        lines = ["| Command | Description |", "| --- | --- |"]
        for row in rows:
            name = row.cells[0][0]
            lines.append(f"| [`{name}`]({_link(path, name)}) | {_help(row)} |")
        return "\n".join(lines)
    head = "| Argument | Type | Description |" if title == ARGUMENTS else "| Option | Value | Description |"
    lines = [head, "| --- | --- | --- |"]
    for row in rows:
        _, long, short, kind = (cell[0] for cell in row.cells)
        names = ", ".join(f"`{name}`" for name in (*long.split(","), *short.split(",")) if name)
        lines.append(f"| {names} | {_code(kind)} | {_help(row)} |")  # the help says [required]
    return "\n".join(lines)


def _link(path: list[str], name: str) -> str:
    """A group's command's page, relative to the group's page (both are in reference/)."""
    return page_path((*path, name)).removeprefix("reference/")


def _help(row: Row) -> str:
    return _cell(" ".join(text for text, _ in row.help if text))


def _code(text: str) -> str:
    """A metavar as code (Python-Markdown's tables leave a `|` in a code span in its cell)."""
    return f"`{text}`" if text else ""


def _cell(text: str) -> str:
    """Help text as a table cell shows it: as written (no Markdown, no HTML)."""
    return re.sub(r"([\\`*_\[\]|])", r"\\\1", html.escape(text, quote=False))


def _text(text: str) -> str:
    """A command's help as paragraphs, as written."""
    return "\n\n".join(_cell(" ".join(paragraph.split())) for paragraph in text.split("\n\n"))
