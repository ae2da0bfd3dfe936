"""The layering rules of docs/architecture.md, checked on every import of the package."""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from peers import demo_http
from mrtr_cli import __version__
from mrtr_cli.protocol.handshake import EVERY_VERSION

PACKAGE = ROOT / "mrtr_cli"
OWNERS = {
    "httpx": {"transport/http/"},
    "questionary": {"answering/interactive.py"},
    "prompt_toolkit": {"answering/interactive.py", "commands/line_editor.py"},  # questions; the shell's command line
    "yaml": {"fileio/yaml_loader.py", "fileio/yaml_dumper.py"},
    "jsonschema": {"forms/validation.py"},
    "referencing": {"forms/validation.py"},
    "typer": {"cli/"},
    "click": {"cli/"},
    "rich": {"render/"},
    "platformdirs": {"config/config_dir.py"},
    "authlib": {"auth/oauth.py"},
    "joserfc": {"auth/oauth.py"},
    "xml": {"render/junit.py"},
    "locust": {"load/"},
    "gevent": {"load/"},
    "pytest": {"pytest_plugin.py"},
    "_pytest": {"pytest_plugin.py"},
}
"""Who may import each outside library: modules, or every module under a folder (ending in /)."""
STDLIB_ONLY = ("protocol/", "text.py", "fileio/yaml_emitters.py", "forms/formats.py", "forms/flat_forms.py", "forms/wording.py",
               "answering/answers_shape.py", "definition/option_table.py", "definition/command_table.py")


@functools.cache
def parsed(source: str) -> ast.Module:
    """A module's tree, parsed once for all the rules that read it (never changed: each rule only walks it)."""
    return ast.parse(source)


