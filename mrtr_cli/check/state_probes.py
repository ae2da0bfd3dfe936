"""`mrtr check`'s probes of the requestState a named tool, prompt or resource hands out: each round's
state read where it can be (check/state_forgery.py), forged one field at a time, altered where a tag
sits, cut short, and sent a round early, each retried with the conversation's own answers.

The MRTR page: "If a client request contains a `requestState` field, servers **MUST** treat
`requestState` as an attacker-controlled input. If `requestState` influences authorization, resource
access, or business logic, servers **MUST** protect its integrity (e.g. HMAC or AEAD) and **MUST**
reject state that fails verification. Integrity protection **MAY** be omitted only when tampering can
cause nothing worse than request failure." So a forgery the server refuses passes, and so does one it
takes when nothing comes of it: the call ends as the unforged one did. One taken whose result, its
structuredContent or the next round differs fails. These probes knowingly break the client MUST NOT
on requestState, as the tampering probe of check/tool_probes.py does: each is the conversation resumed
with another state (`Session.resume`, on one of the command's sessions, answered as the conversation
was: `AsRecorded`), followed while it goes as the conversation went (a forged field) or for one retry
(a tag altered, a state cut short, a step skipped).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from mrtr_cli.answering import sources
from mrtr_cli.answering.questions import Chain, Decision, Question, Response
from mrtr_cli.check.calls import ROUNDS, Calls
from mrtr_cli.check.probes import Prober
from mrtr_cli.check.state_evidence import FORGERIES_A_ROUND, FORGING_CALLS, Tally, Walked, forged_verdict, view
from mrtr_cli.check.state_forgery import (Alteration, ReadableState, last_segment, other_value, read,
                                          tag_tamperings, truncations)
from mrtr_cli.check.verdicts import Check, Probe, seen, verdict
from mrtr_cli.conversation.client import Reply
from mrtr_cli.conversation.session import Outcome, Round
from mrtr_cli.errors import ProtocolError, RequestTimeout
from mrtr_cli.protocol.headers import Mirrored

WORKFLOW = "basic/patterns/mrtr#server-requirements-basic-workflow"


class StateProbes(NamedTuple):
    """The probes of one kind of request's state, in the order they run and are shown."""

    readable: Probe
    forged: Probe
    tag: Probe
    truncated: Probe
    skipped_step: Probe


def _state_probes(prefix: str, state: str) -> StateProbes:
    """The probes of one kind of request: ids after `prefix`, titles naming its `state`."""
    return StateProbes(
        readable=(f"{prefix}state-readable", f"what each round's {state} reveals (information only: a server may "
                                             "encode its state in any format)", "SHOULD", WORKFLOW),
        forged=(f"{prefix}state-forged-field", f"a {state} with one field forged is refused, or changes nothing",
                "MUST", WORKFLOW),
        tag=(f"{prefix}state-tag-tampered", f"a {state} altered where its tag sits is refused", "MUST", WORKFLOW),
        truncated=(f"{prefix}state-truncated", f"a {state} cut short is refused", "MUST", WORKFLOW),
        skipped_step=(f"{prefix}state-skipped-step", f"round 1's {state} sent with round 2's answers is refused "
                                                     "(bound to its request)", "SHOULD", WORKFLOW))


TOOL_STATE_PROBES = _state_probes("", "requestState")
PROMPT_STATE_PROBES = _state_probes("prompt-", "prompts/get requestState")
RESOURCE_STATE_PROBES = _state_probes("resource-", "resources/read requestState")


def state_calls(probes: StateProbes) -> dict[str, Calls]:
    """The most calls of the target the state probes make (check/calls.py): the forgeries' budget, two
    tag alterations and three truncations of each round's state, and one skipped step."""
    return {probes.forged[0]: Calls(requests=FORGING_CALLS), probes.tag[0]: Calls(requests=2 * ROUNDS),
            probes.truncated[0]: Calls(requests=3 * ROUNDS), probes.skipped_step[0]: Calls(requests=1)}


def state_probes_for(method: str) -> StateProbes:
    """The state probes of tools/call, prompts/get or resources/read."""
    return {"prompts/get": PROMPT_STATE_PROBES, "resources/read": RESOURCE_STATE_PROBES}.get(method,
                                                                                               TOOL_STATE_PROBES)


class Request(NamedTuple):
    """The request a conversation was had for: its method, its params as first sent, and the arguments
    every round also sends as headers."""

    method: str
    params: dict[str, Any]
    mirrored: Mirrored | None = None


class AsRecorded:
    """Answers each question as the conversation did, while its round asks just what the conversation's
    round asked: a round asked otherwise is left unanswered, so a conversation resumed with another
    requestState goes no further than where it parts from the conversation (and no person is asked)."""

    name = sources.RECORDED

    def __init__(self, rounds: list[Round]) -> None:
        self.rounds = {r.number: r for r in rounds}

    def answer(self, question: Question) -> Decision:
        recorded = self.rounds.get(question.round)
        if recorded is None or question.count != len(recorded.requests) or question.key not in recorded.answers \
                or recorded.requests.get(question.key) != question.request:
            return None
        return Response(recorded.answers[question.key].response)

    def offers_roots(self) -> bool:
        return True


