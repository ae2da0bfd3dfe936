"""Replay as a user meets it (issue 35): the era it speaks, a failure before the call named,
--ignore paths that match nothing warned of, and --ignore across eras, through the real CLI
against real servers (the PyPI `mcp` SDK's, tests/servers/sdk_server.py, and scripted ones)."""

from __future__ import annotations

from pathlib import Path

from conftest import SDK_SERVER, mrtr

NAME = ("--answer", "elicitation#1.name=Ada", "--answer", "__main__:ask_name.name=Ada")
DISCOVER_REFUSED = {"error": {"code": -32022, "message": "no such version", "data": {"supported": ["1999-01-01"]}}}


def recorded(tmp_path: Path, scripted, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    run = mrtr("call", "t", "--no-input", "--record", str(path), *scripted(steps=[{"echo": True}]).args())
    assert run.code == 0, run.stderr
    return path


def test_a_replay_that_fails_before_the_call_names_the_live_error(tmp_path: Path, scripted):
    path = recorded(tmp_path, scripted)
    refusing = scripted(discover=DISCOVER_REFUSED, steps=[{"echo": True}])
    run = mrtr("replay", str(path), "--protocol-era", "modern", *refusing.args())
    assert run.code == 6
    lines = run.stderr.splitlines()
    assert lines[0].endswith("t.yaml: diverged from the recording (2 differences)")
    assert lines[1].strip().startswith("server/discover failed: error -32022: no such version")
    as_json = mrtr("replay", str(path), "--protocol-era", "modern", "--json", *refusing.args())
    [verdict] = as_json.json()["transcripts"]
    assert verdict["error"].startswith("server/discover failed: error -32022: no such version")
    assert [d["what"] for d in verdict["differences"]] == ["outcome", "number of rounds"]
    assert not refusing.calls()  # the call was never sent


def test_an_ignore_path_that_matches_nothing_is_warned_of_with_the_path_meant(tmp_path: Path, scripted):
    path = recorded(tmp_path, scripted, "time.yaml")
    run = mrtr("replay", str(path), "--ignore", "$.result.structuredContent", "--ignore",
               "$.rounds[*].received.result.structuredContent", *scripted(steps=[{"echo": True}]).args())
    assert run.code == 0, run.stderr
    warnings = [line for line in run.stderr.splitlines() if line.startswith("!")]
    assert warnings == [f"! --ignore '$.result.structuredContent' matched nothing in {path}; paths start at "
                        "$.rounds[*] (did you mean '$.rounds[*].received.result.structuredContent'?)"]
    as_json = mrtr("replay", str(path), "--json", "--ignore", "$.rounds[*].sent.nothing",
                   *scripted(steps=[{"echo": True}]).args())
    assert as_json.code == 0 and as_json.json()["transcripts"][0]["result"] == "same"
    assert "! --ignore '$.rounds[*].sent.nothing' matched nothing" in as_json.stderr


def test_a_migration_replay_ignores_result_fields_so_a_timestamped_result_can_pass(tmp_path: Path):
    path = tmp_path / "stamped.yaml"
    record = mrtr("call", "stamped", *NAME, "--protocol-era", "older", "--no-input", "--record", str(path),
                  "--", *SDK_SERVER)
    assert record.code == 0, record.stderr
    plain = mrtr("replay", str(path), "--protocol-era", "modern", *NAME, "--", *SDK_SERVER)
    assert plain.code == 6 and "conversation: result" in plain.stderr  # the time differs on every run
    ignoring = mrtr("replay", str(path), "--protocol-era", "modern", *NAME,
                    "--ignore", "$.rounds[*].received.result.structuredContent.at",
                    "--ignore", "$.rounds[*].received.result.content", "--", *SDK_SERVER)
    assert ignoring.code == 0 and "same as recorded" in ignoring.stderr, ignoring.stderr
    assert "matched nothing" not in ignoring.stderr
    greeting = mrtr("replay", str(path), "--protocol-era", "modern", *NAME,
                    "--ignore", "$.rounds[*].received.result.structuredContent.greeting",
                    "--ignore", "$.rounds[*].received.result.content", "--", *SDK_SERVER)
    assert greeting.code == 6 and '"at":' in greeting.stderr  # what is not ignored is still compared
