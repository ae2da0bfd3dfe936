"""`mrtr check --tool NAME` (and `--prompt`, `--resource`): does a "no" end otherwise than a "yes"?

The elicitation page lists three response actions (accept, decline, cancel) and says, in lower
case, "Servers should handle each state appropriately" (decline: "Handle explicit decline (e.g.,
offer alternatives)"; cancel: "Handle dismissal (e.g., prompt again later)"). A tool that acts on
a declined or cancelled question as it acts on an accepted one has not heard the no.

For each form question of the target's conversation with a required field, the conversation runs
again, answered as it was (the same answers, so no person is asked twice), but with that
question declined (`decline-is-no`) and then cancelled (`cancel-is-no`). Ending with the same
content and structuredContent as the accepted run (a prompt's description and messages, a
resource's contents: check/kinds.py) is a warn; asking again, another result or an error passes.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from mrtr_cli.answering import sources
from mrtr_cli.answering.questions import Chain, Decision, Question, Refusal, Response
from mrtr_cli.check.calls import Calls
from mrtr_cli.check.kinds import TOOL, TargetKind, base_id, said
from mrtr_cli.check.verdicts import Check, Probe, short, verdict
from mrtr_cli.conversation.session import Outcome, Sessions
from mrtr_cli.errors import Interrupted
from mrtr_cli.protocol.headers import Mirrored
from mrtr_cli.text import safe_line

ELICITATION = "client/elicitation#response-actions"
DECLINE_IS_NO: Probe = ("decline-is-no", "declining a question with a required field does not end as accepting it",
                        "SHOULD", ELICITATION)
CANCEL_IS_NO: Probe = ("cancel-is-no", "cancelling a question with a required field does not end as accepting it",
                       "SHOULD", ELICITATION)
REFUSAL_PROBES: list[Probe] = [DECLINE_IS_NO, CANCEL_IS_NO]
ACTIONS = {DECLINE_IS_NO[0]: "decline", CANCEL_IS_NO[0]: "cancel"}
"""By the probe's id on the tool (check/kinds.py base_id)."""
MAX_QUESTIONS = 5
"""The most questions refused, each in a conversation of its own (two, with cancel): the calls stay few."""
CALLS = {probe[0]: Calls(conversations=MAX_QUESTIONS + 1) for probe in REFUSAL_PROBES}
"""A conversation for each question refused, at most MAX_QUESTIONS a probe, and the accepted one again
(check/calls.py)."""

ASKED_AGAIN = "asked again"
ANOTHER_RESULT = "another result"


class Asked(NamedTuple):
    """A question of the accepted run that a person could refuse."""

    round: int
    key: str


NOBODY = Asked(0, "")
"""No question: an answerer refusing it answers every question as the accepted run did."""


class RefusingAnswerer:
    """Answers as the accepted run did, but refuses one question (its key, in its round) with
    `action`; notes when the server asks it again."""

    name = sources.RECORDED

    def __init__(self, accepted: Outcome, refused: Asked, action: str) -> None:
        self.answers = {(r.number, key): answer.response for r in accepted.rounds for key, answer in r.answers.items()}
        self.refused = refused
        self.action = action
        self.asked_again: int | None = None
        """The round that asked the refused question again, if one did."""

    def answer(self, question: Question) -> Decision:
        if (question.round, question.key) == self.refused:
            return Response({"action": self.action})
        if question.key == self.refused.key and question.round > self.refused.round:
            self.asked_again = question.round
            return Refusal(ASKED_AGAIN)  # the server heard the no: the probe has what it needs
        recorded = self.answers.get((question.round, question.key))
        return Response(recorded) if recorded is not None else None

    def offers_roots(self) -> bool:
        return True


