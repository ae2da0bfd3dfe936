"""`TranscriptUser`: a Locust user that replays MRTR transcripts, conversation after conversation,
as `mrtr replay` does (the recorded answers, fresh state from the live server every round, round k
to instance (k-1) mod n with replicas); each round and each conversation is one Locust request.

Configured by class attributes, so that a user's own locustfile works with Locust's own CLI:

    from mrtr_cli.load import TranscriptUser

    class Booking(TranscriptUser):
        transcripts = ["recordings/book_table.yaml"]
        url = "http://127.0.0.1:8000/mcp"       # else Locust's --host
        replicas = ["http://127.0.0.1:8001/mcp"]
        answers = ["name.name=Ada"]              # as --answer

`mrtr load` builds its user class from its options (`Plan`) instead.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import gevent
import gevent.event
from locust import User, task

from mrtr_cli.commands.common import Context, make_context
from mrtr_cli.commands.replay import ReplayOptions, replay_timed
from mrtr_cli.errors import UsageError
from mrtr_cli.definition.options import AnsweringOptions, OutputOptions, TargetOptions
from mrtr_cli.transcript import model
from mrtr_cli.transcript.paths import JsonPath, parse_path
from mrtr_cli.transcript.replay_verdict import ReplayVerdict

CONVERSATION = "conversation"
"""The request_type of the Locust request event each conversation fires."""


@dataclass(frozen=True)
class Transcript:
    """A transcript to replay, as its Locust names need it."""

    path: str
    method: str
    label: str
    """What the rounds are named after: the tool, prompt or resource."""
    weight: int = 1

    @property
    def name(self) -> str:
        """The conversation's name in Locust's reports: the transcript's file name."""
        return Path(self.path).name

    def round_name(self, number: int) -> str:
        return f"{self.label} · round {number}"


def load_transcript(path: str, weight: int = 1) -> Transcript:
    """Read the transcript at `path` now (a bad file is exit 1 before any user starts)."""
    loaded = model.load(path)
    params = loaded.request.get("params", {})
    label = params.get("name", params.get("uri", loaded.request["method"]))
    return Transcript(path, loaded.request["method"], str(label), weight)


class Budget:
    """`--conversations N`: how many conversations may still start, and when the last has ended.
    Without a limit, every conversation may start and `reached` is never set."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.started = 0
        self.ended = 0
        self.reached = gevent.event.Event()

    def take(self) -> bool:
        """Whether one more conversation may start (counted as started when it may)."""
        if self.limit is not None and self.started >= self.limit:
            return False
        self.started += 1
        return True

    def end(self) -> None:
        self.ended += 1
        if self.limit is not None and self.ended >= self.limit:
            self.reached.set()


@dataclass(frozen=True)
class Plan:
    """What every user of a run replays, and how: the transcripts, the target and answering options
    (as replay takes them), `-a` values, the paths `--ignore`d, the pause between conversations."""

    transcripts: tuple[Transcript, ...]
    target: TargetOptions
    answering: AnsweringOptions
    arguments: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    think: float = 0.0
    budget: Budget = field(default_factory=lambda: Budget(None))

    def ignored(self) -> list[JsonPath]:
        return [parse_path(text, "--ignore") for text in self.ignore]


def one_conversation(context: Context, plan: Plan, transcript: Transcript) -> ReplayVerdict:
    """One conversation of `transcript`, run and judged by replay's own machinery (the one place
    `mrtr load` holds a conversation; a person is never asked)."""
    options = ReplayOptions(files=(transcript.path,), arguments=plan.arguments)
    answering = plan.answering._replace(no_input=True)
    return replay_timed(context, transcript.path, options, plan.ignored(), plan.target, answering)


class ConversationFailed(Exception):
    """A conversation that did not end as recorded: its first difference, or what failed (Locust
    groups its failures by this message)."""


def failure_of(verdict: ReplayVerdict) -> ConversationFailed | None:
    """Why the conversation is a Locust failure, by replay's rules; None when it replayed the same."""
    if verdict.result == "same":
        return None
    if verdict.result == "failed":
        said = verdict.error.one_line() if verdict.error is not None else "failed"
        return ConversationFailed(said)
    first = verdict.differences[0]
    because = f"{verdict.cause.one_line()}; " if verdict.cause is not None else ""
    return ConversationFailed(f"{because}diverged at {first.where()}: {first.what}")


