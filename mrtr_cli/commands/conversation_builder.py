"""The one builder of conversations: from the resolved options to a running `Session`.

`build` makes a `Conversation` of a command's options: the target with the settings it is opened
with (`target.Endpoint`), the client's settings (the era's flags among them), the answer chain, the
hops to other instances, how a task is followed. `Conversation.connected` opens it: the era chosen,
the linter and the hops in place, a `Session` on the client; everything stopped at the end.
`Conversation.again` is the same conversation with one thing changed (the headers, the answers, the
declared capabilities, the protocol version, the instance, a target setting): what check's probes
and replay's recorded setup ask for; `Live.session` makes each session of it (check's probes are
handed it as `conversation.session.Sessions`), and `Session.resume` on one is the conversation again
from a recorded round with that round's requestState replaced (check's state probes); `connect` is
its client, linted, in the era chosen.
`hold` is a command's whole conversation with its observers (the recorder, the --html and --har
pages, the task keeper): the request sent, its rounds answered, and the outcome handed to the command's
block, which shows it. The command calls it as a `with`, so nothing here calls back into the command.

The outcome (`conversation.session.Outcome`) is written here and in the engine alone: one made
before anything is sent (`unsent`), a failure kept in it (`failed`), what the task watch or the
server's list found afterwards (`corrected`). The engine is handed what it calls (the
endpoint's `open`, conversation/instances.py's hops) and never calls back into commands/.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

from mrtr_cli import __version__
from mrtr_cli.conversation import events
from mrtr_cli.conversation.linter import Linter
from mrtr_cli.fileio import files
from mrtr_cli.answering.chain import AnswerFlags, build_chain
from mrtr_cli.answering.questions import AT_TERMINAL, Answerer, Chain
from mrtr_cli.definition.arguments import prompt_arguments, tool_arguments
from mrtr_cli.commands.common import Context, era_flags, warn_missing_arguments
from mrtr_cli.commands.hops import Plan, plan, routed
from mrtr_cli.commands.task_interrupt import settle, show_unfinished, watch_tasks
from mrtr_cli.conversation.client import Client, ClientSettings
from mrtr_cli.conversation.instances import Instances
from mrtr_cli.conversation.older_tasks import as_task
from mrtr_cli.conversation.preparation import Preparation, after_failure, missing_arguments, prepare_call
from mrtr_cli.conversation.session import Outcome, Session, status_of
from mrtr_cli.conversation.task_follower import TaskSettings
from mrtr_cli.errors import MrtrError, UsageError, interruption
from mrtr_cli.definition.options import AnsweringOptions, CallOptions, RecordingOptions, TargetOptions, TaskOptions
from mrtr_cli.protocol import meta
from mrtr_cli.protocol.headers import NAMED_METHODS
from mrtr_cli.targets.target import Endpoint, Target, http_url, resolve_target

if TYPE_CHECKING:
    from mrtr_cli.config.kept_tasks import KeptTask  # loaded only where a task is kept or resumed

Findings = Callable[[], list[events.Finding]]
"""A conversation's findings so far (conversation/linter.py `Linter.told`), asked for by who writes its outcome."""
Connection = Callable[[ClientSettings, Chain, Linter],
                      AbstractContextManager[tuple[Client, Optional[Instances], Findings]]]
"""How a conversation reaches its server, given the client's settings, the chain that answers the
server's own requests and the linter of a new connection: a client, the instances its rounds go to, and
the conversation's findings. None in a `Conversation`: a new connection (`Conversation.connected`);
`mrtr shell` hands its one live client, linted since the shell began, to every conversation
(commands/shell_session.py)."""

class Live(NamedTuple):
    """A conversation opened: its client, the instances its rounds go to, and how it is driven."""

    client: Client
    instances: Instances | None
    conversation: Conversation
    findings: Findings

    def session(self, chain: Chain | None = None, *, hopping: bool = True, max_rounds: int | None = None) -> Session:
        """A new session on the client (one per request sent: a session keeps its task's follower),
        answered by `chain` (None: the conversation's), its rounds sent to the other instances when
        `hopping`, at most `max_rounds` answered (None: the conversation's) (`conversation.session.Sessions`:
        a check probe's variation; `Session.resume` on one is the conversation again with another requestState)."""
        built = self.conversation
        return Session(self.client, built.chain if chain is None else chain,
                       max_rounds=built.max_rounds if max_rounds is None else max_rounds,
                       instances=self.instances if hopping else None, tasks=built.tasks,
                       awaited_unprompted=built.awaited_unprompted, findings=self.findings)


