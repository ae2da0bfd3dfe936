"""mypy on the package, with pyproject.toml's [tool.mypy] (strict, and the modules relaxed there named
with why), as part of the README's test command: a type error fails the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def mypy(*arguments: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """mypy with the project's configuration and a cache of its own (cold, as on a fresh clone)."""
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               "--cache-dir", str(cache), *arguments]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_the_package_type_checks(tmp_path: Path) -> None:
    checked = mypy(cache=tmp_path / "cache")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Success: no issues found" in checked.stdout


def test_the_configuration_is_strict(tmp_path: Path) -> None:
    """The configuration the package is checked with catches what strict mode catches: a function
    without annotations and an Any returned where a str is promised."""
    planted = tmp_path / "planted.py"
    planted.write_text("import json\n\n\ndef untyped(x):\n    return x\n\n\n"
                       "def loose(text: str) -> str:\n    return json.loads(text)\n", encoding="utf-8")
    checked = mypy(str(planted), cache=tmp_path / "cache")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "[no-untyped-def]" in checked.stdout
    assert "[no-any-return]" in checked.stdout
