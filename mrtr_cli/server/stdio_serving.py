"""Serving over stdio: one JSON-RPC message per line in, one per line out.

The first request decides the connection's era. `initialize` opens a session of the older
era: its calls run on worker threads, because while one is in flight stdin carries the
client's responses to the server's questions as well as new requests. Anything else is
served as 2026-07-28, one request after another, as before.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import IO, Any

from mrtr_cli.process import signals
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.protocol.mrtr import MRTR_METHODS
from mrtr_cli.server.dispatcher import DispatchReply, Dispatcher
from mrtr_cli.server.older_session import OlderSession, is_response, opens_older_session

MAX_CALLS_IN_FLIGHT = 16
"""Older-era calls one connection may have running at once; more get an error."""
CLOSING_WAIT_SECONDS = 5.0
"""How long the calls still running may take to finish once stdin has closed."""


def serve_stdio(dispatcher: Dispatcher, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> None:
    """Answer each message in turn until stdin closes (the client's shutdown signal)."""
    connection = StdioConnection(dispatcher, stdout or sys.stdout.buffer)
    try:
        for line in stdin or sys.stdin.buffer:
            if line.strip():
                connection.receive(line)
    except BrokenPipeError:
        pass  # the client went away: nothing left to answer
    finally:
        connection.close()


class StdioConnection:
    """One client on stdin and stdout: modern until an opening `initialize` says otherwise."""

    def __init__(self, dispatcher: Dispatcher, sink: IO[bytes]) -> None:
        self.dispatcher = dispatcher
        self.sink = sink
        self.lock = threading.Lock()
        self.older: OlderSession | None = None
        self.modern = False
        self.calls = threading.BoundedSemaphore(MAX_CALLS_IN_FLIGHT)
        self.workers: list[threading.Thread] = []

    def write(self, message: dict[str, Any]) -> None:
        with self.lock:
            self.sink.write(jsonrpc.encode(message).encode("utf-8") + b"\n")
            self.sink.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.write(jsonrpc.notification(method, params))

    def receive(self, line: bytes) -> None:
        """One line from the client."""
        if self.older is None:
            return self._receive_undecided_or_modern(line)
        try:
            message = json.loads(line)
        except (ValueError, RecursionError) as error:
            return self.write({"jsonrpc": "2.0", "id": None,
                               "error": {"code": jsonrpc.PARSE_ERROR, "message": f"Parse error: {error}"}})
        self._receive_older(message)

    def _receive_undecided_or_modern(self, line: bytes) -> None:
        if self.modern:
            return self._write_reply(self.dispatcher.handle_text(line, self.notify))
        message = _parsed(line)
        if opens_older_session(message):
            self.older, reply = OlderSession.open(self.dispatcher, message)
            return self._write_reply(reply)
        if isinstance(message, dict) and "method" in message and "id" in message:
            self.modern = True
        self._write_reply(self.dispatcher.handle_text(line, self.notify))

    def _receive_older(self, message: Any) -> None:
        assert self.older is not None
        if is_response(message):
            self.older.asks.deliver(message)
            return None
        if isinstance(message, dict) and message.get("method") in MRTR_METHODS and "id" in message:
            return self._start_call(message)
        self._write_reply(self.older.handle(message, self.write))

    def _start_call(self, message: dict[str, Any]) -> None:
        """Run a call on a worker thread, so this loop keeps reading the client's answers."""
        if not self.calls.acquire(blocking=False):
            error = {"code": jsonrpc.INTERNAL_ERROR, "message": f"Too many calls in flight (at most "
                     f"{MAX_CALLS_IN_FLIGHT}); wait for one to finish"}
            return self.write({"jsonrpc": "2.0", "id": message["id"], "error": error})
        worker = threading.Thread(target=self._call, args=(message,), daemon=True)
        self.workers = [w for w in self.workers if w.is_alive()] + [worker]
        signals.start(worker)

    def _call(self, message: dict[str, Any]) -> None:
        try:
            assert self.older is not None
            self._write_reply(self.older.handle(message, self.write))
        except (BrokenPipeError, ValueError):
            pass  # stdout is gone: the client left
        finally:
            self.calls.release()

    def _write_reply(self, reply: DispatchReply) -> None:
        if reply.message is not None:
            self.write(reply.message)

    def close(self) -> None:
        """Stdin closed: questions still waiting fail, and the calls get a bounded time to end."""
        if self.older is not None:
            self.older.close()
        deadline = time.monotonic() + CLOSING_WAIT_SECONDS
        for worker in self.workers:
            worker.join(max(0.0, deadline - time.monotonic()))


def _parsed(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None
