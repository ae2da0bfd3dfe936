"""The client credentials grant (RFC 6749 section 4.4; the MCP extension
io.modelcontextprotocol/oauth-client-credentials): a machine's login, with no browser and no
loopback listener, after the same discovery as a person's (auth/flow.py). The client proves itself
with its secret (client_secret_basic or client_secret_post, as the authorization server's metadata
allows) or a JWT assertion signed with its key (private_key_jwt, RFC 7523), built by oauth.py.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from mrtr_cli.auth import oauth
from mrtr_cli.auth.challenge import Challenge
from mrtr_cli.auth.discovery import ResourceMetadata, ServerMetadata
from mrtr_cli.auth.identity import OFFLINE_ACCESS, Preset, choose_scopes, where_scopes_came_from
from mrtr_cli.auth.machine import MachineCredentials
from mrtr_cli.auth.steps import Recorder, refuse
from mrtr_cli.auth.store import CLIENT_CREDENTIALS, Login
from mrtr_cli.auth.tokens import login_from, request_tokens
from mrtr_cli.text import safe_line

SECRET_METHODS = frozenset({"client_secret_basic", "client_secret_post"})
"""The token endpoint authentication methods that send a client secret."""


def grant(recorder: Recorder, machine: MachineCredentials, preset: Preset, challenge: Challenge,
          resource: ResourceMetadata, metadata: ServerMetadata, asked_before: tuple[str, ...] = ()) -> Login:
    """One client credentials grant (RFC 6749 section 4.4): no browser, no listener. The login
    keeps neither the secret nor a refresh token: a later run comes with its credentials again."""
    scopes = [scope for scope in choose_scopes(challenge, preset, resource, metadata, asked_before)
              if scope != OFFLINE_ACCESS]
    recorder.note("scopes", f"scopes: {' '.join(scopes) or '(none)'} (from "
                  f"{where_scopes_came_from(challenge, preset, resource)})", scopes=scopes)
    client = machine_client(recorder, machine, metadata)
    signed = f" ({client.algorithm})" if client.algorithm else ""
    recorder.note("client", f"client credentials of client {safe_line(machine.client_id, 100)}, proved by "
                  f"{safe_line(machine.authentication, 200)}{signed}, sent {client.auth_method}",
                  how="client credentials", client_id=machine.client_id, client_auth=client.auth_method,
                  algorithm=client.algorithm)
    request = oauth.client_credentials_request(client, resource.resource, scopes, metadata.issuer)
    response = request_tokens(recorder, metadata, request, "client credentials",
                              "check the client id and its secret or key with the authorization server's operators")
    login = dataclasses.replace(login_from(resource.resource, metadata, client, response, scopes),
                                client_secret=None, refresh_token=None, grant_type=CLIENT_CREDENTIALS)
    recorder.note("authorized", f"authorized by {safe_line(metadata.issuer, 200)} with scopes "
                  f"{' '.join(login.scopes) or '(none)'} (client credentials)", issuer=metadata.issuer,
                  scopes=login.scopes)
    return login


def machine_client(recorder: Recorder, machine: MachineCredentials, metadata: ServerMetadata) -> Any:
    """The oauth.Client of a machine: its secret or its key (parsed and checked already, auth/machine.py),
    sent as the metadata allows; a way the server does not take is exit 3, refused before any token request."""
    methods = metadata.listed("token_endpoint_auth_methods_supported")
    if machine.key is None:
        if methods and not SECRET_METHODS.intersection(methods):
            raise refuse(recorder, f"the authorization server takes no client secret at its token endpoint, only "
                         f"{safe_line(', '.join(methods), 200)}", "log in with the client's key: "
                         "--client-assertion-key FILE (private_key_jwt)")
        return oauth.Client(machine.client_id, machine.secret, oauth.choose_auth_method(methods, None, True))
    if methods and oauth.PRIVATE_KEY_JWT not in methods:
        raise refuse(recorder, f"the authorization server takes no signed JWT (private_key_jwt) at its token "
                     f"endpoint, only {safe_line(', '.join(methods), 200)}", "log in with the client's secret")
    try:
        algorithm = oauth.signing_algorithm(machine.key, metadata.listed(
            "token_endpoint_auth_signing_alg_values_supported"), machine.alg)
    except ValueError as error:
        raise refuse(recorder, f"no algorithm to sign the assertion with: {error}",
                     "give a key the server accepts") from None
    return oauth.Client(machine.client_id, None, oauth.PRIVATE_KEY_JWT, machine.key, algorithm)
