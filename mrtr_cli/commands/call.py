"""`mrtr call`, `mrtr read`, `mrtr prompt`: one request and its whole MRTR conversation."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, Optional

from mrtr_cli import events, files
from mrtr_cli.answering.chain import AnswerFlags, build_chain
from mrtr_cli.answering.questions import Answerer, Chain
from mrtr_cli.arguments import prompt_arguments, tool_arguments
from mrtr_cli.conversation.older_tasks import as_task
from mrtr_cli.conversation.preparation import Preparation, after_failure, missing_arguments, prepare_call
from mrtr_cli.commands.common import (Context, client_settings, connect, guarded, person_answerer,
                                      person_at_terminal, warn_missing_arguments, warn_unused_flags)
from mrtr_cli.commands.hops import Plan, opener, plan, routed
from mrtr_cli.errors import MrtrError, UsageError, interruption
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.commands.task_interrupt import settle, show_unfinished, watch_tasks
from mrtr_cli.options import AnsweringOptions, CallOptions, OutputOptions, RecordingOptions, TargetOptions, TaskOptions
from mrtr_cli.protocol.headers import NAMED_METHODS
from mrtr_cli.render.outcome import failure_message, print_outcome
from mrtr_cli.conversation.client import Client, ClientSettings
from mrtr_cli.conversation.eras import era_named
from mrtr_cli.conversation.instances import Instances
from mrtr_cli.conversation.session import Outcome, Session, status_of
from mrtr_cli.conversation.task_follower import TaskSettings
from mrtr_cli.target import Target, http_url, resolve_target

if TYPE_CHECKING:
    from mrtr_cli.kept_tasks import KeptTask  # loaded only where a task is kept or resumed


def run(call: CallOptions, target: TargetOptions, answering: AnsweringOptions, output: OutputOptions,
        recording: RecordingOptions, tasks: TaskOptions = TaskOptions()) -> int:
    return guarded(output, lambda context: _converse(context, call, target, answering, recording, tasks))


def _converse(context: Context, call: CallOptions, options: TargetOptions, answering: AnsweringOptions,
              recording: RecordingOptions, tasks: TaskOptions) -> ExitCode:
    outcome, _ = hold_conversation(context, call, options, answering, people_to_ask(context, answering), recording,
                                   finisher(context, answering, recording.record), tasks)
    return outcome.exit_code(context.output.strict)


def finisher(context: Context, answering: AnsweringOptions, record: str | None = None) -> Finish:
    """What `call` does with its outcome: the unused answer flags warned of, --save-answers written,
    how to continue a paused conversation said (from `record`, its transcript), the outcome shown."""
    def finish(outcome: Outcome, flags: AnswerFlags) -> None:
        warn_unused_flags(context, flags.unused(), flags.likely_questions())
        if answering.save_answers:
            from mrtr_cli.answering.save import save_answers

            save_answers(answering.save_answers, outcome.rounds)
        say_how_to_continue(outcome, record)
        show_outcome(context, outcome)

    return finish


Connection = Callable[[ClientSettings, Chain], AbstractContextManager[tuple[Client, Optional[Instances]]]]
"""How a conversation reaches its server, given the client's settings and the chain that answers the
server's own requests: a client (and the instances its rounds go to, with --replica or
--restart-between-rounds). By default a new connection per conversation (`connect_anew`); `mrtr
shell` hands its one live client to every conversation (commands/shell_session.py)."""

Finish = Callable[[Outcome, AnswerFlags], None]
"""What a command does with the outcome, called once: before the server is stopped when the
conversation ended with the server still running (a slow-exiting server does not hold the
result back), after it otherwise."""


def hold_conversation(context: Context, call: CallOptions, options: TargetOptions, answering: AnsweringOptions,
                      people: list[Answerer], recording: RecordingOptions | None = None,
                      finish: Finish | None = None, tasks: TaskOptions = TaskOptions(),
                      resuming: KeptTask | None = None,
                      connection: Connection | None = None) -> tuple[Outcome, AnswerFlags]:
    """One request and its whole conversation, answered by the flags, then `people`; every
    failure is kept in the outcome, which `finish` gets. `tasks`: how a task the server makes of it is
    followed (and, in the older era, whether the call asks for one); it is kept over HTTP, and what Ctrl-C leaves
    of it said (commands/task_interrupt.py). `resuming`: no request is sent, the task it names (made by `call`) is
    followed instead. `connection`: how the server is reached (none: connected anew, stopped after)."""
    chain, flags = build_chain(answering, options.timeout, people)
    target = resolve_target(options)
    hops = plan(options, target)
    settings = client_settings(options, answering, chain, declare_tasks=not tasks.no_tasks)
    if recording is not None and recording.record:
        from mrtr_cli.transcript.recorder import make_recorder

        if files.same_file(recording.record, answering.answers_file):
            raise UsageError(f"--record {recording.record!r} is the answers file that --answers reads: the recording "
                             "would replace it", "record to another file")
        context.emit.subscribe(make_recorder(recording, target.transcript_entry(), settings, context.emit))
    paged = _page_builder(context, recording, target.transcript_entry(), settings)
    watch = watch_tasks(context, target, call, tasks, resuming)
    outcome = Outcome(call.method, {NAMED_METHODS[call.method]: call.name})
    shown = False
    try:
        outcome.params = request_params(call, Preparation())  # kept should the server fail before it is sent
        connecting = connection or connect_anew(context, target, options, hops)
        with connecting(settings, chain) as (client, instances):
            session = Session(client, chain, max_rounds=answering.max_rounds, instances=instances,
                              tasks=TaskSettings(tasks.poll_interval, tasks.task_timeout,
                                                 listen=http_url(target) is not None))
            if resuming is not None:
                outcome = session.follow_task(resuming.task_id, call.method, outcome.params)
            else:
                outcome = _send(context, session, target, call, tasks.task)
            settle(watch, client, outcome, options.timeout)
            outcome.advice = after_failure(client, outcome) if resuming is None else []
            if finish is not None:
                shown = True
                finish(outcome, flags)
    except (MrtrError, KeyboardInterrupt) as error:
        if shown:
            raise  # the outcome was shown: this failure is the stop's, or showing it failed
        failure = error if isinstance(error, MrtrError) else interruption(error)
        outcome.status, outcome.error = status_of(failure), failure
        context.emit(events.OutcomeReached(outcome))
    if finish is not None and not shown:
        finish(outcome, flags)
    show_unfinished(context, watch, outcome)
    if paged is not None and recording is not None and recording.html:
        write_conversation_page(recording.html, f"mrtr {call.method} {call.name}", [(call.name, paged.document())],
                                recording.show_state)
    if paged is not None and recording is not None and recording.har:
        write_exchanges(recording.har, [exchanged(paged, context.output.show_secrets)], context.output.show_secrets)
    return outcome, flags


def connect_anew(context: Context, target: Target, options: TargetOptions, hops: Plan | None) -> Connection:
    """A connection made for one conversation: the target opened, its era chosen, its hops routed;
    all of it stopped when the conversation ends."""
    @contextmanager
    def connecting(settings: ClientSettings, chain: Chain) -> Iterator[tuple[Client, Optional[Instances]]]:
        opening = opener(options, context.output.verbose, context.output.show_secrets)
        with connect(context, target, options, settings, chain=chain) as client, \
                routed(hops, client, target, opening) as instances:
            yield client, instances

    return connecting


def _page_builder(context: Context, recording: RecordingOptions | None, target: dict[str, Any],
                  settings: Any) -> Any:
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


def _send(context: Context, session: Session, target: Target, call: CallOptions, as_a_task: bool) -> Outcome:
    """The request, prepared (its arguments typed by the schema; in the older era, made a task when the tool
    requires it or `as_a_task` asks), and its whole conversation."""
    prepared = prepare_call(session.client, target, call.method, call.name, needs_schema=bool(call.arguments))
    params = as_task(session.client, call.method, request_params(call, prepared), prepared.task_support, as_a_task)
    warn_missing_arguments(context, call.name, missing_arguments(prepared.schema, params.get("arguments")))
    return session.run(call.method, params, prepared.mirrored)


def say_how_to_continue(outcome: Outcome, record: str | None) -> None:
    """A 2026-07-28 conversation that stopped at a question (exit 7) can be answered later from its transcript:
    the hint names the `mrtr answer` command, or says to record it (an older-era one waits in its session, and
    a task on its server: neither is continued from a file)."""
    error = outcome.error
    if error is None or error.exit_code != ExitCode.INCOMPLETE or outcome.task is not None \
            or era_named(outcome.era).handshake:
        return
    if not outcome.rounds or outcome.rounds[-1].result_type != "input_required":
        return
    import shlex

    error.hint += (f"; to answer it later: mrtr answer {shlex.quote(record)}" if record else
                   "; add --record FILE to be able to continue it later with mrtr answer FILE")


def people_to_ask(context: Context, answering: AnsweringOptions) -> list[Answerer]:
    """The interactive answerer, when a person can be asked."""
    if answering.no_input or not person_at_terminal():
        return []
    context.timeline.prompts_show_questions = True
    return [person_answerer(context, answering.sampling_model)]


def request_params(call: CallOptions, prepared: Preparation) -> dict[str, Any]:
    """The request's params; `-a` values typed by the tool's schema when the preparation read it
    (unprepared, by none: the request as meant)."""
    if call.method == "tools/call":
        return {"name": call.name, "arguments": tool_arguments(call.arguments, call.args_json, prepared.schema)}
    if call.method == "prompts/get":
        return {"name": call.name, "arguments": prompt_arguments(call.arguments, call.args_json)}
    return {"uri": call.name}


def show_outcome(context: Context, outcome: Outcome) -> ExitCode:
    """The result (with --json: the document), the status, and the exit code it makes."""
    code = outcome.exit_code(context.output.strict)
    if context.output.json:
        from mrtr_cli.render import json_report  # with the transcript's report view: --json only

        context.print_json(json_report.conversation(outcome))
    print_outcome(context.consoles, outcome, result=not context.output.json)
    if code != ExitCode.OK and context.output.json:
        context.error_line(code, failure_message(outcome, code))
    return code
