"""`mrtr check`'s probes of the one tool the user names (`--tool`), never another: the tool's own
conversation first (judged round by round in check/tool_rounds.py), then retries of its first
round with a capability withheld, no answers, odd answers or other arguments.

One of them knowingly breaks the client MUST NOT on requestState: it sends an altered copy to see
that the server refuses it (`tampered`). That happens here, apart from the Session, which never
alters state.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any

from mrtr_cli.answering.questions import Chain, Question
from mrtr_cli.check import calls, capability_probes, hop_probe, isolation_probe, principal_probe, refusal_probes, \
    replay_probes
from mrtr_cli.check.calls import Calls
from mrtr_cli.check.capability_probes import CAPABILITY_WITHHELD_EACH, CapabilityProber
from mrtr_cli.check.hop_probe import RETRY_ELSEWHERE, hop_check
from mrtr_cli.check.isolation_probe import ISOLATED, IsolationProbe
from mrtr_cli.check.principal_probe import STATE_OTHER_PRINCIPAL, OtherPrincipal, PrincipalProbe
from mrtr_cli.check.probes import Prober
from mrtr_cli.check.refusal_probes import REFUSAL_PROBES, refusal_checks
from mrtr_cli.check.replay_probes import REPLAY_PROBES, ReplayFlags, ReplayProber
from mrtr_cli.check.state_probes import TOOL_STATE_PROBES, Request, StateProber, state_calls
from mrtr_cli.check.tool_rounds import ROUND_PROBES, round_checks
from mrtr_cli.check.verdicts import (Check, Probe, ProbeFailed, asks, completes, judged, seen, shape_problem, timed,
                                     verdict)
from mrtr_cli.conversation.client import Client, Reply
from mrtr_cli.conversation.instances import Instances
from mrtr_cli.conversation.session import Outcome, Round
from mrtr_cli.errors import IncompleteError, UsageError
from mrtr_cli.protocol import jsonrpc, meta
from mrtr_cli.protocol.headers import Mirrored
from mrtr_cli.protocol.mrtr import INPUT_RESPONSES, REQUEST_STATE, questions, required_capability, with_state

PROBE_KEY = "__mrtr_probe"
"""The key of the extra answer, and of the argument added when no argument is text."""
CAPABILITY_WITHHELD: Probe = (
    "capability-withheld", "withholding the capability a question needs gives -32021 or no such question", "MUST",
    "basic/patterns/mrtr#server-requirements-basic-workflow")
ANSWERLESS_RETRY: Probe = ("answerless-retry", "a retry without the answers is asked again, not failed", "SHOULD",
                           "basic/patterns/mrtr#error-handling")
TAMPERED_STATE: Probe = ("tampered-state", "a requestState with its middle character flipped is rejected", "SHOULD",
                         "basic/patterns/mrtr#server-requirements-basic-workflow")
STATE_OTHER_ARGUMENTS: Probe = ("state-other-arguments", "a requestState sent with other arguments is rejected",
                                "SHOULD", "basic/patterns/mrtr#server-requirements-basic-workflow")
EXTRA_ANSWERS: Probe = ("extra-answers", "unknown extra inputResponses are ignored", "SHOULD",
                        "basic/patterns/mrtr#error-handling")
ANSWER_WRONG_SHAPE: Probe = ("answer-wrong-shape", "an answer of the wrong shape is not taken into a complete result",
                             "SHOULD", "basic/patterns/mrtr#error-handling")
ANSWERS_NULL: Probe = ("answers-null", "inputResponses null is not taken into a complete result (a JSON-RPC error)",
                       "SHOULD", "basic/patterns/mrtr#error-handling")
TOOL_PROBES: list[Probe] = [CAPABILITY_WITHHELD, ANSWERLESS_RETRY, TAMPERED_STATE, STATE_OTHER_ARGUMENTS,
                            EXTRA_ANSWERS, ANSWER_WRONG_SHAPE, ANSWERS_NULL]
"""The retries of the tool's first round, in the order they run and are shown."""
CONVERSATION_PROBES: list[Probe] = [CAPABILITY_WITHHELD_EACH, STATE_OTHER_PRINCIPAL, ISOLATED]
"""The probes that run the tool's conversation again (or part of it) their own way, after the round probes."""
ALL_TOOL_PROBES: list[Probe] = [*TOOL_PROBES, *TOOL_STATE_PROBES, *ROUND_PROBES, *CONVERSATION_PROBES, RETRY_ELSEWHERE,
                                *REFUSAL_PROBES, *REPLAY_PROBES]
