"""`conversations-isolated`: two conversations of the named tool at once each end with their own answers.

Run A answers as the tool's own conversation did; run B answers the same questions with each field
changed to another valid value of its schema (check/other_answers.py). Their rounds interleave on
one connection (A round 1, B round 1, A round 2, B round 2, ...), so a server that keeps a
conversation's answers anywhere but in its requestState (a global, a per-connection slot) mixes
them. A result carrying the other run's answer is a warn under one identity (MRTR servers keep no
state between requests: basic/index, statelessness) and a fail when run B goes as the
`--other-principal` identity (state "MUST" be associated with individual users: the elicitation
page). The same on a named prompt or resource, its id prefixed (check/kinds.py), a result compared
by the fields its kind says it with.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from mrtr_cli.answering.questions import Chain, Question
from mrtr_cli.check.calls import Calls
from mrtr_cli.check.kinds import TOOL, TargetKind, on, said
from mrtr_cli.check.other_answers import other_answer
from mrtr_cli.check.principal_probe import OtherPrincipal
from mrtr_cli.check.stepped import Stepped
from mrtr_cli.check.verdicts import Check, Probe, completes, seen, short, verdict
from mrtr_cli.conversation.client import Client, Reply
from mrtr_cli.conversation.session import Outcome

ISOLATED: Probe = ("conversations-isolated", "two conversations at once each end with their own answers", "SHOULD",
                   "basic/index")
ISOLATED_USERS: Probe = ("conversations-isolated", "two users' conversations at once each end with their own answers",
                         "MUST", "client/elicitation")
"""The same probe when run B goes as the --other-principal identity: one user's answers in another's result."""
CALLS = {ISOLATED[0]: Calls(conversations=2)}


class IsolationProbe:
    """Runs A and B interleaved and looks for each one's answers in the other's result."""

    def __init__(self, send: Callable[[dict[str, Any]], Reply], send_as: Callable[[Client, dict[str, Any]], Reply],
                 chain: Chain, params: dict[str, Any], kind: TargetKind = TOOL) -> None:
        self._send = send
        self._send_as = send_as
        self._chain = chain
        self._params = params
        self._kind = kind

    def check(self, outcome: Outcome, other: OtherPrincipal | None) -> Check:
        probe = on(self._kind, ISOLATED_USERS if other is not None else ISOLATED)
        if outcome.status != "complete" or len(outcome.rounds) < 2:
            return verdict(*probe, None, f"not probed: {self._kind.subject}'s conversation "
                           + ("asked nothing" if outcome.status == "complete" else "did not complete"))
        if not _changes(outcome):
            return verdict(*probe, None, "not probed: no answer has a field that can take another valid value")
        with _connected(other) as client:
            send_b = self._send if client is None else (lambda params: self._send_as(client, params))
            own, changed = _Answers(outcome, self._chain), _Answers(outcome, self._chain, other=True)
            a, b = Stepped(self._send, self._params, own), Stepped(send_b, self._params, changed)
            while not (a.done and b.done):
                for run in (a, b):
                    if not run.done:
                        run.step()
        return _judged(probe, (a, own), (b, changed), other, self._kind)


class _Answers:
    """The answers of one run: the tool's own conversation's (else the chain's), changed for run B."""

    def __init__(self, outcome: Outcome, chain: Chain, other: bool = False) -> None:
        self._outcome = outcome
        self._chain = chain
        self._other = other
        self.given: list[Any] = []
        """Every field value this run answered."""
        self.changes: dict[str, tuple[Any, Any]] = {}

    def __call__(self, number: int, key: str, request: dict[str, Any]) -> dict[str, Any]:
        rounds = self._outcome.rounds
        kept = rounds[number - 1].answers.get(key) if number <= len(rounds) else None
        answer = kept.response if kept is not None else self._chain.answer(Question(number, key, request, "")).response
        if self._other:
            answer, changes = other_answer(request, answer)
            self.changes.update({f"{key}.{name}": change for name, change in changes.items()})
        content = answer.get("content")
        self.given += list(content.values()) if isinstance(content, dict) else []
        return answer


def _changes(outcome: Outcome) -> bool:
    """Whether any answer of the conversation has a field that can differ."""
    return any(other_answer(round.requests[key], answer.response)[1]
               for round in outcome.rounds for key, answer in round.answers.items() if key in round.requests)


@contextlib.contextmanager
def _connected(other: OtherPrincipal | None) -> Iterator[Client | None]:
    if other is None:
        yield None
        return
    with other.connect() as client:
        yield client


def _judged(probe: Probe, a: tuple[Stepped, _Answers], b: tuple[Stepped, _Answers],
            other: OtherPrincipal | None, kind: TargetKind) -> Check:
    (run_a, own), (run_b, changed) = a, b
    changes = ", ".join(f"`{name}` {short(was)} → {short(now)}" for name, (was, now) in changed.changes.items())
    ran = (f"two conversations interleaved, B{' as ' + other.words if other else ''} answering {changes or 'the same'}"
           f"; A: {_ending(run_a)}; B: {_ending(run_b)}")
    if not completes(run_a.last) and not completes(run_b.last):
        return verdict(*probe, None, f"not judged: {ran}")
    mine, theirs = _atoms(own.given), _atoms(changed.given)
    foreign = _carried(run_a.last, theirs - mine, mine, ("A", "B"), kind) or \
        _carried(run_b.last, mine - theirs, theirs, ("B", "A"), kind)
    if foreign:
        return verdict(*probe, False, f"{foreign}; {ran}: keep a conversation's answers in its requestState, "
                                      "not in state shared between requests")
    return verdict(*probe, True, f"{ran}: each carries only its own answers")


def _carried(reply: Reply | None, tokens: set[str], own: set[str], runs: tuple[str, str],
             kind: TargetKind) -> str | None:
    """`A's result carries B's answer 5`, when a complete result holds one of the other run's values
    outside its own (B's `b.ada@example.com` holds A's `ada@example.com`: that is not a mix)."""
    if not completes(reply) or reply is None:
        return None
    mine, theirs = runs
    text = json.dumps(list(said(kind, reply.result).values()), ensure_ascii=False)
    for atom in sorted(own, key=len, reverse=True):
        if any(token in atom for token in tokens):  # only an own value that holds a foreign one hides it
            text = text.replace(atom, "\0")
    for token in sorted(tokens):
        if re.search(rf"(?<![\w-]){re.escape(token)}(?![\w-])", text):
            return f"{mine}'s result carries {theirs}'s answer {token!r}"
    return None


def _atoms(values: list[Any]) -> set[str]:
    """The strings and numbers among answered values (booleans say too little to be looked for)."""
    atoms: set[str] = set()
    for value in values:
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, (str, int, float)) and not isinstance(item, bool) and str(item):
                atoms.add(str(item))
    return atoms


def _ending(run: Stepped) -> str:
    reply = run.last
    rounds = f"{len(run.replies)} round{'s' if len(run.replies) != 1 else ''}"
    return f"{seen(reply)} after {rounds}" if reply is not None else "nothing sent"
