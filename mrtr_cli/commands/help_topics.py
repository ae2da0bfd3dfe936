"""`mrtr help TOPIC`: a page of the manual, in the terminal.

The pages are the manual's source, docs/**/*.md (the site mkdocs.yml builds): an installed wheel
carries them as mrtr_cli/manual/ (setup.py copies them there), and a checkout (an editable install)
reads its own docs/. A topic is a page's path without `.md` (`eras`, `commands/recordings`), or its
last part alone when no other page and no command has that name (`recordings`): a command's name
is the command's help (fast_paths/fast_help.py asks here only for a word that names none).
Standard library only, besides mrtr's own; loaded only for a word that names no command.
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path

import mrtr_cli
from mrtr_cli.definition.command_table import APP, CommandGroup

PACKAGE = Path(mrtr_cli.__file__).resolve().parent
PACKAGED = PACKAGE / "manual"
"""Where a wheel keeps the pages."""
CHECKOUT = PACKAGE.parent / "docs"
"""Where a checkout keeps them: docs/ beside mrtr_cli/, with the site's mkdocs.yml beside both."""

LINK = re.compile(r"\[(?P<text>[^\]]*)\]\((?P<target>[^)\s#:]+\.md)(?:#[^)\s]*)?\)")
"""A Markdown link to another page of the manual (`[the eras](../eras.md#auto)`); a URL has a colon."""


def _reference_pages(group: CommandGroup = APP, path: tuple[str, ...] = ()) -> dict[str, str]:
    """The option reference's page of each command (written while the site builds, by
    docs/hooks/reference.py: reference/call.md, reference/auth-login.md) and the help that shows it."""
    found = {reference_page(path): " ".join(("mrtr", *path, "--help"))}
    for command in group.commands:
        inner = (*path, command.name)
        found.update(_reference_pages(command, inner) if isinstance(command, CommandGroup)
                     else {reference_page(inner): " ".join(("mrtr", *inner, "--help"))})
    return found


def reference_page(path: tuple[str, ...]) -> str:
    """The option reference's page of `mrtr PATH`, without `.md` (the site's hook names it so too)."""
    return f"reference/{'-'.join(path) or 'index'}"


REFERENCE = _reference_pages()


def pages_folder() -> Path | None:
    """The folder of the manual's pages: the wheel's copy, else the checkout's docs/; None when
    neither is there."""
    if PACKAGED.is_dir():
        return PACKAGED
    if CHECKOUT.is_dir() and (CHECKOUT.parent / "mkdocs.yml").is_file():
        return CHECKOUT
    return None


def pages() -> dict[str, Path]:
    """Each page by its topic, its path without `.md`: the top folder's pages, then the others'."""
    folder = pages_folder()
    if folder is None:
        return {}
    found = sorted(folder.rglob("*.md"), key=lambda page: (len(page.relative_to(folder).parts), page))
    return {page.relative_to(folder).with_suffix("").as_posix(): page for page in found}


def topics() -> dict[str, Path]:
    """Each topic and its page: every page by its path, then by its short name where it has one."""
    found = pages()
    commands = {command.name for command in APP.commands}
    stems = [name.rpartition("/")[2] for name in found]
    short = {stem: found[name] for name, stem in zip(found, stems)
             if stem != name and stems.count(stem) == 1 and stem not in commands and stem not in found}
    return {**found, **short}


def names() -> list[str]:
    """The topics a listing names: each page once, by its shortest name."""
    shortest = {page: name for name, page in topics().items()}  # a short name comes after its path
    return [shortest[page] for page in pages().values()]


def run(word: str) -> int | None:
    """Show the page of topic `word`; None when there is no such topic."""
    page = topics().get(word)
    if page is None:
        return None
    from mrtr_cli.render.manual_page import show_page

    topic = next(name for name, path in pages().items() if path == page)
    return show_page(terminal_text(topic, page.read_text(encoding="utf-8")), sys.stdout)


def terminal_text(topic: str, text: str) -> str:
    """The page's Markdown as the terminal shows it: a link to another page says the `mrtr help`
    that shows it (`[the eras](eras.md)`: the eras (`mrtr help eras`))."""
    folder = posixpath.dirname(topic)

    def command(match: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join(folder, match["target"])).removesuffix(".md")
        shows = REFERENCE.get(target, f"mrtr help {target}")
        return f"{match['text']} (`{shows}`)"

    return LINK.sub(command, text)