def imports(path: Path) -> set[str]:
    tree = parsed(path.read_text(encoding="utf-8"))
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
    code = ("import sys; import mrtr_cli.transport.http.connection, httpx; "
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
    TARGET_MODULES may; everywhere else asks the target (`mirrors_headers`, `probes_era`, ...)."""
    leaks = [f"line {source.count(chr(10), 0, found.start()) + 1}: {found.group()}"
             for found in TARGET_CLASSES.finditer(source)]
    for node in ast.walk(parsed(source)):
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


TARGET_MODULES = (PACKAGE / "targets/target.py", PACKAGE / "targets/target_kinds.py")
"""The kinds (target_kinds.py) and resolving a target from flags, files and transcripts (target.py)."""


@pytest.mark.parametrize("path", [p for p in MODULES if p not in TARGET_MODULES],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_target_modules_tell_target_kinds_apart(path: Path):
    assert not target_kind_leaks(path.read_text(encoding="utf-8")), f"{path.name} tells target kinds apart"


@pytest.mark.parametrize("source", [
    "from mrtr_cli.targets.target import HttpTarget, resolve_target\n",
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
    source = ('from mrtr_cli.targets.target import Target, resolve_target\n'
              'if target.mirrors_headers and scheme == "http" and field.kind == "choice":\n    pass\n'
              'entry = target.transcript_entry()\n')
    assert target_kind_leaks(source) == []


def sessions_made(source: str) -> list[str]:
    """Where a module makes a `Session` itself (a call of the name `Session`): check's probes take theirs
    from the command's conversation (`Prober.sessions`, commands/conversation_builder.py's `Live.session`)."""
    return [f"line {node.lineno}: {ast.unparse(node)}" for node in ast.walk(parsed(source))
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("Session", "session.Session")]


@pytest.mark.parametrize("path", sorted((PACKAGE / "check").glob("*.py")), ids=lambda p: p.name)
def test_checks_probes_run_the_commands_own_sessions(path: Path):
    assert not sessions_made(path.read_text(encoding="utf-8")), f"check/{path.name} makes its own Session"


def test_the_session_rule_catches_a_session_made_and_leaves_a_handed_one_alone():
    assert sessions_made("outcome = Session(client, chain).run('tools/call', params)\n")
    assert not sessions_made("outcome = self.prober.sessions(chain, hopping=False).run('tools/call', params)\n")


ERA_NAMES = {"modern", "older", *EVERY_VERSION}
"""What names an era: its name (as events, outcomes and transcripts give it) and each version."""
ERA_MODULES = (PACKAGE / "conversation" / "eras.py", PACKAGE / "conversation" / "era.py")
"""The era as one strategy (eras.py: what differs) and choosing it from the flags (era.py)."""


def era_name_leaks(source: str) -> list[str]:
    """Where a module tells eras apart by name: it compares a value with an era's name or a
    version written out, or compares an era's `.name`. Only ERA_MODULES may; everywhere else asks
    the era (`client.era.headers(...)`, `.handshake`, `era_named(transcript.era)`, ...)."""
    return [f"line {node.lineno}: {ast.unparse(node)}" for node in ast.walk(parsed(source))
            if isinstance(node, ast.Compare) and any(_names_an_era(side) for side in [node.left, *node.comparators])]


def _names_an_era(side: ast.expr) -> bool:
    if isinstance(side, ast.Constant):
        return side.value in ERA_NAMES
    if isinstance(side, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_an_era(element) for element in side.elts)
    return isinstance(side, ast.Attribute) and side.attr == "name" and isinstance(side.value, ast.Attribute) \
        and side.value.attr == "era"


@pytest.mark.parametrize("path", [p for p in MODULES if p not in ERA_MODULES],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_era_modules_tell_eras_apart_by_name(path: Path):
    assert not era_name_leaks(path.read_text(encoding="utf-8")), f"{path.name} tells eras apart by name"


@pytest.mark.parametrize("source", [
    'if client.era.name == "older":\n    pass\n',
    'modern = outcome.era != "modern"\n',
    'if transcript.era in ("auto", "older"):\n    pass\n',
    'if version == "2025-11-25":\n    pass\n',
    'same = self.era.name is other\n',
])
def test_the_era_rule_catches_each_way_of_telling_eras_apart(source: str):
    assert era_name_leaks(source)


def test_the_era_rule_lets_eras_be_asked():
    source = ('if client.era.handshake and era_named(outcome.era).asks_for_tasks:\n    pass\n'
              'headers = client.era.headers(message)\nsaid = {"era": client.era.name}\n')
    assert era_name_leaks(source) == []


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


LEAVES = {"errors.py", "exit_codes.py", "text.py", "__init__.py"}
"""Modules any layer may import: the errors (each with its exit code), the exit codes, text made
safe, and the package's version. They import nothing of ours but each other."""
ALLOWED_IMPORTS: dict[str, set[str]] = {
    # the front doors
    "__main__.py": {"entry.py"},
    "entry.py": {"cli/", "commands/", "fast_paths/", "load/first.py", "definition/option_table.py", "process/"},
    "pytest_plugin.py": {"commands/"},
    # the command line, and the commands: a usual run read without typer, any other through it
    "fast_paths/": {"render/", "definition/options.py", "definition/option_table.py", "definition/command_table.py",
                    "commands/"},
    "cli/": {"commands/", "fast_paths/", "load/", "render/", "definition/options.py", "definition/option_table.py",
             "definition/command_table.py"},
    "commands/": {"answering/", "auth/", "check/", "conversation/", "forms/", "proxy/", "render/", "server/",
                  "transcript/", "transport/", "protocol/", "targets/target.py", "fileio/files.py",
                  "fileio/yaml_loader.py", "fileio/yaml_dumper.py", "process/workflow_commands.py",
                  "process/signals.py", "targets/mcp_config.py", "definition/", "config/"},
    # `mrtr load` and TranscriptUser: replay's machinery on Locust (which it alone imports)
    "load/": {"commands/", "transcript/", "targets/target.py", "definition/options.py", "conversation/events.py",
              "fileio/files.py"},
    # which server the commands talk to
    "targets/": {"transport/", "protocol/", "definition/options.py", "auth/", "fileio/files.py", "forms/validation.py"},
    # the parts the commands put together: render/ draws what the others hand it
    "render/": {"answering/", "auth/", "check/", "conversation/", "forms/", "proxy/", "transcript/", "protocol/",
                "config/kept_tasks.py"},
    "server/": {"transcript/", "protocol/", "forms/validation.py", "process/signals.py"},
    "proxy/": {"answering/", "conversation/", "transcript/", "transport/", "protocol/", "fileio/files.py",
               "forms/validation.py", "fileio/yaml_dumper.py", "process/signals.py", "fileio/jsonc_spans.py"},
    "check/": {"answering/", "auth/", "conversation/", "transport/", "protocol/", "forms/validation.py",
               "fileio/jsonc_spans.py"},
    "transcript/": {"answering/", "conversation/", "protocol/", "targets/target.py", "definition/arguments.py",
                    "definition/options.py", "fileio/files.py", "fileio/yaml_loader.py", "fileio/yaml_dumper.py",
                    "forms/validation.py", "process/signals.py"},
    "conversation/": {"answering/", "forms/", "transport/", "protocol/", "process/signals.py"},
    "answering/": {"forms/", "protocol/", "definition/options.py", "fileio/yaml_loader.py", "fileio/yaml_dumper.py"},
    "forms/": {"protocol/", "fileio/files.py"},
    "auth/": {"transport/", "config/config_dir.py", "definition/options.py", "process/signals.py"},
    # moving text, and the wire's rules
    "transport/": {"protocol/headers.py", "protocol/meta.py", "protocol/jsonrpc.py", "process/signals.py"},
    "protocol/": set(),
    # shared folders below the parts: the command line declared, files, the config folder, the process
    "definition/": {"forms/", "fileio/files.py", "transport/base.py", "protocol/"},
    "fileio/": set(),
    "config/": set(),
    "process/": {"transport/"},
    "errors.py": {"exit_codes.py"},
    "exit_codes.py": set(),
    "text.py": set(),
    "__init__.py": set(),
}
"""Which of mrtr's own folders and top-level modules each may import (besides LEAVES and itself),
as docs/architecture.md draws them: a folder ends in /, a module names one module of a folder."""
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {}
"""Upward imports the code has today, each with why and what would remove it. A new one fails."""


