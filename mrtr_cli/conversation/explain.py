"""What a JSON-RPC error from a server means for the user: the error with a hint to act on."""

from __future__ import annotations

from typing import Any

from mrtr_cli.errors import ServerError
from mrtr_cli.protocol import jsonrpc, meta
from mrtr_cli.text import safe_line


def supported_versions(error: dict[str, Any] | None) -> list[str]:
    """`error.data.supported` of a -32022, as strings."""
    data = (error or {}).get("data")
    supported = data.get("supported") if isinstance(data, dict) else None
    return [v for v in supported if isinstance(v, str)] if isinstance(supported, list) else []


def versions_text(versions: list[Any]) -> str:
    """Versions as one comma-separated line, for messages."""
    return ", ".join(str(v) for v in versions) or "no versions"


def explain(method: str, error: dict[str, Any]) -> ServerError:
    """A JSON-RPC error as a `ServerError` with a hint saying what to do."""
    return ServerError(method, error, _hint(error))


def _hint(error: dict[str, Any]) -> str:
    code = error.get("code")
    if code == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
        return (f"the server speaks {versions_text(supported_versions(error))}; mrtr speaks "
                f"{versions_text(list(meta.SPOKEN_VERSIONS))} (--protocol-version)")
    if code == jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY:
        return _missing_capability_hint(error)
    if code == jsonrpc.METHOD_NOT_FOUND:
        return "the server does not offer this method"
    if code == jsonrpc.INVALID_PARAMS:
        return _answer_refused_hint(error) or "the server rejected the parameters; check the name and the arguments"
    if code == jsonrpc.URL_ELICITATION_REQUIRED:
        return _urls_to_open(error)
    return ""


def _urls_to_open(error: dict[str, Any]) -> str:
    """-32042: the pages the server wants the user to open first (shown, never opened: a page the
    server names is the server's words, checked as any URL is when mrtr is asked to open it)."""
    data = error.get("data")
    asked = data.get("elicitations") if isinstance(data, dict) else None
    listed = asked if isinstance(asked, list) else []
    pages = [e for e in listed if isinstance(e, dict) and isinstance(e.get("url"), str)]
    if not pages:
        return "the server wants a page opened first, and named none"
    shown = "; ".join(f"{safe_line(page['url'], 300)} ({safe_line(page.get('message', ''), 120)})"
                      for page in pages[:3])
    return f"open this yourself, then call again: {shown}"


def _answer_refused_hint(error: dict[str, Any]) -> str | None:
    """-32602 about an answer, not the request: `mrtr serve`'s recording answered the question otherwise
    (its data names the key and the recorded answer), or the server names inputResponses."""
    data = error.get("data")
    if isinstance(data, dict) and isinstance(data.get("key"), str) and "recorded" in data:
        return (f"the server plays back a recording, which answered {safe_line(data['key'], 60)!r} otherwise: "
                "give the recorded answer (--answer, --answers), or serve a recording of this answer too")
    if "inputResponses" in str(error.get("message")):
        return "the server refused an answer; check the answers given (--answer, --answers) against its question"
    return None


def _missing_capability_hint(error: dict[str, Any]) -> str:
    data = error.get("data")
    required = data.get("requiredCapabilities") if isinstance(data, dict) else None
    names = sorted(required) if isinstance(required, dict) else []
    flags = [meta.WITHHOLDING_FLAGS[n] for n in names if n in meta.WITHHOLDING_FLAGS]
    if flags:
        return f"the server needs {', '.join(names)}, withheld by {' '.join(flags)}"
    return f"the server needs {', '.join(names) or 'a capability mrtr did not declare'}"


def unlisted_hint_text(name: str, close: list[str], kind: str) -> str:
    """`no tool 'book_tabel'; did you mean 'book_table'? (mrtr list tools)`; `kind` is tool, prompt
    or resource."""
    if not close:
        return f"the server lists no {kind} {name!r}; see mrtr list {kind}s"
    return f"no {kind} {name!r}; did you mean {' or '.join(repr(c) for c in close)}? (mrtr list {kind}s)"
