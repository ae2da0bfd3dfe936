"""The layering rules of ARCHITECTURE.md, checked on every import of the package."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from mrtr_cli import __version__

PACKAGE = ROOT / "mrtr_cli"
OWNERS = {
    "httpx": {"transport/http.py"},
    "questionary": {"answering/interactive.py"},
    "prompt_toolkit": {"answering/interactive.py"},
    "yaml": {"yaml_io.py"},
    "jsonschema": {"validation.py"},
    "referencing": {"validation.py"},
    "typer": {"cli/"},
    "click": {"cli/"},
}
"""Who may import each outside library: modules, or every module under a folder (ending in /)."""
STDLIB_ONLY = ("protocol/", "text.py", "forms/formats.py", "forms/flat_forms.py", "forms/wording.py")


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_each_outside_library_has_one_owner(path: Path):
    relative = str(path.relative_to(PACKAGE))
    for library in imports(path) & set(OWNERS):
        owned = any(relative == owner or owner.endswith("/") and relative.startswith(owner) for owner in OWNERS[library])
        assert owned, f"{relative} imports {library}, owned by {OWNERS[library]}"
    if relative.startswith("render/") is False:
        assert "rich" not in imports(path) or relative.startswith("commands/"), f"{relative} imports rich"


@pytest.mark.parametrize("path", [p for p in MODULES if str(p.relative_to(PACKAGE)).startswith(STDLIB_ONLY)],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_protocol_and_text_use_the_standard_library_only(path: Path):
    outside = {name for name in imports(path) if name not in sys.stdlib_module_names and name != "mrtr_cli"}
    assert not outside, f"{path.name} imports {outside}"


def test_heavy_libraries_are_not_imported_at_start():
    code = ("import sys; import mrtr_cli.entry, mrtr_cli.cli; "
            "print(sorted(m for m in ('httpx', 'questionary', 'yaml', 'jsonschema', 'rich') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_version_loads_no_outside_library():
    code = ("import sys; from mrtr_cli.entry import main; main(['--version']); "
            "print(sorted(m for m in ('typer', 'rich', 'httpx', 'yaml', 'jsonschema') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.splitlines() == [f"mrtr {__version__}", "[]"]
