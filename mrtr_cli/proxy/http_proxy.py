"""`mrtr proxy --http [HOST:]PORT --to URL`: a reverse proxy in front of a Streamable HTTP server.

Served with the standard library, as mrtr serves HTTP (http.server, one thread a request); each
request goes on through transport/http/forwarding.py (httpx) and its response comes back as it
streams: a JSON body, an SSE stream chunk by chunk, the GET stream for as long as it stays open.
A body with a Content-Length keeps it; any other is sent chunked. A copy of each message goes to
the watchers (proxy/http_watch.py), queued before its bytes go on (proxy/told.py).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from mrtr_cli.conversation import events
from mrtr_cli.errors import UnreachableError
from mrtr_cli.proxy.http_watch import BodyWatch, shown_headers, too_large
from mrtr_cli.proxy.told import Told
from mrtr_cli.proxy.watching import Watcher
from mrtr_cli.transport.http.forwarding import Forwarded, Upstream, end_to_end

CHUNK = 64 * 1024
NO_BODY = (HTTPStatus.NO_CONTENT, HTTPStatus.NOT_MODIFIED)


def make_proxy(host: str, port: int, upstream: Upstream, told: Told, limit: int,
               show_secrets: bool) -> ThreadingHTTPServer:
    """A bound, not yet serving, proxy to `upstream`. The address taken: UnreachableError."""
    settings = {"upstream": upstream, "told": told, "limit": limit, "show_secrets": show_secrets,
                "exchanges": itertools.count(1)}
    try:
        server = ThreadingHTTPServer((host, port), type("Handler", (ProxyHandler,), settings))
    except OSError as error:
        raise UnreachableError(f"cannot listen on {host}:{port}: {error.strerror or error}",
                               "pick another port (0 picks a free one)") from None
    server.daemon_threads = True
    return server


def serve_proxy(host: str, port: int, to: str, watchers: Sequence[Watcher], limit: int, show_secrets: bool,
                note: events.Observer) -> int:
    """Proxy until interrupted, after printing `listening on URL` (the proxy's endpoint) to stderr."""
    upstream = Upstream(to)
    told = Told(watchers, note)
    try:
        server = make_proxy(host, port, upstream, told, limit, show_secrets)  # nothing to tell when it fails
        try:
            _serve(server, to)
        finally:
            told.ended()
    finally:
        upstream.close()
    return 0


def _serve(server: ThreadingHTTPServer, to: str) -> None:
    bound_host, bound_port = server.server_address[:2]
    shown = f"[{bound_host!s}]" if ":" in str(bound_host) else str(bound_host)
    path = urlsplit(to).path or "/"
    print(f"listening on http://{shown}:{bound_port}{path} → {to}", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()


class ProxyHandler(BaseHTTPRequestHandler):
    """One request from the client: forwarded, and its response streamed back."""

    upstream: Upstream
    told: Told
    limit: int
    show_secrets: bool
    exchanges: Iterator[int]
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the timeline shows the traffic."""

    def forward(self) -> None:
        channel = f"http-{next(self.exchanges)}"
        pairs = list(self.headers.items())
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self._refuse(HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length")
        body = self._body(channel, pairs)
        try:
            forwarded = self.upstream.forward(self.command, self.path, pairs, body, self._length())
        except UnreachableError as error:
            return self._bad_gateway(error)
        try:
            self._relay(forwarded, channel)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client left: the server's stream closes with it
        finally:
            forwarded.close()

    do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = do_OPTIONS = do_HEAD = forward

    def _length(self) -> int:
        given = self.headers.get("Content-Length") or "0"
        return int(given) if given.isdigit() else 0

    def _body(self, channel: str, pairs: list[tuple[str, str]]) -> bytes | Iterator[bytes]:
        """The request's body: read whole and watched, or, past the limit, streamed on unwatched."""
        length = self._length()
        if length > self.limit:
            too_large(self.told, length, "a request body")
            return _streamed(self.rfile, length)
        body = self.rfile.read(length)
        watch = BodyWatch(self.told, "to_server", channel, shown_headers(end_to_end(pairs), self.show_secrets),
                          self.limit)
        watch.feed(body)
        watch.done()
        return body

    def _relay(self, forwarded: Forwarded, channel: str) -> None:
        self.send_response_only(forwarded.status, forwarded.reason)
        for name, value in forwarded.headers:
            self.send_header(name, value)
        bodiless = self.command == "HEAD" or forwarded.status in NO_BODY or forwarded.status < 200
        chunked = forwarded.length is None and not bodiless
        if forwarded.length is not None:
            self.send_header("Content-Length", forwarded.length)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if bodiless:
            return
        watch = BodyWatch(self.told, "to_client", channel, shown_headers(forwarded.headers, self.show_secrets),
                          self.limit)
        length, passed = int(forwarded.length or -1), 0
        for chunk in forwarded.chunks():
            passed += len(chunk)
            watch.feed(chunk)  # queued before its bytes go on: the client's next request comes after
            if passed == length:
                watch.done()
            if chunk:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
        if forwarded.cut_short or (length >= 0 and passed != length):
            self.close_connection = True  # cut short: the client sees the connection close, never waits on it
        elif chunked:
            self.wfile.write(b"0\r\n\r\n")
        watch.done()

    def _bad_gateway(self, error: UnreachableError) -> None:
        self._refuse(HTTPStatus.BAD_GATEWAY, error.message)
        self.told.noted(events.FrameIgnored(f"502 to the client: {error.message}", "unreachable"))

    def _refuse(self, status: HTTPStatus, reason: str) -> None:
        """The proxy's own answer (the server was not reached); the connection closes."""
        text = f"mrtr proxy: {reason}".encode("utf-8", "replace")
        self.close_connection = True
        self.send_response_only(status)
        for name, value in (("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(text))),
                            ("Connection", "close")):
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(text)


def _streamed(stream: Any, length: int) -> Iterator[bytes]:
    """`length` bytes of `stream`, a chunk at a time."""
    left = length
    while left > 0:
        chunk = stream.read(min(CHUNK, left))
        if not chunk:
            return
        left -= len(chunk)
        yield chunk
