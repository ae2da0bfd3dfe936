"""What each version of the initialize-handshake era allows, from the server's side.

Clients of 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25 open a session with `initialize`.
Elicitation arrived in 2025-06-18 (form only, flat primitive fields), URL mode and its completion
notification in 2025-11-25; sampling and roots exist in every version. Results of that era carry
no `resultType`, no caching hints and no serverInfo in `_meta`. Standard library only.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.protocol.handshake import ELICITATION_SINCE, LATEST_OLDER, OLDER_VERSIONS, URL_MODE_SINCE, at_least

STRUCTURED_CONTENT_SINCE = "2025-06-18"
MODERN_ONLY_FIELDS = ("resultType", "ttlMs", "cacheScope")
"""Result fields of 2026-07-28 that no older version defines."""


def negotiate(requested: Any) -> str:
    """The version to answer `initialize` with: the client's when spoken here, else the latest older one."""
    return requested if requested in OLDER_VERSIONS else LATEST_OLDER


def question_problem(request: dict[str, Any], version: str, declared: dict[str, Any]) -> str | None:
    """Why this input request cannot be sent to this client as a server request, or None."""
    method = request.get("method")
    if method == "elicitation/create":
        return _elicitation_problem(request.get("params") or {}, version, declared)
    capability = "sampling" if method == "sampling/createMessage" else "roots"
    if not isinstance(declared.get(capability), dict):
        return f"{method} needs the client capability {capability}, which the client did not declare in initialize"
    return None


def _elicitation_problem(params: dict[str, Any], version: str, declared: dict[str, Any]) -> str | None:
    if not at_least(version, ELICITATION_SINCE):
        return f"elicitation/create does not exist in protocol version {version} (it arrived in {ELICITATION_SINCE})"
    mode = params.get("mode", "form")
    if mode == "url" and not at_least(version, URL_MODE_SINCE):
        return f"URL-mode elicitation does not exist in protocol version {version} (it arrived in {URL_MODE_SINCE})"
    elicitation = declared.get("elicitation")
    if not isinstance(elicitation, dict):
        return "elicitation/create needs the client capability elicitation, which the client did not declare"
    modes = [m for m in ("form", "url") if m in elicitation] if at_least(version, URL_MODE_SINCE) else ["form"]
    if mode not in (modes or ["form"]):
        return f"elicitation/create in {mode} mode needs the client capability elicitation.{mode}, " \
               "which the client did not declare"
    if not at_least(version, URL_MODE_SINCE):
        return _form_problem(params.get("requestedSchema") or {}, version)
    return None


def _form_problem(schema: dict[str, Any], version: str) -> str | None:
    required = set(schema.get("required") or [])
    for name, field in (schema.get("properties") or {}).items():
        if name in required and _flattened(field) is None:
            return f"the required form field {name!r} is a multi-select, which protocol version {version} " \
                   "cannot ask"
    return None


def server_request(request: dict[str, Any], version: str) -> dict[str, Any]:
    """An input request's params as this version defines them (2025-06-18: no `mode`, primitive fields only)."""
    params = dict(request.get("params") or {})
    if request.get("method") != "elicitation/create" or at_least(version, URL_MODE_SINCE):
        return params
    params.pop("mode", None)
    schema = params.get("requestedSchema") or {}
    required = [n for n in schema.get("required") or [] if n in schema.get("properties", {})]
    properties = {n: f for n, f in ((n, _flattened(f)) for n, f in schema.get("properties", {}).items()) if f}
    params["requestedSchema"] = {"type": "object", "properties": properties,
                                 **({"required": required} if required else {})}
    return params


def _flattened(field: dict[str, Any]) -> dict[str, Any] | None:
    """A form field as 2025-06-18 defines it; None for a multi-select, which it cannot express.

    Titled single-select (`oneOf` of const and title) becomes `enum` with `enumNames`;
    `default` stays on booleans only; optional multi-selects are left out of the form.
    """
    if field.get("type") == "array":
        return None
    dropped = ("oneOf",) if field.get("type") == "boolean" else ("oneOf", "default")
    kept = {key: value for key, value in field.items() if key not in dropped}
    choices = field.get("oneOf")
    if isinstance(choices, list):
        kept["enum"] = [c.get("const") for c in choices]
        kept["enumNames"] = [c.get("title", c.get("const")) for c in choices]
    return kept


def older_result(result: dict[str, Any], version: str) -> dict[str, Any]:
    """A complete result in the shape of `version`: no 2026-07-28 fields, no serverInfo in `_meta`."""
    shaped = {k: v for k, v in result.items() if k not in MODERN_ONLY_FIELDS}
    if not at_least(version, STRUCTURED_CONTENT_SINCE):
        shaped.pop("structuredContent", None)
    extra_meta = {k: v for k, v in (shaped.pop("_meta", None) or {}).items()
                  if not k.startswith("io.modelcontextprotocol/")}
    if extra_meta:
        shaped["_meta"] = extra_meta
    return shaped
