"""What a form field wants, in words a person reads: "give a whole number from 1 to 12", "give an
email address like name@example.com", "choose at least 1".

One wording for each constraint of the spec's flat forms (type, minLength, maxLength, format,
minimum, maximum, enum, oneOf, minItems, maxItems, items' enum and anyOf, uniqueItems,
required), and pattern for the forms beyond them. The prompts and the error of an invalid
scripted answer both use it. Everything from the schema (a choice, a title, a pattern) goes
through `text.safe_line`. Standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mrtr_cli.forms import formats
from mrtr_cli.text import safe_line

FORMATS = {
    "email": "an email address like name@example.com",
    "uri": "a URI like https://example.com/page",
    "date": "a date like 2026-12-24 (year-month-day)",
    "date-time": "a date and time like 2026-12-24T19:30:00Z",
}
NOT_REAL = {"date": "not a real date", "date-time": "not a real date and time"}
"""A value written as the format asks that names no day or time that exists (`2026-02-30`)."""
SHOWN_CHOICES = 10
"""Choices named in a message; the rest are counted."""


@dataclass(frozen=True)
class Breach:
    """One broken constraint: the field (`path`, empty for the whole answer), the keyword, the
    schema that holds the keyword, and the value given."""

    path: tuple[str | int, ...]
    keyword: str
    schema: dict[str, Any]
    value: Any


def problem_line(breach: Breach) -> str:
    """`field 'size' is 13: give a whole number from 1 to 12`; `field 'tags' holds "x": choose only
    from: a, b` for a value of a multi-select."""
    names = [str(part) for part in breach.path]
    if breach.keyword == "required":
        return f"field '{safe_line('.'.join(names), 80)}' is required but missing"
    if _is_item(breach):
        where = f"field '{safe_line('.'.join(names[:-1]), 80)}' holds {shown(breach.value)}"
    elif names:
        where = f"field '{safe_line('.'.join(names), 80)}' is {shown(breach.value)}"
    else:
        where = f"the answer is {shown(breach.value)}"
    return f"{where}: {breach_wanted(breach)}"


def breach_wanted(breach: Breach) -> str:
    """What the field wants, in words alone, as a prompt shows it under what was typed."""
    if breach.keyword == "required":
        return "a value is required"
    if _is_item(breach) and _has_choices(breach.schema):
        return str(item_wanted(breach.schema))
    if breach.keyword == "format" and formats.has_shape(breach.schema.get("format"), breach.value):
        return NOT_REAL[breach.schema["format"]]
    return wanted(breach.keyword, breach.schema) or f"it breaks {safe_line(breach.keyword, 40)}"


def _is_item(breach: Breach) -> bool:
    return bool(breach.path) and isinstance(breach.path[-1], int)


def problem_lines(breaches: list[Breach]) -> list[str]:
    """One line per problem, in order; a field that breaks two constraints with the same wording
    (a fraction below the minimum of a whole number) gets it once."""
    return list(dict.fromkeys(problem_line(b) for b in breaches))


def shown(value: Any) -> str:
    """A value as JSON on one safe line, as a person writes it in `--answer` or an answers file."""
    return safe_line(json.dumps(value, ensure_ascii=False), 60)


def wanted(keyword: str, schema: dict[str, Any]) -> str | None:
    """What a field wants, for the constraint `keyword` of its `schema` (None: no words for it)."""
    wording = WORDINGS.get(keyword)
    return wording(schema) if wording else None


def field_wanted(schema: dict[str, Any]) -> str | None:
    """What a field of this schema wants as a whole (for a value of the wrong type)."""
    if _has_choices(schema):
        return choice_wanted(schema)
    kind = schema.get("type")
    if kind in ("integer", "number"):
        return number_wanted(schema)
    if kind == "string":
        return string_wanted(schema)
    if kind == "array":
        return count_wanted(schema) or "give a list of choices"
    return {"boolean": "give true or false", "object": "give a mapping of field names to values",
            "null": "give null"}.get(str(kind))


def number_wanted(schema: dict[str, Any]) -> str:
    """`give a whole number from 1 to 12`, `give a number of at least 0`, ..."""
    kind = "a whole number" if schema.get("type") == "integer" else "a number"
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f"give {kind} from {_number(low)} to {_number(high)}"
    if low is not None:
        return f"give {kind} of at least {_number(low)}"
    if high is not None:
        return f"give {kind} of at most {_number(high)}"
    return f"give {kind}"


def string_wanted(schema: dict[str, Any]) -> str:
    if schema.get("format") in FORMATS:
        return format_wanted(schema)
    if "minLength" in schema or "maxLength" in schema:
        return length_wanted(schema)
    return "give text"


def length_wanted(schema: dict[str, Any]) -> str:
    """`give text of at least 2 characters`, `leave it empty`, ..."""
    low, high = schema.get("minLength"), schema.get("maxLength")
    if high == 0:
        return "leave it empty"
    if low is not None and high is not None:
        return f"give text of {_number(low)} to {_plural(high, 'character')}"
    if low is not None:
        return "give text, not empty" if low == 1 else f"give text of at least {_plural(low, 'character')}"
    return f"give text of at most {_plural(high, 'character')}"


def format_wanted(schema: dict[str, Any]) -> str:
    known = FORMATS.get(str(schema.get("format")))
    return f"give {known}" if known else f"give text in the format {safe_line(schema.get('format'), 40)!r}"


def pattern_wanted(schema: dict[str, Any]) -> str:
    return f"give text matching the pattern {safe_line(schema.get('pattern'), 100)}"


def choice_wanted(schema: dict[str, Any]) -> str | None:
    """`choose one of: S, M, L`; a titled choice shows its value and its title."""
    return f"choose one of: {_choices(schema)}" if _has_choices(schema) else None


def item_wanted(schema: dict[str, Any]) -> str | None:
    """For each value of a multi-select: `choose only from: a, b`."""
    return f"choose only from: {_choices(schema)}" if _has_choices(schema) else None


def _has_choices(schema: dict[str, Any]) -> bool:
    """An enum, or a oneOf or anyOf of constants (not of schemas, which mrtr has no words for)."""
    if isinstance(schema.get("enum"), list):
        return True
    titled = schema.get("oneOf") or schema.get("anyOf")
    return isinstance(titled, list) and all(isinstance(c, dict) and "const" in c for c in titled)


def count_wanted(schema: dict[str, Any]) -> str | None:
    """`choose at least 1`, `choose at most 2`, `choose 1 to 3`, `choose exactly 2`."""
    low, high = schema.get("minItems"), schema.get("maxItems")
    if high == 0:
        return "choose none"
    if low is not None and low == high:
        return f"choose exactly {_number(low)}"
    if low is not None and high is not None:
        return f"choose {_number(low)} to {_number(high)}"
    if low is not None:
        return f"choose at least {_number(low)}"
    return f"choose at most {_number(high)}" if high is not None else None


def _choices(schema: dict[str, Any]) -> str:
    if isinstance(schema.get("enum"), list):
        options = [_choice_text(value) for value in schema["enum"]]
    else:
        titled = [c for c in schema.get("oneOf") or schema.get("anyOf") or [] if isinstance(c, dict)]
        options = [_titled(c) for c in titled]
    named = ", ".join(options[:SHOWN_CHOICES])
    return named + (f", … ({len(options)} in all)" if len(options) > SHOWN_CHOICES else "")


def _titled(choice: dict[str, Any]) -> str:
    value = _choice_text(choice.get("const"))
    title = choice.get("title")
    return f"{value} ({safe_line(title, 40)})" if title is not None and str(title) != str(choice.get("const")) else value


def _choice_text(value: Any) -> str:
    return safe_line(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), 40)


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value) if isinstance(value, (int, float)) else safe_line(value, 20)


def _plural(count: Any, noun: str) -> str:
    return f"{_number(count)} {noun}{'' if count == 1 else 's'}"


WORDINGS: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "type": field_wanted,
    "minimum": number_wanted,
    "maximum": number_wanted,
    "minLength": length_wanted,
    "maxLength": length_wanted,
    "format": format_wanted,
    "pattern": pattern_wanted,
    "enum": choice_wanted,
    "oneOf": choice_wanted,
    "anyOf": item_wanted,
    "minItems": lambda schema: count_wanted(schema) or "choose more",
    "maxItems": lambda schema: count_wanted(schema) or "choose fewer",
    "uniqueItems": lambda schema: "choose each option at most once",
}
"""The wording of each keyword, given the schema that holds it."""
