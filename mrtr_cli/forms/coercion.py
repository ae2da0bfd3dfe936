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

    Raises `ValueError` when `text` cannot be a value of the only type declared.
    """
    concrete = types - {"null"}
    if concrete == {"string"}:
        return text
    if concrete == {"integer"}:
        return int(text)
    if concrete <= {"number", "integer"} and concrete:
        return _number(text)
    if concrete == {"boolean"}:
        return _boolean(text)
    if concrete and concrete <= {"array", "object"}:
        return _json_of(text, concrete)
    return json_or_text(text)


def json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def _boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError("expected true or false")


def _json_of(text: str, types: set[str]) -> Any:
    value = json.loads(text)
    names: dict[type, str] = {list: "array", dict: "object"}
    if names.get(type(value)) not in types:
        raise ValueError(f"expected a JSON {' or '.join(sorted(types))}")
    return value
