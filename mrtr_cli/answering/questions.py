"""Questions, the answers they get, and the chain of answerers that gives them.

An answerer looks at a question and returns a `Response` (the inputResponses value), a
`Refusal` (no answer can be given: the call ends without a retry), or None (not mine: ask
the next). The first answerer that answers wins; its name is the answer's `source`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, Union

from mrtr_cli.answering import sources
from mrtr_cli.errors import IncompleteError
from mrtr_cli.protocol.mrtr import required_capability
from mrtr_cli.text import safe_line

ELICIT = "elicitation/create"
SAMPLE = "sampling/createMessage"
ROOTS = "roots/list"


@dataclass(frozen=True)
class Question:
    """One `inputRequests` entry, with where it stands in the conversation."""

    round: int
    key: str
    request: dict[str, Any]
    server: str
    index: int = 1
    count: int = 1
    in_flight: bool = False
    """Asked by a server request during a call (the older era): its key is mrtr's, by method and order."""
    unprompted: bool = False
    """A server request that is not the call's question (a `roots/list`, or one outside the call)."""

    @property
    def method(self) -> str:
        return str(self.request.get("method"))

    @property
    def params(self) -> dict[str, Any]:
        params = self.request.get("params")
        return params if isinstance(params, dict) else {}

    @property
    def mode(self) -> str | None:
        """`form` or `url` for an elicitation, None otherwise."""
        return str(self.params.get("mode", "form")) if self.method == ELICIT else None

    @property
    def capability(self) -> str:
        return required_capability(self.request)

    @property
    def message(self) -> str:
        """What the question says: the elicitation message, or the last user text of sampling."""
        if self.method == ELICIT:
            return str(self.params.get("message", ""))
        if self.method == SAMPLE:
            return last_user_text(self.params.get("messages"))
        return ""

    @property
    def schema(self) -> dict[str, Any]:
        schema = self.params.get("requestedSchema")
        return schema if isinstance(schema, dict) else {}

    def describe(self) -> str:
        """One line naming the question, for messages."""
        kind = f"{self.method} ({self.mode})" if self.mode else self.method
        said = f': "{safe_line(self.message, 80)}"' if self.message else ""
        return f"question {self.key!r} of round {self.round}, {kind}{said}"


def last_user_text(messages: Any) -> str:
    """The text of the last user message of a sampling conversation."""
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, dict) and message.get("role") == "user":
            return _text_of(message.get("content"))
    return ""


def _text_of(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(t for t in texts if isinstance(t, str))


@dataclass(frozen=True)
class Response:
    """An answer to send: the value for this key in `inputResponses`."""

    payload: dict[str, Any]


@dataclass(frozen=True)
class Refusal:
    """No answer can be given (e.g. a refused sampling request)."""

    reason: str


Decision = Union[Response, Refusal, None]


class Answerer(Protocol):
    """Gives answers from one source."""

    name: str

    def answer(self, question: Question) -> Decision: ...

    def offers_roots(self) -> bool:
        """Whether this source can answer roots/list (the older era declares roots only then)."""


@dataclass(frozen=True)
class Answer:
    """The chosen answer and the answerer that gave it."""

    response: dict[str, Any]
    source: str


WAITING_SOURCES = (sources.INTERACTIVE, sources.SAMPLER)
"""Answerers that wait (for a person, for a command): what mrtr holds back is shown before they are asked."""


class Refused(IncompleteError):
    """An answerer refused the question (a person said no, the sampler failed): which, and why."""

    def __init__(self, message: str, hint: str, source: str = "", reason: str = "") -> None:
        super().__init__(message, hint)
        self.source = source
        self.reason = reason


class Parked(IncompleteError):
    """The person chose "Park (answer later)" at a question (`mrtr shell`): the conversation stops there, paused,
    for its transcript to be continued later (`answer` in the shell, `mrtr answer FILE`)."""

    def __init__(self, question: Question) -> None:
        super().__init__(f"{question.describe()} was parked, to be answered later", "its conversation is paused")


AT_TERMINAL = "run at a terminal without --no-input"
"""How a person comes to answer a `call`'s questions (replay says its own, `--interactive`)."""

Advice = Callable[[Question], str]
"""What to do about a question nothing answered (the hint of the exit 7 message)."""


class Chain:
    """Asks each answerer in turn; the first that answers wins. `advice` says what to do about
    a question none answers (by default: the ways to answer it)."""

    def __init__(self, answerers: list[Answerer], advice: Advice | None = None) -> None:
        self.answerers = answerers
        self.advice = advice or how_to_answer

    def without_people(self) -> Chain:
        """The same chain without the person at the terminal."""
        return Chain([answerer for answerer in self.answerers if answerer.name != sources.INTERACTIVE], self.advice)

    def offers_roots(self) -> bool:
        """Whether some answerer can answer roots/list."""
        return any(answerer.offers_roots() for answerer in self.answerers)

    def answer(self, question: Question, before_waiting: Callable[[], None] | None = None) -> Answer:
        """The answer to `question`; `IncompleteError` when refused or when nothing answers.
        `before_waiting` is called before an answerer that waits is asked."""
        for answerer in self.answerers:
            if answerer.name in WAITING_SOURCES and before_waiting is not None:
                before_waiting()
            verdict = answerer.answer(question)
            if isinstance(verdict, Refusal):
                raise Refused(f"{question.describe()} was refused by {answerer.name}: {verdict.reason}",
                              "the call ends without a retry", answerer.name, verdict.reason)
            if isinstance(verdict, Response):
                return Answer(verdict.payload, answerer.name)
        raise IncompleteError(f"nothing answered {question.describe()}", self.advice(question))


def how_to_answer_in_python(question: Question) -> str:
    """The way to answer a question from Python: an entry in the `answers=` mapping, its shape shown."""
    if question.method == SAMPLE:
        entry = "{'text': '...'}"
    elif question.method == ROOTS:
        entry = "{'roots': [{'uri': 'file:///...'}]}"
    elif question.mode == "url":
        entry = "{'action': 'accept'}"
    else:
        entry = "{'content': {FIELD: VALUE}}"
    return f"give it an entry in answers=, e.g. answers={{'answers': {{{question.key!r}: {entry}}}}}"


def how_to_answer(question: Question, person: str = AT_TERMINAL, answers_file: bool = False) -> str:
    """The ways to answer a question: flags, an answers file (an entry in the one given), a person."""
    if question.method == SAMPLE:
        flags = "pass --sampling-reply TEXT or --sampler CMD"
    elif question.method == ROOTS:
        flags = "pass --root PATH or --no-roots (not to declare roots)"
    elif question.mode == "url":
        flags = f"pass --answer {question.key}=accept (or decline, cancel)"
    else:
        flags = f"pass --answer {question.key}.FIELD=VALUE"
    file = f"write an entry {question.key!r} in the answers file" if answers_file else "--answers FILE"
    if question.method != ELICIT or question.mode == "url":
        return f"{flags}, or {file}"
    return f"{flags}, {file}, or {person}" if answers_file else f"{flags} or {file}, or {person}"
