"""The OAuth 2.1 protocol pieces, from authlib: PKCE S256, `state`, the authorization URL, and
the token requests (authorization code and refresh) with the client authentication the
authorization server allows (client_secret_basic, client_secret_post or none).

The one module that imports authlib; it is loaded only when mrtr logs in or refreshes a token.
The `resource` indicator (RFC 8707) goes in the authorization request and in every token request.
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import urlencode

from authlib.common.security import generate_token
from authlib.oauth2.auth import ClientAuth
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri, prepare_token_request
from authlib.oauth2.rfc7636 import create_s256_code_challenge

AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")
"""The token endpoint authentication methods mrtr can use."""


class Pkce(NamedTuple):
    """A PKCE pair: the verifier (a secret, kept for the token request) and its S256 challenge."""

    verifier: str
    challenge: str


class Client(NamedTuple):
    """Who mrtr is at the authorization server, and how it authenticates at the token endpoint."""

    client_id: str
    client_secret: str | None
    auth_method: str


class TokenRequest(NamedTuple):
    """A token request ready to send: headers and the form body."""

    headers: dict[str, str]
    body: bytes


def new_pkce() -> Pkce:
    verifier = generate_token(64)
    return Pkce(verifier, create_s256_code_challenge(verifier))


def new_state() -> str:
    state: str = generate_token(32)
    return state


def authorization_url(endpoint: str, client: Client, redirect_uri: str, scopes: list[str], state: str,
                      pkce: Pkce, resource: str) -> str:
    """The URL the person opens to authorize mrtr (scope left out when there is none)."""
    url: str = prepare_grant_uri(endpoint, client.client_id, "code", redirect_uri, scopes or None, state,
                                 code_challenge=pkce.challenge, code_challenge_method="S256", resource=resource)
    return url


def code_request(client: Client, code: str, redirect_uri: str, pkce: Pkce, resource: str) -> TokenRequest:
    """The token request that trades an authorization code for tokens."""
    body = prepare_token_request("authorization_code", code=code, redirect_uri=redirect_uri,
                                 code_verifier=pkce.verifier, resource=resource)
    return _authenticated(client, body)


def refresh_request(client: Client, refresh_token: str, resource: str, scopes: list[str]) -> TokenRequest:
    """The token request that trades a refresh token for a new access token."""
    body = prepare_token_request("refresh_token", refresh_token=refresh_token, resource=resource,
                                 scope=scopes or None)
    return _authenticated(client, body)


def _authenticated(client: Client, body: str) -> TokenRequest:
    """The body with the client's authentication: a Basic header, or the secret in the body; client_id
    is always in the body too (some servers, the MCP Python SDK's among them, look for it there)."""
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
    method = client.auth_method if client.client_secret else "none"
    _, headers, body = ClientAuth(client.client_id, client.client_secret, method).prepare("POST", "", headers, body)
    if "client_id=" not in body:
        body = f"{body}&{urlencode({'client_id': client.client_id})}"
    return TokenRequest(headers, body.encode("utf-8"))


def choose_auth_method(supported: list[str], registered: str | None, has_secret: bool) -> str:
    """The token endpoint authentication to use: none without a secret; else the one the
    registration named, else basic, else post, as the metadata allows (RFC 8414's default: basic)."""
    if not has_secret:
        return "none"
    if registered in ("client_secret_basic", "client_secret_post"):
        return registered
    offered = supported or ["client_secret_basic"]
    return "client_secret_post" if "client_secret_basic" not in offered and "client_secret_post" in offered \
        else "client_secret_basic"
