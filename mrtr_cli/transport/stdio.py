"""The stdio transport: a server process, newline-delimited JSON on its stdin and stdout.

The caller's own thread reads the pipes (`server_pipes.py`): it waits on stdout and stderr
within the deadline, and writes to stdin while reading whatever the server writes meanwhile, so
neither side can block the other. The server's stderr never mixes with its frames: its last
lines are kept for the message when the process dies, and forwarded for `-v`.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from mrtr_cli.errors import UnreachableError
from mrtr_cli.transport.base import (ChannelExchange, DEFAULT_MAX_MESSAGE_SIZE, Deadline, Headers, Incoming, TransportTimeout,
                                     format_size, message_too_large)
from mrtr_cli.transport.server_pipes import ServerPipes

STDERR_TAIL = 20
"""How many of the server's last stderr lines an error message may show."""
GRACE_SECONDS = 2.0
"""How long the server gets at each shutdown step: stdin closed, then SIGTERM, then SIGKILL."""
EXIT_POLL_SECONDS = 0.05
"""While its pipes stay open, how often shutdown checks whether the process has ended."""
STDERR_LINE_LIMIT = 64 * 1024
"""A longer stderr line is shown by its first part; the rest, to its newline, is skipped."""


class StdioTransport:
    """A server process spawned without a shell."""

    def __init__(
        self,
        command: list[str],
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        forward_stderr: bool = False,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        write_timeout: float | None = None,
    ) -> None:
        self.command = command
        self.max_message_size = max_message_size
        self.write_timeout = write_timeout
        """How long a write may wait for a server that reads no more of its stdin (None: for ever)."""
        self._process = _spawn(command, env, cwd)
        process = self._process
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        self._pipes = ServerPipes(process.stdin, process.stdout, process.stderr, max_message_size=max_message_size,
                                  stderr_line_limit=STDERR_LINE_LIMIT, stderr_tail=STDERR_TAIL,
                                  forward_stderr=forward_stderr)

    def describe(self) -> str:
        return shlex.join(self.command)

    def start(self, text: str, headers: Headers, before_waiting: Callable[[], None] | None = None) -> ChannelExchange:
        """Over stdio there are no headers: `x-mcp-header` annotations are ignored (the spec allows
        it), and the older era's version travels in the handshake alone."""
        self.write(text, before_waiting)
        return ChannelExchange(self)

    def listen(self) -> ChannelExchange:
        """What the server writes with no request in flight (`base.listener`)."""
        return ChannelExchange(self)

    def send(self, text: str, headers: Headers) -> None:
        """A frame that expects no response: one line, like any other."""
        self.write(text)

    def write(self, text: str, before_waiting: Callable[[], None] | None = None) -> None:
        """Send one frame, reading what the server writes meanwhile (`before_waiting` is called
        before a write waits for room). A closed pipe means the server is gone, and stdout past the
        size limit ends the write as it ends a read. A server that reads none of it for
        `write_timeout` is unreachable: part of a frame may be in the pipe, so nothing more can be sent."""
        data = text.encode("utf-8") + b"\n"
        try:
            written = self._pipes.write(data, self.write_timeout, before_waiting)
        except (OSError, ValueError):
            raise self.gone() from None
        except TransportTimeout:
            raise UnreachableError(f"the server read no more of its stdin for {self.write_timeout:g} s: mrtr could not "
                                 f"write a message of {format_size(len(data))}", "check that the server reads its "
                                 "stdin; raise --timeout if it is just slow") from None
        if not written:
            raise self._ended()

    def receive(self, deadline: Deadline) -> Incoming:
        """The next thing the server wrote; `TransportTimeout` when the deadline passes."""
        pipes = self._pipes
        while not pipes.pending:
            if pipes.ended is not None:
                raise self._ended()
            if not pipes.wait(deadline.wait_seconds()):
                notice = deadline.notice()
                if notice is not None:
                    return notice
                if not deadline.remaining():
                    raise TransportTimeout()
        return pipes.pending.popleft()

    def _ended(self) -> Exception:
        """Why the server's stdout can be read no further; past the size limit, the server is stopped."""
        if self._pipes.ended == ("eof", b""):
            return self.gone()
        self.close()
        return message_too_large(self.max_message_size, "a message on stdout")

    def gone(self) -> UnreachableError:
        """The error that says the process ended, with its last stderr lines."""
        self._pipes.drain_stderr(1.0)  # the stderr tail, to its end (a blocked server cannot exit)
        code = self._exit_code()
        tail = self._pipes.stderr_tail
        status = f"exited with code {code}" if code is not None else "closed its stdout"
        hint = "its last stderr lines follow" if tail else "it wrote nothing to stderr"
        return UnreachableError(f"the server process {status}", hint, details=tail)

    def close(self) -> None:
        """Close stdin, wait; then SIGTERM, wait; then SIGKILL (the spec's shutdown order).

        Ctrl-C, SIGTERM or SIGHUP during the waits cuts them short: SIGKILL at once, then on."""
        try:
            self._stop_process()
        except KeyboardInterrupt:
            _signal_group(self._process, signal.SIGKILL)
            raise
        finally:
            self._release()

    def _stop_process(self) -> None:
        process = self._process
        if process.stdin and not process.stdin.closed:
            try:
                process.stdin.close()
            except OSError:
                pass
        for step in (None, signal.SIGTERM, signal.SIGKILL):
            if step is not None:
                _signal_group(process, step)
            if self._exited_within(GRACE_SECONDS):
                break

    def _exited_within(self, seconds: float) -> bool:
        """Wait for the process to end, reading its pipes meanwhile: a server that writes as it
        shuts down must not block on a full pipe. What it writes now is not shown."""
        until = time.monotonic() + seconds
        while self._pipes.reading():
            left = until - time.monotonic()
            if self._process.poll() is not None or left <= 0:
                return self._process.poll() is not None
            self._pipes.wait(min(left, EXIT_POLL_SECONDS))
            self._pipes.pending.clear()
        try:
            self._process.wait(timeout=max(0.0, until - time.monotonic()))
            return True
        except subprocess.TimeoutExpired:
            return False

    def _release(self) -> None:
        self._pipes.close()
        for stream in (self._process.stdout, self._process.stderr):
            if stream is not None:
                stream.close()

    def _exit_code(self) -> int | None:
        try:
            return self._process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return None



