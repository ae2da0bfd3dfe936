"""The pytest plugin, registered as a `pytest11` entry point, is in every pytest session where mrtr is
installed: until a test uses it, it loads nothing of mrtr but itself (issue 36: at most 3 modules)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

AT_MOST = 3
"""mrtr_cli modules a session that uses nothing of mrtr may import: the package and the plugin."""
SESSION = ("import sys, pytest; code = pytest.main(['--co', '-q', '-p', 'no:cacheprovider']); "
           "print(sorted(m for m in sys.modules if m == 'mrtr_cli' or m.startswith('mrtr_cli.')))")


def loaded_in_an_empty_folder(folder: Path) -> list[str]:
    """The mrtr_cli modules a `pytest --co -q` in `folder`, with nothing to collect, has imported."""
    environment = {name: value for name, value in os.environ.items() if name != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    done = subprocess.run([sys.executable, "-c", SESSION], capture_output=True, text=True, cwd=folder,
                          env={**environment, "PYTEST_ADDOPTS": ""}, check=True)
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])  # the printed list of names


def test_a_session_that_uses_no_mrtr_loads_only_the_plugin(tmp_path: Path):
    loaded = loaded_in_an_empty_folder(tmp_path)
    assert "mrtr_cli.pytest_plugin" in loaded  # the entry point is loaded: the bound means something
    assert len(loaded) <= AT_MOST, loaded


def test_the_plugin_imports_the_engine_only_inside_what_uses_it():
    """Nothing of commands/ at the plugin's top: each use imports it (the fixture, a transcript item)."""
    source = (Path(__file__).resolve().parent.parent / "mrtr_cli" / "pytest_plugin.py").read_text(encoding="utf-8")
    top = [node for node in ast.parse(source).body if isinstance(node, (ast.Import, ast.ImportFrom))]
    modules = [node.module if isinstance(node, ast.ImportFrom) else node.names[0].name for node in top]
    assert not [name for name in modules if name and name.startswith("mrtr_cli")], modules
