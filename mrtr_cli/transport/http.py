"""The Streamable HTTP transport: one POST per message, the answer as JSON or an SSE stream.

The only module that imports httpx (lazily imported by target.py). Headers mirror the body
(`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-*` for the arguments a
tools/call mirrors: its tool's `x-mcp-header` annotations, which travel with the request). Proxies come from the usual
environment variables. The exchange runs in a thread of its own (pump.py), so --timeout bounds
the whole response however slowly it arrives; a body or an SSE event past --max-message-size
ends it. Redirects follow redirects.py. Closing the response stream is how a request is cancelled.
"""

from __future__ import annotations

import contextlib
import io
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any, Protocol

# httpx imports its own command line (click, rich's console, progress and syntax, pygments: about
# 90 ms) when those are installed. mrtr never runs it: the import is refused, and httpx falls back
# as it does where they are missing.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
import httpx  # noqa: E402

from mrtr_cli.errors import ProtocolError, UnreachableError, UsageError
from mrtr_cli.text import safe_line
from mrtr_cli.transport import http_headers, redirects
from mrtr_cli.transport.base import (DEFAULT_MAX_MESSAGE_SIZE, AuthChallenge, Deadline, Frame, Incoming, Mirrored,
                                     PlainReply, TransportTimeout, WireInfo, message_too_large)
from mrtr_cli.transport.pump import Pump
from mrtr_cli.transport.http_answers import auth_error, is_jsonrpc, status_error, undecodable, unreachable
from mrtr_cli.transport.listening import ListeningStream, attached
from mrtr_cli.transport.resume import Resumption, StreamPosition
from mrtr_cli.transport.sse import SseParser

CONNECT_SECONDS = 10.0
LISTEN_SECONDS = 300.0
"""How long the GET stream may stay silent before mrtr stops reading it."""
FETCH_SECONDS = 30.0
"""How long one request of the authorization flow (metadata, registration, token) may take."""
MAX_FETCHED_BODY = 1024 * 1024
"""The largest body a request of the authorization flow reads."""


class Authorizer(Protocol):
    """What answers a 401 or 403 (auth/flow.py): the Authorization to send first, and a new one
    after a challenge (its steps yielded as they happen), or an AuthError."""

    def authorization(self) -> str | None: ...

    def answer(self, status: int, challenge: str | None) -> Generator[Incoming, None, str]: ...