"""Every probe that needs the named tool."""
CALLS: dict[str, Calls] = {"the conversation": Calls(conversations=1),
                           **{probe[0]: Calls(requests=1) for probe in TOOL_PROBES},
                           EXTRA_ANSWERS[0]: Calls(requests=2)}
"""The tool's own conversation, and one call for each retry of its first round (check/calls.py); two
for the extra answers, which ask round 1 afresh first."""
WRONG_SHAPE = 12345
"""The answer the wrong-shape probe sends: a number where an object is due, as the suite sends."""


def tool_calls(other_principal: bool, hopping: bool) -> Calls:
    """The most calls of the named tool a check makes: the declaration of each family of probes that
    runs (check/calls.py); a family added here declares its CALLS beside its probes."""
    tables = [CALLS, capability_probes.CALLS, isolation_probe.CALLS, refusal_probes.CALLS, replay_probes.CALLS,
              state_calls(TOOL_STATE_PROBES)]
    tables += [principal_probe.CALLS] if other_principal else []
    tables += [hop_probe.CALLS] if hopping else []
    return calls.total(tables)


class ToolProber:
    """The probes of one named tool: they need its first round of questions."""

    def __init__(self, prober: Prober, chain: Chain, name: str, arguments: dict[str, Any],
                 mirrored: Mirrored | None = None, instances: Instances | None = None,
                 flags: ReplayFlags = ReplayFlags(), other: OtherPrincipal | None = None) -> None:
        self.prober = prober
        self.client = prober.client
        self.chain = chain
        self.params: dict[str, Any] = {"name": name, "arguments": arguments}
        self.mirrored = mirrored
        """The arguments the tool's calls also send as headers (conversation/preparation.py)."""
        self.instances = instances
        """Where the conversation's rounds go when it is run again hopping (check/hop_probe.py)."""
        self.flags = flags
        """--state-age and --at-most-once (check/replay_probes.py)."""
        self.conversed: tuple[Outcome, float] | None = None
        """The tool's own conversation and when it ended (time.monotonic), once `checks` ran it."""
        self.other = other
        """The second identity of --other-principal (check/principal_probe.py), if given."""

    def checks(self) -> list[Check]:
        """The tool's own conversation first: a tool with side effects may ask only once (a
        `delete_folder` asks while the folder has files), and the probes after it complete the
        call with odd answers or other arguments. Its first round is the one the probes reuse.
        The probes that wait come later (`waiting_checks`)."""
        started = time.perf_counter()
        outcome = self.conversation()
        self.conversed = outcome, time.monotonic()
        rounds = timed(round_checks(outcome), time.perf_counter() - started)
        probed = self.prober.run(TOOL_PROBES, lambda: self._probes(outcome))
        again = self.prober.run_each(CONVERSATION_PROBES, self._conversation_judges(outcome))
        hopped = self.prober.run([RETRY_ELSEWHERE], lambda: [self._hopping(outcome)])
        refusals = self.prober.run_each(REFUSAL_PROBES, {p: self._refusing(outcome, p) for p in REFUSAL_PROBES})
        request = Request("tools/call", self.params, self.mirrored)
        states = StateProber(self.prober, TOOL_STATE_PROBES, request).checks(outcome)  # sent last: the most calls
        return [*probed, *states, *rounds, *again, *hopped, *refusals]

    def waiting_checks(self) -> list[Check]:
        """The probes that wait a while after the conversation (check/replay_probes.py): called as
        late as the check can, after `checks`, so that the rest of the check fills the wait."""
        assert self.conversed is not None, "the conversation (checks) comes first"
        outcome, ended = self.conversed
        replays = ReplayProber(self._retry, self.prober.run, self.params, outcome, ended, self.flags)
        return replays.checks(lambda: self._first_answers(outcome))

    def _refusing(self, outcome: Outcome, probe: Probe) -> Callable[[], Check]:
        """The conversation again with each question refused (check/refusal_probes.py)."""
        return lambda: refusal_checks(self.prober.sessions, self.params, self.mirrored, outcome, probe)

    def _first_answers(self, outcome: Outcome) -> dict[str, Any] | str:
        """Round 1's answers (or why there are none), when it asked."""
        first = outcome.rounds[0] if outcome.rounds else None
        if first is None or not asks(first.reply):
            return "the first round asked no question"
        return self._answers(first.reply.result.get("inputRequests") or {}, first)

    def _conversation_judges(self, outcome: Outcome) -> dict[Probe, Callable[[], Check]]:
        send = lambda params: self._retry(params)  # noqa: E731 - the usual identity, every capability declared
        capabilities = CapabilityProber(self._retry, self.chain, self.params, self.prober.status_is)
        return {CAPABILITY_WITHHELD_EACH: lambda: capabilities.check(outcome),
                STATE_OTHER_PRINCIPAL: lambda: PrincipalProbe(send, self._send_as, self.params).check(outcome,
                                                                                                   self.other),
                ISOLATED: lambda: IsolationProbe(send, self._send_as, self.chain, self.params).check(outcome,
                                                                                                 self.other)}

    def _send_as(self, client: Client, params: dict[str, Any]) -> Reply:
        """One tools/call as the --other-principal identity, on its own connection."""
        return client.raw("tools/call", {**params, "_meta": self.prober.meta_for()}, mirrored=self.mirrored)

    def _hopping(self, stayed: Outcome) -> Check:
        """The conversation again, each round sent where `instances` say (--replica, --restart-between-rounds)."""
        return hop_check(self.prober.sessions, self.chain, self.params, self.mirrored, stayed, self.instances)

    def _probes(self, outcome: Outcome) -> list[Check]:
        first = self._first_round(outcome)
        if shape_problem(first.reply) is not None:
            raise ProbeFailed(f"the first tools/call: {seen(first.reply)}")
        if first.reply.error is not None:  # as `mrtr call` fails on it, check does: nothing of the tool is judged
            raise ProbeFailed(f"the tool's own call was answered with {seen(first.reply)}: no rule of its "
                              "conversation can be judged (does it need arguments? -a KEY=VALUE)")
        if not asks(first.reply):
            why = f"the tool did not ask for input: {seen(first.reply)}"
            return [verdict(*probe, None, why) for probe in TOOL_PROBES]
        asked = first.reply.result.get("inputRequests") or {}
        state = first.reply.result.get(REQUEST_STATE)
        answers = self._answers(asked, first)
        judges: dict[Probe, Callable[[], Check]] = {
            CAPABILITY_WITHHELD: lambda: self.capability_withheld(asked),
            ANSWERLESS_RETRY: lambda: self.answerless_retry(state),
            TAMPERED_STATE: lambda: self.tampered_state(state, answers),
            STATE_OTHER_ARGUMENTS: lambda: self.state_with_other_arguments(state, answers),
            EXTRA_ANSWERS: lambda: self.extra_answers(state, answers),
            ANSWER_WRONG_SHAPE: lambda: self.wrong_shape(asked, state, answers),
            ANSWERS_NULL: lambda: self.null_answers(state),
        }
        return self.prober.run_each(TOOL_PROBES, judges)

    def conversation(self) -> Outcome:
        """The tool's whole conversation, as `mrtr call` has it (judged round by round in check/tool_rounds.py)."""
        self.prober.ignored.clear()
        return self.prober.sessions(self.chain, hopping=False).run("tools/call", self.params, self.mirrored)

    def _first_round(self, outcome: Outcome) -> Round:
        """The conversation's first round; `ProbeFailed` when no usable response came to it."""
        if outcome.rounds:
            return outcome.rounds[0]
        error = outcome.error.message if outcome.error is not None else "no response"
        raise self.prober.failed(f"the first tools/call: {error}")

    def _answers(self, asked: dict[str, Any], first: Round) -> dict[str, Any] | str:
        """The answers the conversation gave the first round; else asked for now, or why there are none."""
        answered = {key: answer.response for key, answer in first.answers.items()}
        if answered.keys() == asked.keys():
            return answered
        try:
            return {key: self.chain.answer(Question(1, key, request, "", index, len(asked))).response
                    for index, (key, request) in enumerate(asked.items(), 1)}
        except (IncompleteError, UsageError) as error:
            return f"{error.message} (pass --answer or --answers)"

    def _retry(self, params: dict[str, Any], capabilities: meta.Capabilities | None = None) -> Reply:
        return self.prober.send("tools/call", {**params, "_meta": self.prober.meta_for(capabilities=capabilities)},
                                mirrored=self.mirrored)

    def capability_withheld(self, asked: dict[str, Any]) -> Check:
        probe = CAPABILITY_WITHHELD
        if not asked:
            return verdict(*probe, None, "the first round asked no question")
        needed = required_capability(next(iter(asked.values()))).partition(".")[0]
        withheld = meta.Capabilities(elicitation=needed != "elicitation", sampling=needed != "sampling",
                                     roots=needed != "roots")
        reply = self._retry(self.params, withheld)
        if reply.error is not None:
            ok = reply.error.get("code") == jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY and self.prober.status_is(reply, 400)
        elif isinstance(reply.result, dict) and reply.result.get("isError") is True:
            # a tool error tells the client nothing it can act on: -32021 was due
            return judged(probe, reply, False, f"{needed} withheld: a tool error (isError), not -32021")
        else:
            ok = not any(required_capability(r).partition(".")[0] == needed for r in questions(reply.result))
        return judged(probe, reply, ok, f"{needed} withheld")

    def answerless_retry(self, state: str | None) -> Check:
        reply = self._retry(with_state(self.params, state))
        return judged(ANSWERLESS_RETRY, reply, asks(reply), "no inputResponses")

    def tampered_state(self, state: str | None, answers: dict[str, Any] | str) -> Check:
        probe = TAMPERED_STATE
        if state is None:
            return verdict(*probe, None, "the first round carried no requestState")
        reply = self._retry(_with_answers(with_state(self.params, tampered(state)), answers))
        return judged(probe, reply, reply.error is not None, "state altered in its middle character")

    def state_with_other_arguments(self, state: str | None, answers: dict[str, Any] | str) -> Check:
        probe = STATE_OTHER_ARGUMENTS
        if state is None:
            return verdict(*probe, None, "the first round carried no requestState")
        other, change = _other_arguments(self.params["arguments"])
        reply = self._retry(_with_answers(with_state({**self.params, "arguments": other}, state), answers))
        return judged(probe, reply, reply.error is not None, change)

    def extra_answers(self, state: str | None, answers: dict[str, Any] | str) -> Check:
        """Round 1's answers and one more, on a round 1 asked afresh: a server that takes each
        requestState once (the MRTR page lets it: "consumed at most once") refuses the conversation's
        own state, already used, whatever the answers."""
        probe = EXTRA_ANSWERS
        if isinstance(answers, str):
            return verdict(*probe, None, answers)
        again = self._retry(self.params) if state is not None else None
        if again is not None and shape_problem(again) is not None:
            return judged(probe, again, False, "round 1 asked afresh")
        fresh, words = _fresh_state(state, again, answers)
        extra = {**answers, PROBE_KEY: {"action": "accept", "content": {}}}
        reply = self._retry({**with_state(self.params, fresh), INPUT_RESPONSES: extra})
        return judged(probe, reply, reply.error is None, f"an extra answer {PROBE_KEY!r}{words}")

    def wrong_shape(self, asked: dict[str, Any], state: str | None, answers: dict[str, Any] | str) -> Check:
        """The first question answered with a number where its response object is due."""
        probe = ANSWER_WRONG_SHAPE
        if not asked:
            return verdict(*probe, None, "the first round asked no question")
        key = next(iter(asked))
        wrong = {**(answers if isinstance(answers, dict) else {}), key: WRONG_SHAPE}
        reply = self._retry({**with_state(self.params, state), INPUT_RESPONSES: wrong})
        return judged(probe, reply, not completes(reply), f"{key!r} answered with {WRONG_SHAPE}")

    def null_answers(self, state: str | None) -> Check:
        """`inputResponses: null`: a protocol error, to be refused, not taken as answers."""
        reply = self._retry({**with_state(self.params, state), INPUT_RESPONSES: None})
        return judged(ANSWERS_NULL, reply, not completes(reply), "inputResponses null")


