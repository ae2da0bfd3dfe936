"""One HTTP POST with its headers exactly as given, for `mrtr check`'s header probes: names in the
case given, values with the whitespace given.

httpx, through h11, refuses to send a value with leading or trailing whitespace (RFC 9110 asks a
sender not to); the probe sends one on purpose to see that the server trims it, as the RFC asks a
recipient to. The standard library's http.client sends what it is given, so this module uses it:
one connection, one request, the answer read up to the message size limit.
"""

from __future__ import annotations

import http.client
import ssl
import time
from urllib.parse import urlsplit

from mrtr_cli.errors import ProtocolError, RequestTimeout
from mrtr_cli.transport import http_headers
from mrtr_cli.transport.base import PlainReply, message_too_large
from mrtr_cli.transport.http_answers import unreachable
from mrtr_cli.transport.sse import SseParser


def post(url: str, headers: list[tuple[str, str]], body: bytes, timeout: float, tls: ssl.SSLContext | None,
         limit: int) -> PlainReply:
    """POST `body` to `url` with `headers` as given; the status, headers (names in lower case) and body."""
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if parts.scheme == "https":
        connection: http.client.HTTPConnection = http.client.HTTPSConnection(parts.netloc, timeout=timeout,
                                                                             context=tls)
    else:
        connection = http.client.HTTPConnection(parts.netloc, timeout=timeout)
    try:
        connection.putrequest("POST", path, skip_accept_encoding=True)
        for name, value in [*headers, ("Content-Length", str(len(body)))]:
            connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        read = _body(response, limit, time.monotonic() + timeout)
    except TimeoutError:
        raise RequestTimeout(f"no answer from {url} within {timeout:g} s") from None
    except (OSError, http.client.HTTPException) as error:
        raise unreachable(url, str(error) or type(error).__name__) from None
    finally:
        connection.close()
    if len(read) > limit:
        raise message_too_large(limit)
    return PlainReply(response.status, {k.lower(): v for k, v in response.getheaders()}, read)


def _body(response: http.client.HTTPResponse, limit: int, ends: float) -> bytes:
    """The body, up to `limit` + 1 bytes, read by the time `ends` (a body that trickles on for ever stops)."""
    body = bytearray()
    while len(body) <= limit:
        chunk = response.read1(min(65536, limit + 1 - len(body)))
        if not chunk:
            return bytes(body)
        body += chunk
        if time.monotonic() > ends:
            raise TimeoutError
    return bytes(body)


def tls_context(cacert: str | None, insecure: bool) -> ssl.SSLContext:
    """The TLS settings of --cacert and --insecure, as the HTTP transport has them."""
    if insecure:
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        return context
    return ssl.create_default_context(cafile=cacert)


def frames(reply: PlainReply, limit: int) -> list[str]:
    """The JSON-RPC frames of an answer: a JSON body, or each `data` of an event stream."""
    if http_headers.is_event_stream(reply.headers):
        return [event.data for event in SseParser(limit).feed(reply.body + b"\n\n") if event.data]
    try:
        return [reply.body.decode("utf-8")] if reply.body else []
    except UnicodeDecodeError:
        raise ProtocolError("the answer is not UTF-8") from None
