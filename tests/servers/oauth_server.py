"""A real OAuth-protected MCP server for the tests: an authorization server and the MCP server it
protects, in one process, built on the official Python SDK's server-side auth (PyPI `mcp`).

It serves Streamable HTTP on 127.0.0.1 (an ephemeral port unless one is given) and prints
`listening on http://127.0.0.1:PORT/mcp` to stderr once it accepts requests. Its issuer is
`http://127.0.0.1:PORT`; the protected resource is the `/mcp` URL. It offers:

- protected resource metadata (RFC 9728) at `/.well-known/oauth-protected-resource/mcp`, and a
  401 with `WWW-Authenticate: Bearer ..., resource_metadata="..."` for a request without a token;
- authorization server metadata (RFC 8414) at `/.well-known/oauth-authorization-server`;
- dynamic client registration (RFC 7591) at `/register`;
- `/authorize`, which approves at once: no page, a 302 to the redirect_uri with `code` and `state`
  (PKCE S256 required; a `resource` other than this server's is refused as `invalid_target`);
- `/token`: the authorization code grant (checking the PKCE verifier) and the refresh token grant
  (rotating both tokens); `/revoke`;
- one tool, `whoami`: the client, scopes and resource of the token it was called with;
- the client credentials grant for the machine clients given (client_credentials_grant.py): with a
  secret (`--machine-client ID:SECRET`) or a signed JWT (`--machine-key ID:PUBLIC_KEY.pem`).

Tokens are bound to the resource they were asked for: a token obtained without `resource` is
refused by the MCP endpoint, as is an expired one.

    python oauth_server.py [--port N] [--scopes "mcp:read mcp:write"] [--required-scopes mcp:read]
                           [--token-lifetime SECONDS] [--deny] [--metadata-fault no-s256|issuer]
                           [--machine-client ID:SECRET]... [--machine-key ID:PUBLIC_KEY.pem]...
                           [--machine-auth-methods METHOD,...] [--grants-file FILE]

`--deny` makes `/authorize` refuse every request (a redirect with `error=access_denied`);
`--metadata-fault` serves authorization server metadata without PKCE S256, or naming another issuer;
`--grants-file` appends a line (the client's id) for each access token issued, so a test counts logins.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import socket
import sys
import time
from typing import Any

import uvicorn
from client_credentials_grant import ClientCredentialsGrant, MachineClients

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (AccessToken, AuthorizationCode, AuthorizationParams, AuthorizeError,
                                      RefreshToken, construct_redirect_uri)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

CODE_LIFETIME = 300
"""Seconds an authorization code may wait for its exchange."""


class ApprovingProvider:
    """An authorization server that keeps everything in memory and approves every request.

    It fills in the SDK's provider protocol; the SDK's handlers do the checking (client
    authentication, redirect URIs, registered scopes, the PKCE verifier, code expiry)."""

    def __init__(self, resource: str, default_scopes: list[str], token_lifetime: int, deny: bool = False) -> None:
        self.resource = resource
        self.deny = deny
        self.default_scopes = default_scopes
        self.token_lifetime = token_lifetime
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access_tokens: dict[str, AccessToken] = {}
        self.refresh_tokens: dict[str, RefreshToken] = {}
        self.grants_file: str | None = None
        """Where each access token issued is counted, one line naming its client (--grants-file)."""

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[str(client_info.client_id)] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        """Approve at once: the redirect back to the client, with a fresh code and its state (or,
        with --deny, the refusal the SDK turns into a redirect with `error=access_denied`)."""
        if self.deny:
            raise AuthorizeError("access_denied", "the resource owner denied the request")
        if params.resource is not None and params.resource.rstrip("/") != self.resource:
            raise AuthorizeError("invalid_target", f"this server issues tokens for {self.resource} only")
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or self.default_scopes, expires_at=time.time() + CODE_LIFETIME,
            client_id=str(client.client_id), code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri, redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        found = self.codes.get(code)
        return found if found and found.client_id == client.client_id else None

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        del self.codes[authorization_code.code]  # a code is good once
        return self._issue(str(client.client_id), authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = self.refresh_tokens.get(refresh_token)
        return found if found and found.client_id == client.client_id else None

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        await self.revoke_token(refresh_token)  # rotation: the old pair is no longer good
        return self._issue(str(client.client_id), scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access_tokens.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        """Forget the token and the other half of its pair."""
        for table in (self.access_tokens, self.refresh_tokens):
            for key, kept in list(table.items()):
                if key == token.token or getattr(kept, "pair", None) == token.token:
                    del table[key]

    def issue_to_machine(self, client_id: str, scopes: list[str], resource: str | None) -> dict[str, Any]:
        """The token response of a client credentials grant: for this resource only, the scopes
        asked (else the defaults), no refresh token; or the error."""
        if resource is None or resource.rstrip("/") != self.resource:
            return {"error": "invalid_target", "error_description": f"tokens are for {self.resource} only"}
        if any(scope not in self.default_scopes for scope in scopes):
            return {"error": "invalid_scope", "error_description": f"valid: {' '.join(self.default_scopes)}"}
        token = self._issue(client_id, scopes or self.default_scopes, resource)
        del self.refresh_tokens[str(token.refresh_token)]
        return {"access_token": token.access_token, "token_type": "Bearer", "expires_in": token.expires_in,
                "scope": token.scope}

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        if self.grants_file:
            with open(self.grants_file, "a", encoding="utf-8") as grants:
                grants.write(f"{client_id}\n")
        expires_at = int(time.time()) + self.token_lifetime
        self.access_tokens[access] = PairedAccessToken(token=access, client_id=client_id, scopes=scopes,
                                                       expires_at=expires_at, resource=resource, pair=refresh)
        self.refresh_tokens[refresh] = PairedRefreshToken(token=refresh, client_id=client_id, scopes=scopes,
                                                          resource=resource, pair=access)
        return OAuthToken(access_token=access, expires_in=self.token_lifetime, scope=" ".join(scopes),
                          refresh_token=refresh)


class PairedAccessToken(AccessToken):
    pair: str
    """The refresh token issued with this access token."""


class PairedRefreshToken(RefreshToken):
    pair: str
    """The access token issued with this refresh token."""


def build_provider(base: str, options: argparse.Namespace) -> ApprovingProvider:
    provider = ApprovingProvider(f"{base}/mcp", options.scopes.split(), options.token_lifetime, options.deny)
    provider.grants_file = options.grants_file
    return provider


def build_server(base: str, options: argparse.Namespace, provider: ApprovingProvider | None = None) -> MCPServer:
    """The MCP server at `base`/mcp, protected by an approving authorization server at `base`."""
    valid_scopes = options.scopes.split()
    required = options.required_scopes.split()
    provider = provider or build_provider(base, options)
    auth = AuthSettings(
        issuer_url=base, resource_server_url=f"{base}/mcp", validate_token_resource=True,
        required_scopes=required or None,
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=valid_scopes,
                                                              default_scopes=valid_scopes),
        revocation_options=RevocationOptions(enabled=True))
    server = MCPServer("oauth-test-server", auth_server_provider=provider, auth=auth, log_level="WARNING")

    @server.tool()
    def whoami() -> dict[str, Any]:
        """Who the caller's token says it is: its client, scopes and resource."""
        token = get_access_token()
        assert token is not None  # the bearer middleware lets no request through without one
        return {"client_id": token.client_id, "scopes": token.scopes, "resource": token.resource}

    return server


