"""fastmcp (PyPI `fastmcp` 4.2, tests/servers/fastmcp_server.py) as a real peer, through the real CLI, over
stdio and Streamable HTTP: `mrtr call`, `prompt` and `read` answering its questions in either era,
`mrtr check --tool` judging it, a recording replayed.

What is asserted is fastmcp's own behaviour, read in its source: it seals each requestState (the `mcp`
SDK's request-state boundary: AEAD under a key made at start-up, bound to the tool and its arguments,
a fresh nonce each time, 600 s to live) and refuses any altered one with -32602 before the tool runs;
a tool's -32021 reaches the wire as it is (HTTP 400), not as an isError result; on an
initialize-handshake connection `ctx.elicit()` asks in flight."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import mrtr_here
from peers import FASTMCP_SERVER, fastmcp_over_http
from test_check import statuses

FASTMCP = [*FASTMCP_SERVER, "stdio"]
pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="fastmcp 4.2 needs Python 3.11: pyproject.toml's "
                                "test extra installs it from 3.11 on")

RESERVE = ("reserve", "-a", "city=Lisbon", "--answer", "date.date=2026-12-01", "--answer", "party.size=4")
BOOKED = {"city": "Lisbon", "date": "2026-12-01", "size": 4}


@pytest.fixture(scope="module")
def url():
    """One fastmcp server over Streamable HTTP for the module."""
    with fastmcp_over_http() as served:
        yield served


def test_a_two_round_tool_threads_its_sealed_state_and_its_recording_replays_over_http(url, tmp_path: Path):
    recording = tmp_path / "reserve.yaml"
    run = mrtr_here("call", *RESERVE, "--json", "--record", str(recording), "--", *FASTMCP)
    assert run.code == 0, run.stderr
    document = run.json()
    assert document["result"]["structuredContent"] == BOOKED
    assert document["server"]["name"] == "fastmcp-test-server"
    assert [r["resultType"] for r in document["rounds"]] == ["input_required", "input_required", "complete"]
    assert "era: modern (2026-07-28): the server answered server/discover" in run.stderr
    # replayed against another process (another key): the conversation, not the sealed bytes, is compared
    replay = mrtr_here("replay", str(recording), "--url", url)
    assert replay.code == 0 and "same as recorded (3 rounds)" in replay.stderr, replay.stderr


def test_sampling_a_prompt_and_a_resource_ask_through_input_required(url):
    summary = mrtr_here("call", "summarize", "-a", "text=the tides", "--sampling-reply", "tides, briefly",
                        "--sampling-model", "tiny", "--url", url)
    assert summary.code == 0 and "summary from tiny: tides, briefly" in summary.stdout, summary.stderr
    prompt = mrtr_here("prompt", "haiku", "-a", "topic=rain", "--answer", "style.style=sad", "--url", url)
    assert prompt.code == 0 and "Write a sad haiku about rain." in prompt.stdout, prompt.stderr
    note = mrtr_here("read", "notes://diary", "--answer", "passphrase.word=open sesame", "--url", url)
    assert note.code == 0 and "note diary, unlocked with open sesame" in note.stdout, note.stderr


def test_in_the_older_era_fastmcp_asks_in_flight_and_check_judges_that_era(url):
    run = mrtr_here("call", "greet", "-a", "greeting=Hi", "--answer", "elicitation#1.value=Ada",
                    "--protocol-era", "older", "--url", url)
    assert run.code == 0 and "Hi, Ada!" in run.stdout, run.stderr
    assert "asked in flight: elicitation#1" in run.stderr
    modern = mrtr_here("call", "greet", "-a", "greeting=Hi", "--answer", "name.name=Ada", "--url", url)
    assert modern.code == 0 and "Hi, Ada!" in modern.stdout and "input_required · round 1" in modern.stderr
    older = mrtr_here("check", "--tool", "greet", "-a", "greeting=Hi", "--answer", "elicitation#1.value=Ada",
                      "--protocol-era", "older", "--json", "--url", url)
    assert older.code == 0, older.stderr
    judged = {k: v for k, v in statuses(older).items() if v != "skipped"}
    assert judged == {"initialize-result": "pass", "tool-call-completes": "pass"}


def test_check_finds_fastmcp_keeps_every_rule_it_can_judge_over_http(url):
    run = mrtr_here("check", "--tool", *RESERVE, "--json", "--url", url)
    assert run.code == 0, run.stderr
    verdicts = statuses(run)
    assert {k: v for k, v in verdicts.items() if v not in ("pass", "skipped")} == {}
    checks = {check["id"]: check["seen"] for check in run.json()["checks"]}
    assert checks["state-readable"].startswith("round 1's requestState does not read as JSON")  # sealed
    assert verdicts["state-forged-field"] == "skipped"  # nothing to read, so nothing to forge field by field
    refused = "refused (error -32602: Invalid or expired requestState (HTTP 400))"
    assert checks["state-tag-tampered"].endswith(refused) and checks["state-truncated"].endswith(refused)
    assert checks["state-other-arguments"] == ("argument 'city' changed: error -32602: Invalid or expired "
                                               "requestState (HTTP 400)")  # bound to the arguments
    assert checks["state-never-expires"] == "round 1's requestState differs 1.1 s later"  # a nonce each time
    assert checks["capability-withheld-each"] == ('elicitation.form withheld: round 1, -32021 listing '
                                                  '{"elicitation": {"form": {}}}')
    assert verdicts["header-mismatch"] == verdicts["header-name-mismatch"] == "pass"


def test_check_judges_a_sampling_tool_over_stdio():
    run = mrtr_here("check", "--tool", "summarize", "-a", "text=tides", "--sampling-reply", "short", "--json",
                    "--", *FASTMCP)
    assert run.code == 0, run.stderr
    verdicts = statuses(run)
    assert verdicts["asks-sampling"] == verdicts["completes-after-sampling"] == "pass"
    checks = {check["id"]: check["seen"] for check in run.json()["checks"]}
    assert checks["capability-withheld-each"] == 'sampling withheld: round 1, -32021 listing {"sampling": {}}'


def test_a_restarted_fastmcp_refuses_the_retry_its_last_process_sealed():
    """Its default key is made at start-up (`RequestStateSecurity.ephemeral()`): one process only."""
    run = mrtr_here("call", *RESERVE, "--restart-between-rounds", "--", *FASTMCP)
    assert run.code == 2
    assert ("the retry went to a restarted server and was refused: error -32602 'Invalid or expired requestState'"
            in run.stderr)
