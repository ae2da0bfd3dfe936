"""Recording a conversation (`--record FILE.yaml`) as it happens, crash-safe and linear in cost.

The builder observes the engine's events and makes the document (each round's parts take
their shape in transcript/rounds.py); the recorder writes it: a round is written to
`FILE.yaml.partial` (mode 0600) once it is complete, with its answers: when the next round
starts or the conversation ends.
Nothing already written is rewritten, so a long conversation costs no more per round than a
short one. The outcome ends the file, which is then renamed to FILE.yaml. A dead server, a
transport error or Ctrl-C still end in an outcome (`aborted`, `error`); Ctrl-C, SIGTERM and SIGHUP
wait while an event is taken in (signals.held), so no round is half written; if mrtr itself is killed,
the partial file keeps every round written so far and reads as `aborted`.
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import IO, Any

from mrtr_cli import __version__
from mrtr_cli.conversation import events
from mrtr_cli.fileio import files, yaml_dumper
from mrtr_cli.process import signals
from mrtr_cli.conversation.client import ClientSettings
from mrtr_cli.errors import ServerError
from mrtr_cli.definition.options import RecordingOptions
from mrtr_cli.transcript.lone_surrogates import writable
from mrtr_cli.transcript.model import header
from mrtr_cli.transcript.redact import MARK, Redaction
from mrtr_cli.transcript.rounds import RoundParts, finding_to_data, round_to_data
from mrtr_cli.transcript.task_record import TaskParts, task_to_data


def utc_now() -> str:
    """Now, as a transcript writes a time: UTC, to the second."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class TranscriptBuilder:
    """Observes the engine's events and builds the transcript document, round by round.

    Hooks (`started`, `added`, `finished`) let a subclass write each part as it is made. Each part
    is made writable first (transcript/lone_surrogates.py): a lone surrogate, which YAML cannot
    hold, becomes U+FFFD, and a finding says where; it is kept with the round (a header's with the
    first round) and sent to `emit` for the timeline.
    """

    def __init__(self, target: dict[str, Any], version: str, capabilities: dict[str, Any],
                 redaction: Redaction, emit: events.Observer | None = None) -> None:
        self.emit = emit
        self.context: dict[str, Any] = {"target": target, "era": "modern", "version": version,
                                        "capabilities": capabilities}
        self.redaction = redaction
        self.server: dict[str, Any] | None = None
        self.tools: list[dict[str, Any]] = []
        self.request: dict[str, Any] | None = None
        self.pending: RoundParts | None = None
        self.next_instance: events.InstanceChosen | None = None
        """Where the next round goes (`--replica`, `--restart-between-rounds`): said before its request."""
        self.before_call = RoundParts(0, None, {})
        """Older era: what the server asked unprompted while no round was pending; the next round keeps it."""

        self.raw_arguments: Any = None
        self.top: dict[str, Any] | None = None
        self.rounds: list[dict[str, Any]] = []
        self.credentials: dict[int, dict[str, str]] = {}
        """The secret headers each round (by its index in `rounds`) sent, as sent: never in the document."""
        self.ending: dict[str, Any] = {}
        self.authorization: dict[str, Any] | None = None
        """That mrtr logged in (or refreshed its token) during the run, and with which scopes."""
        self._handlers: dict[type, events.Observer] = {
            events.RequestSent: self._sent, events.WireNote: self._wire, events.ResponseReceived: self._received,
            events.NotificationReceived: self._notification, events.AnswerChosen: self._answer,
            events.Finding: self._finding, events.ServerIdentified: self._server, events.OutcomeReached: self._outcome,
            events.EraChosen: self._era, events.InputRequested: self._asked_in_flight,
            events.AuthorizationStep: self._authorization, events.InstanceChosen: self._instance,
            events.TaskCreated: self._task_created, events.TaskStatusChanged: self._task_status,
            events.Unanswered: self._unanswered,
        }
        self.task: TaskParts | None = None
        """The task the server made of the request (the tasks extension), gathered until the outcome."""

    def __call__(self, event: Any) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:
            with signals.held():  # Ctrl-C waits until the event is in the document (and the file) whole
                handler(event)

    def document(self) -> dict[str, Any]:
        """The whole transcript as built so far."""
        return {**(self.top or {}), "rounds": self.rounds, **self.ending}

    def document_with_credentials(self) -> dict[str, Any]:
        """The document with each round's secret headers as sent, where only the secret rule hid them
        (a --redact name or path still hides its own): for `--har` with `--show-secrets`, never a transcript."""
        rounds = [self._with_credentials(index, entry) for index, entry in enumerate(self.rounds)]
        return {**(self.top or {}), "rounds": rounds, **self.ending}

    def _with_credentials(self, index: int, entry: dict[str, Any]) -> dict[str, Any]:
        sent, kept = entry.get("sent"), self.credentials.get(index)
        if not kept or not isinstance(sent, dict) or not isinstance(headers := sent.get("headers"), dict):
            return entry
        shown = {name: kept[name] if name in kept and value == MARK else value for name, value in headers.items()}
        return self.redaction.document({**entry, "sent": {**sent, "headers": shown}}, index)

    def started(self, top: dict[str, Any]) -> None:
        """The header is made (before the first round)."""

    def added(self, entry: dict[str, Any]) -> None:
        """A round is complete, with its answers."""

    def finished(self, ending: dict[str, Any]) -> None:
        """The outcome is known."""

    def _sent(self, event: events.RequestSent) -> None:
        if event.round is None:
            if self.task is not None and event.method == "tasks/get":
                self.task.polls += 1
            elif self.task is not None and event.method == "tasks/result":
                self.task.result_sent(event.id)
            return
        if self.pending is not None and self.pending.number == event.round:
            self.pending.id = event.id  # sent again: a new version or a broken stream
            return
        self._flush()
        if self.request is None:
            self.request = {"method": event.method, "params": self.redaction.params(event.params)}
        self.pending = RoundParts(event.round, event.id, self.redaction.params(event.params), sent_at=utc_now())
        self._carry_over(self.pending)
        if self.next_instance is not None and self.next_instance.round == event.round:
            self.pending.instance = self.next_instance
        self.next_instance = None
        self.raw_arguments = event.params.get("arguments")

    def _instance(self, event: events.InstanceChosen) -> None:
        self.next_instance = event

    def _wire(self, event: events.WireNote) -> None:
        if self.pending is None or event.request_id != self.pending.id or not event.fields:
            return
        if event.direction == "out" and "headers" in event.fields:
            self.pending.headers = self.redaction.headers(event.fields["headers"], self.raw_arguments)
            self.pending.credentials = self.redaction.credentials(event.fields["headers"])
        elif event.direction == "in":
            self.pending.received.update({k: event.fields[k] for k in ("status", "content_type") if event.fields.get(k)})

    def _received(self, event: events.ResponseReceived) -> None:
        if event.method == "tools/list" and isinstance(event.result, dict):
            self.tools += [t for t in event.result.get("tools", []) if isinstance(t, dict)]
        if self.pending is None or event.id != self.pending.id:
            return
        self.pending.received.update({"error": event.error} if event.error is not None else {"result": event.result})
        self.pending.elapsed_ms = event.elapsed_ms

    def _notification(self, event: events.NotificationReceived) -> None:
        if self.pending is not None and event.request_id == self.pending.id:
            self.pending.notifications.append(event)

    def _answer(self, event: events.AnswerChosen) -> None:
        if event.unprompted:
            self._unprompted_answered(event.key, {"source": event.source, "response": event.response})
            return
        if self.task is not None and self.task.answered(event):
            return
        if self.pending is not None and self.pending.number == event.round:
            self.pending.answers[event.key] = event

    def _finding(self, event: events.Finding) -> None:
        if self.pending is not None:
            self.pending.findings.append(event)

    def _authorization(self, event: events.AuthorizationStep) -> None:
        fields = event.fields or {}
        if event.step == "authorized":
            self.authorization = {"issuer": str(fields.get("issuer")), "scopes": list(fields.get("scopes") or [])}
        elif event.step == "refreshed":
            self.authorization = {**(self.authorization or {}), "scopes": list(fields.get("scopes") or []),
                                  "refreshed": True}

    def _era(self, event: events.EraChosen) -> None:
        self.context.update(era=event.era, version=event.version)

    def _task_created(self, event: events.TaskCreated) -> None:
        self.task = TaskParts(event)

    def _task_status(self, event: events.TaskStatusChanged) -> None:
        if self.task is None:  # a task followed by its id alone: what it was first seen as is its start
            self.task = TaskParts(events.TaskCreated(0, event.task_id, event.status, event.status_message),
                                  resumed=True)
        else:
            self.task.seen(event)

    def _unanswered(self, event: events.Unanswered) -> None:
        """A refusal is an answer a person (or an answerer) gave: kept, as the answers are."""
        refusal = {**({"source": event.source} if event.source else {}), "refused": event.said or event.reason}
        if event.unprompted:
            self._unprompted_answered(event.key, refusal)
        elif self.pending is not None and event.round == self.pending.number and event.method:
            self.pending.refused[event.key] = {"method": event.method, **refusal}

    def _unprompted_answered(self, key: str, answer: dict[str, Any]) -> None:
        for parts in (self.pending, self.before_call):
            if parts is not None and key in parts.unprompted:
                parts.unprompted[key].update(answer)
                return

    def _asked_in_flight(self, event: events.InputRequested) -> None:
        if event.unprompted:
            parts = self.pending or self.before_call
            parts.unprompted[next(iter(event.requests))] = dict(next(iter(event.requests.values())))
            return
        if not event.in_flight and self.task is not None:
            self.task.asked(event)
        if not event.in_flight:
            return
        if self.pending is not None and (event.id == self.pending.id or self._older_task_asks(event)):
            self.pending.asked_in_flight.update(event.requests)
            if self.task is not None:
                self.task.asked_on_stream(event)

    def _older_task_asks(self, event: events.InputRequested) -> bool:
        """An older-era task's question, asked on the tasks/result stream (another request than the
        call's): it is the call's one round's, as any question asked in flight."""
        return self.task is not None and self.pending is not None and event.round == self.pending.number

    def _carry_over(self, parts: RoundParts) -> None:
        """The first round keeps beside it what the server asked unprompted before its request."""
        parts.unprompted.update(self.before_call.unprompted)
        self.before_call = RoundParts(0, None, {})

    def _server(self, event: events.ServerIdentified) -> None:
        self.server = event.info

    def _outcome(self, event: events.OutcomeReached) -> None:
        outcome = event.outcome
        if self.request is None:
            self.request = {"method": outcome.method, "params": self.redaction.params(outcome.params)}
        self._flush()
        noted = self._start()  # no round to keep its finding: shown only
        ending: dict[str, Any] = {"task": task_to_data(self.task, outcome)} if self.task is not None else {}
        ending["outcome"] = outcome.status
        if self.authorization is not None:
            ending["authorization"] = self.authorization
        if outcome.error is not None and not isinstance(outcome.error, ServerError):
            ending["error"] = {"kind": outcome.error.exit_code.label, "message": outcome.error.one_line(),
                               **({"details": outcome.error.details} if outcome.error.details else {})}
        if self.redaction.hidden:
            ending["redacted"] = list(self.redaction.hidden)
        self.ending, found = writable(ending, [], None)
        self.finished(self.ending)
        self._note(noted + ([found] if found else []))

    def _flush(self) -> None:
        if self.pending is None:
            return
        noted = self._start()
        data = self.redaction.document(round_to_data(self.pending), len(self.rounds))
        entry, found = writable(data, ["rounds", len(self.rounds)], self.pending.number)
        noted += [found] if found else []
        if noted and isinstance(entry["findings"], list):  # not when `--redact` hid them
            entry["findings"] = [*entry["findings"], *(finding_to_data(finding) for finding in noted)]
        if self.pending.credentials:
            self.credentials[len(self.rounds)] = self.pending.credentials
        self.rounds.append(entry)
        self.pending = None
        self.added(entry)
        self._note(noted)  # with no round pending: these findings are already in this round

    def _note(self, findings: list[events.Finding]) -> None:
        """Show the findings of making a part writable (the document already holds them)."""
        if self.emit is not None:
            for finding in findings:
                self.emit(finding)

    def _start(self) -> list[events.Finding]:
        """Make the header, when it is not made yet; the finding of making it writable, if any."""
        if self.top is not None:
            return []
        assert self.request is not None
        tool = next((t for t in self.tools if t.get("name") == self.request["params"].get("name")), None)
        recorded = {"at": utc_now(), "by": f"mrtr {__version__}"}
        made = self.redaction.document(header(self.context["target"], self.context["era"], self.context["version"],
                                              self.context["capabilities"], self.server, tool, self.request, recorded))
        self.top, found = writable(made, [], None)
        self.started(self.top)
        return [found] if found else []


