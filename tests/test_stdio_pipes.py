"""The stdio transport's pipes, read and written in the caller's thread: real processes and real
pipes. A big request to a server that floods stdout, lines cut anywhere by the reads, the size
limit, stderr beside stdout in arrival order, a server that dies mid-line, bytes that are not UTF-8."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import elicit, input_required, mrtr_here
from test_hostile_stdio import process_alive, wait_for
from mrtr_cli.errors import UnreachableError
from mrtr_cli.transport.base import Deadline, Frame, StderrLine, TransportTimeout
from mrtr_cli.transport.server_pipes import ServerPipes
from mrtr_cli.transport.stdio import StdioTransport

FORM = elicit("Name?", {"name": {"type": "string"}})
BIG_STATE = "s" * (4 * 1024 * 1024)


def test_a_write_to_a_server_that_reads_no_more_times_out(scripted, tmp_path: Path):
    """Round 2's 4 MB requestState fills the pipe of a server that reads nothing more: after
    --timeout, one line (exit 4, unreachable), not a hang, and the server is stopped."""
    pidfile = tmp_path / "server.pid"
    server = scripted(pidfile=str(pidfile), steps=[{"result": input_required({"n": FORM}, BIG_STATE), "pause": 60}])
    started = time.monotonic()
    run = mrtr_here(*server.args("call", "t", "--answer", "n.name=Ada", "--timeout", "3"))
    assert run.code == 4, run.stderr[-2000:]
    assert "the server read no more of its stdin for 3 s: mrtr could not write a message of" in run.stderr
    assert "while mrtr sent tools/call (id 3)" in run.stderr
    assert "raise --timeout if it is just slow" in run.stderr.splitlines()[-1]
    assert time.monotonic() - started < 20
    assert wait_for(lambda: not process_alive(int(pidfile.read_text())), 10), "the server outlived mrtr"


def test_pipes_time_a_write_out_when_the_server_reads_no_more():
    pipes = pipes_of(child("import time; time.sleep(30)"), limit=1 << 20)  # the fixture stops the child
    started = time.monotonic()
    with pytest.raises(TransportTimeout):
        pipes.write(b"z" * (4 << 20), 0.5)
    assert 0.5 <= time.monotonic() - started < 5


def test_a_write_says_before_it_waits_for_room_and_only_then():
    """mrtr shows what it held back before a write waits on a full pipe; a write that fits waits for nothing."""
    pipes, waits = pipes_of(child("import sys, time\ntime.sleep(0.5)\nsys.stdin.buffer.read()"), limit=1 << 20), []
    assert pipes.write(b"small\n", 5, lambda: waits.append("small")) is True
    assert pipes.write(b"z" * (4 << 20), 10, lambda: waits.append("big")) is True
    assert waits == ["big"]


def test_a_big_request_to_a_server_flooding_stdout_does_not_deadlock(scripted, tmp_path: Path):
    """Round 2 carries a 4 MB requestState while the server, not reading stdin, writes 2 MB of
    notifications: mrtr must read them while it writes. Nothing read is lost or reordered."""
    server = scripted(steps=[{"result": input_required({"n": FORM}, BIG_STATE), "after": 2_000_000},
                             {"result": {"resultType": "complete", "content": []}}])
    run = mrtr_here(*server.args("call", "t", "--answer", "n.name=Ada", "--json"))
    assert run.code == 0, run.stderr[-2000:]
    assert server.calls()[1]["params"]["requestState"] == BIG_STATE
    numbers = re.findall(r"log info: chatter (\d{6})", run.stderr)
    assert numbers == [f"{n:06d}" for n in range(2_000_000 // 16_000)]


CHILDREN: list[subprocess.Popen[bytes]] = []


@pytest.fixture(autouse=True)
def _stop_children():
    yield
    while CHILDREN:
        process = CHILDREN.pop()
        process.kill()
        process.wait(5)
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                stream.close()
            except OSError:
                pass


def child(code: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    CHILDREN.append(process)
    return process


def pipes_of(process: subprocess.Popen[bytes], limit: int = 1024, forward: bool = True) -> ServerPipes:
    assert process.stdin and process.stdout and process.stderr
    return ServerPipes(process.stdin, process.stdout, process.stderr, max_message_size=limit,
                       stderr_line_limit=100, stderr_tail=20, forward_stderr=forward)


def read_all(pipes: ServerPipes, seconds: float = 10) -> list:
    """Everything until stdout ends (and stderr too), within `seconds`."""
    until = time.monotonic() + seconds
    while (pipes.ended is None or pipes._stderr_open) and time.monotonic() < until:
        pipes.wait(until - time.monotonic())
    assert pipes.ended is not None, "stdout never ended"
    return list(pipes.pending)


WRITER = """
import os, sys, time
for piece in {pieces!r}:
    os.write({fd}, piece)
    time.sleep(0.02)
