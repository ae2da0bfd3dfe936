"""The transcript document (format 3; formats 1 and 2 load too, a format 1 file meaning the 2026-07-28 era): its
parts in a stable order, loading with clear errors, and reading it back as the events and the
outcome of the conversation it keeps.

Document shape: docs/transcript-format.md; JSON Schema: schema.json beside this module.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.fileio import files, yaml_loader
from mrtr_cli.forms import validation
from mrtr_cli.conversation.eras import Era, era_named
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.errors import MrtrError, ServerError, UsageError, error_for
from mrtr_cli.transcript.rounds import finding_from_data, round_events, round_from_data
from mrtr_cli.transcript.task_record import asked_on_result, ending, task_events, task_rounds

FORMAT = 3
SCHEMA = Path(__file__).with_name("schema.json")


def schema() -> dict[str, Any]:
    return validation.packaged_schema(SCHEMA)


@dataclass(frozen=True)
class Transcript:
    """A loaded, valid transcript."""

    path: str
    data: dict[str, Any]

    @property
    def request(self) -> dict[str, Any]:
        request: dict[str, Any] = self.data["request"]
        return request

    @property
    def rounds(self) -> list[dict[str, Any]]:
        rounds: list[dict[str, Any]] = self.data["rounds"]
        return rounds

    @property
    def era(self) -> str:
        """`modern` (2026-07-28) or `older` (the initialize era); a format 1 transcript is modern."""
        return str(self.data.get("era", "modern"))

    @property
    def spoken(self) -> type[Era]:
        """The era it was recorded in, as the strategy that tells the eras apart (conversation/eras.py)."""
        return era_named(self.era)

    @property
    def outcome(self) -> str:
        """The recorded outcome; a transcript cut off before its outcome was written reads as aborted."""
        return str(self.data.get("outcome", "aborted"))


def load(path: str) -> Transcript:
    """A transcript from `path`: plain YAML only; a malformed one is a one-line error with its place."""
    located = yaml_loader.load_located(path, "transcript", files.MAX_TRANSCRIPT_SIZE)
    if located.node is None:
        raise UsageError(f"{path}: the transcript is empty", "record it again with --record")

    def locate(where: Any) -> str:
        line, column = located.place_of(where) or (1, 1)
        return f"{path}:{line}:{column}"

    _refuse_another_kind(path, located.data)
    validation.check_document(located.data, schema(), locate, FIX)
    return Transcript(path, located.data)


FIX = "fix the file, or record it again with --record"
OTHER_KINDS = ((("answers", "match"), "an answers file (answers:/match:)", "use it with --answers"),
               (("mcpServers", "servers"), "an mcpServers config file (mcpServers:)",
                "use it with --config FILE --server NAME"))
"""mrtr's other files, by the keys that give them away: what each is, and where it is used."""


def _refuse_another_kind(path: str, data: Any) -> None:
    """A mapping without `mrtr_transcript` is not judged as a transcript lacking its parts: it is
    said to be none, and an answers file or an mcpServers file is named as one."""
    if not isinstance(data, dict) or "mrtr_transcript" in data:
        return
    for keys, what, use in OTHER_KINDS:
        if any(key in data for key in keys):
            raise UsageError(f"{path}: not an mrtr transcript: it looks like {what}", use)
    raise UsageError(f"{path}: not an mrtr transcript: it has no mrtr_transcript: line", FIX)


def round_line(path: str, number: int | None) -> int | None:
    """The line, from 1, where round `number` (from 1) stands in the transcript at `path`; the
    line of its outcome for the whole conversation; None when the file cannot be read again."""
    try:
        located = yaml_loader.load_located(path, "transcript", files.MAX_TRANSCRIPT_SIZE)
    except MrtrError:
        return None
    place = located.place_of(["rounds", number - 1] if number else ["outcome"])
    return place[0] if place else None


