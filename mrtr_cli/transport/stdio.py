"""The stdio transport: a server process, newline-delimited JSON on its stdin and stdout.

Two reader threads move the server's stdout lines and stderr lines into one inbox; the
caller reads the inbox with a deadline. The server's stderr never mixes with its frames:
its last lines are kept for the message when the process dies, and forwarded for `-v`.
"""

from __future__ import annotations

import collections
import os
import queue
import shlex
import signal
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

from mrtr_cli.errors import UnreachableError
from mrtr_cli.transport.base import (DEFAULT_MAX_MESSAGE_SIZE, Deadline, Frame, Incoming, Mirrored, StderrLine,
                                     TransportTimeout, message_too_large)

STDERR_TAIL = 20
"""How many of the server's last stderr lines an error message may show."""
GRACE_SECONDS = 2.0
"""How long the server gets at each shutdown step: stdin closed, then SIGTERM, then SIGKILL."""
STDERR_LINE_LIMIT = 64 * 1024
"""A longer stderr line is shown by its first part; the rest, to its newline, is skipped."""

_EOF = ("eof", b"")


class StdioTransport:
    """A server process spawned without a shell."""

    def __init__(
        self,
        command: list[str],
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        forward_stderr: bool = False,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
    ) -> None:
        self.command = command
        self.max_message_size = max_message_size
        self._inbox: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        """SimpleQueue, not Queue: its hand-off is done in C, not through a Python Condition, which
        halves what each round pays to pass a line from the reader thread."""
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self._forward_stderr = forward_stderr
        self._process = _spawn(command, env, cwd)
        self._threads = [
            _start_thread(self._read_stdout, "mrtr-stdout"),
            _start_thread(self._read_stderr, "mrtr-stderr"),
        ]

    def describe(self) -> str:
        return shlex.join(self.command)

    def start(self, text: str, message: dict[str, Any], mirrored: Mirrored | None = None) -> _StdioExchange:
        """Over stdio `x-mcp-header` annotations are ignored (the spec allows it)."""
        self.write(text)
        return _StdioExchange(self)

    def send(self, text: str, message: dict[str, Any]) -> None:
        """A frame that expects no response: one line, like any other."""
        self.write(text)

    def negotiated(self, version: str) -> None:
        """Over stdio the version travels in the handshake alone."""

    def write(self, text: str) -> None:
        """Send one frame; a closed pipe means the server is gone."""
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(text.encode("utf-8") + b"\n")
            stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise self.gone() from None

    def receive(self, deadline: Deadline) -> Incoming:
        """The next thing the server wrote; `TransportTimeout` when the deadline passes."""
        try:
            kind, data = self._inbox.get(timeout=deadline.remaining())
        except queue.Empty:
            raise TransportTimeout() from None
        if kind in ("eof", "too-large", "broken"):
            self._inbox.put((kind, data))  # later readers see it too
            raise self._ended(kind, data)
        return Frame(data) if kind == "out" else StderrLine(data)

    def _ended(self, kind: str, data: Any) -> Exception:
        """Why the server's stdout can be read no further; past the size limit, the server is stopped."""
        if kind == "eof":
            return self.gone()
        if kind == "broken":
            return UnreachableError(f"mrtr could not read the server's stdout ({data})", "run again with -v")
        self.close()
        return message_too_large(self.max_message_size, "a message on stdout")

    def gone(self) -> UnreachableError:
        """The error that says the process ended, with its last stderr lines."""
        code = self._exit_code()
        self._threads[1].join(timeout=1.0)  # let the stderr tail drain
        status = f"exited with code {code}" if code is not None else "closed its stdout"
        hint = "its last stderr lines follow" if self._stderr_tail else "it wrote nothing to stderr"
        return UnreachableError(f"the server process {status}", hint, details=self._stderr_tail)

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
            try:
                process.wait(timeout=GRACE_SECONDS)
                break
            except subprocess.TimeoutExpired:
                continue

    def _release(self) -> None:
        for thread in self._threads:
            thread.join(timeout=1.0)
        for stream in (self._process.stdout, self._process.stderr):
            if stream is not None:
                stream.close()

    def _exit_code(self) -> int | None:
        try:
            return self._process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return None

    def _read_stdout(self) -> None:
        """Move stdout's lines to the inbox, each read in one bounded piece; never raises."""
        try:
            self._inbox.put(self._pump_stdout())
        except (OSError, ValueError):  # the pipe was closed under the thread, at shutdown
            self._inbox.put(_EOF)
        except Exception as error:  # noqa: BLE001 - a reader thread must not die with a traceback
            self._inbox.put(("broken", f"{type(error).__name__}: {error}"))

    def _pump_stdout(self) -> tuple[str, Any]:
        """Read lines until the end of stdout, or one past the limit; return how reading ended."""
        stdout = self._process.stdout
        assert stdout is not None
        limit = self.max_message_size
        while True:
            line = stdout.readline(limit + 2)  # room for the line ending, \n or \r\n
            if not line:
                return _EOF
            if len(line.rstrip(b"\r\n")) > limit:
                return ("too-large", limit)
            self._inbox.put(("out", _text(line)))
            del line  # not kept alive while the next line is awaited: it may be a big frame

    def _read_stderr(self) -> None:
        """Keep the stderr tail (and forward lines for -v); never raises."""
        try:
            self._pump_stderr()
        except Exception:  # noqa: BLE001 - stderr is only shown: losing its end loses nothing else
            pass

    def _pump_stderr(self) -> None:
        stderr = self._process.stderr
        assert stderr is not None
        skipping = False
        for raw in iter(lambda: stderr.readline(STDERR_LINE_LIMIT), b""):
            if not skipping:
                self._stderr_line(raw.decode("utf-8", "replace").rstrip("\r\n"))
            skipping = not raw.endswith(b"\n")

    def _stderr_line(self, line: str) -> None:
        self._stderr_tail.append(line)
        if self._forward_stderr:
            self._inbox.put(("err", line))


def _text(line: bytes) -> str | bytes:
    """A line as text, decoded here so that only one copy of a big frame is kept; bytes that are
    not UTF-8 stay bytes (jsonrpc.decode reports them). The line ending stays: JSON ignores it."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line


class _StdioExchange:
    """Frames for one request: on stdio every frame shares the one channel."""

    def __init__(self, transport: StdioTransport) -> None:
        self._transport = transport

    def frames(self, deadline: Deadline) -> Iterator[Incoming]:
        while True:
            yield self._transport.receive(deadline)

    def cancel(self, notification: str) -> None:
        try:
            self._transport.write(notification)
        except UnreachableError:
            pass  # nothing left to cancel

    def close(self) -> None:
        pass


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
                               "check the command and --cwd, or give the full path") from error
    except PermissionError as error:
        raise UnreachableError(f"could not start the server: {command[0]!r} is not executable",
                               "check its permissions") from error
    except OSError as error:
        raise UnreachableError(f"could not start the server: {error.strerror}",
                               "check the command") from error


def _start_thread(target: Any, name: str) -> threading.Thread:
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """Signal the server and everything it started (it leads its own process group)."""
    try:
        os.killpg(process.pid, sig)
    except (ProcessLookupError, PermissionError, AttributeError):
        try:
            process.send_signal(sig)
        except ProcessLookupError:
            pass
