"""The named tool's own conversation, judged round by round as the conformance suite judges its
fixture tools: each kind of question comes in a well-formed input_required result, answering
completes the call, requestState is carried and echoed, and a tool that asks over several rounds
gives each round a new state.

The conversation is the one `mrtr call` has: the tool called with the user's arguments, its
questions answered from the user's answers, its requestState echoed as received. A rule about
something the tool does not do (a kind of question it never asks, a second round it never needs)
is skipped, saying so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from mrtr_cli.check.verdicts import Check, Probe, short, verdict
from mrtr_cli.conversation.session import Outcome, Round
from mrtr_cli.protocol.mrtr import questions

MRTR = "basic/patterns/mrtr"
WORKFLOW = f"{MRTR}#server-requirements-basic-workflow"
KINDS = [("elicitation/create", "elicitation"), ("sampling/createMessage", "sampling"), ("roots/list", "roots")]
"""The kinds of question, and the word each probe's id uses for it."""


class AskingProbes(NamedTuple):
    """The two probes of one way of asking: the round that asks is well-formed, and answering it
    completes the request."""

    asks: Probe
    completes: Probe


def _kind_probes(method: str, word: str) -> AskingProbes:
    article = "an" if method[0] in "aeiou" else "a"
    return AskingProbes(
        asks=(f"asks-{word}", f"{article} {method} question comes in a well-formed input_required result", "MUST",
              WORKFLOW),
        completes=(f"completes-after-{word}", f"answering the {method} question completes the call", "MUST",
                   WORKFLOW))


KIND_PROBES_OF: dict[str, AskingProbes] = {method: _kind_probes(method, word) for method, word in KINDS}
"""The two probes of each kind of question, by its method."""
KIND_PROBES: list[Probe] = [probe for pair in KIND_PROBES_OF.values() for probe in (pair.asks, pair.completes)]
CARRIES_STATE: Probe = ("carries-state", "the first round carries inputRequests and a requestState string", "MUST",
                        WORKFLOW)
COMPLETES_WITH_STATE: Probe = ("completes-with-state", "echoing the requestState with the answers completes the call",
                               "MUST", WORKFLOW)
STATE_PROBES: list[Probe] = [CARRIES_STATE, COMPLETES_WITH_STATE]
ASKS_SEVERAL: Probe = ("asks-several", "a round asking several questions is well-formed", "MUST", WORKFLOW)
COMPLETES_AFTER_SEVERAL: Probe = ("completes-after-several", "answering all of them at once completes the call",
                                  "MUST", WORKFLOW)
SEVERAL_PROBES: list[Probe] = [ASKS_SEVERAL, COMPLETES_AFTER_SEVERAL]
MULTI_ROUND_STATE: Probe = ("multi-round-state", "a tool asking over several rounds carries requestState in round 1",
                            "SHOULD", WORKFLOW)
MULTI_ROUND_NEW_STATE: Probe = ("multi-round-new-state", "round 2 asks again with a new requestState", "SHOULD",
                                WORKFLOW)
MULTI_ROUND_COMPLETES: Probe = ("multi-round-completes", "answering the last round completes the call", "MUST",
                                WORKFLOW)
MULTI_ROUND_PROBES: list[Probe] = [MULTI_ROUND_STATE, MULTI_ROUND_NEW_STATE, MULTI_ROUND_COMPLETES]
RESULT_TYPE_PROBE: Probe = ("result-type-present", "a first round that asks carries resultType \"input_required\"",
                            "MUST", "schema#inputrequiredresult")
ROUND_PROBES: list[Probe] = [RESULT_TYPE_PROBE, *KIND_PROBES, *STATE_PROBES, *SEVERAL_PROBES, *MULTI_ROUND_PROBES]


def round_checks(outcome: Outcome) -> list[Check]:
    """Every round probe, judged on one conversation with the named tool."""
    judge = _Judge(outcome)
    kinds = [check for method, pair in KIND_PROBES_OF.items() for check in judge.kind(method, pair)]
    return [result_type_check(outcome), *kinds, *judge.state(), *judge.several(), *judge.multi_round()]


def result_type_check(outcome: Outcome) -> Check:
    """The first round, when it asks (inputRequests or requestState), says so in `resultType`: the
    field may be left out only of a complete result."""
    result = outcome.rounds[0].reply.result if outcome.rounds else None
    if not isinstance(result, dict) or not ("inputRequests" in result or "requestState" in result
                                            or result.get("resultType") == "input_required"):
        return verdict(*RESULT_TYPE_PROBE, None, "the tool's first round asked no question")
    if "resultType" not in result:
        return verdict(*RESULT_TYPE_PROBE, False, "the first round asks, with no resultType")
    seen = f"resultType {short(result['resultType'])}"
    return verdict(*RESULT_TYPE_PROBE, result["resultType"] == "input_required", seen)


