"""What an HTTP answer that is not a JSON-RPC response means: a request for credentials, a server of
the older era (or not an MCP endpoint), or a status mrtr cannot use. Each becomes one error that
shows the body safely. No httpx here: a response is read through its status, reason and headers.
"""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli.errors import AuthError, EndpointMissing, LegacyServerError, ProtocolError, UnreachableError
from mrtr_cli.text import safe_line

BODY_SUMMARY = 200
"""How many characters of a body a message shows."""


def is_jsonrpc(body: bytes, status: int) -> bool:
    """Whether `body` is a JSON-RPC message to read as a frame. With an HTTP error status, only a
    response with an `id` member is (an older-era server's refusal); any other body is the status's."""
    try:
        message = json.loads(body)
    except ValueError:
        return False
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return False
    return 200 <= status < 300 or ("id" in message and ("result" in message or "error" in message))


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
    said = _error_message(text)
    if said is not None:
        return f"the message {safe_line(said, BODY_SUMMARY)!r}"
    return f"a {kind or 'untyped'} body: {safe_line(text, BODY_SUMMARY)}"


def _error_message(text: str) -> str | None:
    """The `error.message` (or `message`, `error`) of a JSON error body, as servers write them."""
    try:
        body = json.loads(text)
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, str):
        return error
    said = error.get("message") if isinstance(error, dict) else body.get("message")
    return said if isinstance(said, str) else None


def status_error(response: Any, body: bytes, kind: str) -> Exception:
    status = f"HTTP {response.status_code} {safe_line(response.reason_phrase, 60)}"
    summary = summarize_body(body, kind)
    if response.status_code in (400, 404, 405):
        kind_of = EndpointMissing if response.status_code == 404 else LegacyServerError
        refused = kind_of.seen(f"{status} with {summary}, not a JSON-RPC response", "check --url",
                               other_cause="the URL is not its MCP endpoint")
        refused.status = f"{status} with {summary}"
        return refused
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
    if "WRONG_VERSION_NUMBER" in text or "wrong version number" in text.lower():
        return UnreachableError(f"TLS failed for {url}: the server answered in plain HTTP (not TLS)",
                                "use http:// in --url (--cacert and --insecure cannot help)")
    if "SSL" in text or "certificate" in text.lower():
        return UnreachableError(f"TLS failed for {url}: {text}", "pass --cacert FILE, or --insecure to skip checks")
    return UnreachableError(f"cannot reach {url}: {text}", "is the server running? check --url")


def undecodable(url: str, error: Exception) -> ProtocolError:
    """The error for a body not in the Content-Encoding its headers name (a "gzip" body that is not)."""
    return ProtocolError(f"the server sent a body (from {safe_line(url, 200)}) that does not decode as its "
                         f"Content-Encoding says: {safe_line(error, 200)}", "check the server's logs")
