"""Tokens from the token endpoint: the code exchange and refresh, their answers checked and kept
as a `Login`. The requests themselves are built by oauth.py (authlib), loaded only here, when a
token is asked for.
"""

from __future__ import annotations

import time
from typing import Any

from mrtr_cli.auth.discovery import ServerMetadata
from mrtr_cli.auth.steps import Recorder, parse_json, refuse
from mrtr_cli.auth.store import Login
from mrtr_cli.errors import AuthError
from mrtr_cli.text import safe_line


def request_tokens(recorder: Recorder, metadata: ServerMetadata, request: Any, what: str,
                   hint: str = "log in again: mrtr auth login URL") -> dict[str, Any]:
    """Send a token request (oauth.TokenRequest); the token response, or an AuthError naming the
    server's error (never the request's secrets)."""
    endpoint = metadata.endpoint("token_endpoint")
    assert endpoint is not None  # discovery checked it
    reply = recorder.fetch("POST", endpoint, request.headers, request.body)
    document = parse_json(reply.body)
    if reply.status == 200 and isinstance(document, dict) and isinstance(document.get("access_token"), str):
        kind = document.get("token_type")
        if not isinstance(kind, str) or kind.lower() != "bearer":
            raise refuse(recorder, f"the token endpoint gave a token of type {safe_line(kind, 40)}, not Bearer",
                         "mrtr sends Bearer tokens only")
        return document
    said = _error_of(document) or f"HTTP {reply.status}"
    raise refuse(recorder, f"the token endpoint refused the {what}: {said}", hint)


def _error_of(document: Any) -> str | None:
    if not isinstance(document, dict) or not isinstance(document.get("error"), str):
        return None
    description = document.get("error_description")
    more = f" ({safe_line(description, 200)})" if isinstance(description, str) and description else ""
    return safe_line(document["error"], 60) + more


def login_from(resource: str, metadata: ServerMetadata, client: Any, response: dict[str, Any],
               asked: list[str], refresh_token: str | None = None) -> Login:
    """The login a token response gives (oauth.Client `client`); a refresh keeps the old refresh
    token when the server sends no new one."""
    scope = response.get("scope")
    granted = scope.split() if isinstance(scope, str) else list(asked)
    expires_in = response.get("expires_in")
    now = time.time()
    expires_at = now + expires_in if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool) \
        else None
    new_refresh = response.get("refresh_token")
    return Login(resource=resource, issuer=metadata.issuer, client_id=client.client_id,
                 client_secret=client.client_secret, access_token=response["access_token"], token_type="Bearer",
                 refresh_token=new_refresh if isinstance(new_refresh, str) else refresh_token, scopes=granted,
                 expires_at=expires_at, obtained_at=now)


def refreshed(recorder: Recorder, login: Login, metadata: ServerMetadata) -> Login | None:
    """A new access token from the login's refresh token; None when the server refuses it."""
    from mrtr_cli.auth import oauth

    assert login.refresh_token is not None
    method = oauth.choose_auth_method(metadata.listed("token_endpoint_auth_methods_supported"), None,
                                      bool(login.client_secret))
    client = oauth.Client(login.client_id, login.client_secret, method)
    request = oauth.refresh_request(client, login.refresh_token, login.resource, login.scopes)
    try:
        response = request_tokens(recorder, metadata, request, "refresh token")
    except AuthError:
        return None
    recorder.note("refreshed", "refreshed the access token", scopes=login.scopes)
    return login_from(login.resource, metadata, client, response, login.scopes, login.refresh_token)
