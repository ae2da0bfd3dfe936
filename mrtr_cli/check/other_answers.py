"""Another valid answer to a form question: each field of an accepted elicitation answer changed to
another value its schema allows (check/isolation_probe.py runs a second conversation with them).
Pure functions; a field whose schema allows no other value (a `const`, a one-choice enum, a string
with a `pattern` mrtr does not read) is left as it was.
"""

from __future__ import annotations

import datetime
from typing import Any

UNCHANGED = object()
"""What `other_value` returns when the schema allows no other value mrtr can make."""


def other_answer(request: dict[str, Any], answer: dict[str, Any]) -> tuple[dict[str, Any], dict[str, tuple[Any, Any]]]:
    """The answer with each field changed where its schema allows, and the changes (field -> (was, is))."""
    params = _object(request.get("params"))
    schema = params.get("requestedSchema") if request.get("method") == "elicitation/create" else None
    content = answer.get("content")
    if answer.get("action") != "accept" or not isinstance(schema, dict) or not isinstance(content, dict):
        return answer, {}
    properties = _object(schema.get("properties"))
    changed: dict[str, Any] = {}
    changes: dict[str, tuple[Any, Any]] = {}
    for name, value in content.items():
        other = other_value(properties.get(name), value)
        changed[name] = value if other is UNCHANGED else other
        if other is not UNCHANGED:
            changes[name] = (value, other)
    return {**answer, "content": changed}, changes


def other_value(schema: Any, value: Any) -> Any:
    """Another value `schema` allows than `value`; UNCHANGED when mrtr can make none."""
    if not isinstance(schema, dict) or "const" in schema:
        return UNCHANGED
    choices = _choices(schema)
    if choices:
        return next((choice for choice in choices if choice != value), UNCHANGED)
    kind = schema.get("type")
    if kind == "boolean" and isinstance(value, bool):
        return not value
    if kind in ("integer", "number") and isinstance(value, (int, float)) and not isinstance(value, bool):
        return _other_number(schema, value)
    if kind == "string" and isinstance(value, str):
        return _other_string(schema, value)
    if kind == "array" and isinstance(value, list):
        return _other_selection(schema, value)
    return UNCHANGED


def _choices(schema: dict[str, Any]) -> list[Any]:
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    options = schema.get("oneOf") or schema.get("anyOf")
    return [o["const"] for o in options if isinstance(o, dict) and "const" in o] if isinstance(options, list) else []


def _other_number(schema: dict[str, Any], value: float) -> Any:
    low, high = schema.get("minimum"), schema.get("maximum")
    for other in (value + 1, value - 1):
        if (low is None or other >= low) and (high is None or other <= high):
            return round(other, 9) if isinstance(other, float) else other  # 1.65 - 1, not 0.6499999999999999
    return UNCHANGED


def _other_string(schema: dict[str, Any], value: str) -> Any:
    if "pattern" in schema:
        return UNCHANGED
    form = schema.get("format")
    if form in ("date", "date-time"):
        return _next_day(value, form)
    other = f"b.{value}" if form == "email" else f"{value}-b" if form == "uri" else f"{value}b"
    if isinstance(schema.get("maxLength"), int) and len(other) > schema["maxLength"]:
        other = value[:-1] + ("a" if value[-1:] != "a" else "b") if value else "b"
    return other if other != value and len(other) >= schema.get("minLength", 0) else UNCHANGED


def _next_day(value: str, form: str) -> Any:
    try:
        if form == "date":
            return (datetime.date.fromisoformat(value) + datetime.timedelta(days=1)).isoformat()
        moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        return (moment + datetime.timedelta(days=1)).isoformat().replace("+00:00", "Z")
    except ValueError:
        return UNCHANGED


def _other_selection(schema: dict[str, Any], value: list[Any]) -> Any:
    choices = _choices(_object(schema.get("items")))
    unchosen = [choice for choice in choices if choice not in value]
    if not unchosen:
        return UNCHANGED
    most = schema.get("maxItems")
    if most is None or len(value) < most:
        return [*value, unchosen[0]]
    return [*value[:-1], unchosen[0]] if value else UNCHANGED


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
