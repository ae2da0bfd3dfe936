"""Whether an answers file is certainly well-formed, by the standard library alone.

Importing jsonschema costs more than the rest of a short `mrtr call --answers FILE`, and a file
that is right needs no explanation. So `certainly_fits` walks the document against the schema
mrtr ships (answers.schema.json stays the one declaration of the shape), knowing only the keywords
that schema uses: `type`, `enum`, `properties`, `additionalProperties`, `items`, `required` and
`$ref` inside the schema. It answers True only when jsonschema would find no error; on anything
else (a broken file, or a keyword it does not know) it answers False, and validation.py's
jsonschema says what is wrong. tests/test_answers_shape.py holds the two to the same verdicts.
"""

from __future__ import annotations

from typing import Any

ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description", "default", "examples"})
"""Keywords that say nothing about what is valid."""

KNOWN = frozenset({"type", "enum", "properties", "additionalProperties", "items", "required", "$ref"}) | ANNOTATIONS

TYPES = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
    "integer": lambda value: (isinstance(value, int) and not isinstance(value, bool)
                              or isinstance(value, float) and value.is_integer()),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
}
"""JSON Schema's types over the values mrtr's YAML loader builds, as jsonschema reads them."""


def certainly_fits(document: Any, schema: dict[str, Any]) -> bool:
    """True when `document` satisfies `schema` (JSON Schema 2020-12, the keywords above);
    False when it does not, or when the schema uses a keyword this module does not know."""
    return _fits(document, schema, schema)


def _fits(value: Any, schema: Any, root: dict[str, Any]) -> bool:
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict) or not KNOWN.issuperset(schema):
        return False
    if "$ref" in schema:
        target = _local_target(schema["$ref"], root)
        if target is None or not _fits(value, target, root):
            return False
    return _type_fits(value, schema) and _enum_fits(value, schema) and _object_fits(value, schema, root) \
        and _array_fits(value, schema, root)


def _local_target(ref: Any, root: dict[str, Any]) -> Any:
    """The part of the schema a `#/...` reference points to; None for any other reference."""
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return None
    target: Any = root
    for step in ref[2:].split("/"):
        step = step.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, dict) or step not in target:
            return None
        target = target[step]
    return target


def _type_fits(value: Any, schema: dict[str, Any]) -> bool:
    if "type" not in schema:
        return True
    names = [schema["type"]] if isinstance(schema["type"], str) else schema["type"]
    return all(name in TYPES for name in names) and any(TYPES[name](value) for name in names)


def _enum_fits(value: Any, schema: dict[str, Any]) -> bool:
    """One of the choices, compared as jsonschema does for text, numbers and null (true is not 1)."""
    if "enum" not in schema:
        return True
    choices = schema["enum"]
    if any(isinstance(choice, (dict, list)) for choice in choices):
        return False  # not needed by mrtr's schemas: left to jsonschema
    return any(isinstance(value, bool) == isinstance(choice, bool) and not isinstance(value, (dict, list))
               and value == choice for choice in choices)


def _object_fits(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> bool:
    if not isinstance(value, dict):
        return True
    properties = schema.get("properties", {})
    if any(name not in value for name in schema.get("required", [])):
        return False
    if any(name in value and not _fits(value[name], part, root) for name, part in properties.items()):
        return False
    extra = schema.get("additionalProperties", True)
    return all(_fits(item, extra, root) for name, item in value.items() if name not in properties)


def _array_fits(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> bool:
    if not isinstance(value, list) or "items" not in schema:
        return True
    return all(_fits(item, schema["items"], root) for item in value)
