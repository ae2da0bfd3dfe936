"""JSON Schema validation: form answers against the schema a server requested.

The only module that imports jsonschema (lazily: most runs never validate). References are
resolved only inside the schema itself: a `$ref` to any other URI is never fetched (spec,
`basic/index`: "MUST NOT automatically dereference $ref values that resolve to a network URI").
Formats `email`, `uri`, `date` and `date-time` are checked by `formats` (the standard library).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from mrtr_cli import flat_forms
from mrtr_cli.form_wording import Breach, breach_wanted, problem_line, wanted
from mrtr_cli.formats import FORMATS
from mrtr_cli.protocol import lint


def problems(instance: Any, schema: dict[str, Any]) -> list[str]:
    """Why `instance` does not satisfy `schema`, one readable line per problem (none: valid).

    A form in the spec's flat subset is checked by `flat_forms` (the standard library, same
    messages); any other schema by jsonschema, whose import is the larger part of a short run.
    Both word what a field wants with `form_wording`.
    """
    bound = lint.beyond_bounds(schema)
    if bound is not None:
        return [f"the schema {bound[1]}, beyond what mrtr validates (a hostile schema must stay cheap)"]
    if flat_forms.covers(schema):
        return flat_forms.problems(instance, schema)
    return _jsonschema_problems(instance, schema)


def first_breach(instance: Any, schema: dict[str, Any]) -> str | None:
    """What the first broken constraint wants, in words alone (`give a whole number from 1 to 12`),
    for a prompt that shows the value already; None when `instance` is valid."""
    if flat_forms.covers(schema) and lint.beyond_bounds(schema) is None:
        breach = next(iter(flat_forms.breaches(instance, schema)), None)
        return breach_wanted(breach) if breach is not None else None
    found = problems(instance, schema)
    if not found or lint.beyond_bounds(schema) is not None or "$ref" in json.dumps(schema):
        return next(iter(found), None)  # a reference may be unresolvable: the line says so
    errors = sorted(_validator(schema).iter_errors(instance), key=lambda e: list(e.path))
    breaches = _breaches(errors[0]) if errors else []
    return breach_wanted(breaches[0]) if breaches else found[0]


def _jsonschema_problems(instance: Any, schema: dict[str, Any]) -> list[str]:
    from referencing.exceptions import Unresolvable

    validator = _validator(schema)
    try:
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.path))
    except Unresolvable as error:
        return [f"the schema refers to {getattr(error, 'ref', '?')!r}, which mrtr does not resolve "
                "(only references inside the schema are followed; network $refs are never fetched)"]
    return problem_lines_of(errors)


def problem_lines_of(errors: list[Any]) -> list[str]:
    """jsonschema's errors in the words of `form_wording` (its own message where it has none)."""
    lines: list[str] = []
    for error in errors:
        breaches = _breaches(error)
        lines += [problem_line(b) for b in breaches] if breaches else [_describe(error)]
    return list(dict.fromkeys(lines))


def _breaches(error: Any) -> list[Breach]:
    """The breaches one jsonschema error stands for; none when the keyword has no wording."""
    path = tuple(error.path)
    if error.validator == "required":
        present = error.instance if isinstance(error.instance, dict) else {}
        return [Breach((*path, name), "required", error.schema, None)
                for name in error.validator_value if name not in present]
    if not isinstance(error.schema, dict) or wanted(error.validator, error.schema) is None:
        return []
    return [Breach(path, error.validator, error.schema, error.instance)]


def first_problem(instance: Any, schema: dict[str, Any]) -> tuple[list[Any], str] | None:
    """The first problem of `instance` against `schema`: the path to the value and the message."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator(schema).iter_errors(instance))
    return (list(error.path), f"{error.message} ({error.validator})") if error else None


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
