"""The plain requests of the authorization flow (auth/): metadata, registration, tokens.

No redirect is followed (a redirect's answer is the reply), and a body is read up to
MAX_FETCHED_BODY within FETCH_SECONDS. The flow gets `HttpTransport.fetch` (a `Fetch`), so
everything it asks goes through the connection's client: its proxies, its CA bundle.
"""

from __future__ import annotations

import contextlib
import time

import httpx

from mrtr_cli.errors import ProtocolError
from mrtr_cli.text import safe_line
from mrtr_cli.transport.base import PlainReply, message_too_large
from mrtr_cli.transport.http.connection import CONNECT_SECONDS, Redirected
from mrtr_cli.transport.http_answers import undecodable, unreachable

FETCH_SECONDS = 30.0
"""How long one request of the authorization flow (metadata, registration, token) may take."""
MAX_FETCHED_BODY = 1024 * 1024
"""The largest body a request of the authorization flow reads."""



def fetch(client: httpx.Client, method: str, url: str, headers: dict[str, str], body: bytes | None) -> PlainReply:
    """One plain request of the authorization flow (no redirect followed, the body up to 1 MiB)."""
    timeout = httpx.Timeout(FETCH_SECONDS, connect=CONNECT_SECONDS)
    request = client.build_request(method, url, content=body, headers=headers, timeout=timeout)
    try:
        response = client.send(request, stream=True)
    except Redirected as redirected:
        response = redirected.response
    except httpx.TimeoutException:
        raise unreachable(url, f"no answer within {FETCH_SECONDS:g} s") from None
    except httpx.HTTPError as error:
        raise unreachable(url, str(error) or type(error).__name__) from None
    with contextlib.closing(response):
        body_read = b"" if response.is_redirect else _read_limited(response, url)
        return PlainReply(response.status_code, {k.lower(): v for k, v in response.headers.items()}, body_read)


def _read_limited(response: httpx.Response, url: str) -> bytes:
    """A response body of the authorization flow, up to MAX_FETCHED_BODY."""
    body, ends = bytearray(), time.monotonic() + FETCH_SECONDS
    try:
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > MAX_FETCHED_BODY:
                raise message_too_large(MAX_FETCHED_BODY, f"a body (from {safe_line(url, 200)})")
            if time.monotonic() > ends:  # a body that trickles on for ever
                raise ProtocolError(f"the server sent a body (from {safe_line(url, 200)}) that did not end within "
                                    f"{FETCH_SECONDS:g} s", "check the server's logs")
    except httpx.DecodingError as error:
        raise undecodable(url, error) from None
    except httpx.HTTPError as error:
        raise unreachable(url, str(error) or type(error).__name__) from None
    return bytes(body)
