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
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

from mrtr_cli.conversation import events
from mrtr_cli.answering.chain import AnswerFlags
from mrtr_cli.answering.questions import Chain, Parked
from mrtr_cli.commands.common import Context, make_context
from mrtr_cli.commands.conversation_builder import Connection, Findings, build, hold
from mrtr_cli.conversation.client import Client, ClientSettings
from mrtr_cli.conversation.instances import Instances
from mrtr_cli.conversation.list_stream import ListStream, listen_filters
from mrtr_cli.conversation.linter import Linter
from mrtr_cli.conversation.lists import fetch_all
from mrtr_cli.conversation.server_requests import ServerRequests
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.errors import MrtrError, UsageError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.options import (AnsweringOptions, CallOptions, OutputOptions, RecordingOptions, TargetOptions,
                                         TaskOptions)
from mrtr_cli.protocol.choices import LIST_METHODS
from mrtr_cli.render.diagnostics import warning_line
from mrtr_cli.targets.target import Endpoint, Target, resolve_target

if TYPE_CHECKING:
    from mrtr_cli.commands.answer import Holding
    from mrtr_cli.transcript.recorder import TranscriptBuilder

LIST_CHANGED = {"notifications/tools/list_changed": ("tools",), "notifications/prompts/list_changed": ("prompts",),
                "notifications/resources/list_changed": ("resources", "templates")}
"""The notifications that say a list changed, and the lists they make stale."""
KIND_OF = {method: kind for kind, (method, _) in LIST_METHODS.items()}
"""The list each list method fetches."""
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

    def __init__(self, to: events.Broadcast, timeline: Any) -> None:
        self.to = to
        self.timeline = timeline
        """The timeline of the command running now (between commands, the shell's own)."""
        self.facts: list[Any] = []

    def __call__(self, event: Any) -> None:
        if isinstance(event, (events.EraChosen, events.ServerIdentified)):
            self.facts.append(event)
        self.to(event)

    def quietly(self, event: Any) -> None:
        """Tell `event` to the command running now, its timeline aside (it was said before: a recorder learns it)."""
        for observer in self.to.observers:
            if observer is not self.timeline:
                observer(event)


