"""The Streamable HTTP transport: one POST per message, the answer as JSON or an SSE stream.

Each message goes with the headers it is given (`base.Headers`: the era makes them,
conversation/eras.py). A request is an exchange (post_exchange.py); a session, for messages
that name one, is http_session.py; the authorization flow's own requests go through
`fetch` (auth_fetch.py).
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

from mrtr_cli.errors import ProtocolError
from mrtr_cli.transport import http_headers
from mrtr_cli.transport.base import DEFAULT_MAX_MESSAGE_SIZE, Fetch, Headers, PlainReply
from mrtr_cli.transport.http import auth_fetch
from mrtr_cli.transport.listening import Listened
from mrtr_cli.transport.http.connection import CONNECT_SECONDS, Connection
from mrtr_cli.transport.http.http_session import HttpSession
from mrtr_cli.transport.http.post_exchange import Authorizer, HttpExchange
from mrtr_cli.transport.http_answers import auth_error, unreachable

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
