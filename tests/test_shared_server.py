"""`replay --demo` of many transcripts: one demo server for the run's 2026-07-28 conversations, and
a conversation that did not end cleanly never hands its server on."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

from conftest import ROOT, mrtr_here
from mrtr_cli import entry
from mrtr_cli.transport.shared import ServerPool, keep
from mrtr_cli.transport.stdio import StdioTransport

RECORDINGS = sorted((ROOT / "recordings").glob("*.yaml"))


def started() -> StdioTransport:
    return StdioTransport([sys.executable, "-c", "import sys\nfor line in sys.stdin: pass"])


def test_a_kept_server_serves_the_next_conversation_and_an_unkept_one_is_shut_down(tmp_path: Path):
    pool, made = ServerPool(), []

    def start():
        made.append(started())
        return made[-1]

    first = pool.open("demo", start)
    keep(first)
    first.close()
    first.close()  # closing twice hands it back once
    second = pool.open("demo", start)
    assert len(made) == 1 and second.inner is made[0] and made[0]._process.poll() is None
    second.close()  # not kept: shut down
    assert made[0]._process.poll() is not None
    third = pool.open("demo", start)
    keep(third)
    third.close()
    assert len(made) == 2 and made[1]._process.poll() is None
    pool.close()
    assert made[1]._process.poll() is not None


def replay_counting_servers(monkeypatch, capsys, *args: str) -> tuple[int, list, list[str]]:
    """`mrtr replay ARGS --json` in this process: the exit code, the transcripts' verdicts, and the
    command of every server process it started."""
    from mrtr_cli.transport import stdio

    spawned, spawn = [], stdio._spawn
    monkeypatch.setattr(stdio, "_spawn", lambda command, *rest: spawned.append(command) or spawn(command, *rest))
    monkeypatch.setattr(signal, "signal", lambda *args: None)  # signals.install: leave pytest's handlers be
    capsys.readouterr()
    code = entry.main(["replay", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)["transcripts"], spawned


def test_replay_demo_runs_the_modern_recordings_on_one_server_and_older_ones_on_their_own(tmp_path: Path,
                                                                                          monkeypatch, capsys):
    older = tmp_path / "older.yaml"
    run = mrtr_here("call", "book_table", "--demo", "--protocol-era", "older", "--no-input", "--record", str(older),
               "--answer", "elicitation#1.date=2026-12-24", "--answer", "elicitation#2.size=4",
               "--answer", "elicitation#3.confirm=true")
    assert run.code == 0, run.stderr
    files = [str(path) for path in RECORDINGS] + [str(older), str(older), str(RECORDINGS[0])]
    code, transcripts, spawned = replay_counting_servers(monkeypatch, capsys, *files, "--demo")
    assert code == 0 and len(transcripts) == len(files)
    assert [t["exit_code"] for t in transcripts] == [0] * len(files)
    assert len(spawned) == 1 + 2  # one for the modern ones, one for each older-era conversation


def test_a_conversation_that_did_not_end_cleanly_does_not_hand_its_server_on(tmp_path: Path, monkeypatch, capsys):
    files = [str(ROOT / "recordings" / "book_table.yaml")] * 3
    code, transcripts, spawned = replay_counting_servers(monkeypatch, capsys, *files, "--demo", "--max-rounds", "1")
    assert code != 0 and len(transcripts) == 3
    assert len(spawned) == 3


def test_replay_over_stdio_starts_a_server_per_transcript(monkeypatch, capsys):
    files = [str(path) for path in RECORDINGS[:3]]
    code, transcripts, spawned = replay_counting_servers(monkeypatch, capsys, *files, "--stdio",
                                                         f"{sys.executable} -m mrtr_cli demo-server")
    assert len(spawned) == 3
