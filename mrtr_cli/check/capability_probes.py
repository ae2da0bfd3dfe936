"""`capability-withheld-each`: each client capability the named tool's conversation asks for, withheld
on its own, gives -32021 listing it (HTTP 400), or a conversation that does not ask it.

A server that cannot fulfil a request because the client did not declare a capability MUST return
-32021 with `data.requiredCapabilities` (the schema's MissingRequiredClientCapabilityError: "For
HTTP, the response status code MUST be 400 Bad Request"). A complete result with `isError` where
the usual conversation asked is that rule broken: the client is told nothing it can act on. Each
kind the tool asks (form elicitation, URL elicitation, sampling, roots) is withheld alone, the other
kinds declared, and the conversation driven to its end, each round with the kind withheld.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mrtr_cli.answering.questions import Chain, Question
from mrtr_cli.check.calls import Calls
from mrtr_cli.check.stepped import Stepped, questions_of
from mrtr_cli.check.verdicts import Check, Probe, asks, completes, seen, short, verdict
from mrtr_cli.conversation.client import Reply
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.protocol import jsonrpc, meta
from mrtr_cli.protocol.mrtr import required_capability

CAPABILITY_WITHHELD_EACH: Probe = (
    "capability-withheld-each", "each capability its conversation asks, withheld alone, gives -32021 listing it (HTTP 400) "
    "or a conversation without it", "MUST", "basic/index#meta")
KINDS = ("elicitation.form", "elicitation.url", "sampling", "roots")
"""The kinds of question a client declares apart, in the order they are withheld."""
CALLS = {CAPABILITY_WITHHELD_EACH[0]: Calls(conversations=len(KINDS))}
"""At most one conversation a kind (check/calls.py)."""


def kind_of(request: dict[str, Any]) -> str:
    """The kind of question a request is: `sampling.tools` is sampling's."""
    return required_capability(request).removesuffix(".tools")


def withholding(kind: str) -> meta.Capabilities:
    """Every capability declared but `kind`."""
    top, _, mode = kind.partition(".")
    if top == "elicitation":
        return meta.Capabilities(elicitation_modes=tuple(m for m in ("form", "url") if m != mode))
    return meta.Capabilities(sampling=top != "sampling", roots=top != "roots")


class CapabilityProber:
    """The tool's conversation again, one kind withheld at a time."""

    def __init__(self, send: Callable[[dict[str, Any], meta.Capabilities], Reply], chain: Chain,
                 params: dict[str, Any], status_is: Callable[[Reply, int], bool],
                 probe: Probe = CAPABILITY_WITHHELD_EACH, subject: str = "the tool") -> None:
        self._send = send
        """One request of the named target with its _meta made for the capabilities given."""
        self._probe = probe
        """The probe as it runs on the target: the tool's, or a prompt's or resource's (check/kinds.py `on`)."""
        self._subject = subject
        self._chain = chain
        self._params = params
        self._status_is = status_is

    def check(self, outcome: Outcome) -> Check:
        asked = _first_asked(outcome)
        if not asked:
            return verdict(*self._probe, None, f"{self._subject} asks no question")
        found = [self._withheld(kind, where) for kind, where in asked.items()]
        failed = [words for ok, words in found if not ok]
        if failed:
            return verdict(*self._probe, False, "; ".join(failed))
        return verdict(*self._probe, True, "; ".join(words for _, words in found))

    def _withheld(self, kind: str, where: str) -> tuple[bool, str]:
        capabilities = withholding(kind)
        run = Stepped(lambda params: self._send(params, capabilities), self._params, self._answer)
        while not run.done:
            reply = run.step()
            still = [key for key, request in questions_of(reply).items() if kind_of(request) == kind]
            if still:
                return False, f"{kind} withheld: round {len(run.replies)} still asks {still[0]!r} for it"
        return self._ending(kind, where, run)

    def _ending(self, kind: str, where: str, run: Stepped) -> tuple[bool, str]:
        reply = run.last
        assert reply is not None
        rounds = f"round {len(run.replies)}"
        if reply.error is not None:
            return self._refusal(kind, reply, rounds)
        if completes(reply) and reply.result.get("isError") is True:
            return False, (f"{kind} withheld: {rounds} is a complete result with isError where the usual "
                           f"conversation asks {where}; the spec wants -32021 with data.requiredCapabilities: "
                           f"{short(reply.result.get('content'))}")
        if asks(reply):
            return True, f"{kind} withheld: not judged past {run.stuck or rounds} (no answer)"
        return True, f"{kind} withheld: {rounds}, {seen(reply)} without asking it"

    def _refusal(self, kind: str, reply: Reply, rounds: str) -> tuple[bool, str]:
        assert reply.error is not None
        if reply.error.get("code") != jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY:
            return False, f"{kind} withheld: {rounds}, {seen(reply)}; -32021 was due"
        data = reply.error.get("data")
        required = data.get("requiredCapabilities") if isinstance(data, dict) else None
        if not _lists(required, kind):
            return False, (f"{kind} withheld: {rounds}, -32021 whose data.requiredCapabilities "
                           f"({short(required)}) does not list {kind}")
        if not self._status_is(reply, 400):
            return False, f"{kind} withheld: {rounds}, -32021 with HTTP {reply.status}, not 400"
        return True, f"{kind} withheld: {rounds}, -32021 listing {short(required)}"

    def _answer(self, number: int, key: str, request: dict[str, Any]) -> dict[str, Any]:
        return self._chain.answer(Question(number, key, request, "")).response


def _first_asked(outcome: Outcome) -> dict[str, str]:
    """Each kind the usual conversation asks, and where it first did (`'date' in round 1`)."""
    asked: dict[str, str] = {}
    for round in outcome.rounds:
        for key, request in (round.requests or {}).items():
            if isinstance(request, dict) and "method" in request:
                asked.setdefault(kind_of(request), f"{key!r} in round {round.number}")
    return {kind: asked[kind] for kind in KINDS if kind in asked}


def _lists(required: Any, kind: str) -> bool:
    """Whether a requiredCapabilities object names `kind` (`{"elicitation": {}}` names both modes)."""
    if not isinstance(required, dict):
        return False
    top, _, mode = kind.partition(".")
    entry = required.get(top)
    if not isinstance(entry, dict):
        return False
    return not mode or not entry or mode in entry
