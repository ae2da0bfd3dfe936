"""`mrtr shell`'s one connection: the server started (or reached) once, its era chosen once, its lists
learned once and fetched again when their `ttlMs` lapses or the server says one changed; each
conversation held on it by `call`'s own code (commands/conversation_builder.py `build` and `hold`, handed this
connection: the one place the shell builds a conversation).

Events: the client tells one broadcast for the whole session (`Relay`), which passes each event to the
command running now: each conversation has its own context (its timeline, its recorder), dropped after.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple, Optional

from mrtr_cli import events
from mrtr_cli.answering.questions import Chain
from mrtr_cli.commands.common import Context, make_context
from mrtr_cli.commands.conversation_builder import build
from mrtr_cli.conversation.client import Client, ClientSettings
from mrtr_cli.conversation.instances import Instances
from mrtr_cli.conversation.lists import list_all
from mrtr_cli.conversation.server_requests import ServerRequests
from mrtr_cli.errors import MrtrError, UsageError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.options import (AnsweringOptions, CallOptions, OutputOptions, RecordingOptions, TargetOptions,
                              TaskOptions)
from mrtr_cli.protocol.choices import LIST_METHODS
from mrtr_cli.render.diagnostics import warning_line
from mrtr_cli.target import Endpoint, resolve_target

LIST_CHANGED = {"notifications/tools/list_changed": ("tools",), "notifications/prompts/list_changed": ("prompts",),
                "notifications/resources/list_changed": ("resources", "templates")}
"""The notifications that say a list changed, and the lists they make stale."""
CAPABILITY_OF = {"tools": "tools", "prompts": "prompts", "resources": "resources", "templates": "resources"}
"""The server capability under which each list is offered."""


class ShellOptions(NamedTuple):
    """What `set` changes: the answering, tasks, recording and output groups, as `call` takes them."""

    answering: AnsweringOptions = AnsweringOptions()
    tasks: TaskOptions = TaskOptions()
    recording: RecordingOptions = RecordingOptions()
    output: OutputOptions = OutputOptions()


class Relay:
    """The session's broadcast's one observer: it passes each event on to the command running now
    (between commands, the shell's own context), and keeps what the connection learnt (the era, the
    server) to tell each conversation's recorder, which starts after it was said."""

    def __init__(self, to: events.Broadcast) -> None:
        self.to = to
        self.facts: list[Any] = []

    def __call__(self, event: Any) -> None:
        if isinstance(event, (events.EraChosen, events.ServerIdentified)):
            self.facts.append(event)
        self.to(event)


class Lists:
    """The server's lists, each fetched once and again when its `ttlMs` has passed or a list_changed
    notification came (seen on the session's broadcast)."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._kept: dict[str, tuple[list[Any], float | None]] = {}

    def __call__(self, event: Any) -> None:
        if isinstance(event, events.NotificationReceived):
            for kind in LIST_CHANGED.get(event.method, ()):
                self._kept.pop(kind, None)

    def items(self, kind: str) -> list[Any]:
        """Every item of the list `kind` (a key of LIST_METHODS), fetched when not kept or stale."""
        kept = self._kept.get(kind)
        if kept is not None and (kept[1] is None or time.monotonic() < kept[1]):
            return kept[0]
        method, key = LIST_METHODS[kind]
        merged, _ = list_all(self._client, method, key)
        ttl = merged.get("ttlMs")
        expires = time.monotonic() + ttl / 1000 if isinstance(ttl, (int, float)) and ttl >= 0 else None
        items: list[Any] = merged[key]
        self._kept[kind] = (items, expires)
        return items

    def known(self, kind: str) -> list[Any]:
        """The list `kind` for completion: fetched when the server offers it, [] when it cannot be read
        (the `list` command says why)."""
        if not self.offered(kind):
            return []
        try:
            return self.items(kind)
        except MrtrError:
            return []

    def offered(self, kind: str) -> bool:
        capabilities = (self._client.era.said or {}).get("capabilities")
        return not isinstance(capabilities, dict) or CAPABILITY_OF[kind] in capabilities


class ShellSession:
    """The live connection, and the conversations held on it."""

    def __init__(self, context: Context, server: Endpoint, client: Client, relay: Relay, lists: Lists) -> None:
        self.context = context
        self.server = server
        """The server, with the settings each conversation's own build starts from."""
        self.client = client
        self.relay = relay
        self.lists = lists
        self._declared = client.settings.capabilities

    def converse(self, call: CallOptions, shell: ShellOptions, record: str | None) -> ExitCode:
        """One conversation, as `mrtr call` holds it, on this connection; `record`: the transcript it is
        kept in (None: --record's, if set)."""
        from mrtr_cli.commands.call import finisher, hold_conversation, people_to_ask

        context = make_context(shell.output)
        recording = shell.recording._replace(record=record) if record else shell.recording
        with self.telling(context):
            conversation = build(context, self.server.options, shell.answering,
                                 people_to_ask(context, shell.answering), tasks=shell.tasks, target=self.server.target,
                                 connection=self._live(context))
            outcome = hold_conversation(conversation, call, recording, finisher(context, shell.answering), shell.tasks,
                                        answers_file=shell.answering.answers_file)
        return outcome.exit_code(shell.output.strict)

    @contextmanager
    def telling(self, context: Context) -> Iterator[None]:
        """The session's events go to `context` while the block runs."""
        self.relay.to = context.emit
        try:
            yield
        finally:
            self.relay.to = self.context.emit

    def _live(self, context: Context) -> Any:
        """The connection a conversation is handed: this session's client, kept open after it."""
        @contextmanager
        def connecting(settings: ClientSettings, chain: Chain) -> Iterator[tuple[Client, Optional[Instances]]]:
            self._declare(context, settings, chain)
            for fact in self.relay.facts:  # the recorder, subscribed by now, learns the era and the server
                for observer in context.emit.observers:
                    if observer is not context.timeline:
                        observer(fact)
            yield self.client, None

        return connecting

    def _declare(self, context: Context, settings: ClientSettings, chain: Chain) -> None:
        """The conversation's own answering: in 2026-07-28 each request declares the capabilities, so its
        flags take effect; the older era declared them once, at initialize."""
        handler = self.client.era.server_requests
        if isinstance(handler, ServerRequests):
            handler.answer_through(chain)
        if self.client.era.name != "older":
            self.client.declare(settings.capabilities, settings.log_level)
        elif settings.capabilities.declared() != self._declared.declared():
            context.consoles.err.print(warning_line(
                "the older era declared the client's capabilities once, at initialize: this session keeps "
                "them (start another mrtr shell with the flags to declare others)"))


@contextmanager
def opened(context: Context, options: TargetOptions, shell: ShellOptions) -> Iterator[ShellSession]:
    """The session's connection, from its start to its end (the stdio server stopped, the older era's
    session closed); its lists learnt at the start, for completion."""
    if options.replicas or options.restart_between_rounds:
        raise UsageError("--replica and --restart-between-rounds route the rounds of one conversation to other "
                         "instances, and mrtr shell keeps one connection", "use them with mrtr call")
    target = resolve_target(options)
    relay = Relay(context.emit)
    session_context = Context(context.consoles, context.output, events.Broadcast([relay]), context.timeline)
    # the server's requests outside a call are answered by the flags alone: no person
    connection = build(session_context, options, shell.answering, tasks=shell.tasks, target=target)
    with connection.connected() as live:
        lists = Lists(live.client)
        session_context.emit.subscribe(lists, first=True)
        yield ShellSession(context, connection.server, live.client, relay, lists)
