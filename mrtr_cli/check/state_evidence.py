"""What the state probes of check/state_probes.py saw, in words a developer can act on: which field
of which round was forged, what it was changed to, and what the server did with it."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from mrtr_cli.check.state_forgery import Scalar
from mrtr_cli.check.verdicts import SPEC, Check, Probe, seen, verdict
from mrtr_cli.conversation.client import Reply

FORGERIES_A_ROUND = 20
FORGING_CALLS = 60
"""The calls the forgeries of a whole conversation may make: each forgery follows the conversation to its
end, so many rounds times many fields would call the tool hundreds of times (check/calls.py says this bound)."""
"""At most this many fields of one round's state are forged: each is a call of the tool."""


class Walked(NamedTuple):
    """The conversation sent again from one retry on, one round's state replaced."""

    last: Reply
    position: int
    """The index of the round it stopped in."""
    number: int
    same: bool
    """Whether every answer was the conversation's (the result: content, structuredContent, isError)."""
    sent: int
    """The requests it sent: the forgeries' budget (FORGING_CALLS) counts them."""


class Tally:
    """What the forgeries of one round's state came to."""

    def __init__(self, number: int, fields: int) -> None:
        self.number = number
        self.fields = fields
        self.refused: list[Reply] = []
        self.no_effect: list[str] = []
        self.differing: list[tuple[Scalar, Any, Walked]] = []
        self.unstable = False
        """Whether the unforged retry, sent again, also ended otherwise than the conversation."""
        self.forged = 0
        """The fields forged: at most FORGERIES_A_ROUND, fewer once the check's forging calls ran out."""

    @property
    def left_out(self) -> int:
        return self.fields - self.forged


def forged_verdict(probe: Probe, tallies: list[Tally]) -> Check:
    summary = _summary(tallies)
    differing = [(tally, found) for tally in tallies for found in tally.differing]
    differing.sort(key=lambda pair: view(pair[1][2].last)[0] != "complete")  # a changed result tells most
    if not differing:
        return verdict(*probe, True, summary)
    tally, (scalar, value, walked) = differing[0]
    told = (f"requestState integrity: round {tally.number}'s field `{scalar.path}` changed from "
            f"{_json(scalar.value)} to {_json(value)} and {_what_came(walked)}")
    others = [f"`{found[0].path}` (round {other.number})" for other, found in differing[1:]]
    more = f"; also {', '.join(others[:3])}{', …' if len(others) > 3 else ''}" if others else ""
    if any(t.unstable for t, _ in differing):
        id, title, level, page = probe
        return Check(id, title, level, "warn", f"{told}{more}, but the unforged retry sent again did not end as "
                                               f"the conversation did either: mrtr cannot tell; {summary}",
                     SPEC + page)
    return verdict(*probe, False, f"{told}{more}; {summary}")


def _what_came(walked: Walked) -> str:
    kind, _ = view(walked.last)
    if kind == "complete":
        return "the call completed with it (its result differs from the unforged run's)"
    return f"the server took it: round {walked.number} differs from the unforged run's ({seen(walked.last)})"


def _summary(tallies: list[Tally]) -> str:
    """How the forgeries of every round went, the first refusal's words said once."""
    refusals = [reply for tally in tallies for reply in tally.refused]
    why = seen(refusals[0]) if refusals else ""
    left_out = sum(tally.left_out for tally in tallies)
    cut = f"; {left_out} field(s) left out (at most {FORGERIES_A_ROUND} a round, {FORGING_CALLS} calls in all)" \
        if left_out else ""
    sent = sum(tally.forged for tally in tallies)
    if len(refusals) == sent:
        fields = ", ".join(f"{tally.forged} of round {tally.number}" for tally in tallies)
        return f"{'the' if sent == 1 else f'all {sent}'} forged field{'s' if sent != 1 else ''} refused " \
               f"({fields}): {why}{cut}"
    return "; ".join(_tally_words(tally) for tally in tallies) + (f"; refused with {why}" if why else "") + cut


def _tally_words(tally: Tally) -> str:
    parts = [f"round {tally.number}: {tally.forged} field(s) forged"]
    if tally.refused:
        parts.append(f"{len(tally.refused)} refused")
    if tally.no_effect:
        shown = ", ".join(f"`{path}`" for path in tally.no_effect[:3]) + (", …" if len(tally.no_effect) > 3 else "")
        parts.append(f"{len(tally.no_effect)} taken with no effect ({shown})")
    if tally.differing:
        parts.append(f"{len(tally.differing)} changed what came")
    return ", ".join(parts)


def view(reply: Reply) -> tuple[str, Any]:
    """What a forged run is compared on: an error's code; a complete result but its `_meta` (a tool's
    content, structuredContent and isError, a resource's contents, a prompt's messages); an
    input_required round's questions."""
    if reply.error is not None:
        return "error", reply.error.get("code")
    result = reply.result
    if not isinstance(result, dict):
        return "unreadable", None
    if result.get("resultType", "complete") == "input_required":
        return "input_required", result.get("inputRequests") or {}
    return "complete", {key: value for key, value in result.items() if key not in ("_meta", "resultType")}


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:40] + "…"
