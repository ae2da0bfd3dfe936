"""Issue 35, item 1: over stdio nothing ties a server request to the call, so when one arrives must decide
nothing. A scripted server sends a stray request at a moment chosen by protocol events, never by a sleep:
right before its answer to logging/setLevel (which mrtr sends after the handshake with --log-level, and
waits for): before the call; right before the call's response, so mrtr answers it while the call waits:
during; right after the call's response: after. A recording replays the same in each case. Then the real
server-everything (its own roots/list, refused by a person at a terminal), the proxy, and HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import ROOT, mrtr_here
from mrtr_cli.fileio import yaml_loader
from mrtr_cli.transcript import model

CONVERSATION = json.loads((ROOT / "docs" / "json" / "conversation.schema.json").read_text())

OLDER = ("--protocol-era", "older", "--no-input")
REPLAY = ("--no-input", "--trust-target", "--log-level", "info", "--timeout", "20")
INIT = {"result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "old", "version": "1"}}}
DONE = {"result": {"content": [{"type": "text", "text": "done"}]}}
ELICIT = json.dumps({"jsonrpc": "2.0", "id": "s1", "method": "elicitation/create", "params": {
    "mode": "form", "message": "Your name?", "requestedSchema": {
        "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}})
ROOTS = json.dumps({"jsonrpc": "2.0", "id": "s2", "method": "roots/list"})
ANSWERS = ("--answer", "elicitation#1.name=Ada", "--root", "/tmp")
LEVEL = {"result": {}}
"""The answer to logging/setLevel (--log-level info): the last request mrtr waits on before the call."""


def record_and_replay(tmp_path: Path, server: Any) -> dict[str, Any]:
    path = tmp_path / "stray.yaml"
    recorded = mrtr_here("call", "t", *OLDER, *ANSWERS, "--log-level", "info", "--record", str(path), *server.args())
    assert recorded.code == 0, recorded.stderr
    replayed = mrtr_here("replay", str(path), *REPLAY)
    assert replayed.code == 0, replayed.stdout + replayed.stderr
    document: dict[str, Any] = yaml_loader.load_file(path, "transcript")
    assert document["mrtr_transcript"] == 3
    jsonschema.validate(document, model.schema())
    return document["rounds"][0]


@pytest.mark.parametrize("stray", [ELICIT, ROOTS])
def test_a_request_before_the_call_is_kept_beside_the_round(scripted, tmp_path: Path, stray: str):
    """Sent right before the answer to logging/setLevel: not the call's question, whatever it asks."""
    entry = record_and_replay(tmp_path, scripted(steps=[INIT, {**LEVEL, "before": [stray]}, DONE]))
    method = json.loads(stray)["method"]
    key = "elicitation#1" if method == "elicitation/create" else "roots#1"
    assert "asked_in_flight" not in entry["received"]
    assert entry["unprompted"][key]["method"] == method and "response" in entry["unprompted"][key]


def test_an_elicitation_during_the_call_is_its_question_and_a_roots_list_is_not(scripted, tmp_path: Path):
    """Both sent right before the call's response, so mrtr answers them while the call waits."""
    entry = record_and_replay(tmp_path, scripted(steps=[INIT, LEVEL, {**DONE, "before": [ELICIT, ROOTS]}]))
    assert list(entry["received"]["asked_in_flight"]) == ["elicitation#1"]
    assert entry["answers"]["elicitation#1"]["response"] == {"action": "accept", "content": {"name": "Ada"}}
    assert entry["unprompted"] == {"roots#1": {"method": "roots/list", "params": {}, "source": "flag",
                                               "response": {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}}}


def test_a_request_after_the_response_is_not_the_calls(scripted, tmp_path: Path):
    """Sent right after the call's response: the call is over, so it is none of its questions."""
    entry = record_and_replay(tmp_path, scripted(steps=[INIT, LEVEL, {**DONE, "then": [ELICIT, ROOTS]}]))
    assert "asked_in_flight" not in entry["received"] and entry["answers"] == {}


