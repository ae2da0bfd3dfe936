"""Validating answers to forms in the spec's flat subset with the standard library.

The elicitation spec limits forms to a flat object of strings (lengths, formats), numbers and
integers (bounds), booleans, single-selects and multi-selects. For such a form this gives the
verdict jsonschema gives, worded by `form_wording` as validation.py words jsonschema's errors (a
test holds the two together), without importing jsonschema, which costs more than the rest of
a short run (the demo server's tools, `x-mcp-header` included, are all in the subset). Any schema
that uses anything else is left to jsonschema (`covers` says which).
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.forms.wording import Breach, problem_lines
from mrtr_cli.forms.formats import FORMATS

ROOT_KEYWORDS = {"type", "properties", "required", "title", "description"}
FIELD_KEYWORDS = {"type", "title", "description", "default", "minLength", "maxLength", "format", "minimum",
                  "maximum", "enum", "enumNames", "oneOf", "items", "minItems", "maxItems", "uniqueItems",
                  "x-mcp-header"}
"""The keywords checked here, and annotations that never change a verdict (`default`, `x-mcp-header`:
the HTTP header a tool argument is mirrored in)."""
ITEM_KEYWORDS = {"type", "enum", "anyOf"}
CHOICE_KEYWORDS = {"const", "title"}
TYPES = {"string", "number", "integer", "boolean", "array"}


def covers(schema: Any) -> bool:
    """Whether every keyword of `schema` is one this module checks."""
    if not isinstance(schema, dict) or not ROOT_KEYWORDS.issuperset(schema) or schema.get("type") != "object":
        return False
    properties, required = schema.get("properties", {}), schema.get("required", [])
    return (isinstance(properties, dict) and isinstance(required, list)
            and all(_field_covered(p) for p in properties.values()))


KEYWORD_VALUES: dict[str, type | tuple[type, ...]] = {
    "title": str, "description": str, "format": str, "minLength": int, "maxLength": int,
    "minItems": int, "maxItems": int, "minimum": (int, float), "maximum": (int, float),
    "enum": list, "enumNames": list, "uniqueItems": bool}
"""What each keyword's value must be for this module to check it; other values go to jsonschema,
which refuses a schema that is not valid JSON Schema."""


def _field_covered(field: Any) -> bool:
    if not isinstance(field, dict) or not FIELD_KEYWORDS.issuperset(field) or not _values_typed(field):
        return False
    if not isinstance(field.get("type"), str) or field["type"] not in TYPES:
        return False
    if field.get("format") is not None and field["format"] not in FORMATS:
        return False
    choices = field.get("oneOf", [])
    items = field.get("items", {})
    return (_choices_covered(choices) and isinstance(items, dict) and ITEM_KEYWORDS.issuperset(items)
            and _choices_covered(items.get("anyOf", [])) and (field["type"] == "array") == ("items" in field))


def _values_typed(field: dict[str, Any]) -> bool:
    """Whether every keyword value of `field` has the type its keyword needs (booleans are not numbers)."""
    for keyword, value in field.items():
        kind = KEYWORD_VALUES.get(keyword)
        if kind is None or value is None:
            continue
        if isinstance(value, bool) and kind is not bool:
            return False
        if not isinstance(value, kind):
            return False
    return True


def _choices_covered(choices: Any) -> bool:
    return isinstance(choices, list) and all(isinstance(c, dict) and CHOICE_KEYWORDS.issuperset(c) for c in choices)


def problems(content: Any, schema: dict[str, Any]) -> list[str]:
    """Every problem, as `field 'x' is VALUE: what it wants` lines, in field order."""
    return problem_lines(breaches(content, schema))


def breaches(content: Any, schema: dict[str, Any]) -> list[Breach]:
    """Every constraint `content` breaks: required fields first, then field by field."""
    if not isinstance(content, dict):
        return [Breach((), "type", schema, content)]
    found = [Breach((name,), "required", schema, None) for name in schema.get("required", []) if name not in content]
    for name, field in schema.get("properties", {}).items():
        if name in content:
            found += _field(str(name), content[name], field)
    return found


def _field(name: str, value: Any, field: dict[str, Any]) -> list[Breach]:
    """As JSON Schema does: the type, then each keyword that applies to what the value is."""
    broken = [] if _is(value, field["type"]) else ["type"]
    if isinstance(value, str):
        broken += _string(value, field)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        broken += _number(value, field)
    elif isinstance(value, list):
        broken += _array(value, field)
    broken += _choice(value, field)
    found = [Breach((name,), keyword, field, value) for keyword in broken]
    if isinstance(value, list) and "items" in field:
        found += [Breach((name, index), keyword, field["items"], item) for index, item in enumerate(value)
                  for keyword in _item(item, field["items"])]
    return found


def _is(value: Any, kind: str) -> bool:
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, {"string": str, "boolean": bool, "array": list}[kind])


def _string(value: str, field: dict[str, Any]) -> list[str]:
    broken = []
    if "minLength" in field and len(value) < field["minLength"]:
        broken.append("minLength")
    if "maxLength" in field and len(value) > field["maxLength"]:
        broken.append("maxLength")
    if "format" in field and not FORMATS[field["format"]](value):
        broken.append("format")
    return broken


def _number(value: float, field: dict[str, Any]) -> list[str]:
    broken = []
    if "minimum" in field and value < field["minimum"]:
        broken.append("minimum")
    if "maximum" in field and value > field["maximum"]:
        broken.append("maximum")
    return broken


def _array(value: list[Any], field: dict[str, Any]) -> list[str]:
    broken = []
    if "minItems" in field and len(value) < field["minItems"]:
        broken.append("minItems")
    if "maxItems" in field and len(value) > field["maxItems"]:
        broken.append("maxItems")
    if field.get("uniqueItems") and any(_equal(a, b) for i, a in enumerate(value) for b in value[i + 1:]):
        broken.append("uniqueItems")
    return broken


def _choice(value: Any, field: dict[str, Any]) -> list[str]:
    broken = []
    if "enum" in field and not _among(value, field["enum"]):
        broken.append("enum")
    if "oneOf" in field and sum(_equal(value, c.get("const")) for c in field["oneOf"]) != 1:
        broken.append("oneOf")
    return broken


def _among(value: Any, options: list[Any]) -> bool:
    return any(_equal(value, option) for option in options)


def _equal(one: Any, other: Any) -> bool:
    """JSON equality: true is not 1, and 1 is 1.0."""
    if isinstance(one, bool) or isinstance(other, bool):
        return isinstance(one, bool) and isinstance(other, bool) and one == other
    if isinstance(one, list) and isinstance(other, list):
        return len(one) == len(other) and all(_equal(a, b) for a, b in zip(one, other))
    return type(one) is type(other) and one == other if not _numbers(one, other) else one == other


def _numbers(*values: Any) -> bool:
    return all(isinstance(v, (int, float)) for v in values)


def _item(item: Any, items: dict[str, Any]) -> list[str]:
    broken = []
    if "type" in items and not _is(item, items["type"]):
        broken.append("type")
    if "enum" in items and not _among(item, items["enum"]):
        broken.append("enum")
    if "anyOf" in items and not any(_equal(item, c.get("const")) for c in items["anyOf"]):
        broken.append("anyOf")
    return broken
