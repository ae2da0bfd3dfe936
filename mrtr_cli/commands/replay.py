"""`mrtr replay FILE...`: run each transcript again against a live server and report divergence.

Judged on the comparison alone (docs/commands/recordings.md, "replay"): 130, 143, 129, 1, 4 and 7 as for a
call, then 6 on any difference, else 0.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.fileio import files, yaml_dumper
from mrtr_cli.render import json_report
from mrtr_cli.answering.chain import AnswerFlags
from mrtr_cli.commands.common import (Context, era_flags, guarded, make_context, server_named, person_answerer,
                                      person_at_terminal, warn_unused_flags)
from mrtr_cli.commands.conversation_builder import build, failed, unsent
from mrtr_cli.commands.replay_jobs import STOPPED, Replayed, replay_many
from mrtr_cli.errors import HopRefused, MrtrError, ProtocolError, UsageError, interruption
from mrtr_cli.conversation.events import Broadcast
from mrtr_cli.exit_codes import ExitCode, decide
from mrtr_cli.definition.options import AnsweringOptions, OutputOptions, TargetOptions, TaskOptions
from mrtr_cli.render.diagnostics import warning_line
from mrtr_cli.render.replay_report import load_lines, summary_table, verdict_lines
from mrtr_cli.conversation.client import Client
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.conversation.era import asks_for_handshake, leaves_spoken
from mrtr_cli.conversation.eras import Era
from mrtr_cli.conversation.preparation import prepare_call
from mrtr_cli.targets.target import resolve_target, sharing_server
from mrtr_cli.transcript import model
from mrtr_cli.transcript.recorded_answerer import RecordedAnswerer
from mrtr_cli.transcript.across_eras import compare_conversations
from mrtr_cli.transcript.compare import matched_nothing, unmatched_warning
from mrtr_cli.transcript.task_record import is_resumed
from mrtr_cli.transcript.paths import JsonPath, parse_path
from mrtr_cli.transcript.recorder import TranscriptBuilder
from mrtr_cli.transcript.redact import Redaction
from mrtr_cli.transcript.replay_setup import recorded_capabilities, recorded_era, replay_params, replay_target
from mrtr_cli.transcript.replay_verdict import ReplayVerdict, load_figures
from mrtr_cli.text import safe_line
from mrtr_cli.transcript.rounds import unprompted_methods
from mrtr_cli.transport.shared import ServerPool, keep

ASK_A_PERSON = "replay at a terminal with --interactive"
"""How a person comes to answer what the recording does not (the hint when nothing answers)."""
EACH_OWN = "the server each transcript recorded"
"""What the reports name as the server when no target flags are given (each transcript's own)."""
LIVE_FAILURES = STOPPED | {ExitCode.USAGE, ExitCode.UNREACHABLE, ExitCode.INCOMPLETE}
"""Live failures that decide replay's exit code; any other difference is a divergence (6)."""


@dataclass(frozen=True)
class ReplayOptions:
    files: tuple[str, ...]
    arguments: tuple[str, ...] = ()
    interactive: bool = False
    update: bool = False
    ignore: tuple[str, ...] = ()
    trust_target: bool = False
    strict: bool = False
    junit: str | None = None
    sarif: str | None = None
    html: str | None = None
    show_state: bool = False
    har: str | None = None
    jobs: int = 1
    repeat: int = 1
    poll_interval: float | None = None
    """--poll-interval: how often a task is polled (None: the server's suggestion)."""
    task_timeout: float = 600.0
    """--task-timeout: how long a task is followed."""


def run(options: ReplayOptions, target: TargetOptions, answering: AnsweringOptions, output: OutputOptions) -> int:
    def body(context: Context) -> ExitCode:
        files.check_writable(options.junit, "--junit")
        files.check_writable(options.sarif, "--sarif")
        files.check_writable(options.html, "--html")
        files.check_writable(options.har, "--har")
        _har_over_http(options, target)
        _sarif_paths(options)
        ignore = [parse_path(path, "--ignore") for path in options.ignore]
        if options.jobs > 1 or options.repeat > 1:
            return _run_many(context, options, target, answering)
        verdicts = _replay_all(context, options, ignore, target, answering)
        for verdict in verdicts:
            _print_lines(context, verdict)
        warn_unused_flags(context, _unused_everywhere(verdicts))  # after the lines, as with --jobs (shown as done)
        if output.json:
            context.print_json({"version": json_report.VERSION, "transcripts": [v.as_dict() for v in verdicts]})
        elif len(verdicts) > 1:
            context.consoles.out.print(summary_table(verdicts))
        return _finish(context, verdicts, decide(v.code for v in verdicts), options, server_named(target, EACH_OWN))

    return guarded(output, body)


def _finish(context: Context, verdicts: list[ReplayVerdict], code: ExitCode, options: ReplayOptions,
            server: str) -> ExitCode:
    """The reports for CI (about `server`), and with --json the error line when not every transcript replayed
    the same."""
    _report_for_ci(context, verdicts, options, server)
    if options.html:
        _write_page(options.html, verdicts, options.show_state)
    if options.har:
        from mrtr_cli.commands.conversation_builder import write_exchanges

        write_exchanges(options.har, [verdict.live for verdict in verdicts if verdict.live is not None],
                        context.output.show_secrets)
    if code != ExitCode.OK and context.output.json:
        context.error_line(code, f"{sum(v.code != ExitCode.OK for v in verdicts)} of {len(verdicts)} "
                                 "transcripts did not replay the same")
    return code


def _run_many(context: Context, options: ReplayOptions, target: TargetOptions,
              answering: AnsweringOptions) -> ExitCode:
    """--jobs N and --repeat K: every run, each transcript shown once its runs and those before are
    done, then the figures of the whole run (round latency, conversations per second)."""
    _refuse_with_many(options, context.output)
    workers_ask_no_one = answering._replace(no_input=True) if options.jobs > 1 else answering
    replay = Replaying(options, target, workers_ask_no_one, context.output)
    replayed = replay_many(replay, options.files, options.jobs, options.repeat,
                           lambda verdict: _print_lines(context, verdict))
    figures = load_figures(options.jobs, options.repeat, replayed.runs, replayed.wall)
    warn_unused_flags(context, _unused_everywhere(replayed.runs))
    if context.output.json:
        context.print_json({"version": json_report.VERSION, "transcripts": [v.as_dict() for v in replayed.verdicts],
                            "load": figures.as_dict()})
    else:
        if len(replayed.verdicts) > 1:
            context.consoles.out.print(summary_table(replayed.verdicts))
        for line in load_lines(figures):
            context.consoles.out.print(line)
    return _finish(context, replayed.verdicts, _decided(replayed), options, server_named(target, EACH_OWN))


def _decided(replayed: Replayed) -> ExitCode:
    """The exit code of every run, and of what stopped them (Ctrl-C: 130, whatever the runs said)."""
    stop = [replayed.stop.exit_code] if replayed.stop is not None else []
    return decide([v.code for v in replayed.runs] + stop)


REFUSED_WITH_MANY = {
    "--interactive": ("no person answers a run of many conversations", "replay without {flag} to answer at the "
                      "terminal"),
    "--update": ("a transcript is rewritten from one live run", "replay without {flag} to rewrite the transcripts"),
    "--verbose": ("the timelines of conversations running together would interleave", "replay with -j 1 (the "
                  "default) to see each conversation's wire"),
}
"""The flags --jobs and --repeat refuse: why, and what to do instead (--verbose: only with --jobs above 1)."""


def _refuse_with_many(options: ReplayOptions, output: OutputOptions) -> None:
    flag = "--jobs" if options.jobs > 1 else "--repeat"
    given = {"--interactive": options.interactive, "--update": options.update,
             "--verbose": output.verbose and options.jobs > 1}
    for name, why in REFUSED_WITH_MANY.items():
        if given[name]:
            raise UsageError(f"{flag} cannot be used with {name}: {why[0]}", why[1].format(flag=flag))


@dataclass(frozen=True)
class Replaying:
    """One run of one transcript with the command's options: what each worker process is handed
    (picklable: options as plain values; in a worker, stdout and stderr lead nowhere)."""

    options: ReplayOptions
    target: TargetOptions
    answering: AnsweringOptions
    output: OutputOptions

    def __call__(self, path: str, pool: ServerPool) -> ReplayVerdict:
        ignore = [parse_path(text, "--ignore") for text in self.options.ignore]
        context = make_context(self.output)
        return replay_timed(context, path, self.options, ignore, self.target, self.answering, pool)


def _replay_all(context: Context, options: ReplayOptions, ignore: list[JsonPath], target: TargetOptions,
                answering: AnsweringOptions) -> list[ReplayVerdict]:
    """Each transcript in turn, until one is stopped by Ctrl-C, SIGTERM or SIGHUP."""
    verdicts, pool = [], ServerPool()  # --demo: one demo server for the run's modern-era transcripts
    try:
        for path in options.files:
            verdicts.append(replay_timed(context, path, options, ignore, target, answering, pool))
            if verdicts[-1].code in STOPPED:
                break
    finally:
        pool.close()
    return verdicts


def replay_timed(context: Context, path: str, options: ReplayOptions, ignore: list[JsonPath],
                 target: TargetOptions, answering: AnsweringOptions, pool: ServerPool | None = None) -> ReplayVerdict:
    """`replay_file`, with the time it took."""
    started = time.monotonic()
    verdict = replay_file(context, path, options, ignore, target, answering, pool)
    verdict.elapsed = time.monotonic() - started
    return verdict


def replay_file(context: Context, path: str, options: ReplayOptions, ignore: list[JsonPath],
                target: TargetOptions, answering: AnsweringOptions, pool: ServerPool | None = None) -> ReplayVerdict:
    """Replay one transcript; `pool` lends a server process that outlives it (the demo's)."""
    verdict = ReplayVerdict(path)
    try:
        transcript = model.load(path)
        _refuse_resumed(transcript)
        verdict.warnings = [unmatched_warning(unmatched, path)
                            for unmatched in matched_nothing(transcript.data, ignore)]
        live, builder, flags = _run_live(context, transcript, options, target, answering, pool, verdict.warnings)
    except MrtrError as error:
        verdict.code, verdict.error = error.exit_code, error
        return verdict
    except KeyboardInterrupt as raised:
        verdict.error = interruption(raised)
        verdict.code = verdict.error.exit_code
        return verdict
    verdict.rounds, verdict.unused_flags = len(live.rounds), flags.unused()
    document = builder.document()
    verdict.live = (builder.document_with_credentials() if context.output.show_secrets else document) \
        if options.har else None
    verdict.round_ms = [float(part["elapsed_ms"]) for part in document.get("rounds", []) if "elapsed_ms" in part]
    verdict.differences = compare_conversations(transcript.data, document, ignore, options.strict)
    failure = live.error.exit_code if live.error is not None else ExitCode.OK
    verdict.error = live.error if failure in LIVE_FAILURES else None
    verdict.cause = live.error if isinstance(live.error, HopRefused) or _before_the_call(live) else None
    verdict.code = failure if failure in LIVE_FAILURES else (ExitCode.DIVERGED if verdict.differences else ExitCode.OK)
    if options.update and verdict.code in (ExitCode.OK, ExitCode.DIVERGED) and verdict.cause is None:
        _rewrite(path, builder.document())
    return verdict


def _before_the_call(live: Outcome) -> bool:
    """Whether the live run failed before its request was sent (server/discover refused, say): that
    error is what made it diverge, named as a tools/call error is in its round."""
    return live.error is not None and not live.rounds


def _refuse_resumed(transcript: model.Transcript) -> None:
    """A transcript `mrtr tasks resume --record` wrote starts at a poll of a task that has ended: nothing to send
    again (exit 1)."""
    if is_resumed(transcript.data.get("task")):
        raise UsageError("this transcript starts at a resume (mrtr tasks resume --record): it has no request to "
                         "send again", "replay a transcript that `mrtr call --record` wrote; `mrtr show` draws this one")


def _run_live(context: Context, transcript: model.Transcript, options: ReplayOptions, target: TargetOptions,
              answering: AnsweringOptions, pool: ServerPool | None,
              warnings: list[str]) -> tuple[Outcome, TranscriptBuilder, AnswerFlags]:
    """The live run; `warnings` takes what the verdict must say besides (the era probed again)."""
    terminal = person_at_terminal() and not answering.no_input  # --no-input: never ask, not even consent
    person = options.interactive and terminal
    chosen = recorded_era(transcript, replay_target(transcript, target, options.trust_target,
                                                    _confirm if terminal else None))
    params = replay_params(transcript, options.arguments, _ask if person else None)
    emit = Broadcast([context.timeline] if context.output.verbose else [])
    live_context = dataclasses.replace(context, emit=emit)
    recorded = RecordedAnswerer(transcript)
    people = [person_answerer(live_context, answering.sampling_model)] if person else []
    resolved = resolve_target(chosen)
    conversation = build(live_context, chosen, answering, [recorded] + people, person=ASK_A_PERSON, target=resolved,
                         tasks=TaskOptions(poll_interval=options.poll_interval, task_timeout=options.task_timeout))
    if pool is not None and conversation.hops is None and not asks_for_handshake(era_flags(chosen)):
        conversation = conversation.again(server=dataclasses.replace(conversation.server,
                                                                     target=sharing_server(resolved, pool)))
    fixed = not chosen.protocol_version and leaves_spoken(era_flags(chosen), transcript.era)
    conversation = dataclasses.replace(conversation.again(
        capabilities=dataclasses.replace(recorded_capabilities(transcript),
                                         roots_answerable=conversation.chain.offers_roots()),
        version=transcript.data["protocol_version"] if fixed else None),  # the recorded version, in the recorded era
        recorded=not transcript.spoken.handshake and chosen.protocol_era == "auto" and not chosen.protocol_version,
        awaited_unprompted=frozenset(unprompted_methods(transcript.rounds)))
    settings = conversation.settings
    builder = TranscriptBuilder(resolved.transcript_entry(), settings.version, settings.capabilities.declared(),
                                Redaction.from_transcript(transcript.data.get("redacted", [])))
    emit.subscribe(builder)
    method = transcript.request["method"]
    outcome = unsent(method, params)
    try:
        with conversation.connected() as live:
            client = live.client
            recorded.follow(client)

            def converse() -> Outcome:
                prepared = prepare_call(client, resolved, method, str(params.get("name")), needs_schema=False)
                return live.session().run(method, params, prepared.mirrored)

            outcome = converse()
            if _refused_the_era(outcome, transcript) and client.era.on_refusal is not None:
                builder = _probed_again(client, emit, builder, outcome)
                warnings.append(_probed_note(transcript.path, client.era))
                if client.era.handshake:  # the server speaks the other era now: the migration check
                    outcome = converse()
            if outcome.error is None and not client.era.handshake and conversation.hops is None:
                keep(client.transport)  # every request answered: the next transcript may use this server
    except MrtrError as error:  # before the request was sent: compared like any other ending
        failed(outcome, error, emit)
    return outcome, builder, conversation.flags


def _write_page(path: str, verdicts: list[ReplayVerdict], show_state: bool) -> None:
    """--html FILE: each transcript's recorded rounds with the live run's differences beside them
    (render/html_page.py, loaded only then); one that cannot be read again, with why it did not replay."""
    from mrtr_cli.render.html_page import conversations, failure, page, write_page

    documents, unread = [], []
    for verdict in verdicts:
        try:
            documents.append((verdict.file, model.load(verdict.file).data))
        except MrtrError:
            unread.append(failure(f"{verdict.file}: {verdict.error.one_line() if verdict.error else 'not read'}"))
    differences = {verdict.file: verdict.differences for verdict in verdicts}
    write_page(path, page("mrtr replay", [*conversations(documents, show_state, differences), *unread]))


def _har_over_http(options: ReplayOptions, target: TargetOptions) -> None:
    """--har writes HTTP exchanges: a stdio server or the demo is exit 1 before any replay (the
    transcripts' own servers, without target flags, give the log only those that went over HTTP)."""
    if options.har and (target.command or target.demo):
        raise UsageError("--har writes HTTP exchanges, and this server is not reached over HTTP",
                         "give --url URL, or drop --har")


def _sarif_paths(options: ReplayOptions) -> None:
    """Before any replay, with --sarif: every transcript is a repository path (render/sarif.py), or exit 1."""
    if options.sarif is not None:
        from mrtr_cli.render.sarif import repository_path

        for path in options.files:
            repository_path(path)


def _refused_the_era(live: Outcome, transcript: model.Transcript) -> bool:
    """Whether the server refused the first request of a transcript's era spoken unprobed: it ended
    in an error on round 1 (or before it), where the recording's round 1 did not."""
    first = transcript.data["rounds"][0]["received"] if transcript.data.get("rounds") else {}
    refused = isinstance(live.error, ProtocolError) and len(live.rounds) <= 1 \
        and all(r.reply.error is not None for r in live.rounds)
    return refused and "error" not in first


def _probed_again(client: Client, emit: Broadcast, builder: TranscriptBuilder, refused: Outcome) -> TranscriptBuilder:
    """The era probed once, visibly (`Era.on_refusal`), after the server refused the recorded one; when
    it proves older, the conversation is held again, recorded afresh (the refused try is not the live run)."""
    assert client.era.on_refusal is not None and refused.error is not None
    emit(events.EraReprobed(f"the server refused the recorded era's {refused.method}: "
                            f"{safe_line(refused.error.message, 200)}"))
    again = TranscriptBuilder(builder.context["target"], client.settings.version, builder.context["capabilities"],
                              builder.redaction)
    _record_with(emit, builder, again)  # the probe's era and server go to the conversation held again
    client.era.on_refusal()
    if client.era.handshake:
        return again
    _record_with(emit, again, builder)  # it speaks the recorded era after all: the refusal stands
    return builder


def _probed_note(path: str, era: Era) -> str:
    """What the verdict says of the probe a refusal brought: it is no part of the recording."""
    then = "the conversation was held again in it" if era.handshake else "the refusal stands"
    return (f"! {safe_line(path, 200)}: the server refused the recorded era (2026-07-28), so mrtr probed it once: "
            f"it speaks the {era.name} era ({then})")


def _record_with(emit: Broadcast, before: TranscriptBuilder, after: TranscriptBuilder) -> None:
    """The live run is recorded by `after` from now on, not by `before`."""
    emit.unsubscribe(before)
    emit.subscribe(after)


def _report_for_ci(context: Context, verdicts: list[ReplayVerdict], options: ReplayOptions, server: str) -> None:
    """The JUnit report (--junit), the SARIF log (--sarif, about `server`), and GitHub Actions annotations on
    stderr when run there; the XML and SARIF code loads only when asked for."""
    junit = options.junit
    from mrtr_cli.render.annotations import replay_annotations
    from mrtr_cli.process.workflow_commands import in_github_actions, write_commands

    if junit:
        from mrtr_cli.render.junit import replay_suite, write_report

        write_report(junit, replay_suite(verdicts))
    if options.sarif:
        from mrtr_cli.render.sarif import replay_log, write_log

        write_log(options.sarif, replay_log(verdicts, lambda path, difference: model.round_line(path, difference.round),
                                            server))
    if in_github_actions():
        lines = replay_annotations(verdicts, lambda path, first: model.round_line(path, first.round))
        write_commands(context.consoles.err.file, lines)


def _unused_everywhere(verdicts: list[ReplayVerdict]) -> list[str]:
    """The answer flags that no question of any live run used."""
    runs = [v.unused_flags for v in verdicts if v.unused_flags is not None]
    return [flag for flag in runs[0] if all(flag in unused for unused in runs)] if runs else []


def _confirm(message: str) -> bool:
    from mrtr_cli.answering.interactive import confirm

    return confirm(message)


def _ask(message: str) -> str:
    from mrtr_cli.answering.interactive import ask_value

    return ask_value(message)


def _rewrite(path: str, document: dict[str, Any]) -> None:
    """Replace the transcript with the live run, atomically, readable by its owner only (through a
    symbolic link: its target)."""
    files.replace_text(path, yaml_dumper.dumps(document), "--update")


def _print_lines(context: Context, verdict: ReplayVerdict) -> None:
    """The verdict's lines (none with --json: the document says it), then its warnings."""
    for line in [] if context.output.json else verdict_lines(verdict):
        context.consoles.err.print(line)
    for warning in verdict.warnings:
        context.consoles.err.print(warning_line(warning))
