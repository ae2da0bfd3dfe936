"""The migration check against a real server of both eras: the PyPI `mcp` SDK's MCPServer
(tests/servers/sdk_server.py), whose declarative tools ask through resolver markers. At 2026-07-28
it asks in `input_required` rounds, before it asks in flight over the back-channel, from one tool
definition; so a conversation recorded in one era must replay in the other with exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SDK_SERVER, mrtr_here
from peers import sdk_over_http

OTHER = {"older": "modern", "modern": "older"}
TOOLS = {
    "greet": ("-a", "greeting=Hi", "--answer", "elicitation#1.name=Ada", "--answer", "__main__:ask_name.name=Ada"),
    "summarize": ("-a", "text=hello", "--sampling-reply", "a short summary"),
    "workspace": ("--root", "/tmp"),
}


def record_then_replay_across(tmp_path: Path, tool: str, era: str, server: tuple[str, ...]) -> None:
    path = tmp_path / f"{tool}-{era}.yaml"
    record = mrtr_here("call", tool, *TOOLS[tool], "--protocol-era", era, "--no-input", "--record", str(path), *server)
    assert record.code == 0, record.stderr
    replay = mrtr_here("replay", str(path), "--protocol-era", OTHER[era], *server)
    assert replay.code == 0 and "same as recorded" in replay.stderr, replay.stderr


@pytest.mark.parametrize("era", OTHER)
@pytest.mark.parametrize("tool", TOOLS)
def test_recorded_in_one_era_over_stdio_replays_in_the_other(tmp_path: Path, tool: str, era: str):
    record_then_replay_across(tmp_path, tool, era, ("--", *SDK_SERVER))


@pytest.fixture(scope="module")
def sse_url():
    with sdk_over_http("sse") as url:
        yield url


@pytest.mark.parametrize("era", OTHER)
@pytest.mark.parametrize("tool", ["greet", "summarize"])
def test_recorded_in_one_era_over_http_replays_in_the_other(tmp_path: Path, sse_url: str, tool: str, era: str):
    record_then_replay_across(tmp_path, tool, era, ("--url", sse_url))


def test_a_server_that_cannot_ask_in_flight_fails_the_check_naming_its_error(tmp_path: Path):
    """In JSON-response mode the SDK has no back-channel: the older-era replay ends in its error."""
    path = tmp_path / "greet.yaml"
    with sdk_over_http("json") as url:
        record = mrtr_here("call", "greet", *TOOLS["greet"], "--protocol-era", "modern", "--no-input", "--record", str(path),
                      "--url", url)
        replay = mrtr_here("replay", str(path), "--protocol-era", "older", "--url", url)
    assert record.code == 0, record.stderr
    assert replay.code == 6 and "no back-channel for server-initiated requests" in replay.stderr, replay.stderr
