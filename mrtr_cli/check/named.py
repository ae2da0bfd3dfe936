"""`mrtr check --prompt NAME` and `--resource URI`: the requests other than tools/call that may
carry input_required, on the prompt or resource the user names (and only that one). Each is
driven as `mrtr prompt` and `mrtr read` drive it, its questions answered from the user's answers:
an input_required round is well-formed, answering completes it, a resource's complete result
carries its caching hints, and the requestState its rounds carry is protected (check/state_probes.py).
The tool's probes of what a conversation owes beyond its rounds run on it too, their ids prefixed
(check/kinds.py): a "no" is a no (check/refusal_probes.py), one user's state is refused from another
(check/principal_probe.py), two conversations at once do not mix (check/isolation_probe.py), and its
state cannot be used later or twice (check/replay_probes.py, after the rest of the check).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from mrtr_cli.answering.questions import Chain
from mrtr_cli.check import capability_probes, isolation_probe, principal_probe, refusal_probes, replay_probes
from mrtr_cli.check.calls import Calls, total
from mrtr_cli.check.capability_probes import CAPABILITY_WITHHELD_EACH, CapabilityProber
from mrtr_cli.check.isolation_probe import ISOLATED, IsolationProbe
from mrtr_cli.check.kinds import PROMPT, RESOURCE, TargetKind, kind_of, on
from mrtr_cli.check.principal_probe import STATE_OTHER_PRINCIPAL, OtherPrincipal, PrincipalProbe
from mrtr_cli.check.probes import Prober
from mrtr_cli.check.refusal_probes import REFUSAL_PROBES, refusal_checks
from mrtr_cli.check.replay_probes import REPLAY_PROBES, ReplayFlags, ReplayProber
from mrtr_cli.check.state_probes import (PROMPT_STATE_PROBES, RESOURCE_STATE_PROBES, Request, StateProber,
                                         state_calls, state_probes_for)
from mrtr_cli.check.tool_rounds import AskingProbes, ending, unreadable_checks, unreadable_round
from mrtr_cli.check.verdicts import Check, Probe, verdict
from mrtr_cli.conversation.client import Client, Reply
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.protocol import lint_rules, meta

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


def _conversation_probes(kind: TargetKind) -> list[Probe]:
    """The tool's probes of a conversation as a whole, as they run on `kind`: in the order shown."""
    return [on(kind, probe) for probe in (CAPABILITY_WITHHELD_EACH, STATE_OTHER_PRINCIPAL, ISOLATED, *REFUSAL_PROBES)]


PROMPT_CONVERSATION_PROBES = _conversation_probes(PROMPT)
RESOURCE_CONVERSATION_PROBES = _conversation_probes(RESOURCE)
PROMPT_REPLAY_PROBES = [on(PROMPT, probe) for probe in REPLAY_PROBES]
RESOURCE_REPLAY_PROBES = [on(RESOURCE, probe) for probe in REPLAY_PROBES]
PROMPT_PROBES: list[Probe] = [PROMPT_ASKING.asks, PROMPT_ASKING.completes, *PROMPT_STATE_PROBES,
                              *PROMPT_CONVERSATION_PROBES, *PROMPT_REPLAY_PROBES]
RESOURCE_PROBES: list[Probe] = [RESOURCE_ASKING.asks, RESOURCE_ASKING.completes, RESOURCE_READ_CACHING,
                                *RESOURCE_STATE_PROBES, *RESOURCE_CONVERSATION_PROBES, *RESOURCE_REPLAY_PROBES]


def calls_of(method: str, other_principal: bool = False) -> Calls:
    """The most calls of a named prompt or resource (check/calls.py): its conversation, driven once,
    its state probes, and the tool's conversation probes that run on it (each family's own CALLS)."""
    tables = [{"the conversation": Calls(conversations=1)}, state_calls(state_probes_for(method)),
              capability_probes.CALLS, refusal_probes.CALLS, isolation_probe.CALLS, replay_probes.CALLS]
    return total(tables + ([principal_probe.CALLS] if other_principal else []))