def test_a_refusal_is_kept_and_replayed(scripted, tmp_path: Path):
    """Nothing answers the stray elicitation before the call (no person is asked there): the error the
    server got is kept beside the round, `show` draws it, and the replay refuses it again."""
    server = scripted(steps=[INIT, {**LEVEL, "before": [ELICIT]}, DONE])
    path = tmp_path / "refused.yaml"
    recorded = mrtr_here("call", "t", *OLDER, "--log-level", "info", "--record", str(path), *server.args())
    assert recorded.code == 0, recorded.stderr
    entry = yaml_loader.load_file(path, "transcript")["rounds"][0]
    assert entry["unprompted"]["elicitation#1"]["refused"].startswith("nothing answered question 'elicitation#1'")
    shown = mrtr_here("show", str(path))
    assert "elicitation#1 got an error: nothing answered question 'elicitation#1'" in shown.stdout + shown.stderr
    replayed = mrtr_here("replay", str(path), *REPLAY)
    assert replayed.code == 0, replayed.stdout + replayed.stderr


@pytest.mark.parametrize("tool, answers", [("get-roots-list", ()),
                                           ("trigger-elicitation-request", ("--answer", "elicitation#1=decline"))])
def test_server_everything_recorded_then_replayed(tmp_path: Path, tool: str, answers: tuple[str, ...]):
    """The npm reference server asks roots/list of its own accord 350 ms after `initialized` (and
    get-roots-list asks it again in the call when it has no roots yet): whenever it lands, it is kept
    beside the round, answered by method on replay, and the replay exits 0."""
    from conformance import reference_server

    path = tmp_path / "everything.yaml"
    server = ["--", *reference_server("everything", "stdio")]
    recorded = mrtr_here("call", tool, "--no-input", "--root", "/tmp", *answers, "--record", str(path), *server)
    assert recorded.code == 0, recorded.stderr
    entry = yaml_loader.load_file(path, "transcript")["rounds"][0]
    assert all(request["method"] != "roots/list" for request in entry["received"].get("asked_in_flight", {}).values())
    if tool == "get-roots-list":
        assert [request["method"] for request in entry["unprompted"].values()][0] == "roots/list"
    replayed = mrtr_here("replay", str(path), "--no-input", "--trust-target")
    assert replayed.code == 0, replayed.stdout + replayed.stderr


def test_a_person_refuses_server_everythings_roots_and_the_recording_replays(tmp_path: Path):
    """At a terminal, a person refuses the roots server-everything asks for (its get-roots-list asks,
    and its own timer may ask again: each prompt is refused). The refusal is kept beside the round,
    `show` draws it under the question, and the replay, with no person, refuses it again: exit 0."""
    import pexpect

    from conformance import reference_server
    from pty_session import ESC, Pty, prompt

    path = tmp_path / "refused.yaml"
    pty = Pty(tmp_path, "call", "get-roots-list", "--record", str(path), "--", *reference_server("everything", "stdio"))
    while pty.child.expect([prompt("Share these roots"), pexpect.EOF]) == 0:
        pty.press(ESC)
    pty.child.close()
    assert pty.child.exitstatus == 0, pty.child.before
    document = yaml_loader.load_file(path, "transcript")
    entry = document["rounds"][0]
    refusals = [request for request in entry["unprompted"].values() if request["method"] == "roots/list"]
    assert refusals and all(request.get("source") == "interactive" and "refused" in request for request in refusals)
    assert "asked_in_flight" not in entry["received"]
    shown = mrtr_here("show", str(path))
    refused = "roots#1 got an error: refused by interactive: the person refused to share roots"
    assert refused in shown.stdout, shown.stdout
    replayed = mrtr_here("replay", str(path), "--no-input", "--trust-target")
    assert replayed.code == 0, replayed.stdout + replayed.stderr


