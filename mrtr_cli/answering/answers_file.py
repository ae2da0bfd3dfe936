"""The answers file (`--answers FILE.yaml`): read into an `AnswersFile` with clear errors, and the
answerer that answers from it (entries by key, then `match:` rules)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlparse

from mrtr_cli.forms import validation
from mrtr_cli.answering import answers_shape, sources
from mrtr_cli.answering.questions import ELICIT, ROOTS, SAMPLE, Decision, Question, Response
from mrtr_cli.answering.scripted import elicit_response, sampling_response, sampling_result
from mrtr_cli.errors import UsageError
from mrtr_cli.text import safe_line

SCHEMA = Path(__file__).with_name("answers.schema.json")


def load_answers_file(path: str) -> AnswersFile:
    """The answers file at `path`, checked against its schema before anything runs (by answers_shape;
    by jsonschema only when that finds it broken, to say how)."""
    from mrtr_cli.fileio import yaml_loader  # loaded only with --answers

    located = yaml_loader.load_located(path, "answers file")
    if located.node is None:
        raise UsageError(f"{path}: the answers file is empty",
                         "start it with answers: or match: (see mrtr help answers-files)")

    def locate(where: Any) -> str:
        line, column = located.place_of(where) or (1, 1)
        return f"{path}:{line}:{column}"

    schema = validation.packaged_schema(SCHEMA)
    if not answers_shape.certainly_fits(located.data, schema):  # jsonschema only to say what is wrong
        validation.check_document(located.data, schema, locate, ANSWERS_FILE.fix)
    return _answers(located.data, locate, ANSWERS_FILE)


def answers_from_python(given: Any) -> AnswersFile:
    """The pytest fixture's `answers=`, checked against the answers file's schema, its errors told
    as the mapping's place (`answers=['answers']['date']`), never as a file."""
    import json

    try:
        document = json.loads(json.dumps(given))
    except (TypeError, ValueError) as error:
        raise UsageError(f"{ANSWERS_ARGUMENT} holds a value that is not JSON: {error}", FROM_PYTHON.fix) from None

    def locate(where: Any) -> str:
        return ANSWERS_ARGUMENT + "".join(f"[{step!r}]" for step in where)

    problem = validation.document_problem(document, validation.packaged_schema(SCHEMA))
    if problem is not None:
        where, message = problem
        unknown = message.startswith(validation.UNKNOWN_KEY)
        raise UsageError(f"{locate(where[:-1] if unknown else where)}: {message}", FROM_PYTHON.fix)
    return _answers(document, locate, FROM_PYTHON)


class Wording(NamedTuple):
    """How messages name where the answers came from: a file, or the fixture's `answers=`."""

    named: str
    fix: str


ANSWERS_ARGUMENT = "answers="
ANSWERS_FILE = Wording("the answers file", "fix the answers file (see mrtr help answers-files)")
FROM_PYTHON = Wording("the answers= mapping",
                      "fix the mapping given as answers= ({'answers': {KEY: {...}}, 'match': [...]})")


def _answers(document: dict[str, Any], locate: Callable[[Any], str], wording: Wording) -> AnswersFile:
    rules = [_rule(entry, index, locate) for index, entry in enumerate(document.get("match") or [])]
    answers = {key: _given(entry) for key, entry in (document.get("answers") or {}).items()}
    return AnswersFile(answers, rules, wording)


def _given(entry: dict[str, Any]) -> dict[str, Any]:
    """An answer without the keys given as null: `action: null` means what leaving it out means."""
    return {key: value for key, value in entry.items() if value is not None}


def _rule(entry: dict[str, Any], index: int, locate: Callable[[Any], str]) -> MatchRule:
    """A `match:` entry (its shape already checked by the schema) with its pattern compiled."""
    try:
        pattern = re.compile(str(entry.get("message", "")))
    except re.error as error:
        raise UsageError(f"{locate(['match', index, 'message'])}: match[{index}].message is not a valid "
                         f"regular expression: {error}", "fix the regular expression") from None
    return MatchRule(entry["method"], pattern, _given(entry["response"]))