def header(target: dict[str, Any], era: str, version: str, capabilities: dict[str, Any], server: dict[str, Any] | None,
           tool: dict[str, Any] | None, request: dict[str, Any], recorded: dict[str, str]) -> dict[str, Any]:
    """The part of a transcript above its rounds, in the order it is written."""
    part: dict[str, Any] = {"mrtr_transcript": FORMAT, "recorded": recorded, "target": target, "era": era,
                            "protocol_version": version, "client_capabilities": capabilities}
    if server:
        part["server"] = server
    if tool:
        part["tool"] = tool
    part["request"] = request
    return part


def events_of(transcript: Transcript) -> Iterator[Any]:
    """The events of the recorded conversation, as the engine emitted them when it ran."""
    if transcript.data.get("server"):
        yield events.ServerIdentified(transcript.data["server"])
    method, task = transcript.request["method"], transcript.data.get("task")
    on_result = asked_on_result(task)  # an older-era task's questions: drawn after its tasks/result
    continued = continuations(transcript)
    for number, entry in enumerate(transcript.rounds):
        yield from round_events(method, entry, on_result if number == 0 else set())
        yield from (event for event in continued if event.from_round == entry["round"])
    if task is not None:
        first = transcript.rounds[0] if transcript.rounds else None
        yield from task_events(task, first["id"] if first else 0, first)


def continuations(transcript: Transcript) -> list[events.Continued]:
    """Each time `mrtr answer` continued the conversation, with how long it had waited: from the paused
    round's `sent_at`, else (a file from before rounds kept it) the last continuation or the recording."""
    found, since = [], str(transcript.data["recorded"]["at"])
    for entry in transcript.data.get("continued") or []:
        paused = transcript.rounds[entry["from_round"] - 1] if entry["from_round"] <= len(transcript.rounds) else {}
        waited = _seconds_between(str(paused.get("sent_at") or since), str(entry["at"]))
        found.append(events.Continued(entry["from_round"], entry["at"], entry["by"], entry["target"], waited))
        since = str(entry["at"])
    return found


def _seconds_between(since: str, until: str) -> int:
    """Whole seconds between two transcript times (UTC, to the second); never below 0 (another machine's clock)."""
    def parse(text: str) -> datetime.datetime:
        return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")
    return max(0, int((parse(until) - parse(since)).total_seconds()))


def outcome_of(transcript: Transcript) -> Outcome:
    """The recorded conversation as an Outcome, for `show` and for comparing with a live run."""
    outcome = Outcome(transcript.request["method"], transcript.request["params"],
                      events.outcome_status(transcript.outcome))
    answered = transcript.rounds
    if answered and not answered[-1]["received"] and outcome.status != "complete":
        outcome.unanswered_round, answered = answered[-1]["round"], answered[:-1]  # sent, and no answer came
    outcome.rounds = [round_from_data(transcript.request["method"], entry) for entry in answered]
    outcome.server, outcome.era = transcript.data.get("server"), transcript.era
    outcome.findings = [finding_from_data(f, e["round"]) for e in transcript.rounds for f in e.get("findings", [])]
    last = transcript.rounds[-1]["received"] if transcript.rounds else {}
    if outcome.status == "complete":
        outcome.result = last.get("result")
    else:
        outcome.error = _error(transcript, last)
    task = transcript.data.get("task")
    return _with_task(outcome, task) if task is not None else outcome


def _with_task(outcome: Outcome, task: dict[str, Any]) -> Outcome:
    """The outcome of a recorded task: its input rounds after the call's, and how it ended."""
    outcome.rounds += task_rounds(task)
    result, failure = ending(task)
    if result is not None:
        outcome.result = result
    elif failure is not None and outcome.status != "complete":
        outcome.error = failure
    return outcome


def _error(transcript: Transcript, last: dict[str, Any]) -> MrtrError:
    recorded = transcript.data.get("error")
    if recorded:
        error = error_for(recorded["kind"], recorded["message"])
        error.details = [str(line) for line in recorded.get("details") or []]  # a dead server's last stderr lines
        return error
    if last.get("error"):
        return ServerError(transcript.request["method"], last["error"])
    return error_for("interrupted", "the recording stopped before the conversation ended")
