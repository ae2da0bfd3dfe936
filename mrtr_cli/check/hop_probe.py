"""`mrtr check --tool NAME` with `--replica URL` or `--restart-between-rounds`: does the tool's
conversation end as well when each retry goes to another instance of the server?

MRTR exists so that a server needs "no shared storage layer across server instances" and no
stateful load balancing (the MRTR page): the retry carries all the server needs. The tool's own
conversation, run once on one instance (check/tool_probes.py), is compared with the same
conversation run again with each round routed by the `Instances` the flags made
(conversation/instances.py). A SHOULD: a server that holds state in one process still works,
only not scaled out.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.answering.questions import Chain
from mrtr_cli.check.calls import Calls
from mrtr_cli.check.verdicts import Check, Probe, verdict
from mrtr_cli.conversation.instances import Instances
from mrtr_cli.conversation.session import Outcome, Sessions
from mrtr_cli.errors import Interrupted, UnreachableError
from mrtr_cli.protocol.headers import Mirrored
from mrtr_cli.text import safe_line

RETRY_ELSEWHERE: Probe = ("retry-on-another-instance",
                          "the tool's conversation ends the same when each round goes to another instance", "SHOULD",
                          "basic/patterns/mrtr#multi-round-trip-requests")
CALLS = {RETRY_ELSEWHERE[0]: Calls(conversations=1)}
"""The conversation once more, hopping (check/calls.py)."""
NOT_ASKED = "not probed: give --replica URL or --restart-between-rounds"


def hop_check(sessions: Sessions, chain: Chain, params: dict[str, Any], mirrored: Mirrored | None, stayed: Outcome,
              instances: Instances | None) -> Check:
    """The conversation run again hopping, compared with `stayed` (the same on one instance)."""
    if instances is None:
        return verdict(*RETRY_ELSEWHERE, None, NOT_ASKED)
    if stayed.status != "complete" or len(stayed.rounds) < 2:
        why = "it asked nothing, so no retry was sent" if stayed.status == "complete" else f"it ended {_ending(stayed)}"
        return verdict(*RETRY_ELSEWHERE, None, f"not probed: on one instance {why}")
    hopped = sessions(chain, hopping=True).run("tools/call", params, mirrored)  # routed by `instances`
    if isinstance(hopped.error, Interrupted):
        raise hopped.error  # Ctrl-C ends the check, as anywhere else
    seen = f"on one instance: {_ending(stayed)}; with {instances.flag}: {_ending(hopped)}"
    if isinstance(hopped.error, UnreachableError):  # an instance mrtr could not reach says nothing of the server
        return verdict(*RETRY_ELSEWHERE, None, f"not probed: {seen}")
    same = hopped.status == "complete" and len(hopped.rounds) == len(stayed.rounds)
    return verdict(*RETRY_ELSEWHERE, same, seen)


def _ending(outcome: Outcome) -> str:
    rounds = f"{len(outcome.rounds)} round{'s' if len(outcome.rounds) != 1 else ''}"
    if outcome.error is None:
        return f"{outcome.status} in {rounds}"
    return f"{outcome.status} in {rounds} ({safe_line(outcome.error.message, 300)})"
