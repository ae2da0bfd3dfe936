"""One request forwarded to the server behind `mrtr proxy --http`, its response streamed back.

The request goes as the client sent it, less its hop-by-hop headers: its method, path and query
on the server's origin, its end-to-end headers (Host becomes the server's; nothing is added:
no Accept-Encoding, User-Agent or cookie of httpx's own), its body as it came. The response comes
back undecoded (`iter_raw`: a gzip body stays gzip), its hop-by-hop headers dropped, each chunk as
it arrives. No redirect is followed: the client sees it. No timeout: a stream stays open as long
as the server keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from urllib.parse import urlsplit, urlunsplit

import httpx

from mrtr_cli.transport.http_answers import unreachable

HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                        "trailers", "transfer-encoding", "upgrade", "proxy-connection", "host", "content-length"})
"""Headers of one connection, never forwarded (RFC 9110 7.6.1); Host and Content-Length are each
side's own (httpx and the serving side write them again)."""
CONNECT_SECONDS = 10.0

Headers = list[tuple[str, str]]


def end_to_end(headers: Iterable[tuple[str, str]]) -> Headers:
    """`headers` less the hop-by-hop ones, and less those their Connection header names."""
    pairs = list(headers)
    named = {token.strip().lower() for name, value in pairs if name.lower() == "connection"
             for token in value.split(",")}
    return [(name, value) for name, value in pairs if name.lower() not in HOP_BY_HOP | named]


class Forwarded:
    """The server's response: status, end-to-end headers, and the body's chunks as they come."""

    def __init__(self, response: httpx.Response) -> None:
        self._response = response
        self.status = response.status_code
        self.reason = response.reason_phrase
        self.headers = end_to_end(response.headers.multi_items())
        self.length = response.headers.get("content-length")
        self.cut_short = False
        """Whether the server dropped the body before its end (its connection closed, or broke)."""

    def chunks(self) -> Iterator[bytes]:
        """The body as it arrives, as it was sent (content encodings kept)."""
        try:
            yield from self._response.iter_raw()
        except httpx.HTTPError:
            self.cut_short = True  # the server dropped the stream: the client must see it cut too

    def close(self) -> None:
        self._response.close()


class Upstream:
    """The server every request goes on to, and the one httpx client that reaches it."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.origin = (parts.scheme, parts.netloc)
        self.client = httpx.Client(trust_env=False, follow_redirects=False,
                                   timeout=httpx.Timeout(None, connect=CONNECT_SECONDS))

    def url_of(self, target: str) -> str:
        """The server's URL for a request line's target (`/mcp?x=1`)."""
        parts = urlsplit(target)
        return urlunsplit((*self.origin, parts.path or "/", parts.query, ""))

    def forward(self, method: str, target: str, headers: Headers, body: bytes | Iterator[bytes],
                length: int) -> Forwarded:
        """Send one request on (a streamed body keeps its `length`); its response, streamed. The
        server unreachable: UnreachableError."""
        url = self.url_of(target)
        sent = end_to_end(headers) + ([] if isinstance(body, bytes) else [("Content-Length", str(length))])
        request = httpx.Request(method, url, headers=sent, content=body if body or length else None)
        try:
            return Forwarded(self.client.send(request, stream=True))
        except httpx.HTTPError as error:
            raise unreachable(url, str(error) or type(error).__name__) from None

    def close(self) -> None:
        self.client.close()
