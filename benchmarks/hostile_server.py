"""Servers that never stop sending, for benchmarks/bounds.py.

    python hostile_server.py endless-line                 a stdio server: one JSON line that never ends
    python hostile_server.py http endless-body|gzip-bomb  an HTTP server on 127.0.0.1; prints "ready PORT"

Each writes until the client hangs up, so what is measured is how soon mrtr stops reading.
"""

from __future__ import annotations

import gzip
import http.server
import io
import sys

CHUNK = b"x" * 65536
BOMB_SIZE = 1024 ** 3
"""The gzip bomb decodes to 1 GiB of zeros (about 1 MB on the wire)."""


def endless_line() -> None:
    sys.stdin.readline()  # the client's first request
    out = sys.stdout.buffer
    out.write(b'{"jsonrpc": "2.0", "id": 1, "result": {"padding": "')
    try:
        while True:
            out.write(CHUNK)
    except (BrokenPipeError, OSError):
        pass


def make_bomb() -> bytes:
    zeros = bytes(1024 * 1024)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9) as stream:
        for _ in range(BOMB_SIZE // len(zeros)):
            stream.write(zeros)
    return buffer.getvalue()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fault = "endless-body"
    bomb = b""

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if self.fault == "gzip-bomb":
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(self.bomb)))
            self.end_headers()
            self._write(self.bomb)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._write(b'{"jsonrpc": "2.0", "id": 1, "result": {"padding": "')
        while self._write(CHUNK):
            pass

    def _write(self, data: bytes) -> bool:
        try:
            if self.fault == "gzip-bomb":
                self.wfile.write(data)
            else:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            return True
        except (BrokenPipeError, ConnectionResetError, OSError):
            return False

    def log_message(self, *args: object) -> None:
        pass


def serve(fault: str) -> None:
    Handler.fault = fault
    if fault == "gzip-bomb":
        Handler.bomb = make_bomb()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"ready {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if sys.argv[1] == "http":
        serve(sys.argv[2])
    else:
        endless_line()