class FaultyMetadata:
    """The app, its authorization server metadata altered: `no-s256` drops PKCE S256, `issuer`
    names another issuer."""

    def __init__(self, app: Any, fault: str) -> None:
        self.app = app
        self.fault = fault

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("path") != "/.well-known/oauth-authorization-server":
            await self.app(scope, receive, send)
            return
        sent: list[dict] = []

        async def keep(message: dict) -> None:
            sent.append(message)

        await self.app(scope, receive, keep)
        document = json.loads(b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"))
        if self.fault == "no-s256":
            document["code_challenge_methods_supported"] = ["plain"]
        else:
            document["issuer"] = "http://issuer.invalid"
        body = json.dumps(document).encode()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


async def serve(listener: socket.socket, server: MCPServer, fault: str | None = None,
                machines: Any = None) -> None:
    """Serve on `listener`; say `listening on URL` once requests are accepted (`machines`: what
    wraps the app with the client credentials grant)."""
    host, port = listener.getsockname()[:2]
    app: Any = server.streamable_http_app(json_response=True)
    if machines is not None:
        app = machines(app)
    if fault:
        app = FaultyMetadata(app, fault)
    runner = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    serving = asyncio.create_task(runner.serve(sockets=[listener]))
    deadline = time.monotonic() + 20
    while not runner.started and not serving.done() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    if runner.started:
        print(f"listening on http://{host}:{port}/mcp", file=sys.stderr, flush=True)
    await serving


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--scopes", default="mcp:read mcp:write", help="The scopes a client may ask for.")
    parser.add_argument("--required-scopes", default="", help="Scopes every call needs (else 403).")
    parser.add_argument("--token-lifetime", type=int, default=3600, help="Seconds an access token lasts.")
    parser.add_argument("--deny", action="store_true", help="Refuse every authorization request (access_denied).")
    parser.add_argument("--metadata-fault", choices=("no-s256", "issuer"), help="Serve faulty server metadata.")
    parser.add_argument("--machine-client", action="append", default=[], metavar="ID:SECRET",
                        help="A client of the client credentials grant, with its secret. Repeatable.")
    parser.add_argument("--machine-key", action="append", default=[], metavar="ID:PUBLIC_KEY.pem",
                        help="A client of the client credentials grant that signs a JWT (private_key_jwt). Repeatable.")
    parser.add_argument("--grants-file", help="Append one line to this file for each access token issued.")
    parser.add_argument("--machine-auth-methods", type=lambda text: text.split(","), metavar="METHOD,...",
                        help="The token endpoint authentication methods listed and accepted (default: all three).")
    return parser.parse_args(argv)


def main(argv: list[str]) -> None:
    options = parse(argv)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", options.port))
    base = f"http://127.0.0.1:{listener.getsockname()[1]}"
    provider = build_provider(base, options)
    clients = MachineClients(options.machine_client, options.machine_key)

    def machines(app: Any) -> ClientCredentialsGrant:
        return ClientCredentialsGrant(app, clients, base, provider.issue_to_machine, options.machine_auth_methods)

    asyncio.run(serve(listener, build_server(base, options, provider), options.metadata_fault, machines))


if __name__ == "__main__":
    main(sys.argv[1:])
