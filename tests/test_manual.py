"""The manual (mkdocs.yml, docs/): the site builds with warnings as errors, as the README's command
builds it; a broken link, a broken heading link, a page missing from the nav or from docs/ fail the
build; each generated reference page lists every option of its command as its `--help` does; the
README's links into the manual are absolute, under the one base URL, and name pages the site has;
`mrtr help TOPIC` shows a page, from the checkout and from an installed wheel."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import PYTHON, ROOT, mrtr_here
from mrtr_cli.definition.command_table import APP, CommandGroup
from mrtr_cli.commands import help_topics

BUILD_ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's notice of its successor, on every build


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict -d SITE`, as the README says to build the manual."""
    return subprocess.run([PYTHON, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          capture_output=True, text=True, timeout=120, env=BUILD_ENV, cwd=ROOT)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    built = build(ROOT / "mkdocs.yml", folder)
    assert built.returncode == 0, built.stderr
    return folder


def every_path(group: CommandGroup = APP, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [path]
    for command in group.commands:
        paths += every_path(command, (*path, command.name)) if isinstance(command, CommandGroup) \
            else [(*path, command.name)]
    return paths


def test_the_manual_builds_with_warnings_as_errors_and_has_every_page(site: Path):
    nav = re.findall(r"^\s+- (?:[\w ]+: )?([\w/-]+\.md)$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE)
    assert "commands/recordings.md" in nav and "architecture.md" in nav
    for page in nav:
        assert (site / page.removesuffix(".md").removesuffix("index") / "index.html").is_file(), page
    assert not (site / "hooks").exists()  # the hook builds the site; it is no page of it
    for path in every_path():
        assert (site / "reference" / ("-".join(path) or "") / "index.html").is_file(), path


def test_a_broken_link_or_a_missing_page_fails_the_build(tmp_path: Path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    (docs / "eras.md").unlink()  # in the nav, gone from docs/
    (docs / "stray.md").write_text("# Stray\n\nIn docs/, not in the nav.\n")
    with (docs / "index.md").open("a") as index:
        index.write("\n[gone](nowhere.md) and [a heading that is not there](ci.md#no-such-heading)\n")
    config = (ROOT / "mkdocs.yml").read_text().replace("docs_dir: docs", f"docs_dir: {docs}")
    for relative in ("docs/hooks/", "mrtr_cli/"):  # paths are read from the config's folder
        config = config.replace(f"- {relative}", f"- {ROOT}/{relative}")
    (tmp_path / "mkdocs.yml").write_text(config)
    built = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 1
    for fault in ("'nowhere.md'", "'ci.md#no-such-heading'", "'eras.md'", "stray.md"):
        assert fault in built.stderr, fault


class Tables(HTMLParser):
    """Each h2 of a page (its permalink left out) and, for each row of the table under it, the code
    in the row's first cell: an option's names."""

    def __init__(self) -> None:
        super().__init__()
        self.panels: list[tuple[str, list[tuple[str, ...]]]] = []
        self._title: str | None = None
        self._code: str | None = None
        self._cell = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h2":
            self._title = ""
        elif tag == "tr" and self.panels:
            self._cell = 0
            self.panels[-1][1].append(())
        elif tag == "td":
            self._cell += 1
        elif tag == "code" and self._cell == 1:
            self._code = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "h2" and self._title is not None:
            self.panels.append((self._title.replace("\N{PILCROW SIGN}", "").strip(), []))
            self._title = None
        elif tag == "code" and self._code is not None:
            self.panels[-1][1][-1] += (self._code,)
            self._code = None

    def handle_data(self, data: str) -> None:
        if self._title is not None:
            self._title += data
        elif self._code is not None:
            self._code += data


def page_panels(html: str) -> list[tuple[str, list[tuple[str, ...]]]]:
    tables = Tables()
    tables.feed(html)
    return [(title, [row for row in rows if row]) for title, rows in tables.panels]


OPTION_ROW = re.compile(r"^│ (--[\w-]+)(?: +(-\w)(?= ))?")
PANEL = re.compile(r"^╭─ (.+?) ─")


def help_panels(text: str) -> list[tuple[str, list[tuple[str, ...]]]]:
    """Each panel of a `--help` page and the option names of each of its rows."""
    panels: list[tuple[str, list[tuple[str, ...]]]] = []
    for line in text.splitlines():
        if PANEL.match(line):
            panels.append((PANEL.match(line)[1], []))  # type: ignore[index]
        elif OPTION_ROW.match(line):
            panels[-1][1].append(tuple(name for name in OPTION_ROW.match(line).groups() if name))  # type: ignore
    return [(title, rows) for title, rows in panels if rows]


@pytest.mark.parametrize("path", every_path(), ids=lambda path: " ".join(path) or "mrtr")
def test_each_reference_page_lists_every_option_as_the_help_does(site: Path, path: tuple[str, ...]):
    shown = mrtr_here(*path, "--help", width=250)
    assert shown.code == 0
    html = (site / "reference" / "-".join(path) / "index.html").read_text(encoding="utf-8")
    wanted = help_panels(shown.stdout)
    assert wanted
    on_page = [(title, rows) for title, rows in page_panels(html) if title in dict(wanted)]
    assert on_page == wanted


def test_the_option_table_compared_is_the_help_s(site: Path):
    """The comparison above reads the rows it means: call's page has --url under Server, -a under Options."""
    html = (site / "reference" / "call" / "index.html").read_text(encoding="utf-8")
    panels = dict(page_panels(html))
    assert ("--url",) in panels["Server"] and ("--arg", "-a") in panels["Options"]
    assert "A Streamable HTTP endpoint." in html and "<code>JSON|@FILE</code>" in html


def documentation_url() -> str:
    found = re.search(r'^Documentation = "(.+)"$', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    assert found, "pyproject.toml's [project.urls] names the manual's base"
    return found[1]


def test_the_readme_links_into_the_manual_under_its_one_base_url(site: Path):
    """On the package's index page a relative link goes nowhere: the README links into the manual
    with the base URL pyproject.toml names, and each link names a page (and heading) the site has."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not re.findall(r"\]\((?:\./)?docs/[^)]*\)", readme)
    base = documentation_url()
    links = re.findall(rf"\]\({re.escape(base)}([^)#\s]*)(?:#([^)\s]+))?\)", readme)
    assert links
    for path, anchor in links:
        target = site / path / "index.html" if path.endswith("/") or not path else site / path
        assert target.is_file(), f"{base}{path}"
        if anchor:
            assert f'id="{anchor}"' in target.read_text(encoding="utf-8"), f"{base}{path}#{anchor}"


def test_help_topic_prints_the_page():
    assert help_topics.pages_folder() == ROOT / "docs"  # the checkout's pages (an editable install's)
    shown = mrtr_here("help", "eras", width=80)
    assert shown.code == 0 and shown.stderr == ""
    page = (ROOT / "docs" / "eras.md").read_text(encoding="utf-8")
    title = page.splitlines()[0].removeprefix("# ")
    assert title in shown.stdout and "#" not in shown.stdout.splitlines()[0]
    first_words = page.split("\n\n")[1].split()[:3]
    assert " ".join(word.strip("`") for word in first_words) in shown.stdout
    assert all(len(line) <= 80 and line == line.rstrip() for line in shown.stdout.splitlines())


def test_a_page_in_a_folder_is_its_path_or_its_own_name_unless_a_command_has_it():
    assert mrtr_here("help", "commands/recordings").stdout == mrtr_here("help", "recordings").stdout
    assert "show, replay, serve, answer" in mrtr_here("help", "recordings").stdout
    assert "commands/check" in help_topics.topics() and "check" not in help_topics.topics()


def test_a_command_name_wins_over_a_topic():
    assert mrtr_here("help", "call").stdout == mrtr_here("call", "--help").stdout
    assert mrtr_here("help", "tasks").stdout == mrtr_here("tasks", "--help").stdout
    page = mrtr_here("help", "commands/check")
    assert page.code == 0 and page.stdout.split()[0].startswith("check") and "Usage:" not in page.stdout


def test_an_unknown_topic_is_a_usage_error_naming_the_topics():
    shown = mrtr_here("help", "recording")
    assert shown.code == 1 and shown.stdout == ""
    assert len(shown.stderr.splitlines()) == 1
    assert shown.stderr.startswith("mrtr: no command or help topic 'recording'; did you mean 'recordings'?")
    listed = shown.stderr.rstrip(")\n").split("; topics: ")[1].split(", ")
    assert listed == help_topics.names()
    assert {"eras", "getting-started", "recordings", "commands/call", "index"} <= set(listed)


def test_a_link_to_another_page_says_the_help_that_shows_it():
    text = "See [the eras](../eras.md#auto), [call](call.md), [x](https://example.com/a.md) and [y](#here)."
    assert help_topics.terminal_text("commands/shell", text) == (
        "See the eras (`mrtr help eras`), call (`mrtr help commands/call`), [x](https://example.com/a.md) "
        "and [y](#here).")
    options = "[its options](../reference/demo-server.md#options), [login's](../reference/auth-login.md)"
    assert help_topics.terminal_text("commands/call", options) == (
        "its options (`mrtr demo-server --help`), login's (`mrtr auth login --help`)")


def test_a_code_line_wider_than_the_terminal_is_folded_whole(monkeypatch: pytest.MonkeyPatch):
    """rich crops a code block's lines at the width: the manual's are folded, every character kept."""
    from mrtr_cli.render.manual_page import show_page

    monkeypatch.setenv("COLUMNS", "30")
    page = io.StringIO()
    line = "0123456789" * 5
    assert show_page(f"# T\n\n```text\n{line}\nshort\n```\n", page) == 0
    code = page.getvalue().splitlines()[2:]  # after the title and its empty line
    assert code == ["    " + line[:26], "    " + line[26:], "    short"]


def test_the_help_of_a_page_stops_quietly_when_its_reader_goes(tmp_path: Path):
    done = subprocess.run(f"{PYTHON} -m mrtr_cli help architecture | head -1", shell=True, capture_output=True,
                          text=True, timeout=60, cwd=ROOT, env={**os.environ, "NO_COLOR": "1"})
    assert done.stdout.strip() == "How mrtr is built" and done.stderr == ""


def test_an_installed_wheel_carries_the_pages(tmp_path: Path):
    """A non-editable install: the wheel built from the source has every page of docs/ as
    mrtr_cli/manual/, and `mrtr help TOPIC` reads them there (no checkout beside it)."""
    source = tmp_path / "source"
    tracked = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], capture_output=True, text=True,
                             cwd=ROOT, check=True).stdout.split()
    for name in tracked:
        if name.startswith(("mrtr_cli/", "docs/")) or "/" not in name:
            if (ROOT / name).is_file():
                (source / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(ROOT / name, source / name)
    target = tmp_path / "installed"
    subprocess.run([PYTHON, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(source)],
                   capture_output=True, text=True, timeout=180, check=True)
    pages = sorted(str(page.relative_to(ROOT / "docs")) for page in (ROOT / "docs").rglob("*.md"))
    assert sorted(str(page.relative_to(target / "mrtr_cli" / "manual"))
                  for page in (target / "mrtr_cli" / "manual").rglob("*.md")) == pages
    script = ("import sys; from mrtr_cli.commands import help_topics as h; from mrtr_cli.entry import main; "
              "print(h.pages_folder()); sys.exit(main(['help', 'eras']))")
    done = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(target), "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == str(target / "mrtr_cli" / "manual")
    assert (ROOT / "docs/eras.md").read_text().splitlines()[0].removeprefix("# ") in done.stdout