class Recorder(TranscriptBuilder):
    """Writes each part of the transcript to FILE.yaml.partial as it is made; renames it at the end."""

    def __init__(self, path: str, target: dict[str, Any], version: str, capabilities: dict[str, Any],
                 redaction: Redaction, emit: events.Observer | None = None) -> None:
        super().__init__(target, version, capabilities, redaction, emit)
        self.path = Path(path)
        self.partial = self.path.with_name(self.path.name + ".partial")
        self.file: IO[str] | None = None
        yaml_dumper.load_emitters()  # not first while the conversation runs, where Ctrl-C may land

    def started(self, top: dict[str, Any]) -> None:
        descriptor = os.open(self.partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        self.file = os.fdopen(descriptor, "w", encoding="utf-8")
        self._write(yaml_dumper.dumps_part(top))

    def added(self, entry: dict[str, Any]) -> None:
        self._write("rounds:\n" if len(self.rounds) == 1 else "", yaml_dumper.dumps_part([entry]))

    def finished(self, ending: dict[str, Any]) -> None:
        assert self.file is not None
        self._write("rounds: []\n" if not self.rounds else "", yaml_dumper.dumps_part(ending))
        os.fsync(self.file.fileno())
        self.file.close()
        os.replace(self.partial, self.path)

    def _write(self, *texts: str) -> None:
        """Write `texts` and flush (each piece as it is: a round of 20 MB is not copied to join it)."""
        assert self.file is not None
        for text in texts:
            self.file.write(text)
        self.file.flush()



def make_recorder(recording: RecordingOptions, target: dict[str, Any], settings: ClientSettings,
                  emit: events.Observer | None = None) -> Recorder:
    """The recorder of `--record FILE.yaml` (its directory must be writable); `target` is the
    target's transcript entry; `emit` shows the recorder's own findings."""
    path = files.replaced_path(str(recording.record), "--record")
    return Recorder(str(path), target, settings.version, settings.capabilities.declared(),
                    Redaction.from_flags(list(recording.redact)), emit)