class MatchRule(NamedTuple):
    """An answers-file `match:` entry: a method and a regular expression on the message."""

    method: str
    message: re.Pattern[str]
    response: dict[str, Any]

    def fits(self, question: Question) -> bool:
        return question.method == self.method and self.message.search(question.message) is not None


class AnswersFile(NamedTuple):
    """A parsed answers file (docs/answers-files.md)."""

    answers: dict[str, dict[str, Any]]
    rules: list[MatchRule]
    wording: Wording = ANSWERS_FILE

    def offers_roots(self) -> bool:
        """Whether an entry or a rule answers roots/list."""
        return any("roots" in entry for entry in self.answers.values()) or any(r.method == ROOTS for r in self.rules)

    def entry_for(self, question: Question) -> dict[str, Any] | None:
        """The entry for this question: by key first, then the first `match:` rule that fits."""
        if question.key in self.answers:
            return self.answers[question.key]
        return next((r.response for r in self.rules if r.fits(question)), None)

    def near_miss(self, question: Question) -> str | None:
        """Why this file has no entry for a question, when that looks like a slip: MRTR keys (none
        with a '#') where the older era asks `elicitation#1`, or a key close to the question's."""
        keys = list(self.answers)
        if not keys or self.entry_for(question) is not None:
            return None
        if question.in_flight and not any("#" in key for key in keys):
            return (f"{self.wording.named}'s keys ({_listed(keys)}) are MRTR keys, which the older era's questions "
                    f"do not have (this one is {question.key!r}): answer them by message with match: rules "
                    "(see examples/match_rules.yaml)")
        import difflib  # only for a did-you-mean

        close = difflib.get_close_matches(question.key, keys, n=1)
        return f"{self.wording.named} has an entry {close[0]!r}; did you mean {question.key!r}?" if close else None


class AnswersFileAnswerer:
    """`--answers FILE`."""

    name = sources.ANSWERS_FILE

    def __init__(self, document: AnswersFile, sampling_model: str) -> None:
        self.document = document
        self.sampling_model = sampling_model

    def offers_roots(self) -> bool:
        return self.document.offers_roots()

    def answer(self, question: Question) -> Decision:
        entry = self.document.entry_for(question)
        if entry is None:
            return None
        try:
            return self._response(question, entry)
        except UsageError as error:  # an answer from here is fixed here, not with --answer
            raise UsageError(error.message, self.document.wording.fix) from None

    def _response(self, question: Question, entry: dict[str, Any]) -> Response:
        named = self.document.wording.named
        if question.method == ELICIT:
            content = entry.get("content") or {}
            if not isinstance(content, dict):
                raise UsageError(f"{named} gives {question.key!r} a list as content, where a form answer's content "
                                 "is a mapping of fields")
            return elicit_response(question, str(entry.get("action", "accept")), content)
        if question.method == SAMPLE:
            return self._sampling(entry)
        return Response({"roots": [_file_root(r, named) for r in entry.get("roots") or []]})

    def _sampling(self, entry: dict[str, Any]) -> Response:
        model = str(entry.get("model", self.sampling_model))
        if "text" in entry:
            return sampling_response(str(entry["text"]), model)
        return sampling_result({k: v for k, v in entry.items() if k != "text"}, model)


def _listed(keys: list[str]) -> str:
    """Keys for a message: the first five, safe on one line."""
    shown = ", ".join(safe_line(key, 60) for key in keys[:5])
    return shown + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")


def _file_root(root: Any, named: str) -> dict[str, Any]:
    if not isinstance(root, dict) or urlparse(str(root.get("uri", ""))).scheme != "file":
        raise UsageError(f"{named} offers the root {root!r}, where roots must be {{uri: file:///...}}")
    return root
