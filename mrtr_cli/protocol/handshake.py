"""The initialize-handshake era (MCP 2024-11-05 to 2025-11-25), from the client's side.

A session opens with `initialize` (the client's version, capabilities and identity), the server
answers with the version it chose, and the client sends `notifications/initialized`. Requests then
carry no per-request `_meta` envelope (only `progressToken`), results carry no `resultType`, and the
server asks its questions as requests of its own while a call is in flight. What the client may
declare follows the negotiated version: elicitation from 2025-06-18, its URL mode (and
`notifications/elicitation/complete`) in 2025-11-25 only. Standard library only.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.protocol import jsonrpc, meta

OLDER_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The handshake versions mrtr speaks, oldest first."""
LATEST_OLDER = OLDER_VERSIONS[-1]
EVERY_VERSION = OLDER_VERSIONS + meta.SPOKEN_VERSIONS
"""Every version mrtr speaks, in either era, oldest first: what `--protocol-version` takes."""
ELICITATION_SINCE = "2025-06-18"
URL_MODE_SINCE = "2025-11-25"
ERAS = ("auto", "modern", "older")
INITIALIZE = "initialize"
"""The handshake's request, which opens the older era's session."""
"""`--protocol-era`'s values."""


def era_of(version: str) -> str:
    """`older` for a handshake version, `modern` for anything else."""
    return "older" if version in OLDER_VERSIONS else "modern"


def at_least(version: str, since: str) -> bool:
    """Whether `version` is `since` or newer (unknown versions count as the newest)."""
    known = OLDER_VERSIONS
    return version not in known or known.index(version) >= known.index(since)


def declared(version: str, capabilities: meta.Capabilities) -> dict[str, Any]:
    """The `capabilities` of `initialize` for this version: elicitation from 2025-06-18 (form only
    until URL mode in 2025-11-25), sampling in every version, roots in every version when something
    can answer them."""
    found: dict[str, Any] = {}
    if capabilities.roots and capabilities.roots_answerable:
        found["roots"] = {}
    if capabilities.sampling:
        found["sampling"] = {}
    if capabilities.elicitation and at_least(version, URL_MODE_SINCE):
        found["elicitation"] = {"form": {}, "url": {}}
    elif capabilities.elicitation and at_least(version, ELICITATION_SINCE):
        found["elicitation"] = {}
    return found


def initialize_params(version: str, capabilities: meta.Capabilities, client: meta.ClientIdentity) -> dict[str, Any]:
    """The params of `initialize`."""
    return {"protocolVersion": version, "capabilities": declared(version, capabilities),
            "clientInfo": client.as_dict()}


def accepted_version(result: Any) -> str | None:
    """The version the server chose in its `initialize` result, when mrtr speaks it; else None."""
    version = result.get("protocolVersion") if isinstance(result, dict) else None
    return version if version in OLDER_VERSIONS else None


def needed_capability(method: str, params: dict[str, Any]) -> str | None:
    """The dotted client capability a server request needs (`elicitation.url`, `sampling`, ...);
    None for a method that needs none (`ping`) or that this era does not define."""
    if method == "elicitation/create":
        return "elicitation.url" if params.get("mode") == "url" else "elicitation.form"
    if method == "sampling/createMessage":
        return "sampling"
    if method == "roots/list":
        return "roots"
    return None


def allowed(version: str, capabilities: meta.Capabilities, capability: str) -> bool:
    """Whether mrtr declared `capability` in `initialize` for this version."""
    given = declared(version, capabilities)
    top, _, sub = capability.partition(".")
    if top not in given:
        return False
    if top != "elicitation":
        return True
    return sub != "url" or "url" in given["elicitation"]


def refusal(request_id: Any, method: str, capability: str | None) -> dict[str, Any]:
    """The error response to a request mrtr cannot take: -32601 for an unknown method (the spec's
    answer for a capability not declared, too), in the words of JSON-RPC."""
    if capability is None:
        message = f"Method not found: {method}"
    else:
        message = f"Method not found: {method} needs the client capability {capability}, not declared"
    return error_response(request_id, jsonrpc.METHOD_NOT_FOUND, message)


def error_response(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": jsonrpc.VERSION, "id": request_id, "error": {"code": code, "message": message}}


def request_params(params: dict[str, Any], progress_token: str) -> dict[str, Any]:
    """A request's params in this era: only `progressToken` in `_meta`."""
    return {**params, "_meta": {meta.PROGRESS_TOKEN: progress_token}}
