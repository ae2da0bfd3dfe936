"""Answers given without a person: `--answer`, `--root`, `--sampling-reply`, `--sampler`, and
answers files. Every form answer is completed with defaults and validated before it is sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

from mrtr_cli.forms.validation import complete_form
from mrtr_cli.answering import sources
from mrtr_cli.answering.answer_flags import ACTIONS, parse_flag, typed_fields, value_not_an_action
from mrtr_cli.answering.questions import ELICIT, ROOTS, SAMPLE, Question, Refusal, Response, Decision
from mrtr_cli.errors import UsageError
from mrtr_cli.definition.options import command_words
from mrtr_cli.protocol.per_value import PerValue
from mrtr_cli.text import safe_line


class AnswerEntries(Protocol):
    """What `--answer` completes: an answers file's entry for a question (answers_file.AnswersFile is one)."""

    def entry_for(self, question: Question) -> dict[str, Any] | None: ...


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


class FlagAnswerer:
    """`--answer`: elicitation answers from the command line, over the answers file's."""

    name = sources.FLAG

    def __init__(self, flags: list[str], base: AnswerEntries | None = None) -> None:
        self.flags = [parse_flag(raw) for raw in flags]
        self.base = base
        self.used: set[str] = set()
        self.asked: list[str] = []
        """The keys of the elicitations asked, in order: what a flag that matched none was likely meant for."""
        self._decided = PerValue(self._decide)

    def offers_roots(self) -> bool:
        return False

    def answer(self, question: Question) -> Decision:
        if question.method != ELICIT:
            return None
        if question.key not in self.asked:
            self.asked.append(question.key)
        decision = self._decided(question.request, question.key)
        return Response(_fresh(decision.payload)) if isinstance(decision, Response) else decision

    def _decide(self, request: dict[str, Any], key: str) -> Decision:
        """The answer to a question as asked: the same every round it is asked again (`_decided`
        remembers it; each round still gets its own copy, and a refused answer raises each time)."""
        question = Question(0, key, request, "")
        self._refuse_values_in_place_of_actions(question)
        actions = [f for f in self.flags if f.action_for(question.key)]
        fields = [f for f in self.flags if f.sets_field_of(question.key)]
        if not actions and not fields:
            return None
        self.used.update(f.raw for f in actions + fields)
        entry = self.base.entry_for(question) if self.base else None
        action = actions[-1].action_for(question.key) if actions else "accept"
        given = dict((entry or {}).get("content") or {})
        given.update(typed_fields(question, fields))
        return elicit_response(question, str(action), given)

    def _refuse_values_in_place_of_actions(self, question: Question) -> None:
        """`KEY=VALUE` for this question, VALUE not an action: a usage error with the flag it meant."""
        for flag in self.flags:
            if flag.before == question.key and flag.value not in ACTIONS:
                # they named this question: no "matched no question" as well
                self.used.update(f.raw for f in self.flags if f.names(question.key))
                raise value_not_an_action(question, flag)

    def near_miss(self, question: Question) -> str | None:
        """For a question nothing answered: the unused flag whose key is close to its key, written
        as meant (that flag then gets no "matched no question" warning: this says more)."""
        for flag in self.flags:
            if flag.raw not in self.used and flag.likely_key([question.key]):
                self.used.add(flag.raw)
                return (f"--answer {flag.raw} names question {flag.owner or flag.before!r}; did you mean question "
                        f"{question.key!r}? write {flag.for_question(question.key)}")
        return None

    def unused_flags(self) -> list[str]:
        """The `--answer` flags that matched no question the server asked, as typed."""
        return [f"--answer {f.raw}" for f in self.flags if f.raw not in self.used]

    def likely_questions(self) -> dict[str, str]:
        """For each unused flag whose key is close to a question asked: that question's key."""
        likely = {f"--answer {f.raw}": f.likely_key(self.asked) for f in self.flags if f.raw not in self.used}
        return {flag: key for flag, key in likely.items() if key is not None}


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
        self.argv = command_words(command, "--sampler")
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
        import subprocess

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
        if isinstance(parsed, dict) and "content" not in parsed:
            raise UsageError(f"the sampler's output is JSON but not a CreateMessageResult (it has "
                             f"{', '.join(safe_line(repr(k), 40) for k in list(parsed)[:5]) or 'no keys'}; "
                             "no content)", "print plain text, or JSON with content: "
                             '{"type": "text", "text": ...}; check --sampler')
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
