"""JSON Schema validation: form answers against the schema a server requested (`complete_form`,
`typed_input`, `check_value` for forms/fields.py's fields; forms/ itself never imports this module).

The only module that imports jsonschema (lazily: most runs never validate). References are
resolved only inside the schema itself: a `$ref` to any other URI is never fetched (spec,
`basic/index`: "MUST NOT automatically dereference $ref values that resolve to a network URI").
Formats `email`, `uri`, `date` and `date-time` are checked by `formats` (the standard library).
It also checks the files mrtr reads (transcripts, answers files, `--config`) against the schemas
mrtr ships, and says what was expected where.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from mrtr_cli.fileio import files
from mrtr_cli.forms import flat_forms
from mrtr_cli.forms.coercion import coerce_text
from mrtr_cli.forms.fields import Field, form_fields
from mrtr_cli.errors import ProtocolError, UsageError
from mrtr_cli.forms.wording import Breach, breach_wanted, number_wanted, problem_line, wanted
from mrtr_cli.forms.formats import FORMATS
from mrtr_cli.protocol import lint_rules
from mrtr_cli.text import safe_line


def problems(instance: Any, schema: dict[str, Any]) -> list[str]:
    """Why `instance` does not satisfy `schema`, one readable line per problem (none: valid).

    A form in the spec's flat subset is checked by `flat_forms` (the standard library, same
    messages); any other schema by jsonschema, whose import is the larger part of a short run.
    Both word what a field wants with `form_wording`.
    """
    bound = lint_rules.beyond_bounds(schema)
    if bound is not None:
        return [f"the schema {bound[1]}, beyond what mrtr validates (a hostile schema must stay cheap)"]
    if flat_forms.covers(schema):
        return flat_forms.problems(instance, schema)
    return _jsonschema_problems(instance, schema)


def first_breach(instance: Any, schema: dict[str, Any]) -> str | None:
    """What the first broken constraint wants, in words alone (`give a whole number from 1 to 12`),
    for a prompt that shows the value already; None when `instance` is valid."""
    if flat_forms.covers(schema) and lint_rules.beyond_bounds(schema) is None:
        breach = next(iter(flat_forms.breaches(instance, schema)), None)
        return breach_wanted(breach) if breach is not None else None
    found = problems(instance, schema)
    if not found or lint_rules.beyond_bounds(schema) is not None or "$ref" in json.dumps(schema):
        return next(iter(found), None)  # a reference may be unresolvable: the line says so
    errors = sorted(_validator(schema).iter_errors(instance), key=lambda e: list(e.path))
    breaches = _breaches(errors[0]) if errors else []
    return breach_wanted(breaches[0]) if breaches else found[0]


def complete_form(key: str, schema: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The content to send: defaults for fields not given, `null` fields left out, validated.

    An invalid answer raises `UsageError` naming the key, the field and the constraint.
    """
    content = {f.name: f.schema["default"] for f in form_fields(schema) if f.has_default}
    content.update(given)
    content = {name: value for name, value in content.items() if value is not None}
    found = problems(content, schema)
    if found:
        raise UsageError(f"the answer to {key!r} is invalid: {'; '.join(found)}",
                         "fix the answer (--answer or the answers file)")
    return content


def typed_input(field: Field, text: str) -> Any:
    """What a person typed for a text field, typed and checked; `ValueError` says what is wrong.

    Empty input leaves an optional field out (None).
    """
    if text == "":
        if field.required:
            raise ValueError("a value is required")
        return None
    try:
        value = coerce_text(text, {field.kind}) if field.kind in ("integer", "number") else text
    except ValueError:
        raise ValueError(number_wanted(field.schema)) from None
    check_value(field, value)
    return value


def check_value(field: Field, value: Any) -> None:
    """`ValueError` saying what the field wants, when `value` breaks a constraint of its schema."""
    single = {"type": "object", "properties": {field.name: field.schema}}
    problem = first_breach({field.name: value}, single)
    if problem is not None:
        raise ValueError(problem)


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
    _check_server_schema(cls, schema)
    return cls(schema, format_checker=checker, registry=_local_only_registry())


def _check_server_schema(cls: Any, schema: dict[str, Any]) -> None:
    """A schema the server sent must itself be valid (a `pattern` that is no regular expression, a
    `minLength` that is no number): jsonschema assumes so, and would fail in the middle of validating."""
    from jsonschema.exceptions import SchemaError

    try:
        cls.check_schema(schema)
    except SchemaError as error:
        where = "/".join(str(part) for part in error.path) or "its top"
        raise ProtocolError(f"the server's requestedSchema is not valid JSON Schema (at {safe_line(where, 100)}: "
                            f"{safe_line(error.message, 200)})", "mrtr cannot check an answer against it; "
                            "fix the server's schema") from None


def _local_only_registry() -> Any:
    from referencing import Registry
    from referencing.exceptions import NoSuchResource

    def refuse(uri: str) -> Any:
        raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # attrs class mypy's attrs plugin does not see

    return Registry(retrieve=refuse)  # type: ignore[call-arg]  # the same


def _describe(error: Any) -> str:
    field = ".".join(str(part) for part in error.path)
    where = f"field {field!r}" if field else "the answer"
    return f"{where}: {error.message} ({error.validator})"


@lru_cache(maxsize=8)
def packaged_schema(path: Path) -> dict[str, Any]:
    """A JSON Schema mrtr ships (package data), read once."""
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


