"""`mrtr answer FILE.yaml`: continue a paused conversation from its file; `mrtr answer --list DIR`: the paused ones.

The retry is the recorded request with the paused round's answers and its `requestState` byte for byte, sent
with the recorded capabilities and protocol version (no era probe) to the recorded target or the one named
(another instance is the point). The file is then rewritten whole, its earlier rounds kept as they were
(transcript/paused.py); `--record OTHER` writes the whole conversation there instead. Exits as `call`.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mrtr_cli import __version__
from mrtr_cli.fileio import files
from mrtr_cli.commands.call import people_to_ask, say_how_to_continue, show_outcome
from mrtr_cli.commands.common import Context, guarded, warn_unused_flags
from mrtr_cli.commands.conversation_builder import Connection, build, corrected, failed, unsent
from mrtr_cli.commands.hops import REPLICA_HINT, RESTART_HINT
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.conversation.task_follower import TaskSettings
from mrtr_cli.errors import HopRefused, MrtrError, ServerError, UsageError
from mrtr_cli.conversation.events import Broadcast, EraChosen, Observer
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.options import AnsweringOptions, OutputOptions, RecordingOptions, TargetOptions
from mrtr_cli.protocol import meta
from mrtr_cli.protocol.headers import header_params
from mrtr_cli.targets.target import http_url, resolve_target
from mrtr_cli.transcript import model, paused as pausing
from mrtr_cli.transcript.recorder import TranscriptBuilder, utc_now
from mrtr_cli.transcript.redact import Redaction
from mrtr_cli.transcript.replay_setup import recorded_capabilities, replay_params, replay_target
from mrtr_cli.transcript.rounds import answer_data, round_from_data


@dataclass(frozen=True)
class AnswerOptions:
    file: str | None = None
    list_dir: str | None = None
    arguments: tuple[str, ...] = ()
    trust_target: bool = False


CHANGING_FLAGS = (("protocol_version", "--protocol-version"), ("no_discover", "--no-discover"),
                  ("replicas", "--replica"), ("restart_between_rounds", "--restart-between-rounds"))
WITHHOLDING = (("no_elicitation", "--no-elicitation"), ("no_sampling", "--no-sampling"), ("no_roots", "--no-roots"))
"""Flags that would change what the retry declares or speaks, or where its rounds go: a paused conversation
goes on as it began."""


def run(options: AnswerOptions, target: TargetOptions, answering: AnsweringOptions, output: OutputOptions,
        recording: RecordingOptions) -> int:
    def body(context: Context) -> ExitCode:
        if options.list_dir is not None:
            return list_paused(context, options.list_dir)
        if options.file is None:
            raise UsageError("mrtr answer needs a paused transcript", "give FILE.yaml (one `mrtr call --record` "
                             "wrote), or --list DIR to see the paused ones")
        return answer_paused(context, options.file, options, target, answering, recording)

    return guarded(output, body)


def _refuse_changing_flags(target: TargetOptions, answering: AnsweringOptions) -> None:
    given = [flag for field, flag in CHANGING_FLAGS if getattr(target, field)]
    given += ["--protocol-era"] if target.protocol_era != "auto" else []
    given += [flag for field, flag in WITHHOLDING if getattr(answering, field)]
    if given:
        raise UsageError(f"{given[0]} would change how the paused conversation goes on: its retry is sent with the "
                         "recorded protocol version and client capabilities, to one target",
                         f"leave out {given[0]} (name another instance with --url or --stdio)")


def answer_paused(context: Context, path: str, options: AnswerOptions, target: TargetOptions,
                  answering: AnsweringOptions, recording: RecordingOptions,
                  connection: Holding | None = None) -> ExitCode:
    """Load, continue, keep: the one place the answer command holds a conversation. `connection`: a live client
    to continue it on (`mrtr shell`'s, whose target it is; none: the recorded target or the one named, connected
    for this conversation)."""
    _refuse_changing_flags(target if connection is None else TargetOptions(), answering)
    paused = pausing.load_paused(path)
    if recording.record:
        files.check_writable(recording.record, "--record")
    outcome, builder, sent = _continue(context, paused, options, target, answering, connection)
    if sent:
        _keep(paused, builder, recording.record or path, "--record" if recording.record else "FILE")
    if answering.save_answers:
        from mrtr_cli.answering.save import save_answers

        save_answers(answering.save_answers, outcome.rounds)  # every round's, the recorded ones too
    say_how_to_continue(outcome, recording.record if recording.record and sent else path)
    return show_outcome(context, outcome)


def _continue(context: Context, paused: pausing.Paused, options: AnswerOptions, target: TargetOptions,
              answering: AnsweringOptions,
              connection: Holding | None = None) -> tuple[Outcome, TranscriptBuilder, bool]:
    """The conversation from the paused round on; whether a new round was sent (else the file stays as it was)."""
    transcript = paused.transcript
    person = people_to_ask(context, answering)
    chosen = target if connection else replay_target(transcript, target, options.trust_target,
                                                     _confirm if person else None)
    chosen = chosen._replace(protocol_era="modern", protocol_version=transcript.data["protocol_version"],
                             no_discover=True)  # the recorded era: no probe, over stdio either
    params = replay_params(transcript, options.arguments, None)
    emit = Broadcast([_as_recorded(context.timeline, transcript.path)])
    live = dataclasses.replace(context, emit=emit)
    conversation = build(live, chosen, answering, person, target=resolve_target(chosen),
                         connection=connection(live) if connection is not None else None)
    conversation = dataclasses.replace(  # as it began: the recorded capabilities; tasks followed by the defaults
        conversation.again(capabilities=_as_declared(transcript, conversation.chain.offers_roots())),
        tasks=TaskSettings())
    resolved, settings, flags = conversation.target, conversation.settings, conversation.flags
    builder = _builder(paused, resolved.transcript_entry(), settings.version, settings.capabilities.declared())
    emit.subscribe(builder)
    method = transcript.request["method"]
    outcome = unsent(method, params)
    schema = (transcript.data.get("tool") or {}).get("inputSchema")
    try:
        with conversation.connected() as opened:
            mirrored = header_params(schema) if resolved.mirrors_headers and isinstance(schema, dict) else {}
            recorded = [round_from_data(method, entry) for entry in transcript.rounds]
            outcome = opened.session().run(method, params, mirrored, paused=recorded)
    except MrtrError as error:  # before the retry was sent
        failed(outcome, error, emit)
    warn_unused_flags(context, flags.unused(), flags.likely_questions())
    refused = _state_refused(outcome, paused, http_url(resolved))
    corrected(outcome, refused)
    return outcome, builder, len(outcome.rounds) > paused.number and refused is None


Holding = Callable[[Context], Connection]
"""A live connection for the continued conversation (`mrtr shell`'s), given the context its events go to."""


def _as_declared(transcript: model.Transcript, roots_answerable: bool) -> meta.Capabilities:
    """The capabilities the recording declared, its elicitation modes too (`{}`: form alone)."""
    capabilities = recorded_capabilities(transcript)
    elicitation = transcript.data["client_capabilities"].get("elicitation")
    modes = tuple(mode for mode in ("form", "url") if mode in elicitation) if isinstance(elicitation, dict) else ()
    return dataclasses.replace(capabilities, roots_answerable=roots_answerable, elicitation_modes=modes or ("form",))


def _as_recorded(observer: Observer, path: str) -> Observer:
    """`observer`, told that the era is the recorded one (the options fix the version only to speak it)."""
    def see(event: Any) -> None:
        observer(event._replace(reason=f"as {path} recorded it (no era probe)") if isinstance(event, EraChosen)
                 else event)

    return see


def _builder(paused: pausing.Paused, target: dict[str, Any], version: str,
             capabilities: dict[str, Any]) -> TranscriptBuilder:
    """A transcript builder that goes on from the file: its header and earlier rounds as loaded, the paused
    round's answers kept as they are chosen."""
    transcript = paused.transcript
    builder = _Continuing(paused.number, target, version, capabilities,
                          Redaction.from_transcript(transcript.data.get("redacted", [])))
    builder.top, builder.request = pausing.header_of(transcript), transcript.request
    builder.rounds = [dict(entry) for entry in transcript.rounds]
    builder.rounds[-1]["answers"] = {}
    builder.continued = pausing.continuation(transcript, utc_now(), f"mrtr {__version__}", target)
    return builder


class _Continuing(TranscriptBuilder):
    """The builder of a continued conversation: the paused round (already written) gains its answers."""

    def __init__(self, number: int, *args: Any) -> None:
        super().__init__(*args)
        self.paused = number
        self.continued: list[dict[str, Any]] = []

    def _answer(self, event: Any) -> None:
        if event.round == self.paused and not event.unprompted:
            entry = self.rounds[self.paused - 1]
            entry["answers"] = {**entry["answers"], event.key: answer_data(event)}
            self.rounds[self.paused - 1] = self.redaction.document(entry, self.paused - 1)
            return
        super()._answer(event)


def _keep(paused: pausing.Paused, builder: TranscriptBuilder, path: str, flag: str) -> None:
    """The whole conversation, written beside `path` and renamed into place (0600)."""
    continued = builder.continued if isinstance(builder, _Continuing) else []
    ending = {"continued": continued, **builder.ending}
    text = pausing.continued_text(paused, builder.rounds[paused.number - 1:], ending)
    files.replace_text(path, text, flag)


def _state_refused(outcome: Outcome, paused: pausing.Paused, url: str | None) -> MrtrError | None:
    """The first retry refused: the server refused the old state; said so, with its age."""
    first_retry = len(outcome.rounds) == paused.number + 1
    if not isinstance(outcome.error, ServerError) or not first_retry or outcome.rounds[-1].reply.error is None:
        return None
    age = pausing.age(paused.state_since, datetime.datetime.now(datetime.timezone.utc))
    where = url.split("//", 1)[-1].split("/", 1)[0] if url else "a new server process"
    why = REPLICA_HINT if url else RESTART_HINT
    return HopRefused(outcome.method, outcome.rounds[-1].reply.error,
                      f"{where} with the requestState of round {paused.number}, made {age} ago,",
                      f"the state has expired, or was sealed under another key than this server's: {why}; "
                      f"{paused.transcript.path} is left as it was (still paused)")


def _confirm(message: str) -> bool:
    from mrtr_cli.answering.interactive import confirm

    return confirm(message)


def list_paused(context: Context, folder: str) -> ExitCode:
    """The paused transcripts in `folder`: server, request, questions waiting, state age."""
    if not Path(folder).is_dir():
        raise UsageError(f"--list {folder!r} is not a folder", "give the folder the transcripts were recorded in")
    now = datetime.datetime.now(datetime.timezone.utc)
    rows = [row for row in map(lambda p: paused_row(p, now), sorted(Path(folder).glob("*.yaml"))) if row]
    if context.output.json:
        from mrtr_cli.render import json_report

        context.print_json({"version": json_report.VERSION, "paused": rows})
        return ExitCode.OK
    for row in rows:
        request = f"{row['request']['method']} {row['request']['name']}"
        context.consoles.out.print(f"{row['file']}  {row['server']}  {request}  waiting: "
                                   f"{', '.join(row['questions']) or '(state only)'}  state {row['state_age']} old",
                                   markup=False, highlight=False, soft_wrap=True)
    if not rows:
        context.consoles.err.print(f"no paused transcript in {folder}", markup=False, highlight=False)
    return ExitCode.OK


def paused_row(path: Path, now: datetime.datetime) -> dict[str, Any] | None:
    """`--list`'s row of the transcript at `path` (None when it is not paused); `mrtr shell`'s `answer` too."""
    try:
        paused = pausing.load_paused(str(path))
    except MrtrError:
        return None  # not a transcript, or not paused: not listed
    data, since = paused.transcript.data, paused.state_since
    server = (data.get("server") or {}).get("name") or data["target"].get("url") or data["target"]["transport"]
    params = paused.transcript.request["params"]
    return {"file": str(path), "server": str(server), "target": data["target"],
            "request": {"method": paused.transcript.request["method"], "name": str(params.get("name", params.get("uri")))},
            "questions": paused.questions, "round": paused.number, "state_since": since,
            "state_age": pausing.age(since, now), "state_age_seconds": pausing.age_seconds(since, now)}
