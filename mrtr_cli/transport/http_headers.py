"""The headers of mrtr's HTTP requests, and how -v shows requests and responses (no httpx here).

2026-07-28 requests mirror their body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and
`Mcp-Param-*` for the arguments a tools/call mirrors). The older era sends the version the
initialize handshake chose and the `Mcp-Session-Id` the server gave. Secret header values are
hidden unless --show-secrets.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mrtr_cli.protocol import headers as mcp_headers
from mrtr_cli.protocol import meta
from mrtr_cli.text import safe_line
from mrtr_cli.transport.base import Mirrored

ACCEPT = "application/json, text/event-stream"
JSON_BODY = {"Content-Type": "application/json", "Accept": ACCEPT}


def session_headers(older_version: str | None, session_id: str | None) -> dict[str, str]:
    """The older era's headers: the negotiated version (after initialize) and the session, if any."""
    headers = {mcp_headers.PROTOCOL_VERSION_HEADER: older_version} if older_version else {}
    if session_id:
        headers["Mcp-Session-Id"] = session_id
    return headers


def request_headers(message: dict[str, Any], mirrored: Mirrored | None, older_version: str | None,
                    session_id: str | None) -> dict[str, str]:
    """mrtr's own headers for `message` (the user's -H headers are added per origin)."""
    params = message.get("params") or {}
    if older_version is not None or message.get("method") == "initialize":
        return {**JSON_BODY, **session_headers(older_version, session_id)}
    version = (params.get("_meta") or {}).get(meta.PROTOCOL_VERSION, meta.LATEST_VERSION)
    headers = {**JSON_BODY, **mcp_headers.standard_headers(message, version)}
    if mirrored and message["method"] == "tools/call":
        headers.update(mcp_headers.param_headers(mirrored, params.get("arguments")))
    return headers


def acceptable_session_id(given: str | None) -> bool:
    """A session id mrtr sends back: visible ASCII, at most 1000 characters."""
    return bool(given) and len(given or "") <= 1000 and all("!" <= c <= "~" for c in given or "")


def shown(name: str, value: str, show_secrets: bool) -> str:
    """A header value for -v: secrets hidden unless --show-secrets."""
    if name.lower() in mcp_headers.SECRET_HEADERS and not show_secrets:
        scheme = value.split(" ", 1)[0] if " " in value else ""
        return f"{scheme} [hidden, {len(value)} characters; --show-secrets shows it]".strip()
    return safe_line(value, 500)


def describe(first_line: str, headers: Iterable[tuple[str, str]], show_secrets: bool) -> str:
    """A request or response for -v: its first line, then its headers."""
    return "\n".join([first_line, *(f"{name}: {shown(name, value, show_secrets)}" for name, value in headers)])


def describe_response(show_secrets: bool, response: Any) -> str:
    """An httpx response for -v: its status line and headers."""
    first = f"HTTP {response.status_code} {safe_line(response.reason_phrase, 80)}"
    return describe(first, response.headers.items(), show_secrets)


def is_event_stream(headers: Any) -> bool:
    return str(headers.get("content-type", "")).split(";")[0].strip().lower() == "text/event-stream"
