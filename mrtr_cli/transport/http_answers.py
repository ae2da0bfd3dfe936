"""What an HTTP answer that is not a JSON-RPC response means: a request for credentials, a server of
the older era (or not an MCP endpoint), or a status mrtr cannot use. Each becomes one error that
shows the body safely. No httpx here: a response is read through its status, reason and headers.
"""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli.errors import AuthError, LegacyServerError, ProtocolError, UnreachableError
from mrtr_cli.text import safe_line

BODY_SUMMARY = 200
"""How many characters of a body a message shows."""


def is_jsonrpc(body: bytes) -> bool:
    try:
        message = json.loads(body)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("jsonrpc") == "2.0"


def summarize_body(body: bytes, kind: str) -> str:
    """A safe one-line summary of a body that is not JSON-RPC (HTML error pages included)."""
    if not body:
        return "an empty body"
    text = body.decode("utf-8", "replace")
    if "html" in kind or text.lstrip().lower().startswith(("<!doctype", "<html")):
        title = text.lower().find("<title>")
        end = text.lower().find("</title>")
        shown = text[title + 7:end].strip() if 0 <= title < end else "an HTML page"
        return f"an HTML page ({safe_line(shown, 80)}, {len(body)} bytes)"
    return f"a {kind or 'untyped'} body: {safe_line(text, BODY_SUMMARY)}"


def status_error(response: Any, body: bytes, kind: str) -> Exception:
    status = f"HTTP {response.status_code} {safe_line(response.reason_phrase, 60)}"
    summary = summarize_body(body, kind)
    if response.status_code in (400, 404, 405):
        return LegacyServerError.seen(f"{status} with {summary}, not a JSON-RPC error",
                                      "check --url; mrtr speaks MCP 2026-07-28",
                                      other_cause="the URL is not its MCP endpoint")
    if response.status_code == 202:
        return ProtocolError("the server answered a request with 202 Accepted and no response",
                             "a request needs a JSON or SSE response")
    return ProtocolError(f"{status} with {summary}", "check the server's logs")


def auth_error(response: Any) -> AuthError:
    challenge = response.headers.get("www-authenticate")
    said = f"; WWW-Authenticate: {safe_line(challenge, 300)}" if challenge else ""
    return AuthError(f"the server wants authentication (HTTP {response.status_code}){said}",
                     "pass a token with -H 'Authorization: Bearer TOKEN'")


def unreachable(url: str, reason: str) -> UnreachableError:
    """The error for a request that got no answer: the connection, or TLS, failed."""
    text, url = safe_line(reason, 300), safe_line(url, 300)
    if "SSL" in text or "certificate" in text.lower():
        return UnreachableError(f"TLS failed for {url}: {text}", "pass --cacert FILE, or --insecure to skip checks")
    return UnreachableError(f"cannot reach {url}: {text}", "is the server running? check --url")
