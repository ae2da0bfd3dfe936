"""The first request to a server over HTTP: the token kept for it, if any, and nothing more.

Most servers ask for no authorization. For them mrtr reads one file at most (the token store)
and loads nothing else of OAuth; a 401 or 403 loads the flow (auth/flow.py) and hands it the
challenge. `ServerLogin` is what a target gives its transport: the server, and what mrtr may log
in with, read only when the server asks.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, NamedTuple

from mrtr_cli.auth.store import Login, NoStore, TokenStore, own_login
from mrtr_cli.transport.base import Incoming

if TYPE_CHECKING:
    from mrtr_cli.auth.flow import Authorizer
    from mrtr_cli.auth.identity import Preset
    from mrtr_cli.auth.machine import MachineCredentials
    from mrtr_cli.transport.base import Fetch
    from mrtr_cli.definition.options import TargetOptions


class KeptTokenFirst:
    """Sends the kept token first; the authorization flow is made only when a server asks."""

    def __init__(self, server_url: str, make_flow: Callable[[], Authorizer], store: TokenStore | NoStore,
                 client_id: str | None = None) -> None:
        self.server_url = server_url
        self._make_flow = make_flow
        self.store = store
        self.client_id = client_id
        """A machine's client id: its own kept login is sent, never a person's nor another client's;
        None for a person, whose own kept login is sent, never a machine's."""
        self.flow: Authorizer | None = None
        """The authorization flow (auth/flow.py), once a server has answered 401 or 403."""

    def authorization(self) -> str | None:
        login = own_login(self.store, self.server_url, self.client_id)
        return login.authorization() if login is not None else None

    def answer(self, status: int, challenge: str | None) -> Generator[Incoming, None, str]:
        if self.flow is None:
            self.flow = self._make_flow()
            self.flow.authorization()  # the flow starts from the kept login, to refresh it
        authorization: str = yield from self.flow.answer(status, challenge)
        return authorization

    @property
    def login(self) -> Login | None:
        return self.flow.login if self.flow is not None else None


class ServerLogin(NamedTuple):
    """A server over HTTP and what mrtr may log in to it with: the connection options (--client-id,
    --auth-open, ...) over the mcpServers entry's `oauth` (clientId, clientSecret,
    clientMetadataUrl, scopes), and a machine's client credentials (`machine_login`)."""

    url: str
    options: TargetOptions
    oauth: dict[str, Any]
    show_secrets: bool
    machine: MachineCredentials | None = None

    def kept_token_first(self, fetch: Fetch) -> KeptTokenFirst:
        """What the transport asks, fetching through `fetch`: the kept token first, the flow once
        the server answers 401 or 403."""
        return KeptTokenFirst(self.url, functools.partial(self.flow, fetch), self.store(),
                              self.machine.client_id if self.machine is not None else None)

    def store(self) -> TokenStore | NoStore:
        """Where logins are kept: the token store, or nowhere with --no-auth-store."""
        return NoStore() if self.options.no_auth_store else TokenStore()

    def flow(self, fetch: Fetch) -> Authorizer:
        """The authorization flow (auth/flow.py, loaded only now), fetching through `fetch`; `mrtr
        auth login` runs it at once."""
        from mrtr_cli.auth.flow import AuthSettings, Authorizer

        options = self.options
        settings = AuthSettings(self._preset(), options.auth_stored_only, options.auth_open, options.auth_timeout,
                                self.show_secrets, self.machine)
        return Authorizer(self.url, settings, fetch, self.store())

    def _preset(self) -> Preset:
        """The client identity and scopes configured: a flag wins over the entry's `oauth` (and a
        --client-id takes only --client-secret)."""
        from mrtr_cli.auth.identity import Preset

        options, oauth, scopes = self.options, self.oauth, self.oauth.get("scopes")
        secret = options.client_secret if options.client_id else options.client_secret or oauth.get("clientSecret")
        return Preset(options.client_id or oauth.get("clientId"), secret,
                      options.client_metadata_url or oauth.get("clientMetadataUrl"),
                      tuple(str(scope) for scope in scopes) if isinstance(scopes, list) else ())


def machine_login(options: TargetOptions, oauth: dict[str, Any]) -> MachineCredentials | None:
    """The client credentials a machine logs in with (auth/machine.py, loaded only when a flag or
    the entry names them), checked now, before any request: a usage error for what cannot be used."""
    if not any((options.client_credentials, options.client_secret_file, options.client_assertion_key,
                options.client_assertion_alg)) and not oauth:
        return None
    from mrtr_cli.auth.machine import machine_credentials

    return machine_credentials(options, oauth)
