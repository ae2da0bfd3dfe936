"""`state-other-principal`: is one user's requestState refused from another user?

The MRTR page: requestState passes through the client, so the server "MUST treat it as
attacker-controlled input", and it SHOULD bind the state to the authenticated principal. With
`--other-principal "NAME: VALUE"` (the headers of a second identity: another bearer token, say) the
probe first calls the tool as the second identity alone (refused: it cannot call the tool, and the
probe is skipped), then runs round 1 with the usual headers and sends its state and answers with the
second identity's headers. Taken (a complete result, or the round the first identity was asked
next) is a warn: one user's state works for another's credentials. The same on a named prompt or
resource, as `prompt-state-other-principal` and `resource-state-other-principal` (check/kinds.py).

The second identity's header values are never shown or kept: the evidence names the headers only,
and its connection is opened without -v and without a kept OAuth token (commands/check.py).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from mrtr_cli.check.calls import Calls
from mrtr_cli.check.kinds import TOOL, TargetKind, on
from mrtr_cli.check.stepped import questions_of
from mrtr_cli.check.verdicts import Check, Probe, asks, completes, seen, short, verdict
from mrtr_cli.conversation.client import Client, Reply
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.errors import AuthError, ProtocolError, UnreachableError
from mrtr_cli.protocol.mrtr import INPUT_RESPONSES, REQUEST_STATE

REFUSALS = (AuthError, ProtocolError, UnreachableError)
"""What a request the second identity sends may end in that says it was refused (not Ctrl-C)."""
STATE_OTHER_PRINCIPAL: Probe = ("state-other-principal", "one user's requestState is refused from another user",
                                "SHOULD", "basic/patterns/mrtr#server-requirements-basic-workflow")
CALLS = {STATE_OTHER_PRINCIPAL[0]: Calls(requests=3)}
"""The second identity's round 1, the usual round 1, its state sent by the second identity."""
NOT_ASKED = "not probed: give --other-principal 'Authorization: Bearer …' for a second user"


@dataclass(frozen=True)
class OtherPrincipal:
    """A second identity: the names of its headers (never their values) and how to connect as it."""

    names: tuple[str, ...]
    connect: Callable[[], AbstractContextManager[Client]]

    @property
    def words(self) -> str:
        return f"the --other-principal headers ({', '.join(self.names)})"


class PrincipalProbe:
    """Sends one round of the named target as the usual identity (`send`) or the other (`send_as`)."""

    def __init__(self, send: Callable[[dict[str, Any]], Reply],
                 send_as: Callable[[Client, dict[str, Any]], Reply], params: dict[str, Any],
                 kind: TargetKind = TOOL) -> None:
        self._send = send
        self._send_as = send_as
        self._params = params
        self._kind = kind
        self.probe = on(kind, STATE_OTHER_PRINCIPAL)

    def check(self, outcome: Outcome, other: OtherPrincipal | None) -> Check:
        probe = self.probe
        if other is None:
            return verdict(*probe, None, NOT_ASKED)
        first = outcome.rounds[0] if outcome.rounds else None
        if first is None or first.result_type != "input_required" or first.state is None:
            return verdict(*probe, None, f"{self._kind.subject}'s first round carried no requestState")
        answers = {key: answer.response for key, answer in first.answers.items()}
        following = outcome.rounds[1] if len(outcome.rounds) > 1 else None
        with other.connect() as client:
            refused = self._cannot_call(client)
            if refused is not None:
                return verdict(*probe, None, f"not probed: the second identity cannot call {self._kind.subject}: "
                                             f"{refused}")
            return self._crossed(client, answers, following.requests if following else None, other)

    def _cannot_call(self, client: Client) -> str | None:
        """Why the second identity alone cannot call the tool, or None when it can."""
        try:
            reply = self._send_as(client, self._params)
        except REFUSALS as error:
            return error.message
        if completes(reply) and reply.result.get("isError"):
            return f"a tool error: {short(reply.result.get('content'))}"
        return None if asks(reply) or completes(reply) else seen(reply)

    def _crossed(self, client: Client, answers: dict[str, Any], next_asked: dict[str, Any] | None,
                 other: OtherPrincipal) -> Check:
        probe = self.probe
        fresh = self._send(self._params)
        state = fresh.result.get(REQUEST_STATE) if asks(fresh) else None
        if not isinstance(state, str):
            return verdict(*probe, None, f"not probed: round 1 again carried no requestState: {seen(fresh)}")
        retry = {**self._params, REQUEST_STATE: state, INPUT_RESPONSES: answers}
        sent = f"round 1's requestState and answers, minted for the usual headers, sent with {other.words}"
        try:
            reply = self._send_as(client, retry)
        except REFUSALS as error:
            return verdict(*probe, True, f"{sent}: refused: {error.message}")
        taken = completes(reply) and not reply.result.get("isError") or \
            asks(reply) and next_asked is not None and questions_of(reply) == next_asked
        if taken:
            shown = f" {short(reply.result.get('content'))}" if completes(reply) else \
                " (the round the first user was asked next)"
            return verdict(*probe, False, f"{sent}: taken, {seen(reply)}{shown}: one user's state works for "
                                          "another; bind it to the principal")
        return verdict(*probe, True, f"{sent}: {seen(reply)}")
