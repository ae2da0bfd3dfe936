"""Form elicitation: the fields of a requested schema, and a value typed for one (validation.py
checks values and completes answers).

The spec's form subset is a flat object of primitive fields: string (with formats email,
uri, date, date-time), number, integer, boolean, single-select (`enum`, `oneOf` of
const/title, legacy `enumNames`) and multi-select (`items.enum`, `items.anyOf`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mrtr_cli.forms.coercion import coerce_text, json_or_text
from mrtr_cli.protocol import lint_rules


@dataclass(frozen=True)
class Field:
    """One property of a form, as a prompt or a parser needs it."""

    name: str
    schema: dict[str, Any]
    required: bool

    @property
    def kind(self) -> str:
        """string, number, integer, boolean, choice, choices, or unknown."""
        schema = self.schema
        if schema.get("type") == "array":
            return "choices"
        if "enum" in schema or "oneOf" in schema:
            return "choice"
        kind = schema.get("type")
        return kind if kind in ("string", "number", "integer", "boolean") else "unknown"

    @property
    def title(self) -> str:
        return str(self.schema.get("title") or self.name)

    @property
    def has_default(self) -> bool:
        return "default" in self.schema

    def options(self) -> list[tuple[Any, str]]:
        """(value, label) pairs of a single- or multi-select field."""
        schema = self.schema.get("items", {}) if self.kind == "choices" else self.schema
        if not isinstance(schema, dict):
            return []
        if isinstance(schema.get("enum"), list):
            labels = schema.get("enumNames")
            names = labels if isinstance(labels, list) and len(labels) == len(schema["enum"]) else None
            return [(v, str(names[i]) if names else str(v)) for i, v in enumerate(schema["enum"])]
        titled = schema.get("oneOf") or schema.get("anyOf") or []
        return [(o.get("const"), str(o.get("title", o.get("const")))) for o in titled if isinstance(o, dict)]

    def shown_options(self) -> list[tuple[Any, str]]:
        """(value, label) pairs as a person reads them: the title, and after it the value that
        `--answer` and answers files take, when the two differ (`Window seat (window)`)."""
        return [(value, label if label == _as_typed(value) else f"{label} ({_as_typed(value)})")
                for value, label in self.options()]


def form_fields(schema: dict[str, Any]) -> list[Field]:
    """The fields of a requested schema, in the server's order."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    required = schema.get("required")
    required = required if isinstance(required, list) else []
    return [Field(name, prop if isinstance(prop, dict) else {}, name in required)
            for name, prop in properties.items()]


def coerce(field: Field | None, text: str) -> Any:
    """A value typed on the command line, as the field's schema type (`ValueError` if it is not)."""
    if field is None or field.kind == "unknown":
        return json_or_text(text)
    if field.kind in ("string", "choice"):
        return text
    return coerce_text(text, {"array"} if field.kind == "choices" else {field.kind})


def outside_subset(schema: dict[str, Any]) -> str | None:
    """Why a requested schema is outside the spec's flat form subset (None: inside), bounds included."""
    problem = next((f.message for f in lint_rules.check_schema("", schema) if f.rule != "form-schema-subset"), None)
    return problem or lint_rules.outside_subset(schema)


def _as_typed(value: Any) -> str:
    """A choice's value as `--answer` takes it: a string bare, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)
