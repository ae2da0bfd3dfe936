"""The server's check that a POST's MCP headers agree with its body (-32020, HTTP 400)."""

from __future__ import annotations

from typing import Any

from mrtr_cli.protocol import headers as mcp
from mrtr_cli.protocol import jsonrpc, meta
from mrtr_cli.server.app import App, RpcError

_SAFE = set(map(chr, range(0x20, 0x7F))) | {"\t"}
TASK_NAMES = {"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}
"""The tasks extension's methods, whose `Mcp-Name` carries params.taskId (SEP-2663, "Routing Headers")."""


def check_request_headers(headers: Any, message: Any, app: App) -> None:
    """Raise `RpcError(-32020)` when a required header is missing, malformed or disagrees."""
    if not isinstance(message, dict) or "id" not in message or not isinstance(message.get("method"), str):
        return  # notifications and malformed bodies are judged by the dispatcher
    params = message.get("params")
    params = params if isinstance(params, dict) else {}
    _check_version(headers, params)
    _check_equal(headers, mcp.METHOD_HEADER, message["method"], encoded=False)
    field = mcp.NAMED_METHODS.get(message["method"]) or TASK_NAMES.get(message["method"])
    if field and isinstance(params.get(field), str):
        _check_equal(headers, mcp.NAME_HEADER, params[field], encoded=True)
    if message["method"] == "tools/call":
        _check_params(headers, params, app)


def _mismatch(text: str) -> RpcError:
    return RpcError(jsonrpc.HEADER_MISMATCH, f"Header mismatch: {text}", status=400)


def _value(headers: Any, name: str) -> str | None:
    raw: str | None = headers.get(name)
    if raw is None:
        return None
    if any(ch not in _SAFE for ch in raw):
        raise _mismatch(f"{name} has characters a header may not carry")
    return raw.strip(" \t")


def _check_version(headers: Any, params: dict[str, Any]) -> None:
    value = _value(headers, mcp.PROTOCOL_VERSION_HEADER)
    if value is None:
        raise _mismatch(f"the {mcp.PROTOCOL_VERSION_HEADER} header is missing")
    body = params.get("_meta", {}).get(meta.PROTOCOL_VERSION) if isinstance(params.get("_meta"), dict) else None
    if isinstance(body, str) and body != value:
        raise _mismatch(f"{mcp.PROTOCOL_VERSION_HEADER} {value!r} does not match _meta protocolVersion {body!r}")


def _required(headers: Any, name: str, encoded: bool) -> str:
    """The header's value, decoded when `encoded`; -32020 when it is missing or malformed."""
    value = _value(headers, name)
    if value is None:
        raise _mismatch(f"the {name} header is missing")
    try:
        return mcp.decode_value(value) if encoded else value
    except ValueError as error:
        raise _mismatch(f"{name}: {error}") from None


def _check_equal(headers: Any, name: str, body: str, encoded: bool) -> None:
    decoded = _required(headers, name, encoded)
    if decoded != body:
        raise _mismatch(f"{name} header value {decoded!r} does not match body value {body!r}")


def _check_params(headers: Any, params: dict[str, Any], app: App) -> None:
    tool = app.tool(params["name"]) if isinstance(params.get("name"), str) else None
    if tool is None:
        return
    try:
        annotated = mcp.header_params(tool.get("inputSchema"))
    except ValueError:
        return
    for name, path in annotated.items():
        _check_param(headers, f"{mcp.PARAM_PREFIX}{name}", mcp.value_at(params.get("arguments") or {}, path))


def _check_param(headers: Any, name: str, body: Any) -> None:
    if body is None:
        if _value(headers, name) is not None:
            raise _mismatch(f"{name} is present but the argument is absent or null")
        return
    decoded = _required(headers, name, encoded=True)
    if not _same(decoded, body):
        raise _mismatch(f"{name} header value {decoded!r} does not match the argument {body!r}")


def _same(header: str, body: Any) -> bool:
    if isinstance(body, bool):
        return header == ("true" if body else "false")
    if isinstance(body, (int, float)):
        try:
            return float(header) == float(body)
        except ValueError:
            return False
    return isinstance(body, str) and header == body