def probes_for(method: str) -> list[Probe]:
    """The probes of a named prompt (prompts/get) or resource (resources/read), in the order shown."""
    return PROMPT_PROBES if method == "prompts/get" else RESOURCE_PROBES


def _asking_probes_for(method: str) -> AskingProbes:
    return PROMPT_ASKING if method == "prompts/get" else RESOURCE_ASKING


class NamedProber:
    """The probes of one named prompt (prompts/get) or resource (resources/read): `checks` runs its
    conversation and the probes of it; `waiting_checks`, called as late as the check can, the ones
    that wait after it (check/replay_probes.py)."""

    def __init__(self, prober: Prober, chain: Chain, method: str, params: dict[str, Any],
                 flags: ReplayFlags = ReplayFlags(), other: OtherPrincipal | None = None) -> None:
        self.prober = prober
        self.chain = chain
        self.kind = kind_of(method)
        self.params = params
        self.flags = flags
        self.other = other
        self.conversed: tuple[Outcome, float] | None = None
        """The conversation and when it ended (time.monotonic), once `checks` ran it."""

    def checks(self) -> list[Check]:
        client, method = self.prober.client, self.kind.method
        outcome = self.prober.sessions(self.chain, hopping=False).run(method, self.params)
        self.conversed = outcome, time.monotonic()
        checks = _asking(outcome, _asking_probes_for(method))
        if method == "resources/read":
            checks.append(_caching(outcome, client))
        checks += StateProber(self.prober, state_probes_for(method), Request(method, self.params)).checks(outcome)
        return checks + self.prober.run_each(_conversation_probes(self.kind), self._judges(outcome))

    def waiting_checks(self) -> list[Check]:
        assert self.conversed is not None, "the conversation (checks) comes first"
        outcome, ended = self.conversed
        replays = ReplayProber(self._retry, self.prober.run, self.params, outcome, ended, self.flags, self.kind)
        return replays.checks(lambda: _first_answers(outcome))

    def _judges(self, outcome: Outcome) -> dict[Probe, Callable[[], Check]]:
        kind = self.kind
        principal = PrincipalProbe(self._retry, self._send_as, self.params, kind)
        isolation = IsolationProbe(self._retry, self._send_as, self.chain, self.params, kind)
        capabilities = CapabilityProber(self._retry, self.chain, self.params, self.prober.status_is,
                                        on(kind, CAPABILITY_WITHHELD_EACH), kind.subject)
        refused = {on(kind, probe): self._refusing(outcome, on(kind, probe)) for probe in REFUSAL_PROBES}
        return {on(kind, CAPABILITY_WITHHELD_EACH): lambda: capabilities.check(outcome),
                on(kind, STATE_OTHER_PRINCIPAL): lambda: principal.check(outcome, self.other),
                on(kind, ISOLATED): lambda: isolation.check(outcome, self.other), **refused}

    def _refusing(self, outcome: Outcome, probe: Probe) -> Callable[[], Check]:
        return lambda: refusal_checks(self.prober.sessions, self.params, None, outcome, probe, self.kind)

    def _retry(self, retried: dict[str, Any], capabilities: meta.Capabilities | None = None) -> Reply:
        return self.prober.send(self.kind.method, {**retried, "_meta": self.prober.meta_for(capabilities=capabilities)})

    def _send_as(self, client: Client, params: dict[str, Any]) -> Reply:
        """One request as the --other-principal identity, on its own connection."""
        return client.raw(self.kind.method, {**params, "_meta": self.prober.meta_for()})


def _first_answers(outcome: Outcome) -> dict[str, Any] | str:
    """Round 1's answers, as the conversation gave them (or why there are none), for the held state."""
    first = outcome.rounds[0] if outcome.rounds else None
    if first is None or first.result_type != "input_required":
        return "the first round asked no question"
    if first.answers.keys() != first.requests.keys():
        return "not judged: the conversation did not answer round 1 (pass --answer or --answers)"
    return {key: answer.response for key, answer in first.answers.items()}


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
