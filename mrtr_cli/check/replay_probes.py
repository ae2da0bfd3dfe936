"""`mrtr check --tool NAME` (and `--prompt`, `--resource`): can the target's requestState be used
again later, or twice?

The MRTR page: "To prevent replay, servers SHOULD include ... a short expiry (TTL), rejecting
state presented after it lapses", and "Servers for which a given `requestState` must be consumed
at most once (e.g., one-time redemptions) MUST enforce that invariant server-side". A client sees
neither rule directly, but it can ask again and compare:

- `state-never-expires`: round 1 asked again at least RERUN_AFTER seconds after the conversation;
  a requestState byte-identical across the two holds no time and no nonce, so no expiry can be
  in it (a warn);
- `state-age` (`--state-age SECONDS`): round 1's state, held that long, retried with its answers;
- `at-most-once` (`--at-most-once`): the retry that completed the call, sent again as it was,
  under a new id.

The waits are the product's own (time.monotonic), run last among the check's probes so that the
others' exchanges fill them. On a named prompt or resource the probes' ids are prefixed (check/kinds.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

from mrtr_cli.check.calls import Calls
from mrtr_cli.check.kinds import TOOL, TargetKind, on, said
from mrtr_cli.check.verdicts import SPEC, Check, Probe, asks, judged, seen, short, verdict
from mrtr_cli.conversation.client import Reply
from mrtr_cli.conversation.session import Outcome, Round
from mrtr_cli.protocol.mrtr import INPUT_RESPONSES, REQUEST_STATE

WORKFLOW = "basic/patterns/mrtr#server-requirements-basic-workflow"
STATE_NEVER_EXPIRES: Probe = ("state-never-expires", "round 1's requestState is not the same when asked again later "
                                                     "(it can carry a time or a nonce)", "SHOULD", WORKFLOW)
STATE_AGE: Probe = ("state-age", "round 1's requestState held --state-age seconds is refused", "SHOULD", WORKFLOW)
AT_MOST_ONCE: Probe = ("at-most-once", "the completing retry sent again is not acted on a second time "
                                       "(--at-most-once)", "MUST", WORKFLOW)
REPLAY_PROBES: list[Probe] = [STATE_NEVER_EXPIRES, STATE_AGE, AT_MOST_ONCE]
"""In the order they are shown."""
CALLS = {probe[0]: Calls(requests=1) for probe in REPLAY_PROBES}
"""One call each: round 1 again, the held state, the completing retry again (check/calls.py)."""
RERUN_AFTER = 1.1
"""Seconds between the conversation's end and round 1 asked again: past a second, so a time kept
to the second has moved on."""


class ReplayFlags(NamedTuple):
    """What the user asked of these probes."""

    state_age: float | None = None
    """--state-age: seconds to hold round 1's state before retrying it (None: not probed)."""
    at_most_once: bool = False
    """--at-most-once: the tool's requestState must be consumed at most once."""


Send = Callable[[dict[str, Any]], Reply]
"""Sends one request of the named target with these params (and mrtr's _meta), under a new id."""
Run = Callable[[list[Probe], Callable[[], list[Check]]], list[Check]]
"""`Prober.run`: a probe's checks, timed (and left out when skipped by request)."""


