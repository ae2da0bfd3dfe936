"""JSON-RPC 2.0 frames as MCP uses them: encode what mrtr sends, decode what arrives.

Decoding never raises: a frame that is not usable JSON-RPC becomes a `Malformed` value that
keeps the raw text, so an inspector can show exactly what arrived. Standard library only.
"""

from __future__ import annotations

import itertools
import json
import json.encoder
import sys
from collections.abc import Callable
from typing import Any, NamedTuple, Union

from mrtr_cli.text import json_escaped

VERSION = "2.0"

PARSE_ERROR = -32700
"""The receiver could not parse the JSON text."""
INVALID_REQUEST = -32600
"""The JSON is not a valid request object."""
METHOD_NOT_FOUND = -32601
"""The method does not exist or is not available."""
INVALID_PARAMS = -32602
"""Invalid method parameters, including missing or malformed `_meta`."""
INTERNAL_ERROR = -32603
"""An internal error of the receiver."""
HEADER_MISMATCH = -32020
"""MCP: HTTP headers disagree with the request body."""
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
"""MCP: the request needs a client capability the client did not declare."""
UNSUPPORTED_PROTOCOL_VERSION = -32022
"""MCP: the server does not speak the requested protocol version."""
URL_ELICITATION_REQUIRED = -32042
"""MCP 2025-11-25: the request needs the user to open a URL first (`data.elicitations`, URL mode)."""

class Response(NamedTuple):
    """A result or error response; `id` is None for an error the server could not attribute."""

    id: Any
    result: Any
    error: dict[str, Any] | None
    raw: str


class Notification(NamedTuple):
    """A one-way message (progress, log messages, ...)."""

    method: str
    params: dict[str, Any]
    raw: str


class Request(NamedTuple):
    """A request from the server: not allowed on the wire since 2026-07-28, kept to report it."""

    id: Any
    method: str
    params: dict[str, Any]
    raw: str


class Malformed(NamedTuple):
    """A frame that is not usable JSON-RPC, with the reason and the raw text.

    `id` is set only for a response mrtr could read the id of but not the rest (a JSON integer
    too long for Python): it was meant for the request with that id, which cannot go on.
    """

    raw: str
    reason: str
    id: Any = None


Message = Union[Response, Notification, Request, Malformed]


def encoder(ensure_ascii: bool = True, separators: tuple[str, str] | None = None) -> Callable[[Any], str]:
    """`json.dumps(value, ensure_ascii=..., separators=...)` as a function made once, for the JSON
    mrtr encodes every round.

    `JSONEncoder.encode` builds its C encoder anew on every call, and checks for cycles: a third of
    the time of a small frame. This builds the same C encoder (`JSONEncoder.iterencode` with
    `_one_shot`) once, without the cycle check: a value decoded from JSON, or from a transcript
    (whose aliases yaml_loader bounds), has no cycle, and one nested too deeply still ends in
    RecursionError. The C encoder's constructor is not documented: where it is missing, or takes
    other arguments, or writes other text, `JSONEncoder.encode` does the work."""
    made = json.JSONEncoder(ensure_ascii=ensure_ascii, separators=separators, check_circular=False)
    quote = json.encoder.encode_basestring_ascii if ensure_ascii else json.encoder.encode_basestring
    sample = {"é": [1, 2.5, None, True, "\u2028"]}
    try:
        make_encoder = json.encoder.c_make_encoder  # type: ignore[attr-defined]  # private C encoder: not in typeshed
        chunks = make_encoder(None, made.default, quote, None, made.key_separator, made.item_separator,
                              made.sort_keys, made.skipkeys, made.allow_nan)
        same = "".join(chunks(sample, 0)) == made.encode(sample)
    except (TypeError, ValueError):  # missing (None), or not the constructor this Python had
        same = False
    if not same:
        return made.encode

    def encode(value: Any) -> str:
        return "".join(chunks(value, 0))

    return encode


compact = encoder(ensure_ascii=False, separators=(",", ":"))
"""A JSON value as compact text on one line (`json.dumps(value, ensure_ascii=False,
separators=(",", ":"))`); not yet safe to print."""


