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

from collections.abc import Callable
from typing import NamedTuple, Protocol

from mrtr_cli.process import signals
from mrtr_cli.transport.base import Transport, Wrapped

REPLICA = "--replica"
RESTART = "--restart-between-rounds"

REPLICA_HINT = ("a server whose requestState is valid only in the process that made it (for example sealed with a "
                "key generated at start-up) cannot be scaled out; share the key across instances")
RESTART_HINT = ("a server whose requestState is valid only in the process that made it (for example sealed with a "
                "key generated at start-up) cannot survive a restart or be scaled out; share the key across "
                "instances and keep it across restarts")


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



class Opens(Protocol):
    """A server that opens itself with the settings it carries (`target.Endpoint`): the hops ask it
    for a transport and its address, and nothing of the command that built it."""

    def open(self) -> Transport:
        ...

    def address(self) -> str:
        ...


class Replicas:
    """`--replica URL`: round k goes to instance (k-1) mod n; a replica is opened when first needed."""

    flag = REPLICA
    refused_hint = REPLICA_HINT

    def __init__(self, home: Transport, first: Opens, replicas: tuple[Opens, ...]) -> None:
        self._servers = (first, *replicas)
        self._transports: dict[int, Transport] = {0: home}

    def for_round(self, number: int) -> Instance:
        position = (number - 1) % len(self._servers)
        server = self._servers[position]
        if position not in self._transports:
            self._transports[position] = server.open()
        which = "the first instance" if position == 0 else "another instance"
        return Instance(position, server.address(), self._transports[position], f"{which} ({server.address()})")

    def close(self) -> None:
        """Close the replicas opened; the first instance is the command's to close."""
        for position, transport in self._transports.items():
            if position != 0:
                transport.close()


class Restarts:
    """`--restart-between-rounds`: before each round after the first, the server is stopped and
    started again; each start is a new position. The client speaks to one `RestartingServer`
    throughout, so what follows the conversation (and the final stop) meets the last start."""

    flag = RESTART
    refused_hint = RESTART_HINT

    def __init__(self, server: RestartingServer) -> None:
        self._server = server

    def for_round(self, number: int) -> Instance:
        if number == 1:
            return Instance(0, "first start", self._server, "the server as first started")
        self._server.restart()
        return Instance(number - 1, f"restart {number - 1}", self._server, "a restarted server")

    def close(self) -> None:
        """Nothing: the server is the client's transport, which the command stops."""


class RestartingServer(Wrapped):
    """A stdio server as one transport across its restarts (`inner`: the process running now)."""

    def __init__(self, first: Transport, reopen: Callable[[], Transport]) -> None:
        super().__init__(first)
        self._reopen = reopen

    def restart(self) -> None:
        """Stop the running process (the usual clean stop) and start a fresh one."""
        self.inner.close()
        with signals.held():  # Ctrl-C after the start and before it is kept would leave the new server running
            self.inner = self._reopen()
