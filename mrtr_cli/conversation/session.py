"""The MRTR loop: send the request, and while the server wants input, answer and retry.

Client rules of `basic/patterns/mrtr` kept here: every question is answered before the
retry; the retry carries the original params, `inputResponses` keyed exactly as asked and
`requestState` exactly as received (none when none was received), under a new id; a round
with only `requestState` is retried after a visible backoff; rounds are capped. A question
for a capability mrtr did not declare is never answered. One call breaks the requestState rule
knowingly, and says so on the timeline: `Session.resume`, check's state probes' conversation
resumed with a requestState the caller gives.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from mrtr_cli.conversation import events
from mrtr_cli.answering.questions import Answer, Chain, Question
from mrtr_cli.conversation.client import Client, Reply
from mrtr_cli.conversation.explain import explain
from mrtr_cli.conversation.instances import Instance, Instances
from mrtr_cli.conversation.older_tasks import OlderTaskFollower, is_task_call
from mrtr_cli.conversation.task_follower import TaskFollower, TaskRecord, TaskSettings
from mrtr_cli.errors import (HopRefused, IncompleteError, Interrupted, MrtrError, ServerError, UnreachableError,
                             UsageError, interruption)
from mrtr_cli.exit_codes import ExitCode, decide
from mrtr_cli.protocol import meta, tasks
from mrtr_cli.protocol.headers import Mirrored
from mrtr_cli.protocol.mrtr import Complete, read_result, retry_params

if TYPE_CHECKING:
    from mrtr_cli.conversation.server_requests import CallAsked

BACKOFF_START = 0.05
"""First wait before retrying a round that carried only requestState (seconds)."""
BACKOFF_CAP = 1.0
"""The longest such wait."""


@dataclass
class Round:
    """One request of the conversation and what came back."""

    number: int
    reply: Reply
    params: dict[str, Any]
    result_type: str | None = None
    requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    state: str | None = None
    answers: dict[str, Answer] = field(default_factory=dict)
    instance: events.InstanceChosen | None = None
    """The instance of the server it went to (`--replica`, `--restart-between-rounds`); None: no hops."""
    refused: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Older era: the questions that got an error instead of an answer (`CallAsked.refused`)."""
    unprompted: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Older era: the server's requests that were not the call's questions (`CallAsked.unprompted`)."""


@dataclass
class Outcome:
    """How the conversation ended: complete, error, incomplete or aborted."""

    method: str
    params: dict[str, Any]
    status: events.OutcomeStatus = "aborted"
    result: dict[str, Any] | None = None
    error: MrtrError | None = None
    rounds: list[Round] = field(default_factory=list)
    server: dict[str, Any] | None = None
    findings: list[events.Finding] = field(default_factory=list)
    era: str | None = None
    """`modern` or `older`: the era it was spoken in (None: no server was reached)."""
    advice: list[str] = field(default_factory=list)
    """What mrtr found out after a failure, shown after it (e.g. a tool name the server does not list)."""
    task: TaskRecord | None = None
    """The task the server made of the request, as it was followed (None: no task)."""
    unanswered_round: int | None = None
    """The round whose request got no answer, when the conversation ended so (the server went away,
    a timeout, Ctrl-C): it was sent, so it counts, and `rounds` holds only the answered ones."""

    def exit_code(self, strict: bool = False) -> ExitCode:
        codes = [self.error.exit_code] if self.error else []
        if self.result is not None and self.result.get("isError") is True:
            codes.append(ExitCode.TOOL_ERROR)
        if strict and any(f.severity == "error" for f in self.findings):
            codes.append(ExitCode.PROTOCOL)
        return decide(codes)


def status_of(error: MrtrError) -> events.OutcomeStatus:
    """The outcome a failure leaves: aborted, incomplete or error."""
    if isinstance(error, (Interrupted, UnreachableError)):
        return "aborted"
    if isinstance(error, (IncompleteError, UsageError)):
        return "incomplete"
    return "error"


class Sessions(Protocol):
    """Where a command's sessions come from: one conversation's (commands/conversation_builder.py's
    `Live.session`), with its client, rounds, task settings and instances; answered by `chain` (None:
    the conversation's own), its rounds sent to its other instances only when `hopping`, at most
    `max_rounds` rounds answered (None: the conversation's --max-rounds). check's probes are handed one,
    so the conversations they run are the command's and not their own."""

    def __call__(self, chain: Chain | None = None, *, hopping: bool = True,
                 max_rounds: int | None = None) -> Session: ...


class Paused(NamedTuple):
    """The recorded rounds a conversation goes on from (the last one answered now), and the requestState
    its next retry carries: the last round's own (`mrtr answer`), or another (`Session.resume`)."""

    rounds: list[Round]
    state: str | None

    @property
    def echoed(self) -> bool:
        return self.state == self.rounds[-1].state


class Session:
    """Drives one MRTR conversation over a client, answering through a chain."""

    def __init__(self, client: Client, chain: Chain, *, max_rounds: int = 10,
                 sleep: Callable[[float], None] = time.sleep, instances: Instances | None = None,
                 tasks: TaskSettings | None = None, awaited_unprompted: Collection[str] = (),
                 findings: Callable[[], list[events.Finding]] = list) -> None:
        self.client = client
        self.findings = findings
        """The conversation's findings so far (its linter's `told`), asked for when its outcome is reached."""
        self.awaited_unprompted = set(awaited_unprompted)
        """Older era: the methods a recording saw the server ask unprompted; a replay waits for them
        after the call (they come when the server chooses, and timing must not decide a replay)."""
        self.tasks = tasks or TaskSettings()
        """How a task the server makes of the call is followed (conversation/task_follower.py)."""
        self.follower: TaskFollower | OlderTaskFollower | None = None
        """The follower of the task of the conversation, once the server made one."""
        self.instances = instances
        """Where each round goes (`--replica`, `--restart-between-rounds`); None: where the client is."""
        self.chain = chain
        self.max_rounds = max_rounds
        self.sleep = sleep
        self.emit = client.emit
        self.held = client.emit.held
        """Held events' one owner (`events.HeldEvents`): the session marks the conversation and
        releases before it waits (an answerer, a backoff)."""

    def run(self, method: str, params: dict[str, Any], mirrored: Mirrored | None = None,
            paused: list[Round] | None = None) -> Outcome:
        """The whole conversation; `mirrored`: the arguments every round also sends as headers.
        `paused`: the recorded rounds of a conversation that goes on from the last, an input_required one
        (`mrtr answer`): its questions are answered and the next round carries its requestState as it was."""
        went_on = Paused(paused, paused[-1].state) if paused else None
        return self._outcome(Outcome(method, params),
                             lambda outcome: self._converse(method, params, outcome, mirrored, went_on))

    def resume(self, method: str, params: dict[str, Any], rounds: list[Round], state: str | None,
               mirrored: Mirrored | None = None) -> Outcome:
        """The conversation of `rounds` going on after the last of them, as `run` goes on from paused
        rounds, but with `state` in place of that round's requestState: its questions answered anew
        (the recorded round keeps its answers), the next retry carrying `state` exactly (None: no
        requestState), the rounds after it as the server has them. The outcome holds `rounds` and the
        new ones. check's state probes send a state the server did not make for that round so, the
        client MUST NOT on requestState broken knowingly: the timeline says "not the one received"."""
        last = dataclasses.replace(rounds[-1], answers={})
        went_on = Paused([*rounds[:-1], last], state)
        return self._outcome(Outcome(method, params),
                             lambda outcome: self._converse(method, params, outcome, mirrored, went_on))

    def follow_task(self, task_id: str, method: str = "tools/call", params: dict[str, Any] | None = None) -> Outcome:
        """Follow a task that already exists (known by its id, e.g. resumed) to its end, as `run` follows
        the task a call makes: the same events, answers and outcome (`method` and `params`: the request
        that made it, when known)."""
        def follow(outcome: Outcome) -> dict[str, Any]:
            self.held.conversation_starts()
            try:
                return self._follower(outcome.rounds).follow_id(task_id)
            finally:
                self.held.conversation_ends()

        return self._outcome(Outcome(method, params or {}), follow)

    def _outcome(self, outcome: Outcome, converse: Callable[[Outcome], dict[str, Any]]) -> Outcome:
        asking = self.client.era.server_requests
        if asking is not None:
            asking.begin_call()
        try:
            outcome.result = converse(outcome)
            outcome.status = "complete"
        except MrtrError as error:
            outcome.status, outcome.error = status_of(error), error
        except KeyboardInterrupt as raised:
            outcome.status, outcome.error = "aborted", interruption(raised)
        if asking is not None and self.awaited_unprompted and outcome.status != "aborted":
            self.client.await_server_requests(lambda: self.awaited_unprompted <= asking.unprompted_seen)
        if asking is not None:
            _keep_asked_in_flight(outcome.rounds, asking.end_call())
        outcome.task = self.follower.record if self.follower is not None else None
        outcome.server, outcome.era = self.client.server_info, self.client.era.name
        self.held.before_waiting()  # what a Ctrl-C, landing while a round was shown, left held
        outcome.findings = self.findings()  # once the held events have reached the linter
        self.emit(events.OutcomeReached(outcome))
        return outcome

    def _converse(self, method: str, params: dict[str, Any], outcome: Outcome,
                  mirrored: Mirrored | None, paused: Paused | None = None) -> dict[str, Any]:
        """The rounds, a conversation for held events (`events.HeldEvents`): each round is shown and
        checked while the server works on the retry."""
        self.held.conversation_starts()
        home = self.client.transport
        try:
            return self._rounds(method, params, outcome, mirrored, paused)
        finally:
            self.client.hop(home)  # the instances' owner stops the others
            self.held.conversation_ends()

    def _rounds(self, method: str, params: dict[str, Any], outcome: Outcome,
                mirrored: Mirrored | None, paused: Paused | None = None) -> dict[str, Any]:
        responses: dict[str, Any] | None = None
        state: str | None = None
        delay = BACKOFF_START
        made_state: Instance | None = None
        first = 1
        if paused is not None:  # the conversation so far; the last round's questions asked again, as that round's
            outcome.rounds.extend(paused.rounds)
            last = paused.rounds[-1]
            responses = self._answer_all(last) if last.requests else None
            state, first = paused.state, last.number + 1
        for number in itertools.count(first):
            sent = retry_params(params, responses, state)
            instance, chosen = self._route(number)
            outcome.unanswered_round = number  # until its answer comes
            reply = self.client.request(method, sent, round=number, purpose="request" if number == 1 else "retry",
                                        mirrored=mirrored,
                                        state_as_received=paused is None or number != first or paused.echoed)
            outcome.unanswered_round = None
            current = Round(number, reply, sent, instance=chosen)
            outcome.rounds.append(current)
            if reply.error is not None:
                raise self._refusal(method, reply.error, instance, made_state)
            if tasks.is_task(reply.result) and self.client.settings.capabilities.tasks:
                current.result_type = tasks.TASK
                return self._follower(outcome.rounds).follow_created(reply, number + 1)
            reading = read_result(method, reply.result)
            if isinstance(reading, Complete) and is_task_call(self.client, sent) and "task" in reading.result:
                current.result_type = tasks.TASK
                self.follower = OlderTaskFollower(self.client, self.tasks, self.sleep)
                return self.follower.follow(reply)
            if isinstance(reading, Complete):
                current.result_type = "complete"
                return reading.result
            current.result_type, current.requests, current.state = "input_required", reading.requests, reading.state
            self.emit(events.InputRequested(number, reply.id, reading.requests, reading.state))
            if number > self.max_rounds:
                answered = f"{self.max_rounds} answered round{'s' if self.max_rounds != 1 else ''}"
                raise IncompleteError(f"the server still wants input after {answered} (--max-rounds)",
                                      "raise --max-rounds if it needs more")
            if reading.requests:
                responses, delay = self._answer_all(current), BACKOFF_START
            else:
                responses, delay = None, self._back_off(number, delay)
            state, made_state = reading.state, instance if reading.state is not None else None
        raise AssertionError("unreachable")

    def _follower(self, rounds: list[Round]) -> TaskFollower:
        """A follower for the task of this conversation; its input rounds join `rounds`."""
        def ask(number: int, reply: Reply, params: dict[str, Any], asked: dict[str, dict[str, Any]]) -> dict[str, Any]:
            current = Round(number, reply, params, "input_required", asked)
            rounds.append(current)
            return self._answer_all(current)

        self.follower = TaskFollower(self.client, ask, self.tasks, max_rounds=self.max_rounds, sleep=self.sleep)
        return self.follower

    def _route(self, number: int) -> tuple[Instance | None, events.InstanceChosen | None]:
        """Hand the client the instance round `number` goes to, and say which it is (None, None: no hops)."""
        if self.instances is None:
            return None, None
        self.held.before_waiting()  # a restart waits for the server to stop: the last round is shown first
        instance = self.instances.for_round(number)
        self.client.hop(instance.transport)
        chosen = events.InstanceChosen(number, instance.position, instance.name)
        self.emit(chosen)
        return instance, chosen

    def _refusal(self, method: str, error: dict[str, Any], instance: Instance | None,
                 made_state: Instance | None) -> ServerError:
        """The error a refused round raises: a retry refused by another instance than the one that
        made its requestState names the hop and its likely cause."""
        if self.instances is None or instance is None or made_state is None or instance.position == made_state.position:
            return explain(method, error)
        return HopRefused(method, error, instance.words, self.instances.refused_hint)

    def _answer_all(self, current: Round) -> dict[str, Any]:
        count, asker = len(current.requests), self.client.who_asks()
        responses = {}
        for index, (key, request) in enumerate(current.requests.items(), 1):
            question = Question(current.number, key, request, asker, index, count)
            self._check_capability(question)
            answer = self.chain.answer(question, before_waiting=self.held.before_waiting)
            current.answers[key] = answer
            responses[key] = answer.response
            self.emit(events.AnswerChosen(current.number, key, question.method, answer.response, answer.source))
        return responses

    def _check_capability(self, question: Question) -> None:
        capabilities = self.client.settings.capabilities
        if capabilities.allows(question.capability):
            return
        top = question.capability.partition(".")[0]
        flag = meta.WITHHOLDING_FLAGS.get(top)
        why = f"withheld by {flag}" if flag and not capabilities.allows(top) else "never declared by mrtr"
        raise IncompleteError(f"{question.describe()} needs the client capability {question.capability}, "
                              f"{why}", "a server MUST NOT ask what the client did not declare")

    def _back_off(self, number: int, delay: float) -> float:
        self.emit(events.BackingOff(number, delay))
        self.held.before_waiting()
        self.sleep(delay)
        return min(delay * 2, BACKOFF_CAP)


def _keep_asked_in_flight(rounds: list[Round], call: CallAsked) -> None:
    """Older era: what the server asked during the call belongs to its one round (for --save-answers
    and the report), and what it asked unprompted is kept beside it."""
    if not rounds:
        return
    if call.asked:
        rounds[-1].requests, rounds[-1].answers = call.asked, call.answers
    rounds[-1].refused, rounds[-1].unprompted = call.refused, call.unprompted
