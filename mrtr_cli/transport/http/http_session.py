"""The session over HTTP that the older era's messages belong to (`base.Headers.session`): the
`Mcp-Session-Id` the initialize response gives, the session headers every later message names
(the version the handshake chose), the GET stream (listening.py) that the first such message
opens, the GET that resumes a POST's broken stream with `Last-Event-ID` (resume.py), and the
DELETE that ends the session.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Generator, Iterator, Mapping

import httpx

from mrtr_cli.errors import UnreachableError
from mrtr_cli.transport import http_headers
from mrtr_cli.transport.base import Deadline, Headers, Incoming, TransportTimeout, WireInfo
from mrtr_cli.transport.http.connection import (CONNECT_SECONDS, Connection, Redirected, request_timeout,
                                                streams_events)
from mrtr_cli.transport.listening import ListeningStream
from mrtr_cli.transport.resume import Resumption, StreamPosition

SESSION_ID_HEADER = "Mcp-Session-Id"
LISTEN_SECONDS = 300.0
"""How long the GET stream may stay silent before mrtr stops reading it."""


class HttpSession:
    """One connection's session (nothing happens for messages that belong to none: 2026-07-28's)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.named: Mapping[str, str] = {}
        """The session headers its messages name (the version the handshake chose), for the GET
        stream and the session's end; set by the first message that names any."""
        self.session_id: str | None = None
        """The `Mcp-Session-Id` the server gave in its initialize response."""
        self.listening: ListeningStream | None = None
        """The GET stream, opened after the handshake."""

    def join(self, headers: Headers) -> dict[str, str]:
        """A message's headers: its own, and for a message of the session the session's with its id.
        The first message that names session headers (the first after the handshake) opens the
        GET stream (listening.py), which names them too."""
        if headers.session is None:
            return dict(headers.own)
        if headers.session and self.listening is None:
            self.named = dict(headers.session)
            self.listening = ListeningStream(self._listen)
            self.listening.start()
        return {**headers.own, **headers.session, **self._id()}

    @property
    def opened(self) -> bool:
        """Whether a message has named the session (the first after the handshake): a broken stream
        of its is resumed."""
        return bool(self.named)

    def _id(self) -> dict[str, str]:
        return {SESSION_ID_HEADER: self.session_id} if self.session_id else {}

    def note(self, response: httpx.Response) -> None:
        """Keep the session id the first response that names one gives (the initialize response)."""
        given = response.headers.get("mcp-session-id")
        if self.session_id is None and http_headers.acceptable_session_id(given):
            self.session_id = given

    def headers(self) -> dict[str, str]:
        """What the session's GET and DELETE name: its session headers and its id."""
        return {**self.named, **self._id()}

    def resume(self, resumption: Resumption, stopped: threading.Event, deadline: Deadline,
               ended: httpx.Response) -> Iterator[Incoming]:
        """A POST's stream (`ended`) broke before its response: GET it again with Last-Event-ID, as
        long as the server allows (resume.py). Each response is closed before the next is opened."""
        response = ended
        try:
            while resumption.wanted():
                yield WireInfo("in", resumption.describe())
                if not resumption.wait(stopped, deadline):
                    return
                response.close()
                response = self._reopened(resumption.last_event_id, request_timeout(deadline))
                yield WireInfo("in", self.connection.describe_response(response))
                if not streams_events(response):
                    return  # 405: the server offers no resumption
                yield from self.connection.follow(resumption, response)
        finally:
            response.close()

    def end(self) -> None:
        """Stop the GET stream; end the session, if the server gave one (405: it keeps it)."""
        if self.listening is not None:
            self.listening.stop()
        if self.session_id is not None:
            try:
                self.connection.client.delete(self.connection.url, timeout=CONNECT_SECONDS,
                                              headers={**self.connection.extra_headers, **self.headers()})
            except httpx.HTTPError:
                pass  # the session ends with the server anyway

    def _get_stream(self, last_event_id: str | None, timeout: httpx.Timeout) -> httpx.Response:
        """GET the endpoint for an event stream (with `Last-Event-ID` to resume one)."""
        headers = {"Accept": "text/event-stream", **self.connection.extra_headers, **self.headers()}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        return self.connection.open("GET", self.connection.url, headers, timeout)

    def _reopened(self, last_event_id: str | None, timeout: httpx.Timeout) -> httpx.Response:
        """The GET that resumes a stream (a redirect is its answer: no stream)."""
        try:
            return self._get_stream(last_event_id, timeout)
        except Redirected as redirected:
            return redirected.response

    def _listen(self, position: StreamPosition, stopped: threading.Event) -> Generator[Incoming, None, bool]:
        """One connection of the GET stream (see listening.py): False when the server offers none."""
        try:
            response = self._get_stream(position.last_event_id, httpx.Timeout(LISTEN_SECONDS, connect=CONNECT_SECONDS))
        except (TransportTimeout, UnreachableError, Redirected):
            return False
        with contextlib.closing(response):
            yield WireInfo("in", "GET stream: " + self.connection.describe_response(response))
            if not streams_events(response):
                return False
            yield from self.connection.follow(position, response, stopped)
        return True
