"""The MCP authorization flow, put together: what answers a server's 401 or 403.

On a 401: discovery (discovery.py); a refresh when the kept login has a refresh token from the
same authorization server (tokens.py); else a login: scopes and client identity (identity.py),
the authorization request through the browser and the loopback listener (loopback.py, oauth.py),
the redirect checked (`state`, RFC 9207 `iss`), the code traded for tokens, the login kept
(store.py). On a 403 `insufficient_scope`: a login with the union of the scopes (a step-up). At
most MAX_LOGINS logins a run. Without a terminal and without --auth-open, or with
--auth-stored-only, kept tokens are used and refreshed but no browser is opened: a missing login
is exit 3 with the command to run. With --client-credentials a machine logs in instead, with its
secret or key and no browser (machine_grant.py). A person's run and a machine's each use and keep
only their own kind of login (store.py): a person's call never runs as a machine.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Generator
from typing import Any, NamedTuple

from mrtr_cli.auth import loopback
from mrtr_cli.auth.challenge import Challenge, parse_challenge
from mrtr_cli.auth.discovery import ResourceMetadata, ServerMetadata, discovered
from mrtr_cli.auth.identity import Preset, choose_scopes, client_identity, where_scopes_came_from
from mrtr_cli.auth.machine import FLAGS, MachineCredentials
from mrtr_cli.auth.steps import Recorder, refuse
from mrtr_cli.auth.store import CLIENT_CREDENTIALS, Login, NoStore, TokenStore, own_login
from mrtr_cli.auth.tokens import login_from, refreshed, request_tokens
from mrtr_cli.errors import AuthError
from mrtr_cli.process import signals
from mrtr_cli.text import safe_line
from mrtr_cli.transport.base import Fetch, Incoming

_DONE = object()
"""Ends the steps of one answer."""
MAX_LOGINS = 3
"""The most logins (first one and step-ups) one run makes: a server that keeps refusing ends it."""


class AuthSettings(NamedTuple):
    """How mrtr may log in (the connection options, over the mcpServers entry's `oauth`)."""

    preset: Preset = Preset()
    stored_only: bool = False
    auth_open: str | None = None
    auth_timeout: float = 300.0
    show_secrets: bool = False
    machine: MachineCredentials | None = None
    """A machine's client credentials (--client-credentials): a grant, never a browser."""

    def may_open_browser(self) -> bool:
        return not self.stored_only and (self.auth_open is not None or loopback.at_terminal())


def log_in(recorder: Recorder, server_url: str, settings: AuthSettings, challenge: Challenge,
           resource: ResourceMetadata, metadata: ServerMetadata, asked_before: tuple[str, ...] = ()) -> Login:
    """One authorization code login with PKCE, through the browser (or --auth-open)."""
    from mrtr_cli.auth import oauth

    scopes = choose_scopes(challenge, settings.preset, resource, metadata, asked_before)
    recorder.note("scopes", f"scopes: {' '.join(scopes) or '(none)'} (from "
                  f"{where_scopes_came_from(challenge, settings.preset, resource)})", scopes=scopes)
    listener = loopback.Listener()
    opener = None
    try:
        identity = client_identity(recorder, settings.preset, metadata, listener.redirect_uri, scopes)
        method = oauth.choose_auth_method(metadata.listed("token_endpoint_auth_methods_supported"),
                                          identity.registered_method, bool(identity.client_secret))
        client = oauth.Client(identity.client_id, identity.client_secret, method)
        pkce, state = oauth.new_pkce(), oauth.new_state()
        url = oauth.authorization_url(str(metadata.endpoint("authorization_endpoint")), client,
                                      listener.redirect_uri, scopes, state, pkce, resource.resource)
        recorder.note("authorize", f"authorization request to {safe_line(metadata.endpoint('authorization_endpoint'))}"
                      f"; waiting for the redirect to {listener.redirect_uri}", client_auth=method)
        opener = loopback.hand_over(url, settings.auth_open)
        received = _waited(recorder, listener, settings.auth_timeout, opener)
    finally:
        listener.close()
        _reap(opener)
    code = checked_redirect(recorder, received, state, metadata)
    response = request_tokens(recorder, metadata, oauth.code_request(client, code, listener.redirect_uri, pkce,
                                                                     resource.resource), "authorization code")
    login = login_from(resource.resource, metadata, client, response, scopes)
    recorder.note("authorized", f"authorized by {safe_line(metadata.issuer, 200)} with scopes "
                  f"{' '.join(login.scopes) or '(none)'}", issuer=metadata.issuer, scopes=login.scopes)
    return login


def _waited(recorder: Recorder, listener: loopback.Listener, seconds: float, opener: object) -> dict[str, str]:
    try:
        return listener.wait(seconds, opener)  # type: ignore[arg-type]
    except AuthError as error:
        recorder.failed(error.message)
        raise


def _reap(opener: object) -> None:
    """Do not leave the --auth-open command behind (it had the redirect's time to finish)."""
    if opener is not None:
        try:
            opener.wait(timeout=5)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 (a hung opener is killed, whatever went wrong)
            opener.kill()  # type: ignore[attr-defined]


def checked_redirect(recorder: Recorder, received: dict[str, str], state: str, metadata: ServerMetadata) -> str:
    """The code of the redirect, after `state` and RFC 9207 `iss` are checked (exact strings)."""
    if received.get("state") != state:
        raise refuse(recorder, "the redirect's state does not match the one mrtr sent: refused (a forged or "
                     "stale redirect)", "log in again")
    iss = received.get("iss")
    if iss is not None and iss != metadata.issuer:
        raise refuse(recorder, f"the redirect's iss {safe_line(iss, 200)} is not the authorization server's issuer "
                     f"{safe_line(metadata.issuer, 200)} (RFC 9207): refused", "log in again; tell the operators")
    if iss is None and metadata.document.get("authorization_response_iss_parameter_supported") is True:
        raise refuse(recorder, "the redirect has no iss, which the authorization server says it sends (RFC 9207): "
                     "refused", "log in again; tell the server's operators")
    if "error" in received:
        more = f" ({safe_line(received['error_description'], 200)})" if received.get("error_description") else ""
        raise refuse(recorder, f"the authorization server denied the login: {safe_line(received['error'], 60)}{more}",
                     "log in again and approve the request")
    if not received.get("code"):
        raise refuse(recorder, "the redirect carries no authorization code", "log in again")
    return received["code"]


class Authorizer:
    """What the HTTP transport asks when a server answers 401 or 403 (transport/http/streamable_http.py)."""

    def __init__(self, server_url: str, settings: AuthSettings, fetch: Fetch,
                 store: TokenStore | NoStore | None = None) -> None:
        self.server_url = server_url
        self.settings = settings
        self.fetch = fetch
        self.store = store or TokenStore()
        self.login: Login | None = None
        self.logins = 0
        self.refreshed = False

    def authorization(self) -> str | None:
        """The kept token of this run's kind for this server, if any (a person's, or with client
        credentials the machine's own): sent with the first request."""
        machine = self.settings.machine
        self.login = own_login(self.store, self.server_url, machine.client_id if machine is not None else None)
        return self.login.authorization() if self.login is not None else None

    def answer(self, status: int, header: str | None) -> Generator[Incoming, None, str]:
        """The steps taken, yielded as they happen (the login runs in a thread of its own, so the
        timeline says what mrtr waits for while it waits), and the new Authorization; an AuthError
        when there is none."""
        steps: queue.Queue[Any] = queue.Queue()
        outcome: dict[str, Any] = {}
        threading.Thread(target=self._answer_in_thread, args=(parse_challenge(status, header), steps, outcome),
                         name="mrtr-auth", daemon=True).start()
        while (step := signals.awake(lambda seconds: steps.get(timeout=seconds), queue.Empty)) is not _DONE:
            yield step
        if "error" in outcome:
            raise outcome["error"]
        login: Login = outcome["login"]
        self.login = login
        self.store.save(login)
        return login.authorization()

    def _answer_in_thread(self, challenge: Challenge, steps: queue.Queue[Any], outcome: dict[str, Any]) -> None:
        try:
            outcome["login"] = self._answer(Recorder(self.fetch, self.settings.show_secrets, live=steps.put),
                                            challenge)
        except BaseException as error:  # noqa: BLE001 - handed to the waiting thread, which raises it
            outcome["error"] = error
        finally:
            steps.put(_DONE)

    def _answer(self, recorder: Recorder, challenge: Challenge) -> Login:
        if challenge.status == 403 and not challenge.wants_more_scopes:
            raise AuthError(f"the server refused the request (HTTP 403{_said(challenge)})",
                            "the login lacks a permission the server does not name; check the account")
        recorder.note("challenge", f"the server answered HTTP {challenge.status}{_said(challenge)}",
                      status=challenge.status, scopes=list(challenge.scopes))
        resource, metadata = discovered(recorder, self.server_url, challenge)
        login = self._refreshed(recorder, challenge, metadata)
        if login is not None:
            return login
        return self._new_login(recorder, challenge, resource, metadata)

    def _new_login(self, recorder: Recorder, challenge: Challenge, resource: ResourceMetadata,
                   metadata: ServerMetadata) -> Login:
        """A grant with client credentials, else a login through the browser, as the settings allow."""
        machine = self.settings.machine
        if machine is None and not self.settings.may_open_browser():
            raise refuse(recorder, f"{self._no_token_words()}, and mrtr may not open a browser here (no terminal, "
                         "or --auth-stored-only)", self._log_in_hint())
        if self.logins >= MAX_LOGINS:
            raise refuse(recorder, f"the server still refuses after {MAX_LOGINS} logins in this run{_said(challenge)}",
                         "check the account's permissions on the server")
        self.logins += 1
        asked = tuple(self.login.scopes) if self.login is not None else ()
        if machine is not None:
            from mrtr_cli.auth.machine_grant import grant  # authlib, loaded only for a grant

            return grant(recorder, machine, self.settings.preset, challenge, resource, metadata, asked)
        return log_in(recorder, self.server_url, self.settings, challenge, resource, metadata, asked)

    def _no_token_words(self) -> str:
        url = safe_line(self.server_url, 200)
        return f"the login kept for {url} no longer works" if self.login is not None else f"no login kept for {url}"

    def _log_in_hint(self) -> str:
        """How a person logs in; and, when a machine's login is kept for the server, how to use it."""
        hint = f"log in first: mrtr auth login {safe_line(self.server_url, 200)} (or pass --auth-open CMD)"
        if self.store.load(self.server_url, CLIENT_CREDENTIALS) is None:
            return f"{hint}; a machine passes --client-credentials"
        return f"{hint}; a machine's login is kept for this server, used only with its credentials: pass {FLAGS}"

    def _refreshed(self, recorder: Recorder, challenge: Challenge, metadata: ServerMetadata) -> Login | None:
        """A refreshed login, when a 401 meets a kept refresh token of the same authorization server."""
        login = self.login
        if challenge.status != 401 or login is None or login.refresh_token is None or self.refreshed:
            return None
        if login.issuer != metadata.issuer:
            recorder.note("issuer-changed", f"the server now names the authorization server "
                          f"{safe_line(metadata.issuer, 200)}, not {safe_line(login.issuer, 200)}: logging in again")
            return None
        self.refreshed = True
        return refreshed(recorder, login, metadata)


def _said(challenge: Challenge) -> str:
    if challenge.error is None:
        return ""
    more = f": {safe_line(challenge.description, 200)}" if challenge.description else ""
    return f", {safe_line(challenge.error, 60)}{more}"
