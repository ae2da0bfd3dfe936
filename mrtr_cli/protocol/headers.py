"""Streamable HTTP request headers: the standard ones, `Mcp-Param-*` from `x-mcp-header`, and
the Base64 sentinel of the spec's Value Encoding (page `basic/transports/streamable-http`).

Standard library only.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Mapping
from typing import Any

from mrtr_cli.protocol import meta

SENTINEL_PREFIX = "=?base64?"
SENTINEL_SUFFIX = "?="
ANNOTATION = "x-mcp-header"
PROTOCOL_VERSION_HEADER = "MCP-Protocol-Version"
METHOD_HEADER = "Mcp-Method"
NAME_HEADER = "Mcp-Name"
PARAM_PREFIX = "Mcp-Param-"
NAMED_METHODS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
"""Methods whose request carries `Mcp-Name`, and the params field it mirrors."""
TASK_NAMED_METHODS = {"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}
"""The tasks extension's requests, whose `Mcp-Name` is the task id (for routing to the instance holding it)."""
SECRET_HEADERS = ("authorization", "proxy-authorization", "cookie", "set-cookie")
"""Headers that carry credentials (lower case): hidden in -v, redacted in every transcript."""
HEADER_TYPES = ("string", "integer", "boolean")
Mirrored = Mapping[str, tuple[str, ...]]
"""The arguments of a tools/call that travel as headers too (`x-mcp-header`): header name ->
the argument's path. HTTP sends them as `Mcp-Param-*`; stdio has no headers."""
MAX_SAFE_INTEGER = 2**53 - 1

TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""An HTTP header name (an RFC 9110 token)."""
_PLAIN = re.compile(r"[\x20-\x7e]*")


def encode_value(value: Any) -> str | None:
    """A body value as a header value: None for null; Base64 sentinel when not plain-safe."""
    if value is None:
        return None
    text = _as_text(value)
    return _sentinel(text) if needs_base64(text) else text


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        number = int(value)
        if abs(number) > MAX_SAFE_INTEGER:
            raise ValueError(f"{number} is outside the safe integer range of x-mcp-header values")
        return str(number)
    if isinstance(value, str):
        return value
    raise ValueError(f"a {type(value).__name__} cannot be sent in a header")


def needs_base64(text: str) -> bool:
    """Not printable ASCII and spaces only, or edge whitespace, or a look-alike of the sentinel."""
    return (not _PLAIN.fullmatch(text) or text != text.strip(" ")
            or (text.startswith(SENTINEL_PREFIX) and text.endswith(SENTINEL_SUFFIX)))


def _sentinel(text: str) -> str:
    import base64  # only for a value that needs it: a stdio run sends no headers

    return f"{SENTINEL_PREFIX}{base64.b64encode(text.encode('utf-8')).decode('ascii')}{SENTINEL_SUFFIX}"


def decode_value(header: str) -> str:
    """A received header value, the sentinel decoded; `ValueError` when it is malformed."""
    if not (header.startswith(SENTINEL_PREFIX) and header.endswith(SENTINEL_SUFFIX)
            and len(header) >= len(SENTINEL_PREFIX) + len(SENTINEL_SUFFIX)):
        return header
    import base64

    encoded = header[len(SENTINEL_PREFIX):-len(SENTINEL_SUFFIX)]
    try:
        return base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as error:
        raise ValueError(f"malformed Base64 sentinel value: {error}") from None


def standard_headers(message: dict[str, Any], version: str) -> dict[str, str]:
    """MCP-Protocol-Version, Mcp-Method and, where the method has one, Mcp-Name."""
    headers = {PROTOCOL_VERSION_HEADER: version, METHOD_HEADER: str(message["method"])}
    field = NAMED_METHODS.get(message["method"]) or TASK_NAMED_METHODS.get(message["method"])
    params = message.get("params") or {}
    if field and isinstance(params.get(field), str):
        headers[NAME_HEADER] = str(encode_value(params[field]))
    return headers


def mirroring_headers(message: dict[str, Any], mirrored: Mirrored | None) -> dict[str, str]:
    """A 2026-07-28 request's own headers, which mirror its body: the standard ones, in the version
    its `_meta` names, and `Mcp-Param-*` for the arguments a tools/call mirrors."""
    params = message.get("params") or {}
    version = (params.get("_meta") or {}).get(meta.PROTOCOL_VERSION, meta.LATEST_VERSION)
    headers = standard_headers(message, version)
    if mirrored and message["method"] == "tools/call":
        headers.update(param_headers(mirrored, params.get("arguments")))
    return headers


def header_params(input_schema: Any) -> dict[str, tuple[str, ...]]:
    """Annotated parameters: header name -> property path. `ValueError` names what is invalid."""
    reachable = dict(_reachable(input_schema, ()))
    names: dict[str, tuple[str, ...]] = {}
    for found in _annotated(input_schema):
        path = reachable.get(id(found))
        if path is None:
            raise ValueError("an x-mcp-header is not reachable from the root through properties alone")
        name = found[ANNOTATION]
        _check_name(name, names)
        _check_type(found, name)
        names[name] = path
    return names


def _reachable(schema: Any, path: tuple[str, ...]) -> Any:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return
    for key, child in properties.items():
        if isinstance(child, dict):
            yield id(child), (*path, key)
            yield from _reachable(child, (*path, key))


def _annotated(node: Any) -> Any:
    if isinstance(node, dict):
        if ANNOTATION in node:
            yield node
        for value in node.values():
            yield from _annotated(value)
    elif isinstance(node, list):
        for value in node:
            yield from _annotated(value)


def _check_name(name: Any, seen: dict[str, Any]) -> None:
    if not isinstance(name, str) or not name:
        raise ValueError("an x-mcp-header value is empty or not a string")
    if not TOKEN.fullmatch(name):
        raise ValueError(f"x-mcp-header {name!r} is not an HTTP token (no spaces, colons, controls, non-ASCII)")
    if name.lower() in (other.lower() for other in seen):
        raise ValueError(f"x-mcp-header {name!r} appears twice (names are case-insensitive)")


def _check_type(schema: dict[str, Any], name: str) -> None:
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else [k for k in kind if k != "null"] if isinstance(kind, list) else []
    if len(kinds) != 1 or kinds[0] not in HEADER_TYPES:
        raise ValueError(f"x-mcp-header {name!r} annotates a {kind or 'untyped'} parameter; "
                         "only string, integer and boolean may be mirrored")


def param_headers(params_by_name: Mapping[str, tuple[str, ...]], arguments: Any) -> dict[str, str]:
    """`Mcp-Param-{Name}` for each annotated argument present and not null."""
    headers = {}
    for name, path in params_by_name.items():
        value = value_at(arguments, path)
        encoded = encode_value(value)
        if encoded is not None:
            headers[f"{PARAM_PREFIX}{name}"] = encoded
    return headers


def value_at(arguments: Any, path: tuple[str, ...]) -> Any:
    """The instance value at a property path, or None when absent."""
    for key in path:
        if not isinstance(arguments, dict) or key not in arguments:
            return None
        arguments = arguments[key]
    return arguments


def split_tools(tools: list[Any]) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """Tools whose `x-mcp-header` annotations are valid, and the others with the reason.

    Over HTTP a client MUST exclude a tool with an invalid annotation from tools/list.
    """
    valid, excluded = [], []
    for tool in tools:
        if not isinstance(tool, dict):
            excluded.append({"name": str(tool), "reason": "not a tool object"})
            continue
        try:
            header_params(tool.get("inputSchema"))
        except ValueError as error:
            excluded.append({"name": str(tool.get("name")), "reason": str(error)})
        else:
            valid.append(tool)
    return valid, excluded
