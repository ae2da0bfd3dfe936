"""`--replica URL` and `--restart-between-rounds`: their flag rules, and where each round of a
conversation goes (conversation/instances.py's `Instances`, which `Session` asks before each round).

`Replicas` (conversation/instances.py): round k goes to instance (k-1) mod n of [`--url`, the
replicas...], each replica opened as its own HTTP target (the same -H headers; its own kept token or
login). `Restarts`: round 1 goes to the running stdio server; before each later round the server is
stopped (the usual clean stop) and started again. Both only in the 2026-07-28 era: in the older era a
session lives on one instance. The target is asked, never told apart: `restartable`, `replica(url)`, `address()`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

from mrtr_cli.commands.common import era_flags
from mrtr_cli.conversation.client import Client
from mrtr_cli.conversation.instances import (REPLICA, REPLICA_HINT, RESTART, RESTART_HINT, Instances, Replicas,
                                             RestartingServer, Restarts)
from mrtr_cli.errors import UsageError
from mrtr_cli.definition.options import TargetOptions
from mrtr_cli.targets.target import Endpoint

__all__ = ["REPLICA", "REPLICA_HINT", "RESTART", "RESTART_HINT", "Plan", "plan", "refuse_outside_a_conversation",
           "routed"]


class Plan(NamedTuple):
    """The hops the flags ask for, checked before anything starts: the flag, and `--replica`'s servers."""

    flag: str
    replicas: tuple[Endpoint, ...] = ()

    def instances(self, client: Client, server: Endpoint) -> Instances:
        """Where each round goes, from the client's transport on (position 0); refused when the era the
        server was spoken to in is the older one. The instances open and restart the servers themselves
        (conversation/instances.py): nothing of the command is called from the conversation."""
        if client.era.handshake:
            raise UsageError(f"{self.flag} needs the 2026-07-28 era: in the older era a session lives on one "
                             "instance, and this server speaks the older era (its initialize handshake)",
                             f"leave {self.flag} out for this server")
        if self.flag == RESTART:
            restarting = RestartingServer(client.transport, server.open)
            client.hop(restarting)  # the conversation's home: the session comes back to it at its end
            return Restarts(restarting)
        return Replicas(client.transport, server, self.replicas)


def plan(server: Endpoint) -> Plan | None:
    """The hops the server's options ask for, or None; a usage error when the flags cannot go together,
    the target cannot hop so, or the era asked for is the older one."""
    options = server.options
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
    if flag == RESTART and not server.target.restartable:
        raise UsageError(f"{RESTART} stops and starts a stdio server, and this one is over HTTP",
                         f"to send the retry to another instance over HTTP, give {REPLICA} URL")
    return Plan(flag, tuple(server.replica(url) for url in options.replicas))


@contextmanager
def routed(hops: Plan | None, client: Client, server: Endpoint) -> Iterator[Instances | None]:
    """The instances of `hops` (None without), closed at the end, Ctrl-C included."""
    if hops is None:
        yield None
        return
    instances = hops.instances(client, server)
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
