"""A conversation with the named target driven one round at a time by a probe of `mrtr check`.

Session runs a conversation whole, with the client's own capabilities and answers. The probes of
check/capability_probes.py and check/isolation_probe.py need what Session does not give: a
capability withheld on every round, two conversations whose rounds interleave, another answer to
each question. `Stepped` is that conversation: each `step` sends one round exactly as the probe
says, and the answers of the next come from the probe's `Answering`. The requestState is echoed as
received.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mrtr_cli.conversation.client import Reply
from mrtr_cli.errors import IncompleteError, UsageError
from mrtr_cli.check.calls import ROUNDS
from mrtr_cli.check.verdicts import asks
from mrtr_cli.protocol.mrtr import REQUEST_STATE, retry_params

Send = Callable[[dict[str, Any]], Reply]
"""Sends one round's params (the probe adds `_meta`) and returns the reply."""
Answering = Callable[[int, str, dict[str, Any]], dict[str, Any]]
"""The answer (an inputResponses entry) to question `key` of round `number`; IncompleteError when none."""


class Stepped:
    """One conversation, a round a step; `replies` are the rounds so far, `stuck` why it stopped early."""

    def __init__(self, send: Send, params: dict[str, Any], answering: Answering) -> None:
        self._send = send
        self._first = params
        self._next: dict[str, Any] | None = params
        self._answering = answering
        self.replies: list[Reply] = []
        self.stuck: str | None = None

    @property
    def done(self) -> bool:
        return self._next is None

    @property
    def last(self) -> Reply | None:
        return self.replies[-1] if self.replies else None

    def step(self) -> Reply:
        """Send the next round; prepare the one after it when this one asks and can be answered."""
        assert self._next is not None, "a finished conversation takes no step"
        reply = self._send(self._next)
        self.replies.append(reply)
        self._next = None
        if asks(reply) and len(self.replies) <= ROUNDS:
            self._next = self._retry(reply)
        return reply

    def run(self) -> Reply | None:
        """Every step to the end; the last reply."""
        while not self.done:
            self.step()
        return self.last

    def _retry(self, reply: Reply) -> dict[str, Any] | None:
        number = len(self.replies)
        asked = reply.result.get("inputRequests") or {}
        try:
            answers = {key: self._answering(number, key, request) for key, request in asked.items()}
        except (IncompleteError, UsageError) as error:
            self.stuck = f"round {number}: {error.message}"
            return None
        return retry_params(self._first, answers if asked else None, reply.result.get(REQUEST_STATE))


def questions_of(reply: Reply) -> dict[str, Any]:
    """The inputRequests of an input_required reply, as a dict (none otherwise)."""
    asked = reply.result.get("inputRequests") if asks(reply) else None
    return asked if isinstance(asked, dict) else {}
