"""Which instance of the server each round goes to: `--replica URL`, `--restart-between-rounds`.

MRTR's retry carries all the server needs, so "the retry may land on another instance" (the MRTR
page of 2026-07-28). Whether a server lives up to that is what these make visible: before each
round the session asks its `Instances` where the round goes, hands the client that instance's
transport (`Client.hop`), and says so (`events.InstanceChosen`: the timeline and the transcript
name it). A retry refused by another instance than the one that made its requestState is
explained as a failed hop (`errors.HopRefused`): mrtr never sends it anywhere else on its own, since a
tool may have side effects.

Only the 2026-07-28 era: in the older era a session lives on one instance.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from mrtr_cli.transport.base import Transport


class Instance(NamedTuple):
    """An instance of the server: `position` 0 is where the conversation began; `name` says which it
    is in the timeline and the transcript (`127.0.0.1:8002`, `restart 2`); `words` names it in a
    sentence ("another instance (127.0.0.1:8002)", "a restarted server")."""

    position: int
    name: str
    transport: Transport
    words: str


class Instances(Protocol):
    """Where each round of a conversation goes."""

    flag: str
    """The flag that asked for the hops (`--replica`, `--restart-between-rounds`), for messages."""

    def for_round(self, number: int) -> Instance:
        """The instance round `number` goes to, started (or restarted) as needed."""
        ...

    refused_hint: str
    """What a refused hop most likely means, and what to do (the outcome's hint)."""

    def close(self) -> None:
        """Stop what was started for the hops; the first instance is its opener's to stop."""
        ...

