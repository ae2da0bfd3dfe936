"""Replay as a user meets it (issue 35): the era it speaks, a failure before the call named,
--ignore paths that match nothing warned of, and --ignore across eras, through the real CLI
against real servers (the PyPI `mcp` SDK's, tests/servers/sdk_server.py, and scripted ones)."""

from __future__ import annotations

from pathlib import Path

from conftest import SDK_SERVER, mrtr_here

NAME = ("--answer", "elicitation#1.name=Ada", "--answer", "__main__:ask_name.name=Ada")
DISCOVER_REFUSED = {"error": {"code": -32022, "message": "no such version", "data": {"supported": ["1999-01-01"]}}}
DONE = {"result": {"content": [{"type": "text", "text": "done"}]}}


def recorded(tmp_path: Path, scripted, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    run = mrtr_here("call", "t", "--no-input", "--record", str(path), *scripted(steps=[DONE]).args())
    assert run.code == 0, run.stderr
    return path


def test_a_replay_that_fails_before_the_call_names_the_live_error(tmp_path: Path, scripted):
    path = recorded(tmp_path, scripted)
    refusing = scripted(discover=DISCOVER_REFUSED, steps=[DONE])
    run = mrtr_here("replay", str(path), "--protocol-era", "modern", *refusing.args())
    assert run.code == 6
    lines = run.stderr.splitlines()
    assert lines[0].endswith("t.yaml: diverged from the recording (2 differences)")
    assert lines[1].strip().startswith("server/discover failed: error -32022: no such version")
    as_json = mrtr_here("replay", str(path), "--protocol-era", "modern", "--json", *refusing.args())
    [verdict] = as_json.json()["transcripts"]
    assert verdict["error"].startswith("server/discover failed: error -32022: no such version")
    assert [d["what"] for d in verdict["differences"]] == ["outcome", "number of rounds"]
    assert not refusing.calls()  # the call was never sent


def test_an_ignore_path_that_matches_nothing_is_warned_of_with_the_path_meant(tmp_path: Path, scripted):
    path = recorded(tmp_path, scripted, "time.yaml")
    run = mrtr_here("replay", str(path), "--ignore", "$.result.content", "--ignore",
                    "$.rounds[*].received.result.content", *scripted(steps=[DONE]).args())
    assert run.code == 0, run.stderr
    warnings = [line for line in run.stderr.splitlines() if line.startswith("!")]
    assert warnings == [f"! --ignore '$.result.content' matched nothing in {path}; paths start at "
                        "$.rounds[*] (did you mean '$.rounds[*].received.result.content'?)"]
    as_json = mrtr_here("replay", str(path), "--json", "--ignore", "$.rounds[*].sent.nothing",
                        *scripted(steps=[DONE]).args())
    assert as_json.code == 0 and as_json.json()["transcripts"][0]["result"] == "same"
    assert "! --ignore '$.rounds[*].sent.nothing' matched nothing" in as_json.stderr


def test_a_migration_replay_ignores_result_fields_so_a_timestamped_result_can_pass(tmp_path: Path):
    path = tmp_path / "stamped.yaml"
    record = mrtr_here("call", "stamped", *NAME, "--protocol-era", "older", "--no-input", "--record", str(path),
                       "--", *SDK_SERVER)
    assert record.code == 0, record.stderr
    plain = mrtr_here("replay", str(path), "--protocol-era", "modern", *NAME, "--", *SDK_SERVER)
    assert plain.code == 6 and "conversation: result" in plain.stderr  # the time differs on every run
    ignoring = mrtr_here("replay", str(path), "--protocol-era", "modern", *NAME,
                         "--ignore", "$.rounds[*].received.result.structuredContent.at",
                         "--ignore", "$.rounds[*].received.result.content", "--", *SDK_SERVER)
    assert ignoring.code == 0 and "same as recorded" in ignoring.stderr, ignoring.stderr
    assert "matched nothing" not in ignoring.stderr
    greeting = mrtr_here("replay", str(path), "--protocol-era", "modern", *NAME,
                         "--ignore", "$.rounds[*].received.result.structuredContent.greeting",
                         "--ignore", "$.rounds[*].received.result.content", "--", *SDK_SERVER)
    assert greeting.code == 6 and '"at":' in greeting.stderr  # what is not ignored is still compared


SLOW_SDK = ["env", "SDK_START_DELAY=2", *SDK_SERVER]
"""The SDK server slow to start: it serves nothing for 2 s, far past the --era-probe-wait of 0.1 s the tests set
(whatever the machine's load, it answers late or on time; the tests assert only what holds either way)."""
OLDER_ONLY = {"discover": {"error": {"code": -32601, "message": "Method not found"}},
              "steps": [{"error": {"code": -32600, "message": "the server is not initialized"}},
                        {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                    "serverInfo": {"name": "old", "version": "1"}}}, DONE]}
