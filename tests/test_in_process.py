"""mrtr run in-process (`entry.main(argv, env)`) and the in-memory transport: a run's world is its
Environment's alone, the demo answers without a process, and few test files still spawn the CLI."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cli_spawns import _spawns_itself, all_test_files, spawning_files
from conftest import mrtr_here
from mrtr_cli.entry import main
from mrtr_cli.process.environment import Environment
from mrtr_cli.transport.base import Deadline, Frame, TransportTimeout
from mrtr_cli.transport.memory import MemoryTransport
from mrtr_cli.commands.in_memory import demo_transport

SPAWNING_AT_MOST = 1 / 3
"""Issue 36: at most a third of the test files spawn the CLI (`python -m mrtr_cli`, the demo included)."""


def run(argv: list[str], **world) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    variables = {"PATH": os.environ.get("PATH", ""), **world.pop("variables", {})}
    code = main(argv, Environment(variables, io.StringIO(""), stdout, stderr, **world))
    return code, stdout.getvalue(), stderr.getvalue()


def test_two_runs_in_one_process_see_only_their_own_environment(tmp_path: Path):
    before = (dict(os.environ), sys.stdin, sys.stdout, sys.stderr, os.getcwd(), signal.getsignal(signal.SIGINT))
    narrow = run(["auth", "status"], width=50, config_dir=tmp_path / "one", variables={"NO_COLOR": "1"})
    wide = run(["auth", "status"], width=200, config_dir=tmp_path / "two", cwd=tmp_path)
    assert narrow == (0, f"no logins kept (in {tmp_path / 'one' / 'auth'})\n", "")
    assert wide == (0, f"no logins kept (in {tmp_path / 'two' / 'auth'})\n", "")
    narrow_help, wide_help = run(["call", "--help"], width=50)[1], run(["call", "--help"], width=200)[1]
    assert {len(line) for line in narrow_help.splitlines() if line.startswith("╭")} == {50}  # the boxes
    assert {len(line) for line in wide_help.splitlines() if line.startswith("╭")} == {200}
    after = (dict(os.environ), sys.stdin, sys.stdout, sys.stderr, os.getcwd(), signal.getsignal(signal.SIGINT))
    assert after == before  # nothing of either run is left in the process


def test_whether_a_stream_is_a_terminal_comes_from_the_environment():
    """A terminal's stderr gets colour unless NO_COLOR says not; a pipe never does: the same run, told
    apart by the Environment alone."""
    unknown = ["call", "no_such_tool", "--demo"]  # the demo says it has none: the timeline on stderr, exit 2
    term = {"TERM": "xterm-256color"}
    coloured = run(unknown, stderr_isatty=True, stdout_isatty=True, variables=term, demo_in_memory=True)
    plain = run(unknown, stderr_isatty=False, variables=term, demo_in_memory=True)
    no_colour = run(unknown, stderr_isatty=True, stdout_isatty=True, variables={**term, "NO_COLOR": "1"},
                    demo_in_memory=True)
    assert coloured[0] == plain[0] == no_colour[0] == 2
    assert "\x1b[1;36m" in coloured[2]  # cyan
    assert "\x1b[" not in plain[2]
    assert "\x1b[" in no_colour[2] and "36m" not in no_colour[2]  # NO_COLOR keeps bold and dim, no colour


def test_main_returns_the_exit_code_and_never_exits():
    code, stdout, stderr = run(["call"])  # a usage error, which click would end with sys.exit
    assert code == 1 and stdout == "" and stderr.strip()


def test_the_demo_in_memory_starts_no_process(monkeypatch: pytest.MonkeyPatch):
    def no_process(*args, **kwargs):
        raise AssertionError(f"a process was started: {args[0]}")

    monkeypatch.setattr(subprocess, "Popen", no_process)
    done = mrtr_here("call", "poll_status", "--demo", "--json")
    assert done.code == 0, done.stderr
    assert done.json()["result"]["resultType"] == "complete"


def test_the_demo_over_a_process_and_in_memory_answer_the_same():
    modern = ["call", "book_table", "-a", "city=Porto", "--answers", "examples/book_table.yaml", "--demo", "--json"]
    from conftest import mrtr

    here, there = mrtr_here(*modern), mrtr(*modern)
    assert here.code == there.code == 0, (here.stderr, there.stderr)
    assert here.json()["result"] == there.json()["result"]


class Echo:
    """A handler of our own: answers each request with its method, says nothing to a notification."""

    def __init__(self, sink) -> None:
        self.sink = sink
        self.closed = False

    def receive(self, line: bytes) -> None:
        import json

        message = json.loads(line)
        if "id" in message and message.get("method") != "silent":
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": {"method": message["method"]}}
            self.sink.write(json.dumps(reply).encode() + b"\n")

    def close(self) -> None:
        self.closed = True


def test_the_memory_transport_carries_frames_both_ways_to_any_handler():
    handlers: list[Echo] = []
    transport = MemoryTransport(lambda sink: handlers.append(Echo(sink)) or handlers[-1], "echo")
    exchange = transport.start('{"jsonrpc": "2.0", "id": 1, "method": "ping"}', {})
    assert next(exchange.frames(Deadline(30))) == Frame('{"jsonrpc": "2.0", "id": 1, "result": {"method": "ping"}}')
    exchange = transport.start('{"jsonrpc": "2.0", "id": 2, "method": "silent"}', {})
    with pytest.raises(TransportTimeout):
        next(exchange.frames(Deadline(0.05)))  # nothing comes: the deadline ends the wait
    transport.close()
    assert handlers[0].closed
    assert transport.describe() == "echo"


def test_the_demo_in_memory_answers_discover():
    transport = demo_transport()
    try:
        exchange = transport.start('{"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}', {})
        frame = next(exchange.frames(Deadline(30)))
    finally:
        transport.close()
    assert "_meta must carry io.modelcontextprotocol/protocolVersion" in str(frame.data)  # the demo's own check


def test_at_most_a_third_of_the_test_files_spawn_the_cli():
    spawning, files = spawning_files(), all_test_files()
    assert len(spawning) <= len(files) * SPAWNING_AT_MOST, f"{len(spawning)} of {len(files)}: {spawning}"


def test_the_count_sees_each_way_of_spawning():
    spawning = set(spawning_files())
    assert {"test_help_fast.py",  # python -m mrtr_cli itself
            "test_demo_older_era.py",  # through a helper of tests/ (older_peers.OlderStdio)
            "test_pytest_plugin.py",  # the plugin's --mrtr-demo
            "test_fresh_interpreter.py",  # a python -c program running the entry
            "test_shared_server.py",  # entry.main with no Environment and --demo
            "test_in_process.py"} <= spawning  # it spawns once, to compare the demo's process with its memory
    assert "test_demo.py" not in spawning and "test_hops.py" not in spawning  # in-process now
    assert _spawns_itself('subprocess.run([PYTHON, "-m", "mrtr_cli", "call"])')
    assert not _spawns_itself('mrtr_here("call", "t", "--demo")')


def test_the_cli_fixture_runs_mrtr_in_process(cli):
    from mrtr_cli import __version__

    done = cli("--version")
    assert (done.code, done.stdout, done.stderr) == (0, f"mrtr {__version__}\n", "")
    usage = cli("call", "--demo", "--json")  # the tool is missing: exit 1, one JSON error line
    assert usage.code == 1 and usage.error_line()["error"]["code"] == "usage"


def test_auto_starts_three_workers_per_cpu_unless_the_variable_says_how_many(monkeypatch: pytest.MonkeyPatch):
    """The suite waits on servers much of its time: `-n auto` fills the wait (conftest.WORKERS_PER_CPU)."""
    from conftest import MOST_WORKERS, WORKERS_PER_CPU, pytest_xdist_auto_num_workers

    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert WORKERS_PER_CPU == 3 and pytest_xdist_auto_num_workers(None) == 6
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert pytest_xdist_auto_num_workers(None) == MOST_WORKERS
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "3")
    assert pytest_xdist_auto_num_workers(None) is None  # xdist reads the variable itself
