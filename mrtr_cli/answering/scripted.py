"""Answers given without a person: `--answer`, `--root`, `--sampling-reply`, `--sampler`, and
answers files. Every form answer is completed with defaults and validated before it is sent.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import urlparse

from mrtr_cli.forms.fields import coerce, complete_form, form_fields
from mrtr_cli.answering import sources
from mrtr_cli.answering.questions import ELICIT, ROOTS, SAMPLE, Question, Refusal, Response, Decision
from mrtr_cli.errors import UsageError
from mrtr_cli.protocol.per_value import PerValue
from mrtr_cli.text import safe_line

if TYPE_CHECKING:
    from mrtr_cli.answering.answers_file import AnswersFile

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

    def offers_roots(self) -> bool:
        return False

    def answer(self, question: Question) -> Decision:
        if question.method != ELICIT:
            return None
        decision = self._decided(question.request, question.key)
        return Response(_fresh(decision.payload)) if isinstance(decision, Response) else decision

    def _decide(self, request: dict[str, Any], key: str) -> Decision:
        """The answer to a question as asked: the same every round it is asked again (`_decided`
        remembers it; each round still gets its own copy, and a refused answer raises each time)."""
        question = Question(0, key, request, "")
        self._refuse_values_in_place_of_actions(question)
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

    def _refuse_values_in_place_of_actions(self, question: Question) -> None:
        """`KEY=VALUE` for this question, VALUE not an action: a usage error with the flag it meant."""
        for flag in self.flags:
            if flag.before == question.key and flag.value not in ACTIONS:
                self.used.add(flag.raw)  # it named this question: no "matched no question" as well
                raise UsageError(f"--answer {flag.raw}: {flag.value!r} is not an action for question "
                                 f"{question.key!r} (accept, decline or cancel)", _field_fix(question, flag))

    def unused_flags(self) -> list[str]:
        """The `--answer` flags that matched no question the server asked, as typed."""
        return [f"--answer {f.raw}" for f in self.flags if f.raw not in self.used]

    @staticmethod
    def _typed_fields(question: Question, flags: list[AnswerFlag]) -> dict[str, Any]:
        schema_fields = {f.name: f for f in form_fields(question.schema)}
        typed = {}
        for flag in flags:
            name, text = flag.field_for(question.key) or ("", "")
            if name not in schema_fields and _closed_form(question.schema):
                raise UsageError(f"--answer {flag.raw}: the form of question {question.key!r} has no field {name!r}",
                                 _fields_named(list(schema_fields)))
            try:
                typed[name] = coerce(schema_fields.get(name), text)
            except ValueError as error:
                raise UsageError(f"--answer {flag.raw!r}: field {name!r} cannot take {text!r} ({error})",
                                 "give a value of the field's type") from None
        return typed


def _field_fix(question: Question, flag: AnswerFlag) -> str:
    """The `--answer` that sets a field to the value given where an action belongs."""
    names = [f.name for f in form_fields(question.schema)] if question.mode == "form" else []
    if not names:
        return f"write --answer {shlex.quote(question.key + '=accept')} (or decline, cancel)"
    field = names[0] if len(names) == 1 else "FIELD"
    meant = f"--answer {shlex.quote(f'{question.key}.{field}={flag.value}')}"
    if len(names) == 1:
        return f"to set its field {field!r}, write {meant}"
    return f"to set a field, write {meant}; {_fields_named(names)}"


def _closed_form(schema: dict[str, Any]) -> bool:
    """Whether a form takes only the fields it lists (as the spec's flat forms do)."""
    open_to_more = "patternProperties" in schema or schema.get("additionalProperties", False) is not False
    return isinstance(schema.get("properties"), dict) and not open_to_more


def _fields_named(names: list[str]) -> str:
    return f"its fields: {', '.join(names)}" if names else "it has no fields"


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

    def offers_roots(self) -> bool:
        return False

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

    def offers_roots(self) -> bool:
        return False

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

    def offers_roots(self) -> bool:
        return True

    def answer(self, question: Question) -> Decision:
        if question.method != ROOTS:
            return None
        self.used = True
        return Response({"roots": list(self.roots)})

    def unused_flags(self) -> list[str]:
        return [] if self.used else [f"--root {safe_line(root, 200)}" for root in self.given]