"""A server of the older era only: a tools/call before initialize is refused, server/discover unknown."""


def test_a_modern_recording_replays_in_its_era_with_no_probe_against_a_server_slow_to_start(tmp_path: Path):
    path = tmp_path / "greet.yaml"
    record = mrtr_here("call", "greet", "-a", "greeting=Hi", *NAME, "--no-input", "--record", str(path),
                       "--", *SDK_SERVER)
    assert record.code == 0, record.stderr
    run = mrtr_here("replay", str(path), "-v", "--era-probe-wait", "0.1", "--", *SLOW_SDK)
    assert run.code == 0 and "same as recorded (2 rounds)" in run.stderr, run.stderr
    assert "server/discover" not in run.stderr and "initialize" not in run.stderr
    assert [line.strip() for line in run.stderr.splitlines() if line.strip().startswith("era:")] == [
        "era: modern (2026-07-28): the era the transcript was recorded in (no probe)"]


def test_a_late_answer_to_the_era_probe_is_an_answer(tmp_path: Path):
    run = mrtr_here("call", "greet", "-a", "greeting=Hi", *NAME, "--no-input", "--era-probe-wait", "0.1",
                    "--", *SLOW_SDK)
    assert run.code == 0, run.stderr
    assert "Hi, Ada!" in run.stdout
    eras = [line.strip() for line in run.stderr.splitlines() if line.strip().startswith("era:")]
    assert len(eras) == 1 and eras[0].startswith("era: modern (2026-07-28): the server answered server/discover")
    for red in ("✗ cancelled", "✗ ignored", "unknown-response-id", "era: older"):
        assert red not in run.stderr
    assert run.stderr.count("late") <= 1  # said once, when it was late


def test_checks_era_line_says_no_answer_about_no_server_that_answered(tmp_path: Path):
    run = mrtr_here("check", "--json", "--era-probe-wait", "0.1", "--", *SLOW_SDK)
    era = run.json()["era"]
    assert era["era"] == "modern" and era["speaks_2026_07_28"] is True, era
    assert "no answer" not in era["line"] and era["line"].startswith("era: 2026-07-28 (the server answered")


def test_a_server_that_refuses_the_recorded_era_is_probed_once_visibly(tmp_path: Path, scripted):
    path = tmp_path / "done.yaml"
    record = mrtr_here("call", "t", "--no-input", "--record", str(path), *scripted(steps=[DONE]).args())
    assert record.code == 0, record.stderr
    older = scripted(**OLDER_ONLY)
    run = mrtr_here("replay", str(path), *older.args())
    assert run.code == 0, run.stderr
    assert (f"! {path}: the server refused the recorded era (2026-07-28), so mrtr probed it once: it speaks the "
            "older era (the conversation was held again in it)") in run.stderr
    methods = [m.get("method") for m in older.received()]
    assert methods == ["tools/call", "server/discover", "initialize", "notifications/initialized", "tools/call"]
