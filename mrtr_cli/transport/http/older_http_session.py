"""The older era's session over HTTP: the `Mcp-Session-Id` the initialize response gives, the
version every later request names, the GET stream (listening.py) that the first such request
opens, the GET that resumes a POST's broken stream with `Last-Event-ID` (resume.py), and the
DELETE that ends the session.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Generator, Iterator

import httpx

from mrtr_cli.errors import UnreachableError
from mrtr_cli.transport import http_headers
from mrtr_cli.transport.base import Deadline, Incoming, TransportTimeout, WireInfo
from mrtr_cli.transport.http.connection import (CONNECT_SECONDS, Connection, Redirected, request_timeout,
                                                streams_events)
from mrtr_cli.transport.listening import ListeningStream
from mrtr_cli.transport.resume import Resumption, StreamPosition

LISTEN_SECONDS = 300.0
"""How long the GET stream may stay silent before mrtr stops reading it."""


class OlderSession:
    """One connection's session of the older era (nothing happens in the modern era)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.version: str | None = None
        """The version the session's requests name (MCP-Protocol-Version), for the GET stream and
        the session's end; set by the first request that names one."""
        self.session_id: str | None = None
        """The `Mcp-Session-Id` the server gave in its initialize response."""
        self.listening: ListeningStream | None = None
        """The GET stream, opened after the handshake."""

    def begin(self, older_version: str | None) -> None:
        """The first message of the older era after the handshake (it names the version chosen)
        opens the GET stream (listening.py), which names that version too."""
        if older_version is None or self.listening is not None:
            return
        self.version = older_version
        self.listening = ListeningStream(self._listen)
        self.listening.start()

    def note(self, response: httpx.Response) -> None:
        """Keep the session id the first response that names one gives (the initialize response)."""
        given = response.headers.get("mcp-session-id")
        if self.session_id is None and http_headers.acceptable_session_id(given):
            self.session_id = given

    def headers(self) -> dict[str, str]:
        """What the session's GET and DELETE name: its version and its id."""
        return http_headers.session_headers(self.version, self.session_id)

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