"""


def written(pieces: list[bytes], fd: int = 1) -> subprocess.Popen[bytes]:
    return child(WRITER.format(pieces=pieces, fd=fd))


def test_lines_cut_anywhere_by_the_reads_arrive_whole():
    process = written([b'{"a"', b': 1}\n{"b": 2}\n{"c"', b"", b": 3}\r\n", b"\n", b"tail without newline"])
    got = read_all(pipes_of(process))
    assert got == [Frame('{"a": 1}\n'), Frame('{"b": 2}\n'), Frame('{"c": 3}\r\n'), Frame("\n"),
                   Frame("tail without newline")]


def test_a_server_that_dies_mid_line_gives_its_part_then_the_end():
    process = child("import os; os.write(1, b'{\"jsonrpc\": \"2.0\", \"id\"'); os.write(2, b'dying\\n'); os._exit(3)")
    pipes = pipes_of(process)
    got = read_all(pipes)
    assert Frame('{"jsonrpc": "2.0", "id"') in got and pipes.ended == ("eof", b"")
    assert list(pipes.stderr_tail) == ["dying"]
    assert process.wait(5) == 3


@pytest.mark.parametrize("line,fits", [(b"x" * 1024 + b"\n", True), (b"x" * 1024 + b"\r\n", True),
                                       (b"x" * 1025 + b"\n", False), (b"x" * 1026, False)])
def test_the_limit_counts_a_line_without_its_ending(line, fits):
    process = written([b"first\n", line[:600], line[600:], b"after\n"])
    pipes = pipes_of(process, limit=1024)
    got = read_all(pipes)
    if fits:
        assert got == [Frame("first\n"), Frame(line.decode()), Frame("after\n")] and pipes.ended == ("eof", b"")
    else:
        assert got == [Frame("first\n")] and pipes.ended == ("too-large", 1024)


def test_an_endless_line_is_refused_without_buffering_past_the_limit():
    process = child("import os\nwhile True: os.write(1, b'x' * 65536)")
    pipes = pipes_of(process, limit=200_000)
    read_all(pipes)
    assert pipes.ended == ("too-large", 200_000) and pipes._out.size == 0


def test_bytes_that_are_not_utf8_stay_bytes_on_stdout_and_are_replaced_on_stderr():
    process = written([b'{"x": "\xff\xfe"}\n'])
    stderr = written([b"bad \xff byte\n"], fd=2)
    assert read_all(pipes_of(process)) == [Frame(b'{"x": "\xff\xfe"}\n')]
    pipes = pipes_of(stderr)
    read_all(pipes)
    assert list(pipes.stderr_tail) == ["bad \ufffd byte"]


def test_stderr_lines_come_in_arrival_order_with_stdout_lines():
    code = ("import os, time\n"
            "for n in range(5):\n"
            "    os.write(2, b'err %d\\n' % n); time.sleep(0.05)\n"
            "    os.write(1, b'out %d\\n' % n); time.sleep(0.05)\n")
    process = child(code)
    got = read_all(pipes_of(process))
    expected = [item for n in range(5) for item in (StderrLine(f"err {n}"), Frame(f"out {n}\n"))]
    assert got == expected


def test_a_long_stderr_line_is_kept_by_its_first_part_and_not_forwarded_without_v():
    process = written([b"a" * 60, b"b" * 60, b"c" * 60 + b"\nnext\n", b"last"], fd=2)
    pipes = pipes_of(process, forward=False)
    assert read_all(pipes) == []
    assert list(pipes.stderr_tail) == ["a" * 60 + "b" * 40, "next", "last"]


def test_a_write_reads_what_the_server_writes_while_the_pipe_is_full():
    """The server writes 1 MB before it reads anything; the 8 MB write must still finish."""
    code = ("import os, sys\n"
            "for n in range(64): os.write(1, b'%05d' % n + b'y' * 16000 + b'\\n')\n"
            "total = 0\n"
            "while chunk := os.read(0, 1 << 20): total += len(chunk)\n"
            "os.write(1, b'got %d\\n' % total)\n")
    process = child(code)
    pipes = pipes_of(process, limit=1 << 20)
    assert pipes.write(b"z" * (8 << 20)) is True
    process.stdin.close()
    got = read_all(pipes, 30)
    assert [line.data[:5] for line in got[:64]] == [f"{n:05d}" for n in range(64)]
    assert got[64:] == [Frame(f"got {8 << 20}\n")]


def test_a_timeout_and_the_end_reach_the_caller_as_before():
    transport = StdioTransport([sys.executable, "-c", "import sys, time; time.sleep(0.3); sys.exit(4)"])
    with pytest.raises(TransportTimeout):
        transport.receive(Deadline(0.1))
    with pytest.raises(UnreachableError, match="exited with code 4"):
        transport.receive(Deadline(10))
    transport.close()


def test_a_write_to_a_server_that_is_gone_says_so():
    transport = StdioTransport([sys.executable, "-c", "import os; os.write(2, b'bye\\n')"])
    assert wait_for(lambda: transport._process.poll() is not None)  # gone before the write, however slow its start
    with pytest.raises(UnreachableError, match="exited with code 0") as raised:
        transport.write("x" * (1 << 20))
    assert raised.value.details and list(raised.value.details) == ["bye"]
    transport.close()


def test_a_server_that_writes_as_it_shuts_down_ends_on_its_own():
    """On stdin's end it writes 1 MB to stderr and to stdout: read on, it exits by itself (code 0),
    within the first grace period, not by SIGTERM."""
    code = ("import os, sys\n"
            "os.write(1, b'ready\\n')\n"
            "sys.stdin.read()\n"
            "for n in range(64): os.write(2, b'e' * 16000 + b'\\n'); os.write(1, b'o' * 16000 + b'\\n')\n")
    transport = StdioTransport([sys.executable, "-c", code])
    assert transport.receive(Deadline(30)).data == "ready\n"  # started (a loaded machine may take seconds to)
    transport.close()
    assert transport._process.returncode == 0  # not -15: it ended within GRACE_SECONDS, before any SIGTERM


def test_a_write_after_close_says_the_server_is_gone_and_writes_nowhere():
    """The closed pipes' descriptor numbers are taken by new pipes: nothing may reach them."""
    transport = StdioTransport([sys.executable, "-c", "import sys; sys.stdin.read()"])
    transport.close()
    others = [os.pipe() for _ in range(3)]
    try:
        with pytest.raises(UnreachableError, match="exited with code 0"):
            transport.write("{}")
        for reader, _ in others:
            os.set_blocking(reader, False)
            with pytest.raises(BlockingIOError):
                os.read(reader, 10)
    finally:
        for pair in others:
            os.close(pair[0]), os.close(pair[1])


def test_a_read_after_close_says_the_server_is_gone():
    """The server leaves a child holding its stdout open: stdout has not ended when it exits."""
    code = "import subprocess, sys; subprocess.Popen(['sleep', '30']); sys.stdin.read()"
    transport = StdioTransport([sys.executable, "-c", code])
    try:
        transport.close()
        with pytest.raises(UnreachableError, match="exited with code 0"):
            transport.receive(Deadline(1))
    finally:
        os.killpg(transport._process.pid, signal.SIGKILL)