class _Judge:
    """What the conversation showed: the well-formed input_required rounds, the round that was
    not, and how it ended."""

    def __init__(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self.asking = [r for r in outcome.rounds if r.result_type == "input_required" and r.requests]
        self.malformed = unreadable_round(outcome)

    def kind(self, method: str, pair: AskingProbes) -> list[Check]:
        asked = [(r.number, key) for r in self.asking for key, request in r.requests.items()
                 if request.get("method") == method]
        if self._malformed_asks(lambda found: any(q.get("method") == method for q in found)):
            return self._malformed_checks(pair.asks, pair.completes)
        if not asked:
            why = f"the tool asks no {method} question"
            return [verdict(*pair.asks, None, why), verdict(*pair.completes, None, why)]
        number, key = asked[0]
        return [verdict(*pair.asks, True, f"round {number} asks {key!r}: {method}"), self.ending(pair.completes)]

    def state(self) -> list[Check]:
        first = self.outcome.rounds[0] if self.outcome.rounds else None
        if first is not None and first is self.malformed and _asks_input(first.reply.result):
            # e.g. a requestState that is not a string
            return self._malformed_checks(CARRIES_STATE, COMPLETES_WITH_STATE)
        if first is None or first.result_type != "input_required" or not first.requests:
            return [verdict(*probe, None, "the tool's first round asked no question") for probe in STATE_PROBES]
        if first.state is None:
            why = "the first round carries no requestState (the spec lets a tool go without one)"
            return [verdict(*probe, None, why) for probe in STATE_PROBES]
        return [verdict(*CARRIES_STATE, True, f"requestState {short(first.state)}, "
                                              f"{len(first.requests)} question(s)"),
                self.ending(COMPLETES_WITH_STATE)]

    def several(self) -> list[Check]:
        if self._malformed_asks(lambda found: len(found) > 1):
            return self._malformed_checks(ASKS_SEVERAL, COMPLETES_AFTER_SEVERAL)
        rounds = [r for r in self.asking if len(r.requests) > 1]
        if not rounds:
            return [verdict(*probe, None, "no round asks more than one question") for probe in SEVERAL_PROBES]
        kinds = sorted({str(request.get("method")) for request in rounds[0].requests.values()})
        seen = f"round {rounds[0].number} asks {len(rounds[0].requests)}: {', '.join(kinds)}"
        return [verdict(*ASKS_SEVERAL, True, seen), self.ending(COMPLETES_AFTER_SEVERAL)]

    def multi_round(self) -> list[Check]:
        if len(self.asking) < 2:
            why = "the tool asks in one round" if self.asking else "the tool asks no question"
            return [verdict(*probe, None, why) for probe in MULTI_ROUND_PROBES]
        first, second = self.asking[:2]
        new_state = second.state is not None and second.state != first.state
        return [verdict(*MULTI_ROUND_STATE, first.state is not None, f"round {first.number}: {_state_seen(first)}"),
                verdict(*MULTI_ROUND_NEW_STATE, new_state, f"round {second.number}: {_state_seen(second, first)}"),
                self.ending(MULTI_ROUND_COMPLETES)]

    def ending(self, probe: Probe) -> Check:
        return ending(self.outcome, probe)

    def _malformed_asks(self, matches: Callable[[list[dict[str, Any]]], bool]) -> bool:
        """Whether the round mrtr could not read asked what `matches` looks for (its questions as sent)."""
        return self.malformed is not None and matches(questions(self.malformed.reply.result))

    def _malformed_checks(self, asks: Probe, completes: Probe) -> list[Check]:
        return unreadable_checks(self.outcome, asks, completes)


def _state_seen(round: Round, before: Round | None = None) -> str:
    """The requestState a round carried, in a few words; `before`: the round it should differ from."""
    if round.state is None:
        return "no requestState"
    if before is not None and round.state == before.state:
        return f"the same requestState as round {before.number}"
    return f"requestState {short(round.state)}"


def _asks_input(result: Any) -> bool:
    return isinstance(result, dict) and result.get("resultType") == "input_required"


def unreadable_round(outcome: Outcome) -> Round | None:
    """The last round, when mrtr could not read its result (it ended the conversation)."""
    last = outcome.rounds[-1] if outcome.rounds else None
    readable = last is None or last.result_type is not None or outcome.status != "error" or last.reply.error is not None
    return None if readable else last


def unreadable_checks(outcome: Outcome, asks: Probe, completes: Probe) -> list[Check]:
    """A pair of probes when a round could not be read: that it asks fails, that answering completes is not probed."""
    why = f"round {len(outcome.rounds)}: {outcome.error.message if outcome.error else 'unreadable'}"
    return [verdict(*asks, False, why), verdict(*completes, None, "not probed: the round before it could not be read")]


def ending(outcome: Outcome, probe: Probe) -> Check:
    """Whether answering completed the request: pass, fail on an error, skipped when the answers ran out."""
    rounds = len(outcome.rounds)
    if outcome.status == "complete":
        return verdict(*probe, True, f"complete in round {rounds}")
    message = outcome.error.message if outcome.error else outcome.status
    if outcome.status == "error":
        return verdict(*probe, False, f"round {rounds}: {message}")
    return verdict(*probe, None, f"not judged: {message} (pass --answer or --answers)")
