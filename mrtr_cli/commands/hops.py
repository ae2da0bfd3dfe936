"""`--replica URL` and `--restart-between-rounds`: their flag rules, and where each round of a
conversation goes (conversation/instances.py's `Instances`, which `Session` asks before each round).

`Replicas`: round k goes to instance (k-1) mod n of [`--url`, the replicas...], each replica opened
as its own HTTP target (the same -H headers; its own kept token or login). `Restarts`: round 1 goes
to the running stdio server; before each later round the server is stopped (the usual clean stop)
and started again. Both only in the 2026-07-28 era: in the older era a session lives on one
instance. The target is asked, never told apart: `restartable`, `replica(url)`, `address()`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NamedTuple

from mrtr_cli import signals
from mrtr_cli.commands.common import era_flags
from mrtr_cli.conversation.client import Client
from mrtr_cli.conversation.instances import Instance, Instances
from mrtr_cli.errors import UsageError
from mrtr_cli.options import TargetOptions
from mrtr_cli.target import Target
from mrtr_cli.transport.base import Transport, Wrapped

REPLICA = "--replica"
RESTART = "--restart-between-rounds"

REPLICA_HINT = ("a server whose requestState is valid only in the process that made it (for example sealed with a "
                "key generated at start-up) cannot be scaled out; share the key across instances")
RESTART_HINT = ("a server whose requestState is valid only in the process that made it (for example sealed with a "
                "key generated at start-up) cannot survive a restart or be scaled out; share the key across "
                "instances and keep it across restarts")

Opener = Callable[[Target], Transport]
"""Opens a target's transport with the command's options (verbose, secrets shown or not)."""


def opener(options: TargetOptions, verbose: bool, show_secrets: bool) -> Opener:
    """How each instance's transport is opened: as the command opens its target."""
    return lambda target: target.open(options, verbose, show_secrets)


class Plan(NamedTuple):
    """The hops the flags ask for, checked before anything starts: the flag, and `--replica`'s targets."""

    flag: str
    replicas: tuple[Target, ...] = ()

    def instances(self, client: Client, target: Target, open_target: Opener) -> Instances:
        """Where each round goes, from the client's transport on (position 0); refused when the era the
        server was spoken to in is the older one."""
        if client.era.handshake:
            raise UsageError(f"{self.flag} needs the 2026-07-28 era: in the older era a session lives on one "
                             "instance, and this server speaks the older era (its initialize handshake)",
                             f"leave {self.flag} out for this server")
        if self.flag == RESTART:
            server = RestartingServer(client.transport, lambda: open_target(target))
            client.hop(server)  # the conversation's home: the session comes back to it at its end
            return Restarts(server)
        return Replicas(client.transport, target, self.replicas, open_target)


def plan(options: TargetOptions, target: Target) -> Plan | None:
    """The hops `options` ask for, or None; a usage error when the flags cannot go together, the
    target cannot hop so, or the era asked for is the older one."""
    if not options.replicas and not options.restart_between_rounds:
        return None
    if options.replicas and options.restart_between_rounds:
        raise UsageError(f"{REPLICA} and {RESTART} together", f"give one: {REPLICA} URL for a server over HTTP, "
                         f"{RESTART} for a stdio server")
    flag = REPLICA if options.replicas else RESTART
    from mrtr_cli.conversation.era import asks_for_handshake

    if asks_for_handshake(era_flags(options)):
        raise UsageError(f"{flag} needs the 2026-07-28 era: in the older era a session lives on one instance",
                         "leave out --protocol-era older (or the older --protocol-version), or leave out " + flag)
    if flag == RESTART and not target.restartable:
        raise UsageError(f"{RESTART} stops and starts a stdio server, and this one is over HTTP",
                         f"to send the retry to another instance over HTTP, give {REPLICA} URL")
    return Plan(flag, tuple(target.replica(url) for url in options.replicas))


@contextmanager
def routed(hops: Plan | None, client: Client, target: Target, open_target: Opener) -> Iterator[Instances | None]:
    """The instances of `hops` (None without), closed at the end, Ctrl-C included."""
    if hops is None:
        yield None
        return
    instances = hops.instances(client, target, open_target)
    try:
        yield instances
    finally:
        instances.close()


def refuse_outside_a_conversation(options: TargetOptions, command: str) -> None:
    """`discover` and `list` hold no conversation: their target options take no hops."""
    for flag, given in ((REPLICA, options.replicas), (RESTART, options.restart_between_rounds)):
        if given:
            raise UsageError(f"{flag} routes the rounds of a conversation, and mrtr {command} holds none",
                             f"leave {flag} out, or use it with mrtr call, read, prompt, replay or check")


class Replicas:
    """`--replica URL`: round k goes to instance (k-1) mod n; a replica is opened when first needed."""

    flag = REPLICA
    refused_hint = REPLICA_HINT

    def __init__(self, home: Transport, target: Target, replicas: tuple[Target, ...], open_target: Opener) -> None:
        self._targets = (target, *replicas)
        self._open_target = open_target
        self._transports: dict[int, Transport] = {0: home}

    def for_round(self, number: int) -> Instance:
        position = (number - 1) % len(self._targets)
        target = self._targets[position]
        if position not in self._transports:
            self._transports[position] = self._open_target(target)
        which = "the first instance" if position == 0 else "another instance"
        return Instance(position, target.address(), self._transports[position], f"{which} ({target.address()})")

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