def refusable(outcome: Outcome) -> list[Asked]:
    """The form questions of the conversation with a required field that were accepted, each key once, in order."""
    found: dict[str, Asked] = {}
    for r in outcome.rounds:
        for key, request in r.requests.items():
            question = Question(r.number, key, request, "")
            required = question.schema.get("required")
            accepted = key in r.answers and r.answers[key].response.get("action") == "accept"
            if question.mode == "form" and isinstance(required, list) and required and accepted and key not in found:
                found[key] = Asked(r.number, key)
    return list(found.values())


def refusal_checks(sessions: Sessions, params: dict[str, Any], mirrored: Mirrored | None, accepted: Outcome,
                   probe: Probe, kind: TargetKind = TOOL) -> Check:
    """`probe` (decline-is-no or cancel-is-no, on `kind`) on the accepted conversation."""
    if accepted.status != "complete" or accepted.result is None:
        return verdict(*probe, None, f"not judged: {kind.subject}'s own conversation did not complete")
    questions = refusable(accepted)
    if not questions:
        return verdict(*probe, None, f"{kind.subject} asks no form question with a required field")
    run = _Runs(sessions, params, mirrored, kind)
    endings = [run.refused(accepted, asked, ACTIONS[base_id(kind, probe)]) for asked in questions[:MAX_QUESTIONS]]
    left_out = len(questions) - MAX_QUESTIONS
    more = f" ({left_out} more question{'s' if left_out != 1 else ''} not refused)" if left_out > 0 else ""
    same = [ending for ending, alike in endings if alike]
    if not same and any(ending.endswith(ANOTHER_RESULT) for ending, _ in endings) and not run.stable(accepted):
        return verdict(*probe, None, "not judged: accepting again gave another result than the first time, so "
                                     f"another result when refusing says nothing ({kind.subject}'s result changes "
                                     "from run to run)")
    return verdict(*probe, not same, "; ".join(same or [ending for ending, _ in endings]) + more)


class _Runs:
    """The target's conversation run again, answered as the accepted run was but for one question."""

    def __init__(self, sessions: Sessions, params: dict[str, Any], mirrored: Mirrored | None,
                 kind: TargetKind) -> None:
        self.sessions, self.params, self.mirrored, self.kind = sessions, params, mirrored, kind

    def _run(self, answerer: RefusingAnswerer) -> Outcome:
        outcome = self.sessions(Chain([answerer]), hopping=False).run(self.kind.method, self.params, self.mirrored)
        if isinstance(outcome.error, Interrupted):
            raise outcome.error  # Ctrl-C ends the check, as anywhere else
        return outcome

    def stable(self, accepted: Outcome) -> bool:
        """Whether the accepted conversation, run again with the same answers, ends with the same result:
        else a refused run's other result may be the target's drift (a counter, a time), not a no heard."""
        again = self._run(RefusingAnswerer(accepted, NOBODY, "decline"))
        return again.result is not None and self._said(again.result) == self._said(accepted.result or {})

    def refused(self, accepted: Outcome, asked: Asked, action: str) -> tuple[str, bool]:
        """The conversation again with `asked` refused: how it ended, and whether as the accepted run did."""
        answerer = RefusingAnswerer(accepted, asked, action)
        outcome = self._run(answerer)
        verb = {"decline": "declining", "cancel": "cancelling"}[action]
        named = f"{verb} {asked.key!r} (round {asked.round})"
        if answerer.asked_again is not None:
            return f"{named}: asked again in round {answerer.asked_again}", False
        if outcome.status == "complete" and outcome.result is not None:
            if self._said(outcome.result) == self._said(accepted.result or {}):
                return f"{verb} {asked.key!r} gave the same result as accepting it (round {asked.round}: " \
                       f"{short(self._said(outcome.result))})", True
            return f"{named}: {ANOTHER_RESULT}", False
        message = safe_line(outcome.error.message, 160) if outcome.error else outcome.status
        return f"{named}: {outcome.status} ({message})", False

    def _said(self, result: dict[str, Any]) -> dict[str, Any]:
        """What a result says: a tool's content and structuredContent (check/kinds.py)."""
        return said(self.kind, result)
