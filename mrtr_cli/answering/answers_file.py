"""Reading an answers file (`--answers FILE.yaml`) into an `AnswersFile`, with clear errors."""

from __future__ import annotations

import re
from typing import Any

from mrtr_cli import yaml_io
from mrtr_cli.answering.scripted import AnswersFile, MatchRule
from mrtr_cli.errors import UsageError
from mrtr_cli.protocol.mrtr import INPUT_METHODS

TOP_LEVEL = ("answers", "match")


def load_answers_file(path: str) -> AnswersFile:
    document = yaml_io.load_file(path, "answers file") or {}
    where = f"the answers file {path!r}"
    if not isinstance(document, dict):
        raise UsageError(f"{where} is not a mapping", "start it with answers: or match:")
    unknown = [key for key in document if key not in TOP_LEVEL]
    if unknown:
        raise UsageError(f"{where} has an unknown section {unknown[0]!r}", "use answers: and match:")
    answers = _answers(document.get("answers") or {}, where)
    rules = [_rule(entry, index, where) for index, entry in enumerate(document.get("match") or [])]
    return AnswersFile(answers, rules)


def _answers(answers: Any, where: str) -> dict[str, dict[str, Any]]:
    if not isinstance(answers, dict):
        raise UsageError(f"answers: in {where} is not a mapping", "map each inputRequests key to its answer")
    for key, entry in answers.items():
        if not isinstance(entry, dict):
            raise UsageError(f"the answer to {key!r} in {where} is not a mapping",
                             "write e.g. content: {name: Ada}, text: ..., or roots: [...]")
    return {str(key): entry for key, entry in answers.items()}


def _rule(entry: Any, index: int, where: str) -> MatchRule:
    name = f"match entry {index + 1} of {where}"
    if not isinstance(entry, dict) or not isinstance(entry.get("response"), dict):
        raise UsageError(f"{name} has no response mapping", "give method:, message: and response:")
    method = entry.get("method")
    if method not in INPUT_METHODS:
        raise UsageError(f"{name} has method {method!r}", f"use one of {', '.join(INPUT_METHODS)}")
    try:
        pattern = re.compile(str(entry.get("message", "")))
    except re.error as error:
        raise UsageError(f"{name} has an invalid message pattern: {error}", "fix the regular expression") from None
    return MatchRule(method, pattern, entry["response"])
