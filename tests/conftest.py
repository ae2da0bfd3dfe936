"""Shared test helpers: run mrtr as a user does, and the servers it talks to."""

from __future__ import annotations

import atexit
import compileall
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ROOT / "tests" / "servers"
PYTHON = sys.executable
CONFIG_DIR = tempfile.mkdtemp(prefix="mrtr-tests-config-")
"""Every mrtr the tests run keeps (and looks for) logins here, never in the real home: set before mrtr reads it
and inherited by every process the tests start. It replaces a MRTR_CONFIG_DIR the shell set (the user's own),
and each pytest-xdist worker loads this file and makes its own, so no two workers share one."""
os.environ["MRTR_CONFIG_DIR"] = CONFIG_DIR
atexit.register(shutil.rmtree, CONFIG_DIR, ignore_errors=True)
PROBE_ANSWERED_WITHIN = "60"
"""MRTR_ERA_PROBE_WAIT for every mrtr the tests run: how soon a server answers server/discover is how soon its
process starts, which a loaded machine stretches past the 3 s default, and the era probe would then take it for a
silent one. A test of silence gives its own --era-probe-wait (or variable)."""
os.environ["MRTR_ERA_PROBE_WAIT"] = PROBE_ANSWERED_WITHIN
SDK_SERVER = [PYTHON, str(SERVERS / "sdk_server.py")]

settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", settings.get_profile("suite"), max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))
"""Hypothesis in every test: no deadline and no too_slow check (on a loaded machine they time the machine, not mrtr);
a property test that names no max_examples runs hypothesis' 100 here and 1000 with HYPOTHESIS_PROFILE=thorough."""
SPEC = ROOT / "tests" / "spec" / "2026-07-28"  # copied from ../shared/mcp-spec: CI has only this repo


@dataclass
class Run:
    """A finished mrtr process."""

    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)

    def error_line(self) -> Any:
        return json.loads(self.stderr.strip().splitlines()[-1])


def mrtr(*args: str, env: dict[str, str] | None = None, timeout: float = 60, cwd: Path | None = None) -> Run:
    """Run `python -m mrtr_cli ARGS` to completion, colour off, as a user's shell would."""
    environment = {**os.environ, "NO_COLOR": "1", **(env or {})}
    done = subprocess.run([PYTHON, "-m", "mrtr_cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=environment, cwd=cwd or ROOT)
    return Run(done.returncode, done.stdout, done.stderr)


def mrtr_here(*args: str, env: dict[str, str] | None = None, stdin: str = "", terminal: bool = False,
              width: int | None = 80, config_dir: Path | None = None, cwd: Path | None = None,
              merged: bool = False) -> Run:
    """Run mrtr ARGS in this process (`mrtr_cli.entry.main` in an Environment of its own), colour off
    as `mrtr` does; `--demo` is the demo in memory, so no process starts but the servers a test names.
    Its own streams, variables (this process's, with `env`), width and config folder: nothing of one
    run reaches the next (test_in_process.py holds it). `terminal`: all three streams say they are one.
    `merged`: stdout and stderr are one stream, as `2>&1` makes them (the Run's stdout holds both)."""
    from mrtr_cli.entry import main
    from mrtr_cli.process.environment import Environment

    stdout = _text_stream()
    stderr = stdout if merged else _text_stream()
    variables = {**os.environ, "NO_COLOR": "1", **(env or {})}
    width = None if "COLUMNS" in (env or {}) else width  # a test's own COLUMNS (even empty) is the width
    environment = Environment(variables, io.StringIO(stdin), stdout, stderr,
                              terminal, terminal, terminal, width, config_dir,
                              cwd or ROOT, demo_in_memory=True)
    code = main(list(args), environment)
    return Run(code, _written(stdout), "" if merged else _written(stderr))


def _text_stream() -> io.TextIOWrapper:
    """A text stream over bytes, as a real stdout is (some writers reach for its `.buffer`)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)


def _written(stream: io.TextIOWrapper) -> str:
    stream.flush()
    return stream.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]


WORKERS_PER_CPU = 3
"""`-n auto`: three workers per CPU. Much of the suite's time is a worker waiting on a server process it started, so
more workers than CPUs overlap the waits (measured on 2 CPUs, the whole suite: one worker per CPU 7 min 6 s, two
4 min 51 s to 5 min 0 s, three 4 min 15 s and 4 min 41 s, four 4 min 43 s); past three, the workers' own start and
collection cost more CPU than the overlap gives back. The whole suite stays green under that load."""
MOST_WORKERS = 32
"""Past this, more workers only add processes: the servers they start compete for the same CPUs."""


def pytest_configure(config: pytest.Config) -> None:
    """Compile mrtr and the tests' servers once, before any worker starts: every mrtr and server the tests spawn then
    reads its bytecode instead of compiling each module again. It matters where PYTHONDONTWRITEBYTECODE is set (this
    machine and CI set it), which keeps a fresh clone without bytecode: a spawned `mrtr call` took twice as long."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        for folder in (ROOT / "mrtr_cli", ROOT / "tests"):
            compileall.compile_dir(folder, quiet=1, workers=0)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """The workers `-n auto` starts (pytest-xdist's hook); PYTEST_XDIST_AUTO_NUM_WORKERS still chooses when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own reading of the variable
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(MOST_WORKERS, WORKERS_PER_CPU * cpus)


@pytest.fixture
def cli() -> Any:
    """`cli(*args, env=..., stdin=..., terminal=..., width=...)`: mrtr run in-process; a Run (code, stdout, stderr)."""
    return mrtr_here


def sdk(*args: str) -> list[str]:
    """`mrtr ARGS -- <the SDK test server>`."""
    return [*args, "--", *SDK_SERVER]


class Scripted:
    """A scripted stdio server (tests/servers/scripted_server.py) and what it received."""

    def __init__(self, directory: Path, **script: Any) -> None:
        self.log = directory / "received.jsonl"
        self.path = directory / "script.json"
        self.path.write_text(json.dumps({"log": str(self.log), **script}), encoding="utf-8")

    @property
    def command(self) -> list[str]:
        return [PYTHON, str(SERVERS / "scripted_server.py"), str(self.path)]

    def args(self, *args: str) -> list[str]:
        return [*args, "--", *self.command]

    def received(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def calls(self) -> list[dict[str, Any]]:
        """The requests other than discover and the lists."""
        return [m for m in self.received() if "id" in m and m["method"] in
                ("tools/call", "resources/read", "prompts/get")]


@pytest.fixture
def scripted(tmp_path: Path) -> Any:
    """`scripted(steps=[...], ...)` makes a scripted server in a fresh directory."""
    count = iter(range(1000))

    def make(**script: Any) -> Scripted:
        directory = tmp_path / f"server{next(count)}"
        directory.mkdir()
        return Scripted(directory, **script)

    return make


def text_result(text: str, **extra: Any) -> dict[str, Any]:
    return {"resultType": "complete", "content": [{"type": "text", "text": text}], **extra}


def elicit(message: str, properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties,
              "required": list(properties) if required is None else required}
    return {"method": "elicitation/create", "params": {"mode": "form", "message": message,
                                                        "requestedSchema": schema}}


def input_required(requests: dict[str, Any] | None = None, state: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"resultType": "input_required"}
    if requests is not None:
        result["inputRequests"] = requests
    if state is not None:
        result["requestState"] = state
    return result
