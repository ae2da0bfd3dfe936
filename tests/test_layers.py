"""The layering rules of ARCHITECTURE.md, checked on every import of the package."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from peers import demo_http
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
    "rich": {"render/"},
    "platformdirs": {"auth/store.py"},
    "authlib": {"auth/oauth.py"},
    "xml": {"render/junit.py"},
    "pytest": {"pytest_plugin.py"},
    "_pytest": {"pytest_plugin.py"},
}
"""Who may import each outside library: modules, or every module under a folder (ending in /)."""
STDLIB_ONLY = ("protocol/", "text.py", "yaml_emitters.py", "forms/formats.py", "forms/flat_forms.py", "forms/wording.py")


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


def test_nothing_of_oauth_is_imported_at_start():
    code = ("import sys; from mrtr_cli.entry import main; import mrtr_cli.cli; "
            "print(sorted(m for m in ('authlib', 'platformdirs', 'mrtr_cli.auth') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_the_http_transport_loads_httpx_without_its_command_line():
    """httpx imports its own command line (click, rich, pygments: about 90 ms) when they are
    installed; mrtr never runs it, so the HTTP transport refuses that import."""
    code = ("import sys; import mrtr_cli.transport.http, httpx; "
            "print(httpx.Client is not None, sorted(m for m in ('httpx._main', 'click', 'pygments', 'rich') "
            "if sys.modules.get(m)))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert loaded.strip() == "True []"


def test_version_loads_no_outside_library():
    code = ("import sys; from mrtr_cli.entry import main; main(['--version']); "
            "print(sorted(m for m in ('typer', 'rich', 'httpx', 'yaml', 'jsonschema', 'authlib', 'platformdirs') "
            "if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.splitlines() == [f"mrtr {__version__}", "[]"]


TARGET_CLASSES = re.compile(r"\b(?:Stdio|Demo|Http)Target\b")
TARGET_KINDS = {"stdio", "demo", "http"}
"""The kinds of target, as `Target.kind` and a transcript's `target.transport` name them."""


def target_kind_leaks(source: str) -> list[str]:
    """Where a module tells target kinds apart itself: it names a target class (an `isinstance`,
    an import, a type), or compares a `.kind` or a `["transport"]` with a kind's name. Only
    target.py may; everywhere else asks the target (`mirrors_headers`, `probes_era`, ...)."""
    leaks = [f"line {source.count(chr(10), 0, found.start()) + 1}: {found.group()}"
             for found in TARGET_CLASSES.finditer(source)]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and _compares_a_kind(node):
            leaks.append(f"line {node.lineno}: {ast.unparse(node)}")
    return leaks


def _compares_a_kind(node: ast.Compare) -> bool:
    sides = [node.left, *node.comparators]
    names = {value.value for side in sides for value in [side, *getattr(side, "elts", [])]
             if isinstance(value, ast.Constant)}
    kind_of = any(isinstance(side, ast.Attribute) and side.attr == "kind"
                  or isinstance(side, ast.Subscript) and isinstance(side.slice, ast.Constant)
                  and side.slice.value == "transport" for side in sides)
    return kind_of and bool(names & TARGET_KINDS)


@pytest.mark.parametrize("path", [p for p in MODULES if p != PACKAGE / "target.py"],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_target_module_tells_target_kinds_apart(path: Path):
    assert not target_kind_leaks(path.read_text(encoding="utf-8")), f"{path.name} tells target kinds apart"


@pytest.mark.parametrize("source", [
    "from mrtr_cli.target import HttpTarget, resolve_target\n",
    "if isinstance(target, StdioTarget):\n    pass\n",
    "over_http = type(target) is target_module.HttpTarget\n",
    "def f(target: DemoTarget) -> None: ...\n",
    'if recorded["transport"] == "demo":\n    pass\n',
    'if target.kind in ("http", "sse"):\n    pass\n',
    'stdio = "stdio" != target.kind\n',
])
def test_the_kind_rule_catches_each_way_of_telling_kinds_apart(source: str):
    assert target_kind_leaks(source)


def test_the_kind_rule_lets_targets_be_asked():
    source = ('from mrtr_cli.target import Target, resolve_target\n'
              'if target.mirrors_headers and scheme == "http" and field.kind == "choice":\n    pass\n'
              'entry = target.transcript_entry()\n')
    assert target_kind_leaks(source) == []


def test_a_call_over_http_to_a_server_without_oauth_loads_only_the_token_store():
    """The kept token is sent first, so the store is read; the flow (and authlib) wait for a 401."""
    with demo_http() as url:
        code = ("import sys\nfrom mrtr_cli.entry import main\n"
                f"try:\n    main(['call', 'greet', '--answer', 'name.name=Ada', '--no-input', '--url', {url!r}])\n"
                "except SystemExit:\n    pass\n"
                "print(sorted(m for m in sys.modules if m.startswith(('authlib', 'mrtr_cli.auth'))))")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.splitlines()[-1] == "['mrtr_cli.auth', 'mrtr_cli.auth.kept', 'mrtr_cli.auth.store']", \
        done.stdout + done.stderr
