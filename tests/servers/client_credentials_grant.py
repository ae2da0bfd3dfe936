"""The client credentials grant (RFC 6749 section 4.4) for tests/servers/oauth_server.py: the
SDK's token handler has none, so this ASGI layer answers `POST /token` with
`grant_type=client_credentials` itself and hands every other request to the SDK's app.

Machine clients are given at start-up: `--machine-client ID:SECRET` (client_secret_basic or
client_secret_post) and `--machine-key ID:PUBLIC_KEY.pem` (private_key_jwt: a JWT assertion with
iss and sub the client id, aud the issuer or the token endpoint, signed with the key's private
half, RFC 7523, living at most MAX_ASSERTION_LIFETIME seconds). The authorization server metadata is
rewritten to say so: the grant type, the authentication methods (all three, or those
`--machine-auth-methods` names: a client authenticating another way is refused), and the
algorithms accepted. Tokens are bound to the resource asked for and come without a refresh token.
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from typing import Any, Callable
from urllib.parse import parse_qsl, unquote

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import import_key

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
SIGNING_ALGORITHMS = ["ES256", "ES384", "RS256", "PS256"]
METADATA_PATH = "/.well-known/oauth-authorization-server"
AUTH_METHODS = ["client_secret_basic", "client_secret_post", "private_key_jwt"]
MAX_ASSERTION_LIFETIME = 310
"""The longest an assertion may live (from now to its exp): mrtr asks 300 seconds."""


class MachineClients:
    """The machine clients: their secrets and their public keys."""

    def __init__(self, with_secret: list[str], with_key: list[str]) -> None:
        self.secrets = dict(item.split(":", 1) for item in with_secret)
        self.keys = {}
        for item in with_key:
            client_id, path = item.split(":", 1)
            with open(path, "rb") as handle:
                self.keys[client_id] = public_key(handle.read())

    def from_secret(self, headers: dict[str, str], form: dict[str, str]) -> str | None:
        """The client a Basic header or the body's client_id and client_secret prove, if any."""
        basic = headers.get("authorization", "")
        if basic.lower().startswith("basic "):
            client_id, _, secret = base64.b64decode(basic[6:]).decode("utf-8").partition(":")
            client_id, secret = unquote(client_id), unquote(secret)
        else:
            client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
        known = self.secrets.get(client_id)
        return client_id if known is not None and secrets.compare_digest(known, secret) else None

    def from_assertion(self, form: dict[str, str], audiences: list[str]) -> str | None:
        """The client a JWT assertion proves, if any: signed by its key, for this server, not expired."""
        if form.get("client_assertion_type") != ASSERTION_TYPE:
            return None
        try:
            unverified = json.loads(base64.urlsafe_b64decode(form["client_assertion"].split(".")[1] + "=="))
            key = self.keys[unverified["sub"]]
            token = jwt.decode(form["client_assertion"], key, algorithms=SIGNING_ALGORITHMS)
        except (JoseError, KeyError, ValueError, IndexError):
            return None
        claims = token.claims
        if claims.get("iss") != claims.get("sub") or claims.get("aud") not in audiences:
            return None
        exp = claims.get("exp")
        alive = isinstance(exp, int) and time.time() < exp <= time.time() + MAX_ASSERTION_LIFETIME
        return claims["sub"] if alive else None


def public_key(pem: bytes) -> Any:
    """An EC or RSA public key in PEM."""
    try:
        return import_key(pem, "EC")
    except (JoseError, ValueError):
        return import_key(pem, "RSA")


class ClientCredentialsGrant:
    """The SDK's app, with the client credentials grant and the metadata that announces it."""

    def __init__(self, app: Any, clients: MachineClients, issuer: str, issue: Callable[..., dict[str, Any]],
                 methods: list[str] | None = None) -> None:
        self.methods = methods or AUTH_METHODS
        self.app = app
        self.clients = clients
        self.issuer = issuer
        self.issue = issue  # (client_id, scopes, resource) -> the token response, or an "error"

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("path") == METADATA_PATH:
            await rewritten_json(self.app, scope, receive, send, self.announced)
            return
        if scope.get("type") != "http" or scope.get("path") != "/token" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body = await whole_body(receive)
        form = dict(parse_qsl(body.decode("utf-8", "replace")))
        if form.get("grant_type") != "client_credentials":
            await self.app(scope, replaying(body), send)
            return
        await send_json(send, *self.granted(scope, form))

    def announced(self, document: dict[str, Any]) -> dict[str, Any]:
        document["grant_types_supported"] = [*document.get("grant_types_supported", []), "client_credentials"]
        document["token_endpoint_auth_methods_supported"] = self.methods
        document["token_endpoint_auth_signing_alg_values_supported"] = SIGNING_ALGORITHMS
        return document

    def granted(self, scope: dict, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        audiences = [self.issuer, f"{self.issuer}/", f"{self.issuer}/token"]
        method = authentication_method(headers, form)
        if method not in self.methods:
            return 401, {"error": "invalid_client", "error_description": f"{method} is not accepted here"}
        client_id = self.clients.from_assertion(form, audiences) if "client_assertion" in form \
            else self.clients.from_secret(headers, form)
        if client_id is None:
            return 401, {"error": "invalid_client", "error_description": "unknown client, wrong secret or assertion"}
        answer = self.issue(client_id, form.get("scope", "").split(), form.get("resource"))
        return (400 if "error" in answer else 200), answer


def authentication_method(headers: dict[str, str], form: dict[str, str]) -> str:
    """How the client authenticates this token request."""
    if "client_assertion" in form:
        return "private_key_jwt"
    return "client_secret_basic" if headers.get("authorization", "").lower().startswith("basic ") \
        else "client_secret_post"


async def whole_body(receive: Any) -> bytes:
    chunks, more = [], True
    while more:
        message = await receive()
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    return b"".join(chunks)


def replaying(body: bytes) -> Any:
    """A `receive` that gives `body` again, for the app after this layer."""
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}
    return receive


async def send_json(send: Any, status: int, document: dict[str, Any]) -> None:
    body = json.dumps(document).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})


async def rewritten_json(app: Any, scope: dict, receive: Any, send: Any,
                         change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """The app's JSON answer to this request, changed by `change` before it is sent."""
    sent: list[dict] = []

    async def keep(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, keep)
    document = json.loads(b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"))
    await send_json(send, 200, change(document))
