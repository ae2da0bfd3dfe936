"""Request arguments from the command line: `-a KEY=VALUE` and `--args JSON|@FILE` (docs/commands/call.md,
"Arguments")."""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli.fileio import files
from mrtr_cli.forms.coercion import coerce_text, declared_types
from mrtr_cli.errors import UsageError


def split_pair(pair: str) -> tuple[str, str]:
    key, sep, value = pair.partition("=")
    if not sep or not key:
        raise UsageError(f"-a {pair!r} is not KEY=VALUE", "write -a name=value")
    return key, value


def args_object(value: str | None) -> dict[str, Any]:
    """`--args`: a JSON object given inline or, with `@`, read from a file."""
    if value is None:
        return {}
    if value.startswith("@"):
        parsed = files.load_json(value[1:], "--args file")
    else:
        parsed = files.parse_json(value, "--args", "--args value")
    if not isinstance(parsed, dict):
        raise UsageError("--args is not a JSON object", "pass an object, e.g. '{\"zip\":\"01234\"}'")
    return parsed


def tool_arguments(pairs: tuple[str, ...], args_json: str | None, input_schema: Any) -> dict[str, Any]:
    """`--args` overlaid by `-a`, each `-a` value typed by the tool's declared argument schema."""
    arguments = args_object(args_json)
    properties = input_schema.get("properties") if isinstance(input_schema, dict) else None
    for key, text in map(split_pair, pairs):
        schema = properties.get(key) if isinstance(properties, dict) else None
        arguments[key] = _typed(key, text, declared_types(schema))
    return arguments


def _typed(key: str, text: str, types: set[str]) -> Any:
    try:
        return coerce_text(text, types)
    except ValueError as wanted:
        raise UsageError(f"-a {key}={text}: the tool's schema wants argument {key!r} as {wanted}, and {text!r} is not "
                         f"{wanted}", "fix the value, or send it as given with --args") from None


def prompt_arguments(pairs: tuple[str, ...], args_json: str | None) -> dict[str, str]:
    """Prompt arguments are strings by the protocol."""
    arguments = {key: value if isinstance(value, str) else json.dumps(value)
                 for key, value in args_object(args_json).items()}
    arguments.update(split_pair(pair) for pair in pairs)
    return arguments
