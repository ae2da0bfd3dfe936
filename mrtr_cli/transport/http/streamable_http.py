"""The Streamable HTTP transport: one POST per message, the answer as JSON or an SSE stream.

Each message goes with the headers it is given (`base.Headers`: the era makes them,
conversation/eras.py). A request is an `HttpExchange`: one POST and the stream that answers it, as a
row of named steps (as httpx's `Client.send`): `frames` -> `_send_handling_auth` (a 401 or 403
answered, and the request sent again) -> `_send_single` (the exchange in a thread of its own,
pump.py, so --timeout bounds the whole response however slowly it arrives) ->
`_send_handling_redirects` (307 and 308 followed, redirects.py) -> the body, JSON or an SSE stream, up
to --max-message-size -> in a session (the older era's), a broken stream resumed (http_session.py).
Closing the response stream is how a request is cancelled. The authorization flow's own requests
go through `fetch` (auth_fetch.py).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Generator, Iterator
from typing import Protocol

import httpx

from mrtr_cli.errors import ProtocolError
from mrtr_cli.text import safe_line
from mrtr_cli.transport import http_headers, redirects
from mrtr_cli.transport.base import (DEFAULT_MAX_MESSAGE_SIZE, AuthChallenge, Deadline, Fetch, Frame, Headers,
                                     Incoming, PlainReply, TransportTimeout, WireInfo, message_too_large)
from mrtr_cli.transport.http import auth_fetch
from mrtr_cli.transport.http.connection import CONNECT_SECONDS, Connection, Redirected, request_timeout
from mrtr_cli.transport.http.http_session import HttpSession
from mrtr_cli.transport.http_answers import auth_error, is_jsonrpc, status_error, undecodable, unreachable
from mrtr_cli.transport.listening import Listened, attached
from mrtr_cli.transport.pump import Pump
from mrtr_cli.transport.resume import Resumption

class Authorizer(Protocol):
    """What answers a 401 or 403 (auth/kept.py, then auth/flow.py): the Authorization to send
    first, and a new one after a challenge (its steps yielded as they happen), or an AuthError."""

    def authorization(self) -> str | None: ...

    def answer(self, status: int, challenge: str | None) -> Generator[Incoming, None, str]: ...


MakeAuthorizer = Callable[[Fetch], Authorizer]
"""Makes what answers a 401 or 403 from the transport's `fetch` (auth/kept.py's `ServerLogin`)."""


class HttpTransport:
    """A Streamable HTTP endpoint."""

    TIES_REQUESTS = True
    """A server request comes on the response stream of the request it belongs to (`base.ties_requests`)."""

    def __init__(self, url: str, headers: dict[str, str], cacert: str | None = None, insecure: bool = False,
                 show_secrets: bool = False, *, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
                 authorizer: MakeAuthorizer | None = None) -> None:
        self.connection = Connection(url, headers, cacert, insecure, show_secrets, max_message_size)
        self.session = HttpSession(self.connection)
        self._make_authorizer = authorizer
        self.authorizer: Authorizer | None = None
        """What answers a 401 or 403 (made at the first request; None: the challenge is an error)."""

    @property
    def url(self) -> str:
        return self.connection.url

    @property
    def extra_headers(self) -> dict[str, str]:
        """The -H headers, and the Authorization once one is known."""
        return self.connection.extra_headers

    def listen(self) -> Listened | None:
        """The older era's GET stream, read while no request is (`base.listener`); None: none is open."""
        listening = self.session.listening
        return Listened(listening) if listening is not None else None

    def describe(self) -> str:
        return self.connection.url

    def start(self, text: str, headers: Headers, before_waiting: Callable[[], None] | None = None) -> HttpExchange:
        """Nothing is sent yet (the exchange POSTs when its frames are read): nothing waits here but
        the first request's kept token."""
        self._authorize_first()
        own_headers = {**http_headers.JSON_BODY, **self.session.join(headers)}
        return HttpExchange(self.connection, self.session, self.authorizer, text, own_headers)

    def _authorize_first(self) -> None:
        """Before the first request: make the authorizer, and send the token it keeps, if any."""
        if self._make_authorizer is None:
            return
        self.authorizer, self._make_authorizer = self._make_authorizer(self.fetch), None
        self.connection.authorized(self.authorizer.authorization())

    def fetch(self, method: str, url: str, headers: dict[str, str], body: bytes | None = None) -> PlainReply:
        """One plain request of the authorization flow (auth_fetch.py)."""
        return auth_fetch.fetch(self.connection.client, method, url, headers, body)

    def post_exact(self, headers: list[tuple[str, str]], body: bytes, timeout: float) -> tuple[list[str], int]:
        """The frames answering one POST whose headers (with the -H headers) go exactly as given, in
        name case and value whitespace (check's header probes; transport/exact_http.py)."""
        from mrtr_cli.transport import exact_http

        connection = self.connection
        secure = connection.url.lower().startswith("https")
        tls = exact_http.tls_context(connection.cacert, connection.insecure) if secure else None
        reply = exact_http.post(connection.url, [*connection.extra_headers.items(), *headers], body, timeout, tls,
                                connection.max_message_size)
        return exact_http.frames(reply, connection.max_message_size), reply.status

    def send(self, text: str, headers: Headers) -> None:
        """POST a notification or a response; the server should answer 202 Accepted (any 2xx is taken)."""
        joined = self.session.join(headers)
        headers_sent = {**http_headers.JSON_BODY, **self.connection.extra_headers, **joined}
        try:
            response = self.connection.client.post(self.connection.url, content=text.encode("utf-8"),
                                                   headers=headers_sent, timeout=CONNECT_SECONDS)
        except httpx.HTTPError as error:
            raise unreachable(self.connection.url, str(error) or type(error).__name__) from None
        if response.status_code in (401, 403):
            raise auth_error(response)
        if not 200 <= response.status_code < 300:
            raise ProtocolError(f"the server answered a message that expects no response with HTTP "
                                f"{response.status_code}, not 202 Accepted", "check the server's logs")

    def close(self) -> None:
        """Stop the GET stream and end the session (http_session.py); then the connection."""
        self.session.end()
        self.connection.client.close()


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
