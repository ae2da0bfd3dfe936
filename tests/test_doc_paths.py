"""Every repository path docs/**/*.md names in backticks exists: a file (`transcript/rounds.py`,
`benchmarks/run.py`, a bare `era.py` found anywhere in the repository) or a folder (`transport/http/`).
A doc that names a file gone since makes its reader look for what is not there."""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path

import pytest

from conftest import ROOT

DOCS = sorted((ROOT / "docs").rglob("*.md"))
BACKTICKED = re.compile(r"`([^`\s]+)`")
A_FILE = re.compile(r"[\w./-]+\.(?:py|md|json|yaml|yml|toml|sh|js|mjs|txt)")
A_FOLDER = re.compile(r"[\w.-]+(?:/[\w.-]+)*/")
BASES = (ROOT, ROOT / "mrtr_cli", ROOT / "tests", ROOT / "benchmarks")
"""Where a relative path is read from: the repository, the package (`transport/base.py`), tests/ and benchmarks/."""
NOT_OURS = {"serialize.py", "tasks/"}
"""Backticked names that are no path of this repository: vcrpy's module, the config folder's `tasks/`."""
SKIPPED_FOLDERS = {".git", ".venv", "node_modules", "__pycache__"}


@functools.cache
def repository_names() -> frozenset[str]:
    """The name of every file and folder of the repository, walked once without descending into the skipped folders
    (the virtual environment alone holds tens of thousands)."""
    names: set[str] = set()
    for _, folders, files in os.walk(ROOT):
        folders[:] = [folder for folder in folders if folder not in SKIPPED_FOLDERS]
        names.update(folders, files)
    return frozenset(names)


def named_paths(text: str) -> list[tuple[int, str]]:
    """The (line, path) of each backticked token that looks like a path of this repository: a file
    name with its suffix or a folder ending in `/`; a method (`tools/call`), a URL, a placeholder
    (`FILE.yaml`), a path outside (`../shared/`) are not."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in BACKTICKED.finditer(line):
            token = match.group(1).split(":")[0].split("::")[0].rstrip(".,;)")
            if token.startswith(("../", "~", "/", "http")) or "*" in token or "..." in token or token in NOT_OURS:
                continue
            if any(part.isupper() for part in re.split(r"[/.]", token)):
                continue  # a placeholder: FILE.yaml, DIR/
            if A_FILE.fullmatch(token) or A_FOLDER.fullmatch(token):
                found.append((number, token))
    return found


def exists(token: str, names: frozenset[str]) -> bool:
    return any((base / token).exists() for base in BASES) or ("/" not in token and token in names)


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: path.relative_to(ROOT / "docs").as_posix())
def test_every_path_a_doc_names_exists(doc: Path):
    names = repository_names()
    where = doc.relative_to(ROOT)
    missing = [f"{where}:{line}: {token}" for line, token in named_paths(doc.read_text(encoding="utf-8"))
               if not exists(token, names)]
    assert not missing, "\n".join(missing)


def test_the_rule_sees_a_missing_path_and_leaves_methods_alone():
    text = "`transport/http.py` and `mrtr_cli/flat_forms.py`, `tools/call`, `FILE.yaml`, `transcript/rounds.py`"
    names = repository_names()
    assert [token for _, token in named_paths(text) if not exists(token, names)] == [
        "transport/http.py", "mrtr_cli/flat_forms.py"]
    assert [token for _, token in named_paths(text)] == ["transport/http.py", "mrtr_cli/flat_forms.py",
                                                         "transcript/rounds.py"]


def test_no_reference_names_the_design_files_that_left_or_linting():
    """CLI.md and ARCHITECTURE.md are history in ../shared/design/, linting.py is gone: the code and
    docs point at the manual's page or the module that holds each rule now."""
    stale = re.compile(r"\b(?:CLI\.md|ARCHITECTURE\.md|linting\.py)")
    places = [*ROOT.joinpath("mrtr_cli").rglob("*.py"), *DOCS, ROOT / "README.md"]
    found = [f"{path.relative_to(ROOT)}:{number}" for path in places
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if stale.search(line)]
    assert not found, found


def test_the_architecture_is_the_house_as_it_is_with_no_history():
    """docs/architecture.md says how mrtr is built now: no issue numbers, drafts or dates (git keeps the history)."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    told = re.findall(r"\bissues? \d+|\bfirst draft\b|\b20\d\d-\d\d-\d\d\b|\bsession \d+", text, re.I)
    assert not told, told
    assert len(text.splitlines()) <= 150, "keep it short: the layers, one call, where state lives"


ONE_CALL_ROW = re.compile(r"^\| (\d+) \| (.+?) \| .+ \|$")
ONE_CALL_COUNT = re.compile(r"These are the stops a reader follows: (\d+), in (\d+) files\.")


def one_call(text: str) -> tuple[str, list[list[str]], tuple[int, int]]:
    """docs/architecture.md's one call: the command it follows, the files of each stop in order, and
    the numbers its prose gives (stops, files)."""
    section = text.split("## One call, file by file", 1)[1].split("\n## ", 1)[0]
    command = re.search(r"`(mrtr call [^`]+)`", section)
    assert command, "the section names the command it follows"
    stops = [[token.strip("`") for token in row.group(2).split(", ")]
             for row in map(ONE_CALL_ROW.match, section.splitlines()) if row]
    said = ONE_CALL_COUNT.search(section)
    assert said, "the section says how many stops and files it names"
    return command.group(1), stops, (int(said.group(1)), int(said.group(2)))


def files_run(argv: list[str]) -> set[str]:
    """The mrtr_cli files (relative to the package) whose functions run while `mrtr ARGV` does, in this
    process, on its own threads (the HTTP exchange's pump among them), not the demo server's."""
    import threading

    from conftest import mrtr_here

    package = str(ROOT / "mrtr_cli") + "/"
    ran: set[str] = set()

    def profile(frame, event, arg):
        name = frame.f_code.co_filename
        if event == "call" and name.startswith(package) and not threading.current_thread().name.startswith(
                ("the demo", "Thread-")):
            ran.add(name[len(package):])

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        run = mrtr_here(*argv)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    assert run.code == 0, run.stderr
    return ran


def test_the_one_call_of_the_architecture_runs_through_every_file_it_names():
    """The table of docs/architecture.md is the call as it runs: the command it follows, traced against the
    demo over HTTP, runs code in each file each stop names; no file is a stop twice; the prose counts
    the table."""
    import shlex

    from peers import demo_http

    command, stops, (said_stops, said_files) = one_call((ROOT / "docs" / "architecture.md").read_text("utf-8"))
    named = [path for stop in stops for path in stop]
    assert (said_stops, said_files) == (len(stops), len(named)) and len(set(named)) == len(named)
    with demo_http() as url:
        ran = files_run(shlex.split(command.replace("URL", url))[1:])
    assert [path for path in named if path not in ran] == []


def test_the_trace_sees_the_transport_thread_and_not_what_the_call_never_runs():
    from peers import demo_http

    with demo_http() as url:
        ran = files_run(["call", "two_questions", "--url", url, "--answer", "name.name=Ada",
                         "--answer", "color.color=blue"])
    assert {"conversation/session.py", "transport/http/streamable_http.py", "transport/http/connection.py"} <= ran
    assert "transport/stdio.py" not in ran and "commands/replay.py" not in ran
