"""Every repository path docs/**/*.md names in backticks exists: a file (`transcript/rounds.py`,
`benchmarks/run.py`, a bare `era.py` found anywhere in the repository) or a folder (`transport/http/`).
A doc that names a file gone since makes its reader look for what is not there."""

from __future__ import annotations

import functools
import os
import re
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