def encode(message: dict[str, Any]) -> str:
    """One frame as compact JSON text on one line, always encodable as UTF-8."""
    return json_escaped(compact(message))


def request(request_id: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": VERSION, "id": request_id, "method": method, "params": params}


def result_response(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": VERSION, "id": request_id, "result": result}


def notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": VERSION, "method": method, "params": params}


def decode(frame: str | bytes) -> Message:
    """Classify one frame; anything unusable comes back as `Malformed`, never as an exception."""
    if isinstance(frame, bytes):
        raw = frame
        try:
            frame = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            return Malformed(raw.decode("utf-8", "replace").rstrip("\r\n"), f"not UTF-8 (byte {error.start})")
    try:
        data = json.loads(frame)
    except (json.JSONDecodeError, RecursionError) as error:
        return Malformed(frame.rstrip("\r\n"), _json_problem(error))
    except ValueError:  # valid JSON, but an integer longer than Python reads (4300 digits)
        return _unreadable_integer(frame)
    return _classify(data, frame)


def integer_digit_limit() -> int:
    """How many digits Python reads in one integer (`sys.get_int_max_str_digits`, 4300 by default)."""
    return getattr(sys, "get_int_max_str_digits", lambda: 4300)()


class _TooLong:
    """Stands for an integer too long to read, so that the rest of the frame can be read."""


def _unreadable_integer(frame: str) -> Malformed:
    """A frame with an integer past the digit limit; the id is kept when it is a response's."""
    reason = f"a JSON integer of more than {integer_digit_limit()} digits, which mrtr cannot read"
    try:
        data = json.loads(frame, parse_int=_int_or_too_long)
    except (ValueError, RecursionError):
        data = None
    is_response = isinstance(data, dict) and ("result" in data or "error" in data) and "method" not in data
    response_id = data.get("id") if is_response else None
    return Malformed(frame.rstrip("\r\n"), reason, None if isinstance(response_id, _TooLong) else response_id)


def _int_or_too_long(digits: str) -> Any:
    try:
        return int(digits)
    except ValueError:
        return _TooLong()


def _json_problem(error: Exception) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"not JSON ({error.msg} at column {error.colno})"
    return "not JSON (nested too deeply)"


def _classify(data: Any, raw: str) -> Message:
    if isinstance(data, list):
        return Malformed(raw, "a JSON array (batches are not part of MCP)")
    if not isinstance(data, dict):
        return Malformed(raw, f"a JSON {type(data).__name__}, not an object")
    if data.get("jsonrpc") != VERSION:
        return Malformed(raw, 'missing "jsonrpc": "2.0"')
    if "method" in data:
        return _classify_call(data, raw)
    if "result" in data or "error" in data:
        return _classify_response(data, raw)
    return Malformed(raw, "neither a request, a notification nor a response")


def _classify_call(data: dict[str, Any], raw: str) -> Message:
    method, params = data["method"], data.get("params", {})
    if not isinstance(method, str) or not isinstance(params, dict):
        return Malformed(raw, "method is not a string or params is not an object")
    if "id" in data:
        return Request(data["id"], method, params, raw)
    return Notification(method, params, raw)


def _classify_response(data: dict[str, Any], raw: str) -> Message:
    if "result" in data and "error" in data:
        return Malformed(raw, "has both result and error")
    if "id" not in data:
        return Malformed(raw, "a response without an id")
    error = data.get("error")
    if "error" in data and not _is_error_object(error):
        return Malformed(raw, "error is not an object with an integer code and a string message")
    return Response(data["id"], data.get("result"), error, raw)


def _is_error_object(error: Any) -> bool:
    return (
        isinstance(error, dict)
        and isinstance(error.get("code"), int)
        and not isinstance(error.get("code"), bool)
        and isinstance(error.get("message"), str)
    )


def same_id(received: Any, sent: Any) -> bool:
    """Whether a response's id is the id sent: ids match by type and value (1 is not "1", 1.0 or true)."""
    return type(received) is type(sent) and received == sent


class IdSequence:
    """Request ids that never repeat within one run: 1, 2, 3, ..."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def next(self) -> int:
        return next(self._counter)