@dataclass(frozen=True)
class Conversation:
    """Everything one conversation needs before it starts; `connected` starts it."""

    context: Context
    server: Endpoint
    settings: ClientSettings
    chain: Chain
    flags: AnswerFlags
    hops: Plan | None = None
    max_rounds: int = 10
    tasks: TaskSettings = field(default_factory=TaskSettings)
    recorded: bool = False
    """The era is the recorded one, spoken without a probe (replay of a 2026-07-28 transcript)."""
    awaited_unprompted: frozenset[str] = frozenset()
    """Older era: the methods a recording saw the server ask unprompted (`Session.awaited_unprompted`)."""
    connection: Connection | None = None

    @property
    def target(self) -> Target:
        return self.server.target

    def again(self, *, headers: dict[str, str] | None = None, chain: Chain | None = None,
              capabilities: meta.Capabilities | None = None, version: str | None = None,
              settings: ClientSettings | None = None, server: Endpoint | None = None,
              **target_settings: Any) -> Conversation:
        """This conversation with one thing changed: `headers` (another identity: no kept token,
        nothing shown), the answers (`chain`), the declared `capabilities`, the protocol `version`,
        all the client's `settings`, the instance (`server`), or a setting of the target
        (`no_auth=True`, `auth_stored_only=True`)."""
        chosen = server or self.server
        if headers is not None:
            chosen = chosen.as_principal(headers)
        if target_settings:
            chosen = chosen.changed(**target_settings)
        made = settings or self.settings
        if capabilities is not None or version is not None:
            made = dataclasses.replace(made, capabilities=capabilities or made.capabilities,
                                       version=version or made.version)
        return dataclasses.replace(self, server=chosen, settings=made, chain=chain or self.chain)

    @contextmanager
    def connected(self, linter: Linter | None = None) -> Iterator[Live]:
        """The conversation opened: connected anew (linted by `linter`, made here when none is given; the era
        chosen, the hops routed; all of it stopped at the end), or on the `connection` it was handed."""
        linter = linter or Linter(self.settings.capabilities, self.context.emit)
        with self._connection()(self.settings, self.chain, linter) as (client, instances, findings):
            yield Live(client, instances, self, findings)

    def client(self) -> AbstractContextManager[Client]:
        """A bare client on this conversation's server, in its settings: no era chosen, no linter (a
        probe's own request, a second identity's)."""
        @contextmanager
        def opened() -> Iterator[Client]:
            client = Client(self.server.open(), self.settings, self.context.emit)
            try:
                yield client
            finally:
                client.transport.close()

        return opened()

    def _connection(self) -> Connection:
        if self.connection is not None:
            return self.connection

        @contextmanager
        def connecting(settings: ClientSettings, chain: Chain,
                       linter: Linter) -> Iterator[tuple[Client, Optional[Instances], Findings]]:
            with connect(self.context, self.server, settings, chain=chain, recorded=self.recorded,
                         linter=linter) as client, routed(self.hops, client, self.server) as instances:
                yield client, instances, linter.told

        return connecting


def build(context: Context, options: TargetOptions, answering: AnsweringOptions, people: Sequence[Answerer] = (),
          *, tasks: TaskOptions | None = None, person: str = AT_TERMINAL, target: Target | None = None,
          connection: Connection | None = None) -> Conversation:
    """The conversation `options` name, answered by the flags, then `people` (`person`: how a person
    would come to answer, for the message when nothing answers); `tasks`: how a task is followed, and whether the tasks
    extension is declared (`--no-tasks`); `target`: the one the options resolved to already."""
    tasks = tasks or TaskOptions()
    chain, flags = build_chain(answering, options.timeout, people, person)
    server = Endpoint(target or resolve_target(options), options, context.output.verbose,
                      context.output.show_secrets)
    hops = plan(server) if connection is None else None
    settings = client_settings(options, answering, chain, declare_tasks=not tasks.no_tasks)
    return Conversation(context, server, settings, chain, flags, hops, answering.max_rounds,
                        TaskSettings(tasks.poll_interval, tasks.task_timeout,
                                     listen=http_url(server.target) is not None), connection=connection)


