"""The connection to one Streamable HTTP endpoint: httpx's client, a request sent with its answer
streamed, an event stream read, and the timeouts.

httpx follows no redirect: each one stops as `Redirected` (a response hook), and mrtr decides
(redirects.py). Proxies come from the usual environment variables.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx

from mrtr_cli.errors import UsageError
from mrtr_cli.text import safe_line
from mrtr_cli.transport import http_headers
from mrtr_cli.transport.base import Deadline, Frame, Incoming, TransportTimeout, WireInfo
from mrtr_cli.transport.http_answers import unreachable
from mrtr_cli.transport.resume import StreamPosition
from mrtr_cli.transport.sse import SseParser

CONNECT_SECONDS = 10.0


class Connection:
    """An endpoint, the headers every request to it carries, and the client that sends them."""

    def __init__(self, url: str, headers: dict[str, str], cacert: str | None, insecure: bool, show_secrets: bool,
                 max_message_size: int) -> None:
        self.url = url
        self.extra_headers = headers
        """The -H headers, and the Authorization once the auth step has one."""
        self.cacert, self.insecure = cacert, insecure
        self.show_secrets = show_secrets
        self.max_message_size = max_message_size
        plain = url.lower().startswith("http://")  # no TLS: skip loading a CA bundle (redirects keep the scheme)
        verify: bool | str = False if insecure or plain else (cacert or True)
        try:
            self.client = httpx.Client(verify=verify, trust_env=True, follow_redirects=False,
                                       event_hooks={"response": [_stop_at_redirects]})
        except OSError as error:
            raise UsageError(f"cannot use --cacert {cacert!r}: {error.strerror or error}", "check the file") from None

    def authorized(self, authorization: str | None) -> None:
        """Send `authorization` as the Authorization header from now on."""
        if authorization is not None:
            self.extra_headers = {**self.extra_headers, "Authorization": authorization}

    def open(self, method: str, url: str, headers: dict[str, str], timeout: httpx.Timeout,
             content: bytes | None = None) -> httpx.Response:
        """Send a request; its response, streamed. A redirect raises Redirected."""
        request = self.client.build_request(method, url, content=content, headers=headers, timeout=timeout)
        try:
            return self.client.send(request, stream=True)
        except httpx.TimeoutException:
            raise TransportTimeout() from None
        except httpx.HTTPError as error:
            raise unreachable(url, str(error) or type(error).__name__) from None

    def describe_response(self, response: httpx.Response) -> str:
        """A response's status line and headers, for -v."""
        return http_headers.describe_response(self.show_secrets, response)

    def follow(self, position: StreamPosition, response: httpx.Response,
               stopped: threading.Event | None = None) -> Iterator[Incoming]:
        """What an event stream brings, its place kept in `position` (resume.py); each event up to
        --max-message-size."""
        parser = SseParser(max_event_size=self.max_message_size)
        return position.follow(parser, read_events(response, parser, stopped))


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


def streams_events(response: httpx.Response) -> bool:
    """Whether a GET was answered with an event stream (405, or anything else: the server offers none)."""
    return response.status_code == 200 and http_headers.is_event_stream(response.headers)


def request_timeout(deadline: Deadline) -> httpx.Timeout:
    """The whole request within the deadline; connecting within CONNECT_SECONDS."""
    return httpx.Timeout(deadline.seconds, connect=min(CONNECT_SECONDS, deadline.remaining() or 0.001))


class Redirected(Exception):
    """A redirect, stopped before httpx builds a request from its Location (mrtr decides)."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def _stop_at_redirects(response: httpx.Response) -> None:
    """A response hook: hand every redirect to the exchange."""
    if response.has_redirect_location:
        raise Redirected(response)