class HttpTransport:
    """A Streamable HTTP endpoint."""

    def __init__(self, url: str, headers: dict[str, str], cacert: str | None = None, insecure: bool = False,
                 show_secrets: bool = False, *, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
                 authorizer: Callable[[HttpTransport], Authorizer] | None = None) -> None:
        self.url = url
        self._make_authorizer = authorizer
        self.authorizer: Authorizer | None = None
        """What answers a 401 or 403 (made at the first request; None: the challenge is an error)."""
        self.extra_headers = headers
        self.show_secrets = show_secrets
        self.max_message_size = max_message_size
        self.older_version: str | None = None
        """The older era's session: the version its requests name (MCP-Protocol-Version), for the
        GET stream and the session's end; set by the first request that names one."""
        self.session_id: str | None = None
        """The `Mcp-Session-Id` the server gave in its initialize response (older era)."""
        self.listening: ListeningStream | None = None
        """The GET stream (older era), opened after the handshake."""
        self.cacert, self.insecure = cacert, insecure
        plain = url.lower().startswith("http://")  # no TLS: skip loading a CA bundle (redirects keep the scheme)
        verify: Any = False if insecure or plain else (cacert or True)
        try:
            self.client = httpx.Client(verify=verify, trust_env=True, follow_redirects=False,
                                       event_hooks={"response": [_stop_at_redirects]})
        except OSError as error:
            raise UsageError(f"cannot use --cacert {cacert!r}: {error.strerror or error}", "check the file") from None

    def describe(self) -> str:
        return self.url

    def start(self, text: str, message: dict[str, Any], mirrored: Mirrored | None = None,
              before_waiting: Callable[[], None] | None = None, older_version: str | None = None) -> HttpExchange:
        """Nothing is sent yet (the exchange POSTs when its frames are read): nothing waits here but
        the first request's kept token."""
        self._authorize_first()
        self._in_session(older_version)
        return HttpExchange(self, text, http_headers.request_headers(message, mirrored, older_version,
                                                                      self.session_id))

    def _authorize_first(self) -> None:
        """Before the first request: make the authorizer, and send the token it keeps, if any."""
        if self._make_authorizer is None:
            return
        self.authorizer, self._make_authorizer = self._make_authorizer(self), None
        self.authorized(self.authorizer.authorization())

    def authorized(self, authorization: str | None) -> None:
        """Send `authorization` as the Authorization header from now on."""
        if authorization is not None:
            self.extra_headers = {**self.extra_headers, "Authorization": authorization}

    def fetch(self, method: str, url: str, headers: dict[str, str], body: bytes | None = None) -> PlainReply:
        """One plain request of the authorization flow (no redirect followed, the body up to 1 MiB)."""
        timeout = httpx.Timeout(FETCH_SECONDS, connect=CONNECT_SECONDS)
        request = self.client.build_request(method, url, content=body, headers=headers, timeout=timeout)
        try:
            response = self.client.send(request, stream=True)
        except _Redirected as redirected:
            response = redirected.response
        except httpx.TimeoutException:
            raise unreachable(url, f"no answer within {FETCH_SECONDS:g} s") from None
        except httpx.HTTPError as error:
            raise unreachable(url, str(error) or type(error).__name__) from None
        with contextlib.closing(response):
            body_read = b"" if response.is_redirect else _read_limited(response, url)
            return PlainReply(response.status_code, {k.lower(): v for k, v in response.headers.items()}, body_read)

    def post_exact(self, headers: list[tuple[str, str]], body: bytes, timeout: float) -> tuple[list[str], int]:
        """The frames answering one POST whose headers (with the -H headers) go exactly as given, in
        name case and value whitespace (check's header probes; transport/exact_http.py)."""
        from mrtr_cli.transport import exact_http

        tls = exact_http.tls_context(self.cacert, self.insecure) if self.url.lower().startswith("https") else None
        reply = exact_http.post(self.url, [*self.extra_headers.items(), *headers], body, timeout, tls,
                                self.max_message_size)
        return exact_http.frames(reply, self.max_message_size), reply.status

    def _session_headers(self) -> dict[str, str]:
        return http_headers.session_headers(self.older_version, self.session_id)

    def _in_session(self, older_version: str | None) -> None:
        """The first message of the older era after the handshake (it names the version chosen)
        opens the GET stream (listening.py), which names that version too."""
        if older_version is None or self.listening is not None:
            return
        self.older_version = older_version
        self.listening = ListeningStream(self._listen)
        self.listening.start()

    def open(self, method: str, url: str, headers: dict[str, str], timeout: httpx.Timeout,
             content: bytes | None = None) -> httpx.Response:
        """Send a request; its response, streamed. A redirect raises _Redirected."""
        request = self.client.build_request(method, url, content=content, headers=headers, timeout=timeout)
        try:
            return self.client.send(request, stream=True)
        except httpx.TimeoutException:
            raise TransportTimeout() from None
        except httpx.HTTPError as error:
            raise unreachable(url, str(error) or type(error).__name__) from None

    def get_stream(self, last_event_id: str | None, timeout: httpx.Timeout) -> httpx.Response:
        """GET the endpoint for an event stream (with `Last-Event-ID` to resume one)."""
        headers = {"Accept": "text/event-stream", **self.extra_headers, **self._session_headers()}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        return self.open("GET", self.url, headers, timeout)

    def _listen(self, position: StreamPosition, stopped: threading.Event) -> Generator[Incoming, None, bool]:
        """One connection of the GET stream (see listening.py): False when the server offers none."""
        try:
            response = self.get_stream(position.last_event_id, httpx.Timeout(LISTEN_SECONDS, connect=CONNECT_SECONDS))
        except (TransportTimeout, UnreachableError, _Redirected):
            return False
        with contextlib.closing(response):
            yield WireInfo("in", "GET stream: " + http_headers.describe_response(self.show_secrets, response))
            if response.status_code != 200 or not http_headers.is_event_stream(response.headers):
                return False
            parser = SseParser(max_event_size=self.max_message_size)
            yield from position.follow(parser, read_events(response, parser, stopped))
        return True

    def note_session(self, response: httpx.Response) -> None:
        """Keep the session id the first response that names one gives (the initialize response)."""
        given = response.headers.get("mcp-session-id")
        if self.session_id is None and http_headers.acceptable_session_id(given):
            self.session_id = given

    def send(self, text: str, message: dict[str, Any], older_version: str | None = None) -> None:
        """POST a notification or a response; the server should answer 202 Accepted (any 2xx is taken)."""
        self._in_session(older_version)
        headers = {**http_headers.JSON_BODY, **self.extra_headers,
                   **http_headers.session_headers(older_version, self.session_id)}
        try:
            response = self.client.post(self.url, content=text.encode("utf-8"), headers=headers,
                                        timeout=CONNECT_SECONDS)
        except httpx.HTTPError as error:
            raise unreachable(self.url, str(error) or type(error).__name__) from None
        if response.status_code in (401, 403):
            raise auth_error(response)
        if not 200 <= response.status_code < 300:
            raise ProtocolError(f"the server answered a message that expects no response with HTTP "
                                f"{response.status_code}, not 202 Accepted", "check the server's logs")

    def close(self) -> None:
        """Stop the GET stream; end the older era's session, if the server gave one (405: it keeps
        it); then the connection."""
        if self.listening is not None:
            self.listening.stop()
        if self.session_id is not None:
            try:
                self.client.delete(self.url, headers={**self.extra_headers, **self._session_headers()},
                                   timeout=CONNECT_SECONDS)
            except httpx.HTTPError:
                pass  # the session ends with the server anyway
        self.client.close()


