"""Who mrtr is at the authorization server, and which scopes it asks for.

Client identity, in order: a pre-registered client (--client-id/--client-secret, or the mcpServers
entry's `oauth`), a Client ID Metadata Document (--client-metadata-url, when the server advertises
`client_id_metadata_document_supported`), else dynamic client registration (RFC 7591) with
`application_type: native`. Credentials of one authorization server are never used at another.
Scopes: the challenge's, else the configured ones, else the resource's `scopes_supported`, else
none; on a step-up, the union with what was asked before; `offline_access` when the server
lists it. Standard library only (the token request itself is oauth.py's).
"""

from __future__ import annotations

import json
from typing import Literal, NamedTuple

from mrtr_cli.auth.challenge import Challenge
from mrtr_cli.auth.discovery import ResourceMetadata, ServerMetadata
from mrtr_cli.auth.steps import Recorder, parse_json, refuse
from mrtr_cli.text import safe_line

CLIENT_NAME = "mrtr"
OFFLINE_ACCESS = "offline_access"


class Preset(NamedTuple):
    """What the person configured: flags, over the mcpServers entry's `oauth`."""

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    scopes: tuple[str, ...] = ()


IdentityKind = Literal["pre-registered", "metadata document", "registered"]
"""How mrtr came by its client identity: given (--client-id), its metadata document's URL, or
registered with the authorization server (dynamic client registration)."""


class Identity(NamedTuple):
    """The client: id, secret (None for a public client), and how mrtr came by it."""

    client_id: str
    client_secret: str | None
    how: IdentityKind
    registered_method: str | None = None


def choose_scopes(challenge: Challenge, preset: Preset, resource: ResourceMetadata, metadata: ServerMetadata,
                  asked_before: tuple[str, ...] = ()) -> list[str]:
    """The scopes to ask for, in a stable order."""
    chosen = list(challenge.scopes or preset.scopes or resource.scopes_supported)
    if challenge.wants_more_scopes:
        chosen = list(asked_before) + [scope for scope in chosen if scope not in asked_before]
    if chosen and OFFLINE_ACCESS in metadata.listed("scopes_supported") and OFFLINE_ACCESS not in chosen:
        chosen.append(OFFLINE_ACCESS)
    return chosen


def where_scopes_came_from(challenge: Challenge, preset: Preset, resource: ResourceMetadata) -> str:
    if challenge.scopes:
        return "the server's challenge"
    if preset.scopes:
        return "the configuration"
    return "the resource's scopes_supported" if resource.scopes_supported else "nowhere: none asked"


def client_identity(recorder: Recorder, preset: Preset, metadata: ServerMetadata, redirect_uri: str,
                    scopes: list[str]) -> Identity:
    """The client identity for this authorization server."""
    if preset.client_id:
        recorder.note("client", f"pre-registered client {safe_line(preset.client_id, 100)}", how="pre-registered",
                      client_id=preset.client_id)
        return Identity(preset.client_id, preset.client_secret, "pre-registered")
    if preset.client_metadata_url and metadata.document.get("client_id_metadata_document_supported") is True:
        recorder.note("client", f"client ID metadata document {safe_line(preset.client_metadata_url, 200)}",
                      how="metadata document", client_id=preset.client_metadata_url)
        return Identity(preset.client_metadata_url, None, "metadata document")
    return register(recorder, metadata, redirect_uri, scopes)


def registration_request(metadata: ServerMetadata, redirect_uri: str, scopes: list[str]) -> dict[str, object]:
    """The client metadata mrtr registers (RFC 7591)."""
    supported = metadata.listed("token_endpoint_auth_methods_supported")
    method = "none" if "none" in supported else ("client_secret_post" if supported == ["client_secret_post"]
                                                  else "client_secret_basic")
    request: dict[str, object] = {
        "client_name": CLIENT_NAME, "application_type": "native", "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
        "token_endpoint_auth_method": method,
    }
    if scopes:
        request["scope"] = " ".join(scopes)
    return request


def register(recorder: Recorder, metadata: ServerMetadata, redirect_uri: str, scopes: list[str]) -> Identity:
    """Dynamic client registration at the server's registration_endpoint."""
    endpoint = metadata.endpoint("registration_endpoint")
    if endpoint is None:
        raise refuse(recorder, "the authorization server offers no dynamic client registration, and no client "
                     "was configured", "pass --client-id (and --client-secret) of a client registered there, "
                     "or --client-metadata-url if the server supports it")
    body = json.dumps(registration_request(metadata, redirect_uri, scopes)).encode("utf-8")
    reply = recorder.fetch("POST", endpoint, {"Content-Type": "application/json", "Accept": "application/json"}, body)
    document = parse_json(reply.body)
    if reply.status not in (200, 201) or not isinstance(document, dict) or not isinstance(
            document.get("client_id"), str) or not document["client_id"]:
        said = safe_line(document.get("error"), 100) if isinstance(document, dict) else f"HTTP {reply.status}"
        raise refuse(recorder, f"dynamic client registration failed ({said})",
                     "pass --client-id of a client registered with the authorization server")
    secret = document.get("client_secret") if isinstance(document.get("client_secret"), str) else None
    method = document.get("token_endpoint_auth_method")
    recorder.note("client", f"registered as client {safe_line(document['client_id'], 100)} at "
                  f"{safe_line(endpoint, 200)}", how="registered", client_id=document["client_id"])
    return Identity(document["client_id"], secret or None, "registered", method if isinstance(method, str) else None)