class StateProber:
    """The state probes of one conversation of `request`: each resumes it with another state, on a
    session of `prober.sessions`."""

    def __init__(self, prober: Prober, probes: StateProbes, request: Request) -> None:
        self.prober = prober
        self.probes = probes
        self.request = request
        self.rounds: list[Round] = []
        self.forging_left = FORGING_CALLS
        """The calls the forgeries may still make (FORGING_CALLS in all)."""

    def checks(self, outcome: Outcome) -> list[Check]:
        self.rounds = outcome.rounds
        judges: dict[Probe, Callable[[], Check]] = {
            self.probes.readable: self.readable, self.probes.forged: self.forged_fields,
            self.probes.tag: lambda: self.altered(self.probes.tag, tag_tamperings),
            self.probes.truncated: lambda: self.altered(self.probes.truncated, truncations),
            self.probes.skipped_step: self.skipped_step,
        }
        return self.prober.run_each(list(self.probes), judges)

    def _stated(self) -> list[int]:
        """The rounds (by index) whose state was echoed in a retry of the conversation."""
        return [index for index, r in enumerate(self.rounds[:-1]) if r.state is not None]

    def _why_none(self, probe: Probe) -> Check | None:
        """The probe skipped when no round's state was sent back, saying why."""
        if not any(r.state is not None for r in self.rounds):
            return verdict(*probe, None, "no round carried a requestState")
        if not self._stated():
            return verdict(*probe, None, "not judged: no retry carried the requestState (pass --answer or "
                                         "--answers)")
        return None

    def readable(self) -> Check:
        said = [(r.number, _reveals(r.state)) for r in self.rounds if r.state is not None]
        if not said:
            return verdict(*self.probes.readable, None, "no round carried a requestState")
        return verdict(*self.probes.readable, True, "; ".join(f"{_rounds(numbers)} requestState {words}"
                                                              for numbers, words in _grouped(said)))

    def forged_fields(self) -> Check:
        probe = self.probes.forged
        skipped = self._why_none(probe)
        if skipped is not None:
            return skipped
        readable = [(index, read(self.rounds[index].state or "")) for index in self._stated()]
        forgeable = [(index, state) for index, state in readable if state is not None]
        if not forgeable:
            return verdict(*probe, None, "no round's requestState reads as JSON (opaque to mrtr: the tag and "
                                         "truncation probes alter it)")
        tallies = [self._forge_round(index, state) for index, state in forgeable]
        return forged_verdict(probe, tallies)

    def _forge_round(self, index: int, state: ReadableState) -> Tally:
        scalars = list(state.scalars())
        tally = Tally(self.rounds[index].number, len(scalars))
        longest = len(self.rounds) - index - 1  # the most calls one walk from this round makes
        for scalar in scalars[:FORGERIES_A_ROUND]:
            if self.forging_left < 2 * longest:  # room for this walk, and the unforged one that may follow
                break
            value = other_value(scalar.value)
            walked = self._walk(index, state.forged(scalar, value))
            self.forging_left -= walked.sent
            tally.forged += 1
            if not walked.same and self._refused(walked.last, walked.position - 1):  # late is still refused
                tally.refused.append(walked.last)
            elif walked.same:
                tally.no_effect.append(scalar.path)
            else:
                tally.differing.append((scalar, value, walked))
        if tally.differing:
            unforged = self._walk(index, self.rounds[index].state or "")
            self.forging_left -= unforged.sent
            tally.unstable = not unforged.same
        return tally

    def altered(self, probe: Probe, alterations: Callable[[str, int | None], list[Alteration]]) -> Check:
        """Each round's state altered by `alterations`, retried: taken into a complete result or the next round fails."""
        skipped = self._why_none(probe)
        if skipped is not None:
            return skipped
        sent, taken, untagged, first = 0, [], [], ""
        for index in self._stated():
            state = self.rounds[index].state or ""
            readable = read(state)
            if readable is not None and readable.tag is None:
                untagged.append(self.rounds[index].number)
                continue
            start = readable.tag_start if readable is not None else last_segment(state)
            for alteration in alterations(state, start):
                reply, sent = self._retried(index, alteration.state), sent + 1
                first = first or seen(reply)
                if self._taken(reply, index):
                    into = "a complete result" if view(reply)[0] == "complete" else "the next round"
                    taken.append(f"round {self.rounds[index].number}'s requestState {alteration.what} was taken "
                                 f"into {into} ({seen(reply)})")
        if sent == 0 and untagged:
            return verdict(*probe, None, f"{_rounds(untagged)} requestState reads as JSON with no tag: the forged-"
                                         "field probe judges it")
        if sent == 0:
            return verdict(*probe, None, "not probed: each requestState is too short to alter so")
        if taken:
            return verdict(*probe, False, f"requestState integrity: {taken[0]}"
                                          + (f"; {len(taken) - 1} more alteration(s) taken" if len(taken) > 1 else ""))
        return verdict(*probe, True, f"{sent} altered requestState(s) refused ({first})" + _untagged(untagged))

    def skipped_step(self) -> Check:
        probe = self.probes.skipped_step
        skipped = self._why_none(probe)
        if skipped is not None:
            return skipped
        if len(self.rounds) < 3 or self.rounds[1].result_type != "input_required":
            return verdict(*probe, None, "the conversation has no second round answered to skip to")
        first, second = self.rounds[0].state, self.rounds[1].state
        if first is None or first == second:
            why = "round 1 carried no requestState" if first is None else "round 2 carried round 1's requestState"
            return verdict(*probe, None, f"not probed: {why}")
        reply = self._retried(1, first)
        detail = f"round 1's requestState with round 2's answers: {seen(reply)}"
        return verdict(*probe, not self._taken(reply, 1), detail + ("" if not self._taken(reply, 1) else
                                                                    ", as if round 1 had been answered"))

    def _walk(self, index: int, state: str) -> Walked:
        """The conversation from round index+2 on, round index+1's state replaced by `state`, answered as
        the conversation was: it stops at the first answer that differs from the conversation's, or where
        the conversation ended."""
        resumed = self._resumed(index, state, last=self.rounds[-1].number)
        sent = len(resumed)  # each round one request, answered: an unanswered one failed the probe
        for position, came in enumerate(resumed, index + 1):
            if view(came.reply) != view(self.rounds[position].reply):
                return Walked(came.reply, position, self.rounds[position].number, False, sent)
        position = index + sent
        return Walked(resumed[-1].reply, position, self.rounds[position].number, True, sent)

    def _retried(self, index: int, state: str) -> Reply:
        """The answer to round index+2 alone, sent with round index+1's answers and `state`."""
        return self._resumed(index, state, last=self.rounds[index + 1].number)[0].reply

    def _resumed(self, index: int, state: str, last: int) -> list[Round]:
        """The rounds of the conversation resumed after round index+1 with `state` as its requestState
        (`Session.resume`), answered as it was (`AsRecorded`) and sent no further than round `last`."""
        session = self.prober.sessions(Chain([AsRecorded(self.rounds)]), hopping=False, max_rounds=last - 1)
        self.prober.ignored.clear()
        method, params, mirrored = self.request
        outcome = session.resume(method, params, self.rounds[:index + 1], state, mirrored)
        came = outcome.rounds[index + 1:]
        if outcome.unanswered_round is None and came:
            return came
        raise self._unanswered(outcome)

    def _unanswered(self, outcome: Outcome) -> Exception:
        """What a resumed conversation that got no usable response raises, as `Prober.send` has it:
        `ProbeFailed`, but for a request that the server went away from or Ctrl-C ended, which ends the check."""
        error = outcome.error
        if outcome.unanswered_round is not None and error is not None \
                and not isinstance(error, (RequestTimeout, ProtocolError)):
            return error
        return self.prober.failed(error.message if error is not None else "no response came")

    def _refused(self, reply: Reply, index: int) -> bool:
        """Whether the server turned the retry down: an error, a tool error, or a round already asked."""
        kind, shown = view(reply)
        if kind == "input_required":
            return any(shown == r.requests for r in self.rounds[:index + 1])
        return kind in ("error", "unreadable") or (kind == "complete" and shown.get("isError") is True)

    def _taken(self, reply: Reply, index: int) -> bool:
        """Whether a retry of round index+1 went on as the conversation did: a complete result, or its next round."""
        kind, shown = view(reply)
        if self._refused(reply, index):
            return False
        following = self.rounds[index + 1]
        return kind == "complete" or (following.result_type == "input_required" and shown == following.requests)


def _reveals(state: str | None) -> str:
    readable = read(state or "")
    return f"is {readable.describe()}" if readable is not None else \
        f"does not read as JSON ({len(state or '')} characters, opaque to mrtr)"


def _grouped(said: list[tuple[int, str]]) -> list[tuple[list[int], str]]:
    """Consecutive rounds that reveal the same, together."""
    groups: list[tuple[list[int], str]] = []
    for number, words in said:
        if groups and groups[-1][1] == words:
            groups[-1][0].append(number)
        else:
            groups.append(([number], words))
    return groups


def _rounds(numbers: list[int]) -> str:
    if len(numbers) == 1:
        return f"round {numbers[0]}'s"
    return f"rounds {', '.join(str(n) for n in numbers[:-1])} and {numbers[-1]}'s"


def _untagged(numbers: list[int]) -> str:
    return f"; {_rounds(numbers)} reads as JSON with no tag (the forged-field probe judges it)" if numbers else ""