class HttpExchange:
    """One POST (sent again for each redirect followed) and the stream that answers it."""

    def __init__(self, transport: HttpTransport, text: str, own_headers: dict[str, str]) -> None:
        self.transport = transport
        self.text = text
        self.own_headers = own_headers
        self.headers = {**transport.extra_headers, **own_headers}
        self.response: httpx.Response | None = None
        self._pump: Pump | None = None
        self.resumption = Resumption(text)

    def frames(self, deadline: Deadline) -> Iterator[Incoming]:
        """What arrives for the request; a 401 or 403 the authorizer answers sends it again with
        the new Authorization (the authorizer bounds how often)."""
        while True:
            try:
                yield from self._frames_once(deadline)
                return
            except AuthChallenge as challenge:
                authorizer = self.transport.authorizer
                if authorizer is None:
                    raise challenge.error from None
                self.close()
                self.transport.authorized((yield from authorizer.answer(challenge.status, challenge.challenge)))
                self.headers = {**self.transport.extra_headers, **self.own_headers}
                deadline.restart()  # logging in is not the server's time

    def _frames_once(self, deadline: Deadline) -> Iterator[Incoming]:
        """What arrives on the POST's stream (resumed if it breaks), and on the GET stream meanwhile."""
        self._pump = pump = Pump(lambda: self._produce(deadline), "mrtr-http")
        with attached(self.transport.listening, pump) as kept:
            yield from kept
            yield from pump.items(deadline)

    def cancel(self, notification: str) -> None:
        """Over HTTP, closing the response stream is the cancellation (no notification is sent)."""
        self.close()

    def close(self) -> None:
        """Stop reading. The response is closed by the exchange's own thread (httpx objects stay in
        one thread): at once, or when a blocked read returns or times out."""
        if self._pump is not None:
            self._pump.stop()

    def _produce(self, deadline: Deadline) -> Iterator[Incoming]:
        """Runs in the pump's thread: the request, its redirects, the response and its body."""
        try:
            response = yield from self._send_following(deadline)
            self.transport.note_session(response)
            kind = response.headers.get("content-type", "").split(";")[0].strip()
            yield WireInfo("in", http_headers.describe_response(self.transport.show_secrets, response),
                           {"status": response.status_code, "content_type": kind})
            yield from self._body(response, kind.lower())
            if self.transport.older_version is not None:
                yield from self._resume(deadline)
        finally:
            if self.response is not None:
                self.response.close()

    def _resume(self, deadline: Deadline) -> Iterator[Incoming]:
        """The stream ended before the response: GET it again with Last-Event-ID (resume.py)."""
        assert self._pump is not None
        while self.resumption.wanted():
            yield WireInfo("in", self.resumption.describe())
            if not self.resumption.wait(self._pump.stopped, deadline):
                return
            assert self.response is not None
            self.response.close()
            try:
                self.response = self.transport.get_stream(self.resumption.last_event_id, _timeout(deadline))
            except _Redirected as redirected:
                self.response = redirected.response
            yield WireInfo("in", http_headers.describe_response(self.transport.show_secrets, self.response))
            if self.response.status_code != 200 or not http_headers.is_event_stream(self.response.headers):
                return  # 405: the server offers no resumption
            yield from self._events(self.response)

    def _send_following(self, deadline: Deadline) -> Iterator[Incoming]:
        """Send the POST, again to each 307 or 308 redirect; returns the final response."""
        url, hops = self.transport.url, 0
        yield WireInfo("out", self._describe_request(url, self.headers), {"headers": dict(self.headers)})
        while True:
            try:
                self.response = self._send(url, self._headers_for(url), deadline)
                return self.response
            except _Redirected as redirected:
                yield WireInfo("in", http_headers.describe_response(self.transport.show_secrets, redirected.response))
                url = _next_url(url, redirected.response)
            hops += 1
            if hops > redirects.MAX_REDIRECTS:
                raise redirects.too_many(self.transport.url)
            headers = self._headers_for(url)
            note = "" if headers is self.headers else "\n(the -H headers are not sent to another origin)"
            yield WireInfo("out", self._describe_request(url, headers) + note)

    def _headers_for(self, url: str) -> dict[str, str]:
        """The user's -H headers go only to the origin of --url."""
        return self.headers if redirects.same_origin(url, self.transport.url) else self.own_headers

    def _send(self, url: str, headers: dict[str, str], deadline: Deadline) -> httpx.Response:
        return self.transport.open("POST", url, headers, _timeout(deadline), self.text.encode("utf-8"))

    def _body(self, response: httpx.Response, kind: str) -> Iterator[Incoming]:
        if response.status_code in (401, 403) and self.transport.authorizer is not None:
            raise AuthChallenge(response.status_code, response.headers.get("www-authenticate"), auth_error(response))
        if response.status_code in (401, 403):
            raise auth_error(response)
        if kind == "text/event-stream" and response.status_code == 200:
            yield from self._events(response)
            return
        body = self._read(response)
        if kind == "application/json" and is_jsonrpc(body, response.status_code):
            yield Frame(body)
            return
        raise status_error(response, body, kind)

    def _events(self, response: httpx.Response) -> Iterator[Incoming]:
        parser = SseParser(max_event_size=self.transport.max_message_size)
        yield from self.resumption.follow(parser, read_events(response, parser))

    def _read(self, response: httpx.Response) -> bytes:
        """The body, decoded, up to --max-message-size (a gzip bomb stops there too). Kept in a
        BytesIO, whose value is its own buffer: a big body is not copied once more at the end."""
        limit = self.transport.max_message_size
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
        return http_headers.describe(f"POST {safe_line(url, 500)}", headers.items(), self.transport.show_secrets)


