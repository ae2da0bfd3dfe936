"""A paused conversation: a transcript whose last round is `input_required` (`mrtr answer` continues it).

Its request, its questions and its `requestState` are all a 2026-07-28 retry needs, so the file is the
conversation: it can wait, and be answered later, on another machine, against another instance. Here: which
transcripts are paused (and why another is not), how old its state is, and the file text of the whole
conversation once continued, the rounds before the paused one kept byte for byte.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from mrtr_cli.fileio import files, yaml_dumper, yaml_loader
from mrtr_cli.errors import UsageError
from mrtr_cli.text import duration_in_words
from mrtr_cli.transcript import model
from mrtr_cli.transcript.rounds import asked_in, result_of

PAUSED = "input_required"
ENDING_KEYS = ("continued", "task", "outcome", "authorization", "error", "redacted")
"""The parts written after the rounds; the header is everything else above them."""


@dataclass(frozen=True)
class Paused:
    """A loaded paused transcript: its text as read, and the round it stopped at."""

    transcript: model.Transcript
    text: str
    number: int
    """The paused round, from 1."""

    @property
    def round(self) -> dict[str, Any]:
        return self.transcript.rounds[self.number - 1]

    @property
    def questions(self) -> list[str]:
        return list(asked_in(self.round))

    @property
    def state_since(self) -> str:
        """When its requestState was made, as near as the file tells: the paused round's `sent_at`; in a file
        from before rounds kept their time, when it was recorded or last continued."""
        continued = self.transcript.data.get("continued") or []
        return str(self.round.get("sent_at") or (continued[-1]["at"] if continued else
                                                 self.transcript.data["recorded"]["at"]))


def not_paused(transcript: model.Transcript) -> tuple[str, str] | None:
    """Why `transcript` cannot be continued, and what to do instead; None when it is paused."""
    task = transcript.data.get("task")
    if isinstance(task, dict) and transcript.outcome != "complete":
        return (f"the conversation is a task ({task['id']}), which the server keeps, not the file",
                f"continue it with mrtr tasks resume {task['id']}")
    if transcript.spoken.handshake:
        return ("an older-era conversation waits in its server's session, which ended with the mrtr that recorded "
                "it: it cannot be continued from a file", "call the tool again (2026-07-28 conversations can wait)")
    last = transcript.rounds[-1] if transcript.rounds else None
    if last is None or result_of(last).get("resultType") != PAUSED:
        return (f"the conversation is not paused (outcome: {transcript.outcome}): its last round asks nothing",
                "`mrtr show` draws it; a paused one ends at a round that asks (exit 7 under --no-input)")
    return None


def load_paused(path: str) -> Paused:
    """The paused transcript at `path`; exit 1 saying why when it is not one."""
    transcript = model.load(path)
    why = not_paused(transcript)
    if why is not None:
        raise UsageError(f"{path}: {why[0]}", why[1])
    return Paused(transcript, files.read_text(path, "transcript", files.MAX_TRANSCRIPT_SIZE), len(transcript.rounds))


def header_of(transcript: model.Transcript) -> dict[str, Any]:
    """The part above the rounds, as it was loaded."""
    return {key: value for key, value in transcript.data.items() if key != "rounds" and key not in ENDING_KEYS}


def continuation(transcript: model.Transcript, at: str, by: str, target: dict[str, Any]) -> list[dict[str, Any]]:
    """The file's `continued` list with this continuation added."""
    earlier = list(transcript.data.get("continued") or [])
    return earlier + [{"at": at, "by": by, "from_round": len(transcript.rounds), "target": target}]


def continued_text(paused: Paused, rounds: list[dict[str, Any]], ending: dict[str, Any]) -> str:
    """The whole conversation's text: the file's own text up to the paused round, byte for byte, then the
    paused round (with its answers now) and the new rounds, then the ending."""
    located = yaml_loader.loads(paused.text, paused.transcript.path, "transcript")
    line, column = located.place_of(["rounds", paused.number - 1]) or (0, 0)
    lines = paused.text.splitlines(keepends=True)
    if line < 1 or column != 3 or not lines[line - 1].startswith("- "):  # not as mrtr writes it: written anew
        whole = {**header_of(paused.transcript), "rounds": paused.transcript.rounds[:paused.number - 1] + rounds,
                 **ending}
        return yaml_dumper.dumps(whole)
    return "".join(lines[:line - 1]) + yaml_dumper.dumps_part(rounds) + yaml_dumper.dumps_part(ending)


def age(since: str, now: datetime.datetime) -> str:
    """How long ago `since` (a transcript's UTC time) was, in words: `40 seconds`, `12 minutes`, `3 hours`."""
    return duration_in_words(age_seconds(since, now))


def age_seconds(since: str, now: datetime.datetime) -> int:
    """Whole seconds from `since` (a transcript's UTC time) to `now`; never below 0 (another machine's clock)."""
    then = datetime.datetime.strptime(since, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    return max(0, int((now - then).total_seconds()))