def _spawn(command: list[str], env: dict[str, str] | None, cwd: str | None) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,  # Ctrl-C reaches mrtr, which cancels and shuts down in order
        )
    except FileNotFoundError as error:
        missing = cwd if cwd and not os.path.isdir(cwd) else command[0]
        raise UnreachableError(f"could not start the server: {missing!r} not found",
                               _interpreter_hint(command, cwd)
                               or "check the command and --cwd, or give the full path") from error
    except PermissionError as error:
        raise UnreachableError(f"could not start the server: {command[0]!r} is not executable",
                               _interpreter_hint(command, cwd) or "check its permissions") from error
    except OSError as error:
        raise UnreachableError(f"could not start the server: {error.strerror}",
                               "check the command") from error


_INTERPRETER_OF = {".py": "python", ".js": "node", ".mjs": "node", ".cjs": "node", ".sh": "sh", ".rb": "ruby"}
"""The interpreter that runs a script of each suffix, for the hint when the script was given as the program."""


def _interpreter_hint(command: list[str], cwd: str | None) -> str | None:
    """`server.py` given as the program, a file there but not one the system can run (not
    executable, or not on PATH): the command with its interpreter."""
    script = Path(cwd or ".") / command[0]
    interpreter = _INTERPRETER_OF.get(script.suffix.lower())
    if interpreter is None or not script.is_file():
        return None
    return f'run it with its interpreter: --stdio "{shlex.join([interpreter, *command])}"'


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """Signal the server and everything it started (it leads its own process group)."""
    try:
        os.killpg(process.pid, sig)
    except (ProcessLookupError, PermissionError, AttributeError):
        try:
            process.send_signal(sig)
        except ProcessLookupError:
            pass


def spawn_server(command: list[str], env: dict[str, str] | None, cwd: str | None) -> subprocess.Popen[bytes]:
    """A server process with its three pipes, leading its own process group (the stdio shim's too)."""
    return _spawn(command, env, cwd)


def signal_server_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """Signal a server spawned by `spawn_server` and everything it started."""
    _signal_group(process, sig)
