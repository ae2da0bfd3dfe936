"""JSON Schema validation: form answers against the schema a server requested.

The only module that imports jsonschema (lazily: most runs never validate). References are
resolved only inside the schema itself: a `$ref` to any other URI is never fetched (spec,
`basic/index`: "MUST NOT automatically dereference $ref values that resolve to a network URI").
Formats `email`, `uri`, `date` and `date-time` are checked with the standard library.
"""

from __future__ import annotations

import datetime
import json
import re
from functools import lru_cache
from typing import Any

from mrtr_cli.protocol import lint

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s<>\"{}|\\^`]*")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2}(?:\.\d+)?)([Zz]|[+-]\d{2}:\d{2})")


def is_email(value: object) -> bool:
    return not isinstance(value, str) or _EMAIL.fullmatch(value) is not None


def is_uri(value: object) -> bool:
    return not isinstance(value, str) or _URI.fullmatch(value) is not None


def is_date(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return _DATE.fullmatch(value) is not None and _parses(datetime.date.fromisoformat, value)


def is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    match = _DATE_TIME.fullmatch(value)
    if match is None:
        return False
    date, time, zone = match.groups()
    seconds = time[:8] if time[6:8] != "60" else time[:6] + "59"  # RFC 3339 allows a leap second
    zone = "+00:00" if zone in "Zz" else zone
    return _parses(datetime.datetime.fromisoformat, f"{date}T{seconds}{zone}")


def _parses(parse: Any, value: str) -> bool:
    try:
        parse(value)
    except ValueError:
        return False
    return True


FORMATS = {"email": is_email, "uri": is_uri, "date": is_date, "date-time": is_date_time}


def problems(instance: Any, schema: dict[str, Any]) -> list[str]:
    """Why `instance` does not satisfy `schema`, one readable line per problem (none: valid).

    A form in the spec's flat subset is checked by `flat_forms` (the standard library, same
    messages); any other schema by jsonschema, whose import is the larger part of a short run.
    """
    from mrtr_cli import flat_forms

    bound = lint.beyond_bounds(schema)
    if bound is not None:
        return [f"the schema {bound[1]}, beyond what mrtr validates (a hostile schema must stay cheap)"]
    if flat_forms.covers(schema):
        return flat_forms.problems(instance, schema)
    return _jsonschema_problems(instance, schema)


def _jsonschema_problems(instance: Any, schema: dict[str, Any]) -> list[str]:
    from referencing.exceptions import Unresolvable

    validator = _validator(schema)
    try:
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.path))
    except Unresolvable as error:
        return [f"the schema refers to {getattr(error, 'ref', '?')!r}, which mrtr does not resolve "
                "(only references inside the schema are followed; network $refs are never fetched)"]
    return [_describe(error) for error in errors]


def first_problem(instance: Any, schema: dict[str, Any]) -> tuple[list[Any], str] | None:
    """The first problem of `instance` against `schema`: the path to the value and the message."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator(schema).iter_errors(instance))
    return (list(error.path), f"{error.message} ({error.validator})") if error else None


def schema_problem(schema: dict[str, Any]) -> str | None:
    """Why `schema` itself is not a valid schema of its dialect, or None."""
    from jsonschema import exceptions, validators

    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except exceptions.SchemaError as error:
        return error.message
    return None


def _validator(schema: dict[str, Any]) -> Any:
    """A validator for `schema`, made once per distinct schema (a long conversation asks the same form)."""
    return _validator_for(json.dumps(schema, sort_keys=True))


@lru_cache(maxsize=64)
def _validator_for(schema_text: str) -> Any:
    from jsonschema import FormatChecker, validators

    schema = json.loads(schema_text)
    checker = FormatChecker(formats=())
    for name, check in FORMATS.items():
        checker.checks(name)(check)
    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    return cls(schema, format_checker=checker, registry=_local_only_registry())


def _local_only_registry() -> Any:
    from referencing import Registry
    from referencing.exceptions import NoSuchResource

    def refuse(uri: str) -> Any:
        raise NoSuchResource(ref=uri)

    return Registry(retrieve=refuse)


def _describe(error: Any) -> str:
    field = ".".join(str(part) for part in error.path)
    where = f"field {field!r}" if field else "the answer"
    return f"{where}: {error.message} ({error.validator})"
