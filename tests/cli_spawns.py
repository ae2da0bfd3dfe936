"""Which test files spawn the CLI: `python -m mrtr_cli ...` as a process, directly or through a helper
of tests/ (conftest.mrtr, peers.demo_http, ...), the demo server included (issue 36: at most a third).

`python tests/cli_spawns.py` prints the count and the files; test_in_process.py holds the bound.
A helper spawns when its source starts the package as a module, or calls a helper that does;
a test file spawns when it does so itself or uses such a helper. Found by reading the source
(ast), so the number is the same on every machine.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
STARTS_THE_CLI = re.compile(r"""-m["', ]+mrtr_cli\b(?![.\w])|mrtr_cli\.__main__|--mrtr-demo|mrtr_demo""")
"""Source that starts the package as a process: `[python, "-m", "mrtr_cli", ...]` (or in a shell
line), and the pytest plugin's demo, which starts `mrtr demo-server`."""


def _spawns_itself(source: str) -> bool:
    return STARTS_THE_CLI.search(source) is not None or _runs_main_elsewhere(ast.parse(source))


def _runs_main_elsewhere(tree: ast.AST) -> bool:
    """A program for another interpreter (`python -c "...main([...])"`) that runs the CLI's entry;
    or `entry.main(ARGS)` with no Environment, where `--demo` starts `mrtr demo-server` processes."""
    strings = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    if any("mrtr_cli.entry" in text and "main(" in text for text in strings):
        return True
    bare_main = any(isinstance(node, ast.Call) and ast.unparse(node.func) in ("main", "entry.main") and len(node.args) == 1
                    and not node.keywords for node in ast.walk(tree))
    return bare_main and "--demo" in strings


def _names_used(tree: ast.AST) -> set[str]:
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return names | {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}


def helper_spawners() -> dict[str, set[str]]:
    """For each helper module of tests/, the names in it that spawn the CLI (functions and constants)."""
    modules = {path.stem: ast.parse(path.read_text(encoding="utf-8")) for path in TESTS.glob("*.py")
               if not path.name.startswith("test_") and path.name != Path(__file__).name}
    spawners: dict[str, set[str]] = {name: set() for name in modules}
    changed = True
    while changed:  # a helper calling a spawning helper (of its module or one it imports) spawns too
        changed = False
        for name, tree in modules.items():
            reachable = spawners[name] | _imported_spawners(tree, spawners)
            for node in tree.body:
                for defined in _defined_names(node):
                    if defined not in spawners[name] and (_spawns_itself(ast.unparse(node))
                                                          or _names_used(node) & reachable):
                        spawners[name].add(defined)
                        changed = True
    return spawners


def _imported_spawners(tree: ast.AST, spawners: dict[str, set[str]]) -> set[str]:
    """The spawning names a module imports from the helpers (`from peers import demo_http`, `import peers`)."""
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in spawners:
            imported |= {alias.asname or alias.name for alias in node.names if alias.name in spawners[node.module]}
        elif isinstance(node, ast.Import):
            imported |= {name for alias in node.names if alias.name in spawners for name in spawners[alias.name]}
    return imported


def _defined_names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [target.id for target in node.targets if isinstance(target, ast.Name)]
    return []


def spawning_files() -> list[str]:
    spawners = helper_spawners()
    found = []
    for path in sorted(TESTS.glob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        imported = _imported_spawners(tree, spawners)
        fixtures = _spawning_fixtures(spawners.get("conftest", set()))
        uses = _names_used(tree) | {arg.arg for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                                     for arg in node.args.args}
        if _spawns_itself(source) or uses & imported or uses & fixtures:
            found.append(path.name)
    return found


def _spawning_fixtures(conftest_spawners: set[str]) -> set[str]:
    """conftest's fixtures that spawn: a test reaches them by naming them as a parameter."""
    tree = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in conftest_spawners
            and any("fixture" in ast.unparse(decorator) for decorator in node.decorator_list)}


def all_test_files() -> list[str]:
    return sorted(path.name for path in TESTS.glob("test_*.py"))


if __name__ == "__main__":
    spawning = spawning_files()
    print(f"{len(spawning)} of {len(all_test_files())} test files spawn the CLI")
    if "-v" in sys.argv:
        print("\n".join(spawning))
