"""One POST and the stream that answers it, as a row of named steps (as httpx's `Client.send`):

`frames` -> `_send_handling_auth` (a 401 or 403 answered, and the request sent again) ->
`_send_single` (the exchange in a thread of its own, pump.py, so --timeout bounds the whole
response however slowly it arrives) -> `_send_handling_redirects` (307 and 308 followed,
redirects.py) -> the body, JSON or an SSE stream, up to --max-message-size -> in a session (the
older era's), a broken stream resumed (http_session.py). Closing the response stream is how a request
is cancelled.
"""

from __future__ import annotations

import io
import time
from collections.abc import Generator, Iterator
from typing import Protocol

import httpx

from mrtr_cli.text import safe_line
from mrtr_cli.transport import http_headers, redirects
from mrtr_cli.transport.base import (AuthChallenge, Deadline, Frame, Incoming, TransportTimeout, WireInfo,
                                     message_too_large)
from mrtr_cli.transport.http.connection import Connection, Redirected, request_timeout
from mrtr_cli.transport.http.http_session import HttpSession
from mrtr_cli.transport.http_answers import auth_error, is_jsonrpc, status_error, undecodable, unreachable
from mrtr_cli.transport.listening import attached
from mrtr_cli.transport.pump import Pump
from mrtr_cli.transport.resume import Resumption


class Authorizer(Protocol):
    """What answers a 401 or 403 (auth/kept.py, then auth/flow.py): the Authorization to send
    first, and a new one after a challenge (its steps yielded as they happen), or an AuthError."""

    def authorization(self) -> str | None: ...

    def answer(self, status: int, challenge: str | None) -> Generator[Incoming, None, str]: ...


