"""Serving over stdio: one JSON-RPC message per line in, one per line out."""

from __future__ import annotations

import sys
import threading
from typing import IO, Any

from mrtr_cli.protocol import jsonrpc
from mrtr_cli.server.dispatcher import Dispatcher


def serve_stdio(dispatcher: Dispatcher, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> None:
    """Answer each request line in turn until stdin closes (the client's shutdown signal)."""
    source = stdin or sys.stdin.buffer
    sink = stdout or sys.stdout.buffer
    lock = threading.Lock()

    def write(message: dict[str, Any]) -> None:
        with lock:
            sink.write(jsonrpc.encode(message).encode("utf-8") + b"\n")
            sink.flush()

    def notify(method: str, params: dict[str, Any]) -> None:
        write(jsonrpc.notification(method, params))

    try:
        for line in source:
            if line.strip():
                reply = dispatcher.handle_text(line, notify)
                if reply.message is not None:
                    write(reply.message)
    except BrokenPipeError:
        pass  # the client went away: nothing left to answer