def read_events(response: httpx.Response, parser: SseParser,
                stopped: threading.Event | None = None) -> Iterator[Incoming]:
    """An event stream's messages as frames (not a priming event's empty data), until it ends,
    breaks or `stopped` is set."""
    try:
        for chunk in response.iter_bytes():
            for event in parser.feed(chunk):
                yield WireInfo("in", f"SSE event: {safe_line(event.event, 40)}"
                                     f"{' id ' + safe_line(event.id, 40) if event.id else ''}")
                if event.event == "message" and event.data.strip():
                    yield Frame(event.data)
            if stopped is not None and stopped.is_set():
                return
    except httpx.TimeoutException:
        raise TransportTimeout() from None
    except httpx.HTTPError as error:
        yield WireInfo("in", f"the stream broke: {safe_line(error, 200)}")


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


def _timeout(deadline: Deadline) -> httpx.Timeout:
    """The whole request within the deadline; connecting within CONNECT_SECONDS."""
    return httpx.Timeout(deadline.seconds, connect=min(CONNECT_SECONDS, deadline.remaining() or 0.001))


class _Redirected(Exception):
    """A redirect, stopped before httpx builds a request from its Location (mrtr decides)."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def _stop_at_redirects(response: httpx.Response) -> None:
    """A response hook: hand every redirect to the exchange."""
    if response.has_redirect_location:
        raise _Redirected(response)


def _next_url(url: str, response: httpx.Response) -> str:
    """Where a redirect leads, checked by redirects.py and by httpx."""
    location = response.headers["location"]
    target = redirects.next_url(url, response.status_code, location)
    try:
        httpx.URL(target)
    except httpx.InvalidURL:
        raise redirects.invalid_location(location, response.status_code) from None
    return target