def client_settings(target: TargetOptions, answering: AnsweringOptions | None = None,
                    chain: Chain | None = None, declare_tasks: bool = True) -> ClientSettings:
    """The client's settings; `chain`: what answers questions (none: nothing does); `declare_tasks`:
    whether the tasks extension is declared (`--no-tasks`: not)."""
    answering = answering or AnsweringOptions()
    capabilities = meta.Capabilities(elicitation=not answering.no_elicitation,
                                     sampling=not answering.no_sampling, roots=not answering.no_roots,
                                     roots_answerable=chain is not None and chain.offers_roots(), tasks=declare_tasks)
    return ClientSettings(
        identity=meta.ClientIdentity("mrtr", __version__),
        capabilities=capabilities,
        version=target.protocol_version or meta.LATEST_VERSION,
        version_fixed=target.protocol_version is not None,
        log_level=answering.log_level,
        timeout=target.timeout,
    )


@contextmanager
def connect(context: Context, server: Endpoint, settings: ClientSettings, probe: bool = True,
            chain: Chain | None = None, recorded: bool = False, linter: Linter | None = None) -> Iterator[Client]:
    """A client on a live transport to the server, linted, in the era conversation/era.py chose;
    the transport is shut down afterwards. `chain` answers the server's own requests in the older
    era (none given: nothing is answered, and a request outside a call gets an error). The era may
    start a stdio server once more: it opens the endpoint itself (`Endpoint.open`).

    `probe=False`: the `discover` command sends server/discover itself (modern era); `recorded`:
    replay of a 2026-07-28 transcript speaks its era without a probe (conversation/era.py); `linter`: the
    one that lints it (made here when none is given).
    """
    from mrtr_cli.conversation.era import choose_era

    context.emit.subscribe(linter or Linter(settings.capabilities, context.emit))
    client = Client(server.open(), settings, context.emit)
    try:
        choose_era(client, era_flags(server.options), server.open, chain or Chain([]),
                   probes=server.target.probes_era, discovers=probe, recorded=recorded)
        yield client
    finally:
        client.transport.close()


def unsent(method: str, params: dict[str, Any]) -> Outcome:
    """The outcome of a conversation before anything is sent: aborted until the server answers."""
    return Outcome(method, params)


def failed(outcome: Outcome, error: MrtrError | KeyboardInterrupt, emit: events.Observer,
           findings: Sequence[events.Finding] = ()) -> Outcome:
    """`outcome`, ended by `error` outside the session (before the request was sent, Ctrl-C while
    connecting), with the `findings` of the conversation so far, and said to the observers as the session
    says its own."""
    failure = error if isinstance(error, MrtrError) else interruption(error)
    outcome.status, outcome.error, outcome.findings = status_of(failure), failure, list(findings)
    emit(events.OutcomeReached(outcome))
    return outcome


def corrected(outcome: Outcome, error: MrtrError | None = None, advice: list[str] | None = None) -> Outcome:
    """`outcome` with its failure told better (`error`: what the command found out about it after the
    session, e.g. a requestState another instance refused) or `advice` shown after it."""
    if error is not None:
        outcome.error = error
    if advice is not None:
        outcome.advice = advice
    return outcome


@contextmanager
def hold(conversation: Conversation, call: CallOptions, *, recording: RecordingOptions | None = None,
         answers_file: str | None = None, tasks: TaskOptions = TaskOptions(),
         resuming: KeptTask | None = None) -> Iterator[Outcome]:
    """One request and its whole conversation, every failure kept in the outcome it yields. The command shows
    the outcome in the block: before the server is stopped when the conversation ended with the server still
    running (a slow-exiting server does not hold the result back), after it otherwise. `tasks`: how a task the
    server makes of it is followed, what Ctrl-C does to it (kept over HTTP: commands/task_interrupt.py), and in
    the older era whether the call asks for one; `resuming`: no request is sent, the task it names (made
    earlier) is followed instead. `recording`: --record (never `answers_file`, which --answers reads), --html,
    --har."""
    context, target = conversation.context, conversation.target
    if recording is not None and recording.record:
        from mrtr_cli.transcript.recorder import make_recorder

        if files.same_file(recording.record, answers_file):
            raise UsageError(f"--record {recording.record!r} is the answers file that --answers reads: the recording "
                             "would replace it", "record to another file")
        context.emit.subscribe(make_recorder(recording, target.transcript_entry(), conversation.settings,
                                             context.emit))
    paged = _page_builder(context, recording, target.transcript_entry(), conversation.settings)
    watch = watch_tasks(context, target, call, tasks, resuming)
    outcome = unsent(call.method, {NAMED_METHODS[call.method]: call.name})
    linter = Linter(conversation.settings.capabilities, context.emit)  # its findings, should connecting fail
    live: Live | None = None
    with ExitStack() as server:
        try:
            outcome.params = request_params(call, Preparation())  # kept should the server fail before it is sent
            live = server.enter_context(conversation.connected(linter))
            outcome = _converse(live, call, tasks.task, resuming)
            corrected(outcome, settle(watch, live.client, outcome, conversation.server.options.timeout),
                      after_failure(live.client, outcome) if resuming is None else [])
        except (MrtrError, KeyboardInterrupt) as error:
            failure = _stopped(server, error)
            failed(outcome, failure, context.emit, (linter.told if live is None else live.findings)())
        yield outcome
    show_unfinished(context, watch, outcome)
    if paged is not None and recording is not None and recording.html:
        write_conversation_page(recording.html, f"mrtr {call.method} {call.name}", [(call.name, paged.document())],
                                recording.show_state)
    if paged is not None and recording is not None and recording.har:
        write_exchanges(recording.har, [exchanged(paged, context.output.show_secrets)], context.output.show_secrets)