def test_the_json_report_and_show_keep_them_beside_the_round(scripted, tmp_path: Path):
    """`--json` of the call and of `show`: the roots/list under `unprompted`, the elicitation a question."""
    path = tmp_path / "both.yaml"
    server = scripted(steps=[INIT, {**DONE, "before": [ELICIT, ROOTS]}])
    run = mrtr_here("call", "t", *OLDER, *ANSWERS, "--json", "--record", str(path), *server.args())
    assert run.code == 0, run.stderr
    shown = mrtr_here("show", str(path), "--json")
    for document in (run.json(), shown.json()):
        jsonschema.validate(document, CONVERSATION)
        [entry] = document["rounds"]
        assert list(entry["questions"]) == ["elicitation#1"]
        assert entry["unprompted"] == {"roots#1": {"method": "roots/list", "source": "flag",
                                                   "response": {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}}}


def test_the_proxy_keeps_a_roots_list_over_stdio_beside_the_round(scripted, tmp_path: Path):
    """mrtr as the host, through the stdio proxy: the conversation the proxy keeps has the roots/list
    beside the round and the elicitation among its questions, and it replays. (This server answers the
    call without waiting for its requests' answers, so the host's may cross after the outcome: then the
    proxy keeps the request without one.)"""
    from conftest import PYTHON

    record_dir = tmp_path / "kept"
    server = scripted(steps=[INIT, {**DONE, "before": [ELICIT, ROOTS]}])
    shim = [PYTHON, "-m", "mrtr_cli", "proxy", "--record-dir", str(record_dir), "--", *server.command]
    run = mrtr_here("call", "t", *OLDER, *ANSWERS, "--", *shim)
    assert run.code == 0, run.stderr
    [kept] = record_dir.iterdir()
    entry = yaml_loader.load_file(kept, "transcript")["rounds"][0]
    assert list(entry["received"]["asked_in_flight"]) == ["elicitation#1"]
    assert entry["unprompted"]["roots#1"]["method"] == "roots/list"
    assert entry["unprompted"]["roots#1"].get("source", "host") == "host"
    replayed = mrtr_here("replay", str(kept), "--no-input", "--trust-target", "--timeout", "20")
    assert replayed.code == 0, replayed.stdout + replayed.stderr


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_roots_list_on_the_calls_own_http_stream_is_its_question(tmp_path: Path, transport: str):
    """The demo's workspace_roots asks roots/list during the call. Over HTTP it comes on the call's own
    response stream, so it is the call's question; over stdio nothing says so, so it is unprompted.
    Either way the recording replays."""
    from peers import demo_http

    path = tmp_path / "roots.yaml"
    with demo_http() as url:
        target = ("--demo",) if transport == "stdio" else ("--url", url)
        recorded = mrtr_here("call", "workspace_roots", *OLDER, "--root", "/tmp", "--record", str(path), *target)
        assert recorded.code == 0, recorded.stderr
        entry = yaml_loader.load_file(path, "transcript")["rounds"][0]
        in_flight = entry["received"].get("asked_in_flight", {})
        assert (list(in_flight) == ["roots#1"]) is (transport == "http"), entry
        assert ("roots#1" in entry.get("unprompted", {})) is (transport == "stdio"), entry
        replayed = mrtr_here("replay", str(path), *REPLAY[:2], *target)
        assert replayed.code == 0, replayed.stdout + replayed.stderr


def test_over_http_a_request_on_the_get_stream_is_not_the_calls(tmp_path: Path):
    """server-everything over Streamable HTTP sends its roots/list on the GET stream (it names no
    request): on no stream of the call, so it is unprompted, kept beside the round; the replay, on a
    new session, waits for it there and is the same."""
    from peers import everything_over_http

    path = tmp_path / "http.yaml"
    with everything_over_http() as url:
        recorded = mrtr_here("call", "get-roots-list", "--root", "/tmp", "--no-input", "--record", str(path), "--url", url)
        assert recorded.code == 0, recorded.stderr
        entry = yaml_loader.load_file(path, "transcript")["rounds"][0]
        assert "asked_in_flight" not in entry["received"] and entry["unprompted"]["roots#1"]["source"] == "flag"
        replayed = mrtr_here("replay", str(path), "--no-input", "--url", url)
        assert replayed.code == 0, replayed.stdout + replayed.stderr
