"""Reading an answers file (`--answers FILE.yaml`) into an `AnswersFile`, with clear errors."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mrtr_cli import validation
from mrtr_cli.answering.scripted import AnswersFile, MatchRule
from mrtr_cli.errors import UsageError

SCHEMA = Path(__file__).with_name("answers.schema.json")


def load_answers_file(path: str) -> AnswersFile:
    """The answers file at `path`, checked against its schema before anything runs."""
    from mrtr_cli import yaml_io  # loaded only with --answers

    located = yaml_io.load_located(path, "answers file")
    if located.node is None:
        raise UsageError(f"{path}: the answers file is empty", "start it with answers: or match: (see the README)")

    def locate(where: Any) -> str:
        line, column = located.place_of(where) or (1, 1)
        return f"{path}:{line}:{column}"

    validation.check_document(located.data, validation.packaged_schema(SCHEMA), locate,
                              "fix the answers file (see the README, \"Answers files\")")
    document = located.data
    rules = [_rule(entry, index, locate) for index, entry in enumerate(document.get("match") or [])]
    return AnswersFile(dict(document.get("answers") or {}), rules)


def _rule(entry: dict[str, Any], index: int, locate: Callable[[Any], str]) -> MatchRule:
    """A `match:` entry (its shape already checked by the schema) with its pattern compiled."""
    try:
        pattern = re.compile(str(entry.get("message", "")))
    except re.error as error:
        raise UsageError(f"{locate(['match', index, 'message'])}: match[{index}].message is not a valid "
                         f"regular expression: {error}", "fix the regular expression") from None
    return MatchRule(entry["method"], pattern, entry["response"])
