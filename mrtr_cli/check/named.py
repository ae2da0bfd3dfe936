"""`mrtr check --prompt NAME` and `--resource URI`: the requests other than tools/call that may
carry input_required, on the prompt or resource the user names (and only that one). Each is
driven as `mrtr prompt` and `mrtr read` drive it, its questions answered from the user's answers:
an input_required round is well-formed, answering completes it, a resource's complete result
carries its caching hints, and the requestState its rounds carry is protected (check/state_probes.py).
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.answering.questions import Chain
from mrtr_cli.check.calls import Calls, total
from mrtr_cli.check.probes import Prober
from mrtr_cli.check.state_probes import (PROMPT_STATE_PROBES, RESOURCE_STATE_PROBES, StateProber, state_calls,
                                         state_probes_for)
from mrtr_cli.check.tool_rounds import AskingProbes, ending, unreadable_checks, unreadable_round
from mrtr_cli.check.verdicts import Check, Probe, verdict
from mrtr_cli.conversation.client import Reply
from mrtr_cli.conversation.client import Client
from mrtr_cli.conversation.session import Outcome, Session
from mrtr_cli.protocol import lint_rules

WORKFLOW = "basic/patterns/mrtr#server-requirements-basic-workflow"
CACHING = "server/utilities/caching#cacheable-results"


def _asking_probes(word: str, method: str) -> AskingProbes:
    return AskingProbes(
        asks=(f"{word}-input-required", f"{method} may ask through a well-formed input_required result", "MUST",
              WORKFLOW),
        completes=(f"{word}-completes", f"answering its questions completes {method}", "MUST", WORKFLOW))


PROMPT_ASKING = _asking_probes("prompt", "prompts/get")
RESOURCE_ASKING = _asking_probes("resource", "resources/read")
RESOURCE_READ_CACHING: Probe = ("resource-read-caching", "resources/read's complete result carries ttlMs and "
                                                         "cacheScope", "MUST", CACHING)
PROMPT_PROBES: list[Probe] = [PROMPT_ASKING.asks, PROMPT_ASKING.completes, *PROMPT_STATE_PROBES]
RESOURCE_PROBES: list[Probe] = [RESOURCE_ASKING.asks, RESOURCE_ASKING.completes, RESOURCE_READ_CACHING,
                                *RESOURCE_STATE_PROBES]


def calls_of(method: str) -> Calls:
    """The most calls of a named prompt or resource (check/calls.py): its conversation, driven once,
    and its state probes."""
    return total([{"the conversation": Calls(conversations=1)}, state_calls(state_probes_for(method))])


def probes_for(method: str) -> list[Probe]:
    """The probes of a named prompt (prompts/get) or resource (resources/read), in the order shown."""
    return PROMPT_PROBES if method == "prompts/get" else RESOURCE_PROBES


def _asking_probes_for(method: str) -> AskingProbes:
    return PROMPT_ASKING if method == "prompts/get" else RESOURCE_ASKING


def named_checks(prober: Prober, chain: Chain, method: str, params: dict[str, Any]) -> list[Check]:
    """The probes of one named prompt (prompts/get) or resource (resources/read)."""
    client = prober.client
    outcome = Session(client, chain).run(method, params)
    checks = _asking(outcome, _asking_probes_for(method))
    if method == "resources/read":
        checks.append(_caching(outcome, client))

    def retry(retried: dict[str, Any]) -> Reply:
        return prober.send(method, {**retried, "_meta": prober.meta_for()})

    return checks + StateProber(prober, state_probes_for(method), retry).checks(outcome)


def _asking(outcome: Outcome, pair: AskingProbes) -> list[Check]:
    asking = [r for r in outcome.rounds if r.result_type == "input_required"]
    if unreadable_round(outcome) is not None:
        return unreadable_checks(outcome, pair.asks, pair.completes)
    if not asking:
        why = f"it asked for no input: {_ended(outcome)}" if outcome.status == "complete" else \
            f"not judged: {_ended(outcome)}"
        return [verdict(*pair.asks, None, why), verdict(*pair.completes, None, why)]
    first = asking[0]
    seen = f"round {first.number} asks {', '.join(sorted(r.get('method', '?') for r in first.requests.values()))}" \
        if first.requests else f"round {first.number} carries requestState only"
    return [verdict(*pair.asks, True, seen), ending(outcome, pair.completes)]


def _caching(outcome: Outcome, client: Client) -> Check:
    probe = RESOURCE_READ_CACHING
    if outcome.status != "complete" or outcome.result is None:
        return verdict(*probe, None, f"no complete result to judge: {_ended(outcome)}")
    found = [f.message for f in lint_rules.check_result("resources/read", outcome.result, client.settings.capabilities)
             if f.rule == "caching-hints"]
    hints = f"ttlMs {outcome.result.get('ttlMs')!r}, cacheScope {outcome.result.get('cacheScope')!r}"
    return verdict(*probe, not found, found[0] if found else hints)


def _ended(outcome: Outcome) -> str:
    if outcome.status == "complete":
        return f"complete in round {len(outcome.rounds)}"
    return f"{outcome.status}: {outcome.error.message if outcome.error else 'no result'}"
