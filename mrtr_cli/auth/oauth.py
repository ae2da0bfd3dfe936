"""The OAuth 2.1 protocol pieces, from authlib: PKCE S256, `state`, the authorization URL, and
the token requests (authorization code, refresh, client credentials) with the client
authentication the authorization server allows (client_secret_basic, client_secret_post, none,
or private_key_jwt: a JWT assertion signed with the client's key, RFC 7523).

The one module that imports authlib (and joserfc, authlib's JOSE library, which reads the key);
it is loaded only when mrtr logs in or refreshes a token. The `resource` indicator (RFC 8707)
goes in the authorization request and in every token request.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple
from urllib.parse import urlencode

from authlib.common.security import generate_token
from authlib.oauth2.auth import ClientAuth
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri, prepare_token_request
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc.errors import JoseError
from joserfc.jwk import ECKey, RSAKey, import_key

from mrtr_cli.text import safe_line

AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")
"""The token endpoint authentication methods mrtr can use."""


class Pkce(NamedTuple):
    """A PKCE pair: the verifier (a secret, kept for the token request) and its S256 challenge."""

    verifier: str
    challenge: str


PRIVATE_KEY_JWT = "private_key_jwt"
"""The token endpoint authentication of a client that signs a JWT with its private key."""
EC_ALGORITHMS = {"P-256": "ES256", "P-384": "ES384", "P-521": "ES512"}
"""The one algorithm an EC key signs with, by its curve."""
RSA_ALGORITHMS = ("RS256", "PS256", "RS384", "PS384", "RS512", "PS512")
"""The algorithms an RSA key signs with, mrtr's choice first."""
ASSERTION_LIFETIME = 300
"""Seconds a JWT assertion lasts (its `exp`): it is sent at once, so a short life is enough."""


class Client(NamedTuple):
    """Who mrtr is at the authorization server, and how it authenticates at the token endpoint
    (with private_key_jwt: the key, a joserfc key, and the algorithm that signs)."""

    client_id: str
    client_secret: str | None
    auth_method: str
    key: Any = None
    algorithm: str | None = None


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


def signing_key(pem: bytes) -> Any:
    """The private key in `pem` (PKCS#8, EC on P-256/384/521 or RSA, no passphrase); ValueError
    saying why not, in a few words."""
    if b"-----BEGIN" not in pem:
        raise ValueError("not a PEM file")
    if b"-----BEGIN ENCRYPTED PRIVATE KEY-----" in pem:
        raise ValueError("protected by a passphrase, which mrtr does not ask for (openssl pkey -in KEY -out PLAIN "
                         "writes it without one)")
    key = _imported(pem)
    if key.private_key is None:
        raise ValueError("a public key: give the private key, which signs")
    if not isinstance(key, (ECKey, RSAKey)):
        raise ValueError(f"an {getattr(key, 'curve_name', 'OKP')} key: mrtr signs with EC (P-256, P-384, P-521) "
                         "or RSA keys")
    if isinstance(key, ECKey) and _curve_of(key) not in EC_ALGORITHMS:
        raise ValueError(f"an EC key on the curve {safe_line(_curve_of(key), 40)}: mrtr signs with P-256, P-384 "
                         "or P-521")
    return key


def _curve_of(key: ECKey) -> str:
    """The name of the EC key's curve (joserfc names the curves of JOSE; another, as cryptography does)."""
    try:
        return str(key.curve_name)
    except KeyError as error:
        return str(error.args[0]) if error.args else "unknown"


def _imported(pem: bytes) -> Any:
    """The key in `pem`, of whichever type it is."""
    for key_type in ("EC", "RSA", "OKP"):
        try:
            return import_key(pem, key_type)
        except TypeError:  # encrypted in a form without the PKCS#8 header
            raise ValueError("protected by a passphrase, which mrtr does not ask for") from None
        except (JoseError, ValueError):
            continue
    raise ValueError("not a private key mrtr can read (PKCS#8 PEM, EC or RSA, without a passphrase)")


def algorithms_of(key: Any) -> tuple[str, ...]:
    """The algorithms `key` (from signing_key) signs with, mrtr's choice first."""
    return (EC_ALGORITHMS[key.curve_name],) if isinstance(key, ECKey) else RSA_ALGORITHMS


def check_pinned(key: Any, pinned: str) -> None:
    """ValueError when `key` cannot sign with `pinned` (--client-assertion-alg)."""
    if pinned not in algorithms_of(key):
        raise ValueError(f"the key cannot sign with {safe_line(pinned, 40)} (it signs with "
                         f"{', '.join(algorithms_of(key))}): leave --client-assertion-alg out, or pin one of these")


def signing_algorithm(key: Any, supported: list[str], pinned: str | None) -> str:
    """The algorithm that signs the assertion: `pinned` (--client-assertion-alg, checked against the
    key already), else the first the key can sign with that the server lists (any, when it lists
    none); ValueError when none fits."""
    if pinned:
        return pinned
    able = algorithms_of(key)
    chosen = [algorithm for algorithm in able if not supported or algorithm in supported]
    if not chosen:
        raise ValueError(f"the authorization server accepts assertions signed with {', '.join(supported)}, and "
                         f"the key signs with {', '.join(able)}")
    return chosen[0]


def client_credentials_request(client: Client, resource: str, scopes: list[str], audience: str) -> TokenRequest:
    """The token request of the client credentials grant (RFC 6749 section 4.4): with a secret as
    the server allows, or a JWT assertion for `audience` (the authorization server's issuer)
    signed with the client's key, when no client_id goes in the body (RFC 7523 section 3)."""
    body = prepare_token_request("client_credentials", scope=" ".join(scopes) or None, resource=resource)
    if client.auth_method != PRIVATE_KEY_JWT:
        return _authenticated(client, body)
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
    signer = PrivateKeyJWT(audience, claims={"exp": int(time.time()) + ASSERTION_LIFETIME}, alg=client.algorithm)
    _, headers, body = ClientAuth(client.client_id, client.key, signer).prepare("POST", "", headers, body)
    return TokenRequest(headers, body.encode("utf-8"))