def report(events: Any, transcript: Transcript, verdict: ReplayVerdict, started: float) -> None:
    """Each round, then the conversation, as Locust request events (times in milliseconds)."""
    for number, elapsed in enumerate(verdict.round_ms, 1):
        events.request.fire(request_type=transcript.method, name=transcript.round_name(number),
                            response_time=elapsed, response_length=0, exception=None, context={},
                            start_time=started)
    events.request.fire(request_type=CONVERSATION, name=transcript.name, response_time=verdict.elapsed * 1000,
                        response_length=verdict.rounds, exception=failure_of(verdict),
                        context={"result": verdict.result}, start_time=started)


class TranscriptUser(User):
    """A Locust user replaying MRTR transcripts; see the module's help for its attributes."""

    abstract = True
    transcripts: ClassVar[Sequence[str]] = ()
    weights: ClassVar[dict[str, int]] = {}
    url: ClassVar[str | None] = None
    """The server's Streamable HTTP endpoint (else Locust's `host`)."""
    replicas: ClassVar[Sequence[str]] = ()
    headers: ClassVar[Sequence[str]] = ()
    answers: ClassVar[Sequence[str]] = ()
    answers_file: ClassVar[str | None] = None
    arguments: ClassVar[Sequence[str]] = ()
    ignore: ClassVar[Sequence[str]] = ()
    think: ClassVar[float] = 0.0
    conversations: ClassVar[int | None] = None
    """Stop the whole run (this process's Locust runner) after this many conversations in all."""
    quit_when_done: ClassVar[bool] = True
    """Whether the user quits the runner once `conversations` ended (`mrtr load` ends its run itself)."""
    plan: ClassVar[Plan | None] = None
    """Set by `mrtr load`; else built from the attributes above when the first user starts."""

    def wait_time(self) -> float:
        return self._plan().think

    def on_start(self) -> None:
        self._context = make_context(OutputOptions(color="never"))
        logging.getLogger("httpx").setLevel(logging.WARNING)  # Locust logs at INFO: not a line per HTTP request

    @task
    def conversation(self) -> None:
        plan = self._plan()
        if not plan.budget.take():  # --conversations reached: wait for the run to end, sending nothing
            plan.budget.reached.wait()
            return
        transcript = random.choices(plan.transcripts, [t.weight for t in plan.transcripts])[0]
        started = time.time()
        verdict = one_conversation(self._context, plan, transcript)
        report(self.environment.events, transcript, verdict, started)
        plan.budget.end()
        if plan.budget.reached.is_set() and self.quit_when_done and self.environment.runner is not None:
            gevent.spawn(self.environment.runner.quit)  # not from this user: quitting stops every user

    @classmethod
    def _plan(cls) -> Plan:
        if cls.plan is None:
            cls.plan = cls._plan_from_attributes()
        return cls.plan

    @classmethod
    def _plan_from_attributes(cls) -> Plan:
        url = cls.url or cls.host
        if not cls.transcripts or not url:
            raise UsageError(f"{cls.__name__} needs transcripts and a url (or Locust's --host)",
                             "set the class attributes transcripts = [...] and url = 'http://.../mcp'")
        transcripts = tuple(load_transcript(path, cls.weights.get(path, 1)) for path in cls.transcripts)
        target = TargetOptions(url=url, replicas=tuple(cls.replicas), headers=tuple(cls.headers))
        answering = AnsweringOptions(answers=tuple(cls.answers), answers_file=cls.answers_file)
        return Plan(transcripts, target, answering, tuple(cls.arguments), tuple(cls.ignore), cls.think,
                    Budget(cls.conversations))