def _converse(live: Live, call: CallOptions, as_a_task: bool, resuming: KeptTask | None) -> Outcome:
    """The request, prepared (its arguments typed by the schema; in the older era, made a task when the tool
    requires it or `as_a_task` asks), and its whole conversation; or the task `resuming` names, followed."""
    session = live.session()
    if resuming is not None:
        return session.follow_task(resuming.task_id, call.method, request_params(call, Preparation()))
    prepared = prepare_call(session.client, live.conversation.target, call.method, call.name,
                            needs_schema=bool(call.arguments))
    params = as_task(session.client, call.method, request_params(call, prepared), prepared.task_support, as_a_task)
    warn_missing_arguments(live.conversation.context, call.name,
                           missing_arguments(prepared.schema, params.get("arguments")))
    return session.run(call.method, params, prepared.mirrored)


def _stopped(server: ExitStack, error: MrtrError | KeyboardInterrupt) -> MrtrError | KeyboardInterrupt:
    """`error`, once the server it ended the conversation on is stopped; or the failure stopping it raised
    instead, as a `with` would tell it."""
    try:
        server.close()
    except (MrtrError, KeyboardInterrupt) as stopping:
        return stopping
    return error


def request_params(call: CallOptions, prepared: Preparation) -> dict[str, Any]:
    """The request's params; `-a` values typed by the tool's schema when the preparation read it
    (unprepared, by none: the request as meant)."""
    if call.method == "tools/call":
        return {"name": call.name, "arguments": tool_arguments(call.arguments, call.args_json, prepared.schema)}
    if call.method == "prompts/get":
        return {"name": call.name, "arguments": prompt_arguments(call.arguments, call.args_json)}
    return {"uri": call.name}


def _page_builder(context: Context, recording: RecordingOptions | None, target: dict[str, Any],
                  settings: ClientSettings) -> Any:
    """With --html or --har: a transcript built in memory (redacted as --record's), for the page or
    the log at the end; --har over stdio is exit 1 (there are no HTTP exchanges)."""
    if recording is None or not (recording.html or recording.har):
        return None
    if recording.har and not target.get("url"):
        raise UsageError("--har writes HTTP exchanges, and this server is not reached over HTTP",
                         "give --url URL (or a --config entry with a url), or drop --har")
    files.check_writable(recording.har, "--har")
    from mrtr_cli.transcript.recorder import TranscriptBuilder
    from mrtr_cli.transcript.redact import Redaction

    files.check_writable(recording.html, "--html")
    builder = TranscriptBuilder(target, settings.version, settings.capabilities.declared(),
                                Redaction.from_flags(list(recording.redact)))
    context.emit.subscribe(builder)
    return builder


def exchanged(builder: Any, show_secrets: bool) -> dict[str, Any]:
    """What --har shows of a conversation (a TranscriptBuilder's): redacted as a transcript, its secret
    headers as sent with --show-secrets."""
    document: dict[str, Any] = builder.document_with_credentials() if show_secrets else builder.document()
    return document


def write_exchanges(path: str, documents: list[dict[str, Any]], secrets_shown: bool = False) -> None:
    """The --har log of conversations over HTTP (render/har.py, loaded only for --har); `secrets_shown`:
    the documents hold their secret headers (--show-secrets)."""
    from mrtr_cli.render.har import har_log, write_log

    write_log(path, har_log(documents, secrets_shown))


def write_conversation_page(path: str, title: str, documents: list[tuple[str, dict[str, Any]]],
                            show_state: bool) -> None:
    """The --html page of conversations (render/html_page.py, loaded only for --html)."""
    from mrtr_cli.render.html_page import conversations, page, write_page

    write_page(path, page(title, conversations(documents, show_state)))