def tampered(state: str) -> str:
    """`state` with its middle character changed: the probe that alters state, knowingly.

    Not the last character: in base64 the last one may carry padding bits a decoder ignores,
    so changing it can leave the decoded state as it was.
    """
    middle = len(state) // 2
    return state[:middle] + ("B" if state[middle:middle + 1] == "A" else "A") + state[middle + 1:]


def _fresh_state(state: str | None, again: Reply | None, answers: dict[str, Any]) -> tuple[str | None, str]:
    """The requestState of round 1 asked `again`, when it asks the questions `answers` answer; else
    round 1's own, and words saying so."""
    if again is None:
        return state, ""
    fresh = again.result.get(REQUEST_STATE) if asks(again) else None
    if isinstance(fresh, str) and (again.result.get("inputRequests") or {}).keys() == answers.keys():
        return fresh, ""
    return state, f" (with the conversation's own round 1 state: round 1 asked again came back as {seen(again)})"


def _with_answers(params: dict[str, Any], answers: dict[str, Any] | str) -> dict[str, Any]:
    return {**params, INPUT_RESPONSES: answers} if isinstance(answers, dict) else params


def _other_arguments(arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The same arguments with one string changed (or one added): another request."""
    other = copy.deepcopy(arguments)
    for key, value in other.items():
        if isinstance(value, str):
            other[key] = value + "-other"
            return other, f"argument {key!r} changed"
    other[PROBE_KEY] = "other"
    return other, f"argument {PROBE_KEY!r} added"