def unit_of(relative: str) -> str:
    """The folder (`render/`) or top-level module (`text.py`) a module of the package belongs to."""
    first, _, rest = relative.partition("/")
    return f"{first}/" if rest else first


def module_path(dotted: str) -> str:
    """The package's module an import names (`mrtr_cli.protocol.jsonrpc.encode` -> `protocol/jsonrpc.py`)."""
    path = PACKAGE
    for part in dotted.split(".")[1:]:
        if (path / part).is_dir():
            path = path / part
        elif (path / f"{part}.py").is_file():
            return str((path / f"{part}.py").relative_to(PACKAGE))
        else:
            break
    return str((path / "__init__.py").relative_to(PACKAGE))


def own_imports(source: str) -> list[tuple[int, str]]:
    """Each import of the package's own modules, at any depth (module level, in a function, under
    TYPE_CHECKING), as (line, the module's path); a relative import as (line, "relative")."""
    found = []
    for node in ast.walk(parsed(source)):
        if isinstance(node, ast.ImportFrom) and node.level:
            found.append((node.lineno, "relative"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "mrtr_cli":
            found += [(node.lineno, module_path(f"{node.module}.{alias.name}")) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, module_path(alias.name)) for alias in node.names
                      if alias.name.split(".")[0] == "mrtr_cli"]
    return found


def upward_imports(relative: str, source: str) -> list[str]:
    """The imports of the module at `relative` that ALLOWED_IMPORTS does not draw."""
    unit = unit_of(relative)
    if unit not in ALLOWED_IMPORTS:
        return [f"{relative} is in no layer: place {unit} in ALLOWED_IMPORTS and docs/architecture.md"]
    allowed = ALLOWED_IMPORTS[unit] | LEAVES | {unit}
    return [f"{relative}:{line} imports {target}" for line, target in own_imports(source)
            if not any(target == entry or entry.endswith("/") and target.startswith(entry) for entry in allowed)]


def package_upward_imports() -> set[tuple[str, str]]:
    found = set()
    for path in MODULES:
        relative = str(path.relative_to(PACKAGE))
        for breach in upward_imports(relative, path.read_text(encoding="utf-8")):
            found.add((relative, breach.rpartition(" imports ")[2]) if " imports " in breach else (relative, breach))
    return found


def test_imports_point_down_the_layers():
    assert package_upward_imports() - set(KNOWN_EXCEPTIONS) == set()


def test_each_known_exception_is_still_in_the_code():
    """A fixed exception leaves the list, so it cannot come back unnoticed."""
    assert set(KNOWN_EXCEPTIONS) - package_upward_imports() == set()


@pytest.mark.parametrize("relative, source", [
    ("protocol/x.py", "from mrtr_cli import render\n"),
    ("protocol/x.py", "import mrtr_cli.render.timeline\n"),
    ("protocol/x.py", "from mrtr_cli.fileio.files import load_json\n"),
    ("transport/x.py", "def f():\n    from mrtr_cli.conversation.client import Client\n"),
    ("transport/x.py", "from mrtr_cli.protocol.mrtr import MRTR_METHODS\n"),
    ("conversation/x.py", "if TYPE_CHECKING:\n    from mrtr_cli.targets.target import Target\n"),
    ("conversation/x.py", "from mrtr_cli.fileio import files; from mrtr_cli.conversation import events\n"),
    ("answering/x.py", "from mrtr_cli.transcript.model import Transcript\n"),
    ("render/x.py", "from ..cli import run\n"),
    ("newfolder/x.py", "import json\n"),
])
def test_the_layer_rule_catches_an_upward_import(relative: str, source: str):
    assert len(upward_imports(relative, source)) == 1


def test_the_layer_rule_lets_imports_point_down():
    source = ("from mrtr_cli.commands import call\nimport mrtr_cli.render.help\nfrom mrtr_cli import errors; from mrtr_cli.definition import options\n"
              "def f():\n    from mrtr_cli.definition.option_table import TABLE\n    from mrtr_cli.cli import help_page\n")
    assert upward_imports("cli/x.py", source) == []


KNOWN_CIRCLES: dict[str, str] = {}
"""Modules that reach themselves through the imports of their own folder today, and why. A new one fails."""


def modules_in_circles(graph: dict[str, set[str]]) -> set[str]:
    """The modules from which the imports lead back to themselves."""
    def reachable(start: str) -> set[str]:
        seen: set[str] = set()
        waiting = list(graph.get(start, ()))
        while waiting:
            module = waiting.pop()
            if module not in seen:
                seen.add(module)
                waiting += graph.get(module, ())
        return seen
    return {module for module in graph if module in reachable(module)}


def test_no_new_import_circles():
    graph = {str(path.relative_to(PACKAGE)): {target for _, target in own_imports(path.read_text(encoding="utf-8"))}
             for path in MODULES}
    assert modules_in_circles(graph) == set(KNOWN_CIRCLES)
    assert modules_in_circles({"a.py": {"b.py"}, "b.py": {"c.py"}, "c.py": {"a.py"}, "d.py": {"a.py"}}) == \
        {"a.py", "b.py", "c.py"}


def unit_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The imports between units (a folder or a top-level module, `unit_of`): `forms/fields.py`
    importing `validation.py` is `forms/` importing `validation.py`."""
    units: dict[str, set[str]] = {}
    for module, targets in graph.items():
        unit = unit_of(module)
        units.setdefault(unit, set()).update(unit_of(target) for target in targets if unit_of(target) != unit)
    return units


def test_no_import_circle_between_folders():
    """A folder reaches no module of its own through another folder: the layers, not just the
    modules, point one way."""
    graph = {str(path.relative_to(PACKAGE)): {target for _, target in own_imports(path.read_text(encoding="utf-8"))}
             for path in MODULES}
    assert modules_in_circles(unit_graph(graph)) == set()
    assert modules_in_circles(unit_graph({"a/x.py": {"b.py"}, "b.py": {"a/y.py"}, "a/y.py": set()})) == {"a/", "b.py"}


LOOSE_AT_MOST = 8
"""Modules at the top of mrtr_cli/, in no folder: the package's own, the front doors (__main__.py,
entry.py, pytest_plugin.py) and the leaves. Every other module is in the folder of its layer."""


def test_at_most_eight_modules_lie_loose_at_the_top():
    loose = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(loose) <= LOOSE_AT_MOST, f"{len(loose)} modules at the top of mrtr_cli/, {loose}: " \
        "put the new one in the folder of its layer"


def duplicate_module_names(paths: list[Path]) -> set[str]:
    names = [path.name for path in paths if path.name != "__init__.py"]
    return {name for name in names if names.count(name) > 1}


def test_module_names_are_unique():
    assert duplicate_module_names(MODULES) == set()
    assert duplicate_module_names([Path("server/http.py"), Path("transport/http.py"), Path("a/__init__.py"),
                                   Path("__init__.py")]) == {"http.py"}


def client_attributes_set(source: str) -> set[str]:
    """The attributes of a `client` (or `self.client`) that `source` assigns, as `client.settings.timeout`."""
    def rooted_at_client(node: ast.expr) -> str | None:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id == "client" and parts:
            return ".".join(["client", *reversed(parts)])
        if parts and parts[-1] == "client" and isinstance(node, ast.Name) and node.id == "self" and len(parts) > 1:
            return ".".join(["client", *reversed(parts[:-1])])
        return None

    targets: list[ast.expr] = []
    for node in ast.walk(parsed(source)):
        if isinstance(node, ast.Assign):
            targets += [element for target in node.targets
                        for element in (target.elts if isinstance(target, ast.Tuple) else [target])]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets.append(node.target)
    return {name for name in map(rooted_at_client, targets) if name is not None}


def test_the_client_is_changed_only_by_its_own_methods():
    """The era is a value the client takes (`Client.speak`): no module sets a client's attributes from
    outside (issue 25, item 1), and the transport is told no version on the side."""
    assert {str(path.relative_to(PACKAGE)): client_attributes_set(path.read_text(encoding="utf-8"))
            for path in MODULES if path.name != "client.py"} == \
        {str(path.relative_to(PACKAGE)): set() for path in MODULES if path.name != "client.py"}
    assert client_attributes_set("client.era, client.settings.version = 'older', v\nself.client.fallback = f\n"
                                 "client.settings.timeout += 1\nclient.x.append(1)\nself.era = e\n") == \
        {"client.era", "client.settings.version", "client.fallback", "client.settings.timeout"}
    assert "def negotiated" not in (PACKAGE / "transport" / "base.py").read_text(encoding="utf-8")


THREADS_STARTED_AS_THEY_ARE = {"auth/flow.py"}
"""Modules whose threads start with the run's signals not blocked: the login's thread may start the browser
(`--browser-command`), which would keep them blocked (process/signals.py's `start`)."""


def threads_started_bare(source: str) -> int:
    """How many threads a module starts itself (`….start()`), not through `signals.start`, when it makes one."""
    tree = parsed(source)
    makes = any(isinstance(node, ast.Call) and ast.unparse(node.func) == "threading.Thread" for node in ast.walk(tree))
    return sum(1 for node in ast.walk(tree) if makes and isinstance(node, ast.Call)
               and isinstance(node.func, ast.Attribute) and node.func.attr == "start" and not node.args
               and ast.unparse(node.func.value) != "signals")


def test_every_thread_mrtr_starts_leaves_the_signals_to_the_main_thread():
    bare = [str(path.relative_to(PACKAGE)) for path in MODULES
            if "threading.Thread(" in (source := path.read_text(encoding="utf-8")) and threads_started_bare(source)]
    assert sorted(bare) == sorted(THREADS_STARTED_AS_THEY_ARE)


def test_the_thread_rule_sees_a_thread_started_bare_and_leaves_one_started_by_signals_alone():
    assert threads_started_bare("t = threading.Thread(target=f)\nt.start()\n") == 1
    assert threads_started_bare("threading.Thread(target=f).start()\n") == 1
    assert threads_started_bare("signals.start(threading.Thread(target=f))\n") == 0
    assert threads_started_bare("self.pump.start()\n") == 0  # no thread made here