class ReplayProber:
    """The three probes, on the target's own conversation, ended at `ended` (time.monotonic)."""

    def __init__(self, send: Send, run: Run, params: dict[str, Any], outcome: Outcome, ended: float,
                 flags: ReplayFlags, kind: TargetKind = TOOL) -> None:
        self.send = send
        self.run = run
        self.params = params
        self.outcome = outcome
        self.ended = ended
        self.flags = flags
        self.kind = kind
        self.never_expires_probe, self.state_age_probe, self.at_most_once_probe = \
            (on(kind, probe) for probe in REPLAY_PROBES)

    def checks(self, first_answers: Callable[[], dict[str, Any] | str]) -> list[Check]:
        """`first_answers`: round 1's answers (or why there are none), for the held state. The
        waits run in the order they fall due; the checks come in REPLAY_PROBES' order."""
        found = {AT_MOST_ONCE: self.run([self.at_most_once_probe], lambda: [self.at_most_once()])}
        timed: list[tuple[float, Probe, Probe, Callable[[], Check]]] = [
            (RERUN_AFTER, STATE_NEVER_EXPIRES, self.never_expires_probe, self.never_expires),
            (self.flags.state_age or 0.0, STATE_AGE, self.state_age_probe, lambda: self.held_state(first_answers))]
        for _, family, probe, judge in sorted(timed, key=lambda entry: entry[0]):
            found[family] = self.run([probe], judge_once(judge))
        return [check for probe in REPLAY_PROBES for check in found[probe]]

    def _wait_until(self, seconds: float) -> float:
        """Sleep until `seconds` after the conversation ended (not at all when the other probes took
        that long); the seconds it has been."""
        remaining = self.ended + seconds - time.monotonic()
        if remaining > 0:
            time.sleep(remaining)
        return time.monotonic() - self.ended

    def _first(self) -> Round | None:
        """Round 1, when it asked with a requestState."""
        first = self.outcome.rounds[0] if self.outcome.rounds else None
        return first if first is not None and first.result_type == "input_required" and first.state else None

    def never_expires(self) -> Check:
        probe, first = self.never_expires_probe, self._first()
        if first is None:
            return verdict(*probe, None, "the first round carried no requestState")
        later = self._wait_until(RERUN_AFTER)
        reply = self.send(self.params)
        state = reply.result.get(REQUEST_STATE) if reply.error is None and isinstance(reply.result, dict) else None
        if not isinstance(state, str):
            return verdict(*probe, None, f"not judged: round 1 asked again {later:.1f} s later came back as "
                                         f"{seen(reply)}, with no requestState")
        if state == first.state:
            return verdict(*probe, False, f"round 1's requestState was byte-identical {later:.1f} s later "
                                          f"({len(state)} characters): it carries no time and no nonce, so it "
                                          "can never expire")
        return verdict(*probe, True, f"round 1's requestState differs {later:.1f} s later")

    def held_state(self, first_answers: Callable[[], dict[str, Any] | str]) -> Check:
        probe, first = self.state_age_probe, self._first()
        if self.flags.state_age is None:
            return verdict(*probe, None, "not probed: give --state-age SECONDS to hold round 1's requestState that "
                                         "long before retrying it")
        if first is None or first.state is None:
            return verdict(*probe, None, "the first round carried no requestState")
        answers = first_answers()
        if isinstance(answers, str):
            return verdict(*probe, None, answers)
        held = self._wait_until(self.flags.state_age)
        reply = self.send({**self.params, REQUEST_STATE: first.state, INPUT_RESPONSES: answers})
        refusal = refused(reply, first)
        detail = f"round 1's requestState held {held:.1f} s (--state-age {self.flags.state_age:g})"
        if refusal:
            return judged(probe, reply, True, f"{detail}: {refusal}")
        return judged(probe, reply, False, f"{detail} was accepted")

    def at_most_once(self) -> Check:
        probe, outcome = self.at_most_once_probe, self.outcome
        if not self.flags.at_most_once:
            return verdict(*probe, None, f"not probed: give --at-most-once when {self.kind.subject}'s requestState "
                                         "must be consumed at most once")
        last = outcome.rounds[-1] if outcome.rounds else None
        if outcome.status != "complete" or outcome.result is None or last is None or last.number == 1:
            return verdict(*probe, None, "the conversation did not complete on a retry")
        if REQUEST_STATE not in last.params:
            return verdict(*probe, None, f"the completing retry (round {last.number}) carried no requestState")
        reply = self.send(last.params)
        again = f"the completing retry (round {last.number}) sent again under a new id"
        if reply.error is not None or asks(reply):
            return judged(probe, reply, True, again)
        changed = differences(outcome.result, reply.result, self.kind)
        if changed:
            return judged(probe, reply, False, f"{again} completed a second time, with {changed}")
        id, title, level, page = probe
        return Check(id, title, level, "warn", f"{again} completed with the same result: deduplicated, or acted "
                                               "twice: mrtr cannot tell", SPEC + page)


def judge_once(judge: Callable[[], Check]) -> Callable[[], list[Check]]:
    return lambda: [judge()]


def refused(reply: Reply, first: Round) -> str | None:
    """How the server refused a held state, or None when it took it: an error, a tool error, or
    round 1's questions asked again (it started over)."""
    if reply.error is not None:
        return "refused"
    result = reply.result if isinstance(reply.result, dict) else {}
    if result.get("isError") is True:
        return "refused with a tool error"
    asked = result.get("inputRequests")
    if asks(reply) and isinstance(asked, dict) and asked.keys() == first.requests.keys():
        return "round 1's questions asked again (started over)"
    return None


def differences(first: dict[str, Any], second: Any, kind: TargetKind = TOOL) -> str:
    """What differs between two complete results, by the fields a result of `kind` says it with."""
    other = second if isinstance(second, dict) else {}
    changed = [f"{key} {short(other.get(key))} where the first had {short(first.get(key))}"
               for key in (*said(kind, first), "isError") if first.get(key) != other.get(key)]
    return "; ".join(changed)