class Lists:
    """The server's lists, each fetched once and again when its `ttlMs` has passed or a list_changed
    notification came (seen on the session's broadcast)."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._kept: dict[str, tuple[tuple[dict[str, Any], int], float | None]] = {}
        self.served: events.Observer = lambda _: None
        """Told a kept list served again, as the response it was (a conversation's recorder keeps its tool)."""
        self._stale: set[str] = set()
        """The lists a list_changed named since they were fetched."""
        client.keep_lists(self.listed)  # a call's own tools/list (its schema, its headers) is this one

    def __call__(self, event: Any) -> None:
        if isinstance(event, events.NotificationReceived):
            self.changed(event.method)

    def changed(self, method: str) -> None:
        """The list_changed notification `method` came: the lists it names are fetched when next wanted (called
        from the listen stream's thread too: it only marks them)."""
        self._stale.update(LIST_CHANGED.get(method, ()))

    def items(self, kind: str) -> list[Any]:
        """Every item of the list `kind` (a key of LIST_METHODS), fetched when not kept or stale."""
        method, key = LIST_METHODS[kind]
        items: list[Any] = self.listed(method, key)[0][key]
        return items

    def listed(self, method: str, key: str) -> tuple[dict[str, Any], int]:
        """The list `method` as `list_all` returns it (merged, its pages), fetched when not kept or stale."""
        kind = KIND_OF.get(method)
        if kind in self._stale:
            self._stale.discard(kind)  # before fetching: a change heard meanwhile makes it stale again
            self._kept.pop(kind, None)
        kept = self._kept.get(kind) if kind is not None else None
        if kept is not None and (kept[1] is None or time.monotonic() < kept[1]):
            self.served(events.ResponseReceived(0, method, kept[0][0], None, 0.0))
            return kept[0]
        listed = fetch_all(self._client, method, key)
        ttl = listed[0].get("ttlMs")
        expires = time.monotonic() + ttl / 1000 if isinstance(ttl, (int, float)) and ttl >= 0 else None
        if kind is not None:
            self._kept[kind] = (listed, expires)
        return listed

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

    def __init__(self, context: Context, server: Endpoint, client: Client, relay: Relay, lists: Lists,
                 findings: Findings) -> None:
        self.context = context
        self.server = server
        """The server, with the settings each conversation's own build starts from."""
        self.client = client
        self.findings = findings
        """The findings of the connection's linter, since the shell began (a conversation's are those after its start)."""
        self.relay = relay
        self.lists = lists
        lists.served = relay.quietly
        self._declared = client.settings.capabilities
        self.paused: list[str] = []
        """The transcripts of this session's conversations that stopped paused (`answer N` continues the Nth)."""

    def converse(self, call: CallOptions, shell: ShellOptions, record: str | None,
                 park: str | None = None) -> ExitCode:
        """One conversation, as `mrtr call` holds it, on this connection; `record`: the transcript it is
        kept in (None: --record's, if set); `park`: the file a conversation parked at a question is written to
        when nothing records it. One that stops paused in a file joins `paused`."""
        from mrtr_cli.commands.call import people_to_ask

        context = make_context(shell.output)
        recording = shell.recording._replace(record=record) if record else shell.recording
        parking = Parking(recording.record, park, recording.redact)
        with self.telling(context):
            conversation = build(context, self.server.options, shell.answering,
                                 people_to_ask(context, shell.answering), tasks=shell.tasks, target=self.server.target,
                                 connection=self._live(context, parking))
            with hold(conversation, call, recording=recording, tasks=shell.tasks,
                      answers_file=shell.answering.answers_file) as outcome:
                self._finish(context, outcome, conversation.flags, shell.answering, parking)
        return outcome.exit_code(shell.output.strict)

    def _finish(self, context: Context, outcome: Outcome, flags: AnswerFlags, answering: AnsweringOptions,
                parking: Parking) -> None:
        """call's finish, once the conversation is kept where it can be continued: a parked one written, one
        paused in its file numbered for `answer`, and said."""
        from mrtr_cli.commands.call import finish

        kept = parking.keep(outcome)
        number = self.note_paused(kept) if kept is not None and outcome.error is not None else None
        if number is not None and outcome.error is not None:
            outcome.error.hint = (f"answer {number} continues it here" if isinstance(outcome.error, Parked)
                                  else f"{outcome.error.hint}; answer {number} continues it here")
        elif isinstance(outcome.error, Parked) and outcome.task is not None:
            outcome.error.hint = "a task's question waits on its server, not in a file"
        finish(context, outcome, flags, answering, kept)

    def note_paused(self, path: str) -> int | None:
        """The number `answer` knows the transcript at `path` by, when it is paused (numbered now if it is new)."""
        if not _paused_in(path):
            return None
        if path not in self.paused:
            self.paused.append(path)
        return self.paused.index(path) + 1

    def holding(self) -> Holding:
        """This connection for `mrtr answer`'s code (commands/answer.py): a paused conversation continued on it."""
        def hold(live: Context) -> Connection:
            @contextmanager
            def connecting(settings: ClientSettings, chain: Chain,
                           linter: Linter) -> Iterator[tuple[Client, Optional[Instances], Findings]]:
                with self.telling(live), self._live(live)(settings, chain, linter) as opened:
                    yield opened

            return connecting

        return hold

    @contextmanager
    def telling(self, context: Context) -> Iterator[None]:
        """The session's events go to `context` while the block runs."""
        self.relay.to, self.relay.timeline = context.emit, context.timeline
        try:
            yield
        finally:
            self.relay.to, self.relay.timeline = self.context.emit, self.context.timeline

    def _live(self, context: Context, parking: Parking | None = None) -> Any:
        """The connection a conversation is handed: this session's client, kept open after it. In 2026-07-28 the
        person at the terminal may park a question (the conversation built in memory for it, with `parking`)."""
        @contextmanager
        def connecting(settings: ClientSettings, chain: Chain,
                       _: Linter) -> Iterator[tuple[Client, Optional[Instances], Findings]]:
            self._declare(context, settings, chain)  # linted by the shell's linter, not a new one
            if not self.client.era.handshake and _offer_park(chain) and parking is not None:
                parking.build(context, self.server.target.transcript_entry(), settings)
            for fact in self.relay.facts:  # the recorder, subscribed by now, learns the era and the server
                self.relay.quietly(fact)
            before = len(self.findings())
            yield self.client, None, lambda: self.findings()[before:]

        return connecting

    def _declare(self, context: Context, settings: ClientSettings, chain: Chain) -> None:
        """The conversation's own answering: in 2026-07-28 each request declares the capabilities, so its
        flags take effect; the older era declared them once, at initialize."""
        handler = self.client.era.server_requests
        if isinstance(handler, ServerRequests):
            handler.answer_through(chain)
        if not self.client.era.handshake:
            self.client.declare(settings.capabilities, settings.log_level)
        elif settings.capabilities.declared() != self._declared.declared():
            context.consoles.err.print(warning_line(
                "the older era declared the client's capabilities once, at initialize: this session keeps "
                "them (start another mrtr shell with the flags to declare others)"))


class Parking:
    """Where a conversation parked at a question is kept: the transcript recorded (`recorded`), else `park`, written
    from a transcript built in memory (`build`) when the person parks it."""

    def __init__(self, recorded: str | None, park: str | None, redact: tuple[str, ...]) -> None:
        self.recorded, self.park, self.redact = recorded, park, redact
        self.builder: TranscriptBuilder | None = None

    def build(self, context: Context, target: dict[str, Any], settings: ClientSettings) -> None:
        if self.recorded is None and self.park is not None:
            from mrtr_cli.transcript.recorder import TranscriptBuilder
            from mrtr_cli.transcript.redact import Redaction

            self.builder = TranscriptBuilder(target, settings.version, settings.capabilities.declared(),
                                             Redaction.from_flags(list(self.redact)))
            context.emit.subscribe(self.builder)

    def keep(self, outcome: Outcome) -> str | None:
        """The file the conversation is in (a parked one written now, 0600); None when it is in none."""
        if self.recorded is not None:
            return self.recorded
        if self.builder is None or self.park is None or not isinstance(outcome.error, Parked) or outcome.task:
            return None  # nothing parked; or a task's question, which waits on its server, not in a file
        from pathlib import Path

        from mrtr_cli.fileio import yaml_dumper
        from mrtr_cli.commands.line_editor import keep_parked

        builder, path = self.builder, Path(self.park)
        assert builder.top is not None
        text = (yaml_dumper.dumps_part(builder.top) + "rounds:\n"
                + "".join(yaml_dumper.dumps_part([entry]) for entry in builder.rounds)
                + yaml_dumper.dumps_part(builder.ending))
        try:
            keep_parked(path, text)
        except OSError as error:
            raise UsageError(f"the parked conversation cannot be written to {path}: {error}",
                             "set --record FILE (or record DIR) to keep conversations elsewhere") from None
        return self.park


def _offer_park(chain: Chain) -> bool:
    """Let the person at the terminal, if one answers, park a question; whether one does."""
    from mrtr_cli.answering import sources

    people = [answerer for answerer in chain.answerers if answerer.name == sources.INTERACTIVE]
    if people:
        from mrtr_cli.answering.interactive import InteractiveAnswerer

        for person in people:
            if isinstance(person, InteractiveAnswerer):
                person.parks = True
    return bool(people)


def _paused_in(path: str) -> bool:
    """Whether the transcript at `path` is a paused conversation (`mrtr answer` continues it)."""
    from mrtr_cli.transcript.paused import load_paused

    try:
        load_paused(path)
    except MrtrError:
        return False
    return True


@contextmanager
def opened(context: Context, options: TargetOptions, shell: ShellOptions) -> Iterator[ShellSession]:
    """The session's connection, from its start to its end (the stdio server stopped, the older era's
    session closed); its lists learnt at the start, for completion."""
    if options.replicas or options.restart_between_rounds:
        raise UsageError("--replica and --restart-between-rounds route the rounds of one conversation to other "
                         "instances, and mrtr shell keeps one connection", "use them with mrtr call")
    target = resolve_target(options)
    relay = Relay(context.emit, context.timeline)
    session_context = Context(context.consoles, context.output, events.Broadcast([relay]), context.timeline)
    # the server's requests outside a call are answered by the flags alone: no person
    connection = build(session_context, options, shell.answering, tasks=shell.tasks, target=target)
    with connection.connected() as live:
        lists = Lists(live.client)
        session_context.emit.subscribe(lists, first=True)
        stream = _listening(live.client, target, lists)
        try:
            yield ShellSession(context, connection.server, live.client, relay, lists, live.findings)
        finally:
            if stream is not None:
                stream.close()


def _listening(client: Client, target: Target, lists: Lists) -> ListStream | None:
    """In 2026-07-28 over HTTP, the subscriptions/listen stream on which the server says a list changed (for the
    lists it says change); None when none is opened."""
    from mrtr_cli.targets.target import http_url

    filters = listen_filters((client.era.said or {}).get("capabilities"))
    if client.era.handshake or http_url(target) is None or not filters:
        return None
    stream = ListStream(client, lists.changed)
    return stream if stream.open(filters) else None
