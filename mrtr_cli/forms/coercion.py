"""Turning text typed on the command line into JSON values of a declared type."""

from __future__ import annotations

import json
from typing import Any

_TRUE = {"true", "yes", "y", "on", "1"}
_FALSE = {"false", "no", "n", "off", "0"}


def declared_types(schema: Any) -> set[str]:
    """The JSON types a schema admits (`type`, a list of types, or `anyOf`/`oneOf` members)."""
    if not isinstance(schema, dict):
        return set()
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    members = schema.get("anyOf") or schema.get("oneOf") or []
    return set().union(*(declared_types(m) for m in members)) if isinstance(members, list) else set()


def coerce_text(text: str, types: set[str]) -> Any:
    """`text` as a value of one of `types`; unknown or mixed types parse as JSON, else stay text.

    Raises `ValueError` when `text` cannot be a value of the only type declared; its message names
    the type in words (`a number`), for the caller's sentence.
    """
    concrete = types - {"null"}
    if concrete == {"string"}:
        return text
    if concrete == {"integer"}:
        return _parsed(int, text, "an integer")
    if concrete <= {"number", "integer"} and concrete:
        return _number(text)
    if concrete == {"boolean"}:
        return _boolean(text)
    if concrete and concrete <= {"array", "object"}:
        return _json_of(text, concrete)
    return json_or_text(text)


def _parsed(parse: Any, text: str, wanted: str) -> Any:
    """`parse(text)`, Python's own complaint replaced by the type wanted in words."""
    try:
        return parse(text)
    except ValueError:
        raise ValueError(wanted) from None


def json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(_parsed(float, text, "a number"))


def _boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError("true or false")


def _json_of(text: str, types: set[str]) -> Any:
    wanted = f"a JSON {' or '.join(sorted(types))}"
    value = _parsed(json.loads, text, wanted)
    names: dict[type, str] = {list: "array", dict: "object"}
    if names.get(type(value)) not in types:
        raise ValueError(wanted)
    return value
