"""Answers given without a person: `--answer`, `--root`, `--sampling-reply`, `--sampler`, and
answers files. Every form answer is completed with defaults and validated before it is sent.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlparse

from mrtr_cli.forms.fields import coerce, complete_form, form_fields
from mrtr_cli.answering import sources
from mrtr_cli.answering.questions import ELICIT, ROOTS, SAMPLE, Question, Refusal, Response, Decision
from mrtr_cli.errors import UsageError
from mrtr_cli.protocol.per_value import PerValue
from mrtr_cli.text import safe_line

ACTIONS = ("accept", "decline", "cancel")


def elicit_response(question: Question, action: str, given: dict[str, Any]) -> Response:
    """An elicitation answer; an accepted form is completed and validated."""
    if action not in ACTIONS:
        raise UsageError(f"the action for {question.key!r} is {action!r}", f"use one of {', '.join(ACTIONS)}")
    if action != "accept" or question.mode != "form":
        return Response({"action": action})
    return Response({"action": "accept", "content": complete_form(question.key, question.schema, given)})


def sampling_response(text: str, model: str) -> Response:
    """A sampling answer of plain text."""
    return Response({"role": "assistant", "content": {"type": "text", "text": text},
                     "model": model, "stopReason": "endTurn"})


def sampling_result(result: dict[str, Any], model: str) -> Response:
    """A CreateMessageResult given whole; role and model are filled in when missing."""
    if "content" not in result:
        raise UsageError("a sampling answer needs text or content", "add text: ... to the answer")
    return Response({"role": "assistant", "model": model, **result})


def root_entry(path_or_uri: str) -> dict[str, str]:
    """A `--root` value as a Root: a file URI as given, a path made absolute."""
    scheme = urlparse(path_or_uri).scheme
    if scheme == "file":
        return {"uri": path_or_uri, "name": Path(urlparse(path_or_uri).path).name or "/"}
    if len(scheme) > 1:
        raise UsageError(f"--root {path_or_uri!r} is not a file URI", "roots must be file:// URIs or paths")
    path = Path(path_or_uri).expanduser().resolve()
    return {"uri": path.as_uri(), "name": path.name or "/"}


class AnswerFlag(NamedTuple):
    """One `--answer`: `KEY.FIELD=VALUE` or `KEY=accept|decline|cancel`, split once (`parse_flag`).

    A key may hold dots, so what a flag means depends on the question: `a.b=x` sets field `b`
    of question `a`, and would be an action of a question `a.b`.
    """

    raw: str
    before: str  # everything before the `=`
    owner: str | None  # `before` up to its last dot; None without a dot
    field: str
    value: str

    def action_for(self, key: str) -> str | None:
        return self.value if self.before == key and self.value in ACTIONS else None

    def field_for(self, key: str) -> tuple[str, str] | None:
        """(field, value) when this flag sets a field of question `key`."""
        return (self.field, self.value) if self.owner == key else None


def parse_flag(raw: str) -> AnswerFlag:
    before, equals, value = raw.partition("=")
    if not equals:
        raise UsageError(f"--answer {raw!r} has no '='", "use KEY.FIELD=VALUE or KEY=accept|decline|cancel")
    owner, dot, field = before.rpartition(".")
    return AnswerFlag(raw, before, owner if dot else None, field, value)


class FlagAnswerer:
    """`--answer`: elicitation answers from the command line, over the answers file's."""

    name = sources.FLAG

    def __init__(self, flags: list[str], base: AnswersFile | None = None) -> None:
        self.flags = [parse_flag(raw) for raw in flags]
        self.base = base
        self.used: set[str] = set()
        self._decided = PerValue(self._decide)

    def answer(self, question: Question) -> Decision:
        if question.method != ELICIT:
            return None
        decision = self._decided(question.request, question.key)
        return Response(_fresh(decision.payload)) if isinstance(decision, Response) else decision

    def _decide(self, request: dict[str, Any], key: str) -> Decision:
        """The answer to a question as asked: the same every round it is asked again (`_decided`
        remembers it; each round still gets its own copy, and a refused answer raises each time)."""
        question = Question(0, key, request, "")
        actions = [f for f in self.flags if f.action_for(question.key)]
        fields = [f for f in self.flags if f.field_for(question.key)]
        if not actions and not fields:
            return None
        self.used.update(f.raw for f in actions + fields)
        entry = self.base.entry_for(question) if self.base else None
        action = actions[-1].action_for(question.key) if actions else "accept"
        given = dict((entry or {}).get("content") or {})
        given.update(self._typed_fields(question, fields))
        return elicit_response(question, str(action), given)

    def unused_flags(self) -> list[str]:
        """The `--answer` flags that matched no question the server asked, as typed."""
        return [f"--answer {f.raw}" for f in self.flags if f.raw not in self.used]

    @staticmethod
    def _typed_fields(question: Question, flags: list[AnswerFlag]) -> dict[str, Any]:
        schema_fields = {f.name: f for f in form_fields(question.schema)}
        typed = {}
        for flag in flags:
            name, text = flag.field_for(question.key) or ("", "")
            try:
                typed[name] = coerce(schema_fields.get(name), text)
            except ValueError as error:
                raise UsageError(f"--answer {flag.raw!r}: field {name!r} cannot take {text!r} ({error})",
                                 "give a value of the field's type") from None
        return typed