def check_document(document: Any, schema: dict[str, Any], locate: Callable[[Sequence[str | int]], str],
                   hint: str) -> None:
    """Raise a one-line UsageError for the first way `document` breaks `schema`:
    `FILE:LINE:COLUMN: answers.workspace.roots: expected a list of roots, found true`.
    `locate` turns a path inside the document into `FILE:LINE:COLUMN`."""
    problem = document_problem(document, schema)
    if problem is not None:
        where, message = problem
        said = message if message.startswith(UNKNOWN_KEY) else f"{files.spot(where)}: {message}"
        raise UsageError(f"{locate(where)}: {said}", hint)


UNKNOWN_KEY = "unknown key "
"""How a key the schema does not know is told: the line's place already says where it is."""


def document_problem(document: Any, schema: dict[str, Any]) -> tuple[list[str | int], str] | None:
    """The first way `document` breaks `schema`: the path to the value, and what was expected there."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator(schema).iter_errors(document))
    if error is None:
        return None
    path, value, part = list(error.absolute_path), error.instance, error.schema
    if error.validator == "required":
        missing = next(key for key in error.validator_value if key not in value)
        return path, f"lacks {missing!r}, which is required"
    if error.validator == "additionalProperties" and isinstance(part, dict):
        known = list(part.get("properties", {}))
        extra = next(key for key in value if key not in known)
        return [*path, extra], _unknown_key(extra, known)
    expected = part.get("description") if isinstance(part, dict) else None
    return path, f"expected {expected or _expectation(error)}, found {_shown(value)}"


def _unknown_key(key: Any, known: list[str]) -> str:
    """`unknown key 'acton' (did you mean 'action'?)`, or the keys known there when none is close."""
    import difflib

    close = difflib.get_close_matches(str(key), known, n=1)
    told = f"{UNKNOWN_KEY}{safe_line(key, 60)!r}"
    if close:
        return f"{told} (did you mean {close[0]!r}?)"
    return told + (f" (known here: {', '.join(known)})" if known else "")


_TYPES = {"object": "a mapping", "array": "a list", "string": "text", "integer": "an integer",
          "number": "a number", "boolean": "true or false", "null": "null"}


def _expectation(error: Any) -> str:
    wanted = error.validator_value
    if error.validator == "type":
        return " or ".join(_TYPES.get(name, name) for name in ([wanted] if isinstance(wanted, str) else wanted))
    if error.validator == "enum":
        return "one of " + ", ".join(json.dumps(choice) for choice in wanted)
    if error.validator == "const":
        return json.dumps(wanted)
    if error.validator in ("minimum", "minItems"):
        return f"{error.validator} {wanted}"
    return "another shape"


def _shown(value: Any) -> str:
    """A short, plain account of a value, for an error line."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


UNIONS = {"ClientRequest", "ClientNotification", "ClientResult", "ClientMessage", "ServerRequest",
          "ServerNotification", "ServerResult", "ServerMessage"}
"""The spec schema's unions, not one message each (skipped when its definitions are indexed)."""


def wire_problems(message: Any, request_method: str | None, schema_path: Path) -> list[str]:
    """Why one JSON-RPC message a server sent breaks the spec's JSON schema (none: valid). The
    definition is picked as the conformance suite picks it: by method, by error code, by the
    result of the request's method (InputRequiredResult for input_required), then the envelope."""
    wire = _wire(schema_path)
    if not isinstance(message, dict):
        return ["not a JSON-RPC object"]
    if isinstance(message.get("method"), str):
        return wire.problems(wire.methods.get(message["method"]) or
                             ("JSONRPCRequest" if "id" in message else "JSONRPCNotification"), message)
    if message.get("error") is not None:
        code = message["error"].get("code") if isinstance(message["error"], dict) else None
        return wire.problems(wire.errors.get(code, "JSONRPCErrorResponse") if isinstance(code, int)
                             else "JSONRPCErrorResponse", message)
    if "result" in message:
        result = message["result"]
        kind = result.get("resultType") if isinstance(result, dict) else None
        name = "InputRequiredResult" if kind == "input_required" else wire.results.get(request_method or "")
        found = [f"{line} (result of {request_method})" for line in wire.problems(name, result)] if name else []
        return found or wire.problems("JSONRPCResultResponse", message)
    return ["not a JSON-RPC request, notification or response"]


class _Wire:
    """The spec schema's definitions indexed by method, error code and request, with a validator each."""

    def __init__(self, schema: dict[str, Any]) -> None:
        from referencing import Registry, Resource

        self.uri = "urn:mrtr:mcp-schema"
        self.registry = Registry().with_resource(self.uri, Resource.from_contents(schema))
        self.methods: dict[str, str] = {}
        self.errors: dict[int, str] = {}
        self.results: dict[str, str] = {}
        definitions = schema["$defs"]
        for name, definition in definitions.items():
            properties = definition.get("properties", {}) if name not in UNIONS else {}
            method = properties.get("method", {}).get("const")
            if isinstance(method, str):
                self.methods[method] = name
                if name.endswith("Request") and name[:-7] + "Result" in definitions:
                    self.results[method] = name[:-7] + "Result"
            for part in properties.get("error", {}).get("allOf", []):
                code = part.get("properties", {}).get("code", {}).get("const")
                if isinstance(code, int):
                    self.errors[code] = name
        self._validators: dict[str, Any] = {}

    def problems(self, name: str, instance: Any) -> list[str]:
        from jsonschema import Draft202012Validator

        if name not in self._validators:
            self._validators[name] = Draft202012Validator({"$ref": f"{self.uri}#/$defs/{name}"},
                                                          registry=self.registry)
        errors = list(self._validators[name].iter_errors(instance))[:6]
        return [f"{name}{''.join(f'/{part}' for part in error.absolute_path)}: {safe_line(error.message, 200)}"
                for error in errors]


@lru_cache(maxsize=2)
def _wire(schema_path: Path) -> _Wire:
    return _Wire(packaged_schema(schema_path))
