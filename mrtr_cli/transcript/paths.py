"""JSON paths into a transcript (`$.rounds[*].received.result.token`): parsing, and replacing the
values they reach. Used by `--redact` and `replay --ignore`. Standard library only."""

from __future__ import annotations

import re
from typing import Any

from mrtr_cli.errors import UsageError

JsonPath = list[str | int]
_STEP = re.compile(r"\.([^.\[\]]+)|\[(\*|\d+)\]")


def parse_path(text: str, flag: str) -> JsonPath:
    """`$.a.b[0][*]` as steps; `*` stays a string wildcard. `flag` names the option in errors."""
    steps: JsonPath = []
    position = 1
    for match in _STEP.finditer(text, 1):
        if match.start() != position:
            break
        key, index = match.groups()
        steps.append(key if key is not None else (index if index == "*" else int(index)))
        position = match.end()
    if position != len(text) or not text.startswith("$") or not steps:
        raise UsageError(f"{flag} {text!r} is not a JSON path", f"write e.g. {flag} '$.rounds[*].received.result.x'")
    return steps


def show_path(path: JsonPath) -> str:
    return "$" + "".join(f".{step}" if isinstance(step, str) else f"[{step}]" for step in path)


def inside(path: JsonPath, round_index: int | None) -> JsonPath | None:
    """The part of `path` inside the header (round_index None) or inside one round; None when it
    does not reach there."""
    if round_index is None:
        return None if path[0] == "rounds" else path
    if path[0] != "rounds" or len(path) < 3 or path[1] not in ("*", round_index):
        return None
    return path[2:]


def reaches(node: Any, path: JsonPath) -> bool:
    """Whether `path` reaches any value inside `node` (nothing is changed)."""
    if not path:
        return True
    return any(reaches(node[key], path[1:]) for key in _children(node, path[0]))


def replace(node: Any, path: JsonPath, value: Any) -> bool:
    """Set every value `path` reaches inside `node` to `value`; whether any was reached."""
    step, rest = path[0], path[1:]
    keys = _children(node, step)
    if not rest:
        for key in keys:
            node[key] = value
        return bool(keys)
    return any([replace(node[key], rest, value) for key in keys])


def _children(node: Any, step: str | int) -> list[Any]:
    if isinstance(node, dict):
        return list(node) if step == "*" else ([step] if step in node else [])
    if isinstance(node, list):
        if step == "*":
            return list(range(len(node)))
        return [step] if isinstance(step, int) and step < len(node) else []
    return []
