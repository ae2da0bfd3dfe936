"""The headers every HTTP request of mrtr's carries, and how -v shows requests and responses (no httpx here).

A message's own headers are made above the transport, by the era spoken (conversation/eras.py).
Secret header values are hidden unless --show-secrets.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mrtr_cli.protocol import headers as mcp_headers
from mrtr_cli.text import safe_line

ACCEPT = "application/json, text/event-stream"
JSON_BODY = {"Content-Type": "application/json", "Accept": ACCEPT}


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