def _fresh(value: Any) -> Any:
    """A copy of an answer's JSON value, down to its last list: what one round sends is its own."""
    if isinstance(value, dict):
        return {key: _fresh(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_fresh(item) for item in value]
    return value


class SamplingReplyAnswerer:
    """`--sampling-reply TEXT`: every sampling question gets this text."""

    name = sources.FLAG

    def __init__(self, text: str, model: str) -> None:
        self.text = text
        self.model = model
        self.used = False

    def answer(self, question: Question) -> Decision:
        if question.method != SAMPLE:
            return None
        self.used = True
        return sampling_response(self.text, self.model)

    def unused_flags(self) -> list[str]:
        return [] if self.used else [f"--sampling-reply {safe_line(self.text, 60)}"]


class SamplerAnswerer:
    """`--sampler CMD`: a command answers sampling, fed `{"method", "params"}` on stdin."""

    name = sources.SAMPLER

    def __init__(self, command: str, model: str, timeout: float) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise UsageError("--sampler is empty", "give a command, e.g. --sampler './my-llm.sh'")
        self.model = model
        self.timeout = timeout
        self.command = command
        self.used = False

    def unused_flags(self) -> list[str]:
        return [] if self.used else [f"--sampler {safe_line(self.command, 200)}"]

    def answer(self, question: Question) -> Decision:
        if question.method != SAMPLE:
            return None
        self.used = True
        feed = json.dumps({"method": question.method, "params": question.params})
        try:
            done = subprocess.run(self.argv, input=feed.encode(), capture_output=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return Refusal(f"the sampler did not finish within {self.timeout:g} s")
        except OSError as error:
            raise UsageError(f"cannot run the sampler {self.argv[0]!r}: {error.strerror}",
                             "check --sampler") from None
        if done.returncode != 0:
            return Refusal(f"the sampler exited with code {done.returncode}")
        return self._reply(done.stdout.decode("utf-8", "replace"))

    def _reply(self, output: str) -> Response:
        try:
            parsed = json.loads(output)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return sampling_result(parsed, self.model)
        return sampling_response(output[:-1] if output.endswith("\n") else output, self.model)


class RootsAnswerer:
    """`--root`: the roots offered to every roots/list question."""

    name = sources.FLAG

    def __init__(self, roots: list[str]) -> None:
        self.given = list(roots)
        self.roots = [root_entry(r) for r in roots]
        self.used = False

    def answer(self, question: Question) -> Decision:
        if question.method != ROOTS:
            return None
        self.used = True
        return Response({"roots": list(self.roots)})

    def unused_flags(self) -> list[str]:
        return [] if self.used else [f"--root {safe_line(root, 200)}" for root in self.given]


@dataclass(frozen=True)
class MatchRule:
    """An answers-file `match:` entry: a method and a regular expression on the message."""

    method: str
    message: re.Pattern[str]
    response: dict[str, Any]

    def fits(self, question: Question) -> bool:
        return question.method == self.method and self.message.search(question.message) is not None


@dataclass(frozen=True)
class AnswersFile:
    """A parsed answers file (CLI.md, "Answering")."""

    answers: dict[str, dict[str, Any]]
    rules: list[MatchRule]

    def entry_for(self, question: Question) -> dict[str, Any] | None:
        """The entry for this question: by key first, then the first `match:` rule that fits."""
        if question.key in self.answers:
            return self.answers[question.key]
        return next((r.response for r in self.rules if r.fits(question)), None)


class AnswersFileAnswerer:
    """`--answers FILE`."""

    name = sources.ANSWERS_FILE

    def __init__(self, document: AnswersFile, sampling_model: str) -> None:
        self.document = document
        self.sampling_model = sampling_model

    def answer(self, question: Question) -> Decision:
        entry = self.document.entry_for(question)
        if entry is None:
            return None
        if question.method == ELICIT:
            content = entry.get("content") or {}
            if not isinstance(content, dict):
                raise UsageError(f"the answers file gives {question.key!r} a list as content",
                                 "a form answer's content: is a mapping of fields, e.g. content: {name: Ada}")
            return elicit_response(question, str(entry.get("action", "accept")), content)
        if question.method == SAMPLE:
            return self._sampling(entry)
        return Response({"roots": [_file_root(r) for r in entry.get("roots") or []]})

    def _sampling(self, entry: dict[str, Any]) -> Response:
        model = str(entry.get("model", self.sampling_model))
        if "text" in entry:
            return sampling_response(str(entry["text"]), model)
        return sampling_result({k: v for k, v in entry.items() if k != "text"}, model)


def _file_root(root: Any) -> dict[str, Any]:
    if not isinstance(root, dict) or urlparse(str(root.get("uri", ""))).scheme != "file":
        raise UsageError(f"the answers file offers the root {root!r}", "roots must be {uri: file:///...}")
    return root
