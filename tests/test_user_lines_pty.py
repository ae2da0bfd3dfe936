"""The closing line's time leaves out a person's typing in both eras, and says so (issue 35, item 13):
a person at a real pseudo-terminal answers the demo's questions, asked between rounds (2026-07-28)
and while the call is in flight (the older era). Durations are never asserted: the wording is, and
the clock that subtracts the waits is tested below with a clock of its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mrtr_cli.conversation import events
from mrtr_cli.conversation.stopwatch import Stopwatch
from mrtr_cli.conversation.waiting import Waiting
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.transport.base import Deadline, Frame
from pty_session import ENTER, Pty, prompt


@pytest.mark.parametrize("era", ["modern", "older"])
def test_the_closing_time_leaves_out_the_persons_typing_in_either_era(tmp_path: Path, era: str):
    pty = Pty(tmp_path, "call", "two_questions", "--demo", "--protocol-era", era)
    pty.answer(prompt("Name *"), "Ada", ENTER)
    pty.answer(prompt("Send this answer"), ENTER)
    pty.answer(prompt("color *"), ENTER)
    pty.answer(prompt("Send this answer"), ENTER)
    assert pty.finish() == 0, pty.screen
    rounds = "2 rounds" if era == "modern" else "1 round"
    assert re.search(rf"✓ complete · {rounds} · \d+ ms, answering excluded", pty.screen), pty.screen


class Clock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_stopwatch_subtracts_the_waits_it_is_told_of():
    clock = Clock()
    stopwatch = Stopwatch(clock)
    clock.now += 0.25
    with stopwatch.excluding():
        clock.now += 60.0  # a person types
    clock.now += 0.5
    assert stopwatch.elapsed_ms() == pytest.approx(750.0)


class PersonTyping:
    """Answers the server's question (older era) as a person does: the clock moves meanwhile."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.handled: list[str] = []

    def handle(self, message: jsonrpc.Request, in_flight: int | None, outside: bool = False) -> None:
        self.clock.now += 42.0
        self.handled.append(message.method)

    def begin_call(self) -> None: ...

    def end_call(self) -> tuple[dict, dict]:
        return {}, {}


def test_a_question_answered_in_flight_is_left_out_of_the_requests_time():
    clock = Clock()
    stopwatch, person = Stopwatch(clock), PersonTyping(clock)
    waiting = Waiting(3, "tools/call", Deadline(60), events.Broadcast([]), person, stopwatch=stopwatch)
    clock.now += 0.1
    question = {"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {"message": "Name?"}}
    assert waiting.take(Frame(jsonrpc.encode(question))) is None
    clock.now += 0.2
    response = waiting.take(Frame(jsonrpc.encode({"jsonrpc": "2.0", "id": 3, "result": {}})))
    assert response is not None and person.handled == ["elicitation/create"]
    assert stopwatch.elapsed_ms() == pytest.approx(300.0)


NOTE = "the quick brown fox jumps over the dog"


def test_timeline_lines_wrap_at_words_and_never_inside_a_json_string(tmp_path: Path):
    """At a narrow terminal the request line once broke at the terminal's edge: mid-word, inside the
    argument's JSON string."""
    pty = Pty(tmp_path, "call", "summarize", "-a", f"text={NOTE}", "-a", "n=1", "--demo", "--sampling-reply", "ok",
              "--no-input", columns=60)
    assert pty.finish() == 0, pty.screen
    rows = pty.rows()
    start = next(number for number, row in enumerate(rows) if row.startswith("→ tools/call summarize"))
    assert rows[start] == "→ tools/call summarize", rows  # the JSON would not fit after the name
    assert rows[start + 1] == f'    {{"text":"{NOTE}","n":1}}', rows  # the JSON whole, its string never cut
    assert rows[start + 2] == "    id 3", rows
    assert all(len(row) <= 60 for row in rows)