class HttpExchange:
    """One POST (sent again for each redirect followed, and after a challenge answered) and the
    stream that answers it."""

    def __init__(self, connection: Connection, session: HttpSession, authorizer: Authorizer | None, text: str,
                 own_headers: dict[str, str]) -> None:
        self.connection = connection
        self.session = session
        self.authorizer = authorizer
        """What answers a 401 or 403 (None: the challenge is the error)."""
        self.text = text
        self.own_headers = own_headers
        self.headers = {**connection.extra_headers, **own_headers}
        self.response: httpx.Response | None = None
        self._pump: Pump | None = None
        self.resumption = Resumption(text)

    def frames(self, deadline: Deadline) -> Iterator[Incoming]:
        """What arrives for the request, on its stream and on the GET stream meanwhile."""
        return self._send_handling_auth(deadline)

    def cancel(self, notification: str) -> None:
        """Over HTTP, closing the response stream is the cancellation (no notification is sent)."""
        self.close()

    def close(self) -> None:
        """Stop reading. The response is closed by the exchange's own thread (httpx objects stay in
        one thread): at once, or when a blocked read returns or times out."""
        if self._pump is not None:
            self._pump.stop()

    def _send_handling_auth(self, deadline: Deadline) -> Iterator[Incoming]:
        """The auth step, and its one owner: a 401 or 403 (`_body`) that the authorizer answers
        closes this try and sends the request again with the new Authorization (the authorizer
        bounds how often); with no authorizer (--no-auth, an -H Authorization) it is the error."""
        while True:
            try:
                yield from self._send_single(deadline)
                return
            except AuthChallenge as challenge:
                if self.authorizer is None:
                    raise challenge.error from None
                self.close()
                started = time.monotonic()
                self.connection.authorized((yield from self.authorizer.answer(challenge.status, challenge.challenge)))
                self.headers = {**self.connection.extra_headers, **self.own_headers}
                deadline.restart(time.monotonic() - started)  # logging in is not the server's time

    def _send_single(self, deadline: Deadline) -> Iterator[Incoming]:
        """What arrives on the POST's stream (resumed if it breaks), and on the GET stream meanwhile."""
        self._pump = pump = Pump(lambda: self._produce(deadline), "mrtr-http")
        with attached(self.session.listening, pump) as kept:
            yield from kept
            yield from pump.items(deadline)

    def _produce(self, deadline: Deadline) -> Generator[Incoming, None, None]:
        """Runs in the pump's thread: the request, its redirects, the response and its body."""
        try:
            response = yield from self._send_handling_redirects(deadline)
            self.session.note(response)
            kind = response.headers.get("content-type", "").split(";")[0].strip()
            yield WireInfo("in", self.connection.describe_response(response),
                           {"status": response.status_code, "content_type": kind})
            yield from self._body(response, kind.lower())
            if self.session.opened:
                assert self._pump is not None
                yield from self.session.resume(self.resumption, self._pump.stopped, deadline, response)
        finally:
            if self.response is not None:
                self.response.close()

    def _send_handling_redirects(self, deadline: Deadline) -> Generator[Incoming, None, httpx.Response]:
        """Send the POST, again to each 307 or 308 redirect; returns the final response."""
        url, hops = self.connection.url, 0
        yield WireInfo("out", self._describe_request(url, self.headers), {"headers": dict(self.headers)})
        while True:
            try:
                self.response = self._send(url, self._headers_for(url), deadline)
                return self.response
            except Redirected as redirected:
                yield WireInfo("in", self.connection.describe_response(redirected.response))
                url = _next_url(url, redirected.response)
            hops += 1
            if hops > redirects.MAX_REDIRECTS:
                raise redirects.too_many(self.connection.url)
            headers = self._headers_for(url)
            note = "" if headers is self.headers else "\n(the -H headers are not sent to another origin)"
            yield WireInfo("out", self._describe_request(url, headers) + note)

    def _headers_for(self, url: str) -> dict[str, str]:
        """The user's -H headers go only to the origin of --url."""
        return self.headers if redirects.same_origin(url, self.connection.url) else self.own_headers

    def _send(self, url: str, headers: dict[str, str], deadline: Deadline) -> httpx.Response:
        return self.connection.open("POST", url, headers, request_timeout(deadline), self.text.encode("utf-8"))

    def _body(self, response: httpx.Response, kind: str) -> Iterator[Incoming]:
        if response.status_code in (401, 403):  # the auth step's to answer
            raise AuthChallenge(response.status_code, response.headers.get("www-authenticate"), auth_error(response))
        if kind == "text/event-stream" and response.status_code == 200:
            yield from self.connection.follow(self.resumption, response)
            return
        body = self._read(response)
        if kind == "application/json" and is_jsonrpc(body, response.status_code):
            yield Frame(body)
            return
        raise status_error(response, body, kind)

    def _read(self, response: httpx.Response) -> bytes:
        """The body, decoded, up to --max-message-size (a gzip bomb stops there too). Kept in a
        BytesIO, whose value is its own buffer: a big body is not copied once more at the end."""
        limit = self.connection.max_message_size
        body = io.BytesIO()
        try:
            for chunk in response.iter_bytes():
                if body.tell() + len(chunk) > limit:
                    raise message_too_large(limit, "a response body")
                body.write(chunk)
        except httpx.TimeoutException:
            raise TransportTimeout() from None
        except httpx.DecodingError as error:
            raise undecodable(str(response.url), error) from None
        except httpx.HTTPError as error:
            raise unreachable(str(response.url), str(error) or type(error).__name__) from None
        return body.getvalue()

    def _describe_request(self, url: str, headers: dict[str, str]) -> str:
        return http_headers.describe(f"POST {safe_line(url, 500)}", headers.items(), self.connection.show_secrets)


def _next_url(url: str, response: httpx.Response) -> str:
    """Where a redirect leads, checked by redirects.py and by httpx."""
    location = response.headers["location"]
    target = redirects.next_url(url, response.status_code, location)
    try:
        httpx.URL(target)
    except httpx.InvalidURL:
        raise redirects.invalid_location(location, response.status_code) from None
    return target
