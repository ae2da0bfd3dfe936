"""Record, show, replay and serve whole MRTR conversations as YAML transcripts."""

from __future__ import annotations

import json
import shutil
import signal
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import ElicitResult

from conftest import PYTHON, ROOT, SDK_SERVER, elicit, input_required, mrtr, mrtr_here, text_result
from peers import HttpPeer, StdioPeer, http_server, messages_of, request, sdk_over_http
from servers.http_faults import FaultServer
from test_hostile_stdio import wait_for

SCHEMA = json.loads((ROOT / "mrtr_cli" / "transcript" / "schema.json").read_text())
GREET = ("call", "greet", "-a", "greeting=Hi", "--answer", "__main__:ask_name.name=Ada")


def transcript(path: Path) -> dict:
    document = yaml.safe_load(path.read_text())
    jsonschema.validate(document, SCHEMA)
    return document


def record(tmp_path: Path, name: str, *args: str) -> Path:
    path = tmp_path / name
    cut = args.index("--") if "--" in args else len(args)
    run = mrtr_here(*args[:cut], "--record", str(path), *args[cut:])
    assert path.exists(), run.stderr
    return path


def test_record_then_replay_against_the_sdk_server_over_stdio(tmp_path: Path):
    first = record(tmp_path, "a.yaml", *GREET, "--", *SDK_SERVER)
    second = record(tmp_path, "b.yaml", *GREET, "--", *SDK_SERVER)
    states = [transcript(p)["rounds"][0]["received"]["result"]["requestState"] for p in (first, second)]
    assert states[0] != states[1]  # the SDK seals state anew on every run
    assert stat.S_IMODE(first.stat().st_mode) == 0o600
    document = transcript(first)
    assert document["target"] == {"transport": "stdio", "command": SDK_SERVER, "cwd": str(ROOT)}
    assert document["tool"]["name"] == "greet" and document["outcome"] == "complete"
    replayed = mrtr_here("replay", str(first), "--trust-target")
    assert replayed.code == 0, replayed.stderr
    assert "same as recorded (2 rounds)" in replayed.stderr


def test_record_then_replay_over_http(tmp_path: Path):
    with sdk_over_http("json") as url:
        path = record(tmp_path, "h.yaml", *GREET, "--url", url)
        document = transcript(path)
        assert document["target"] == {"transport": "http", "url": url}
        first = document["rounds"][0]
        assert first["sent"]["headers"]["Mcp-Name"] == "greet" and first["received"]["status"] == 200
        replayed = mrtr_here("replay", str(path), "--json")
        assert replayed.code == 0, replayed.stderr
        assert replayed.json()["transcripts"][0]["result"] == "same"


def test_a_reworded_question_is_a_divergence_naming_round_key_and_change(tmp_path: Path):
    path = record(tmp_path, "greet.yaml", *GREET, "--", *SDK_SERVER)
    run = mrtr_here("replay", str(path), "--trust-target", "-e", "SDK_GREETING_QUESTION=Who are you?")
    assert run.code == 6
    assert "diverged from the recording" in run.stderr
    assert "round 1, question '__main__:ask_name': message" in run.stderr
    assert '- "What is your name?"' in run.stderr and '+ "Who are you?"' in run.stderr
    document = mrtr_here("replay", str(path), "--trust-target", "--json", "-e", "SDK_GREETING_QUESTION=Who?").json()
    difference = document["transcripts"][0]["differences"][0]
    assert difference == {"round": 1, "key": "__main__:ask_name", "what": "message",
                          "recorded": "What is your name?", "live": "Who?"}


def test_ignore_and_update(tmp_path: Path):
    path = record(tmp_path, "greet.yaml", *GREET, "--", *SDK_SERVER)
    ignored = mrtr_here("replay", str(path), "--trust-target", "-e", "SDK_GREETING_QUESTION=Who?",
                        "--ignore", "$.rounds[0].received.result.inputRequests.*.params.message")
    assert ignored.code == 0, ignored.stderr
    updated = mrtr_here("replay", str(path), "--trust-target", "-e", "SDK_GREETING_QUESTION=Who?", "--update")
    assert updated.code == 6
    message = transcript(path)["rounds"][0]["received"]["result"]["inputRequests"]["__main__:ask_name"]["params"]
    assert message["message"] == "Who?"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert mrtr_here("replay", str(path), "--trust-target", "-e", "SDK_GREETING_QUESTION=Who?").code == 0


def test_update_writes_plain_yaml_that_replays(tmp_path: Path):
    path = tmp_path / "book_table.yaml"
    shutil.copy(ROOT / "recordings" / "book_table.yaml", path)
    assert mrtr_here("replay", str(path), "--demo", "--update").code == 0
    text = path.read_text()
    assert "&id" not in text and "*id" not in text  # objects shared in memory are written out in full
    assert mrtr_here("replay", str(path), "--demo").code == 0


def test_a_recorded_command_needs_consent(tmp_path: Path, scripted):
    marker = tmp_path / "ran"
    server = scripted(steps=[{"result": text_result("ok")}])
    command = ["sh", "-c", f"touch {marker}; exec {' '.join(server.command)}"]
    path = record(tmp_path, "cmd.yaml", "call", "t", "--", *command)
    marker.unlink()
    refused = mrtr_here("replay", str(path))
    assert refused.code == 1 and "--trust-target" in refused.stderr and "would run the recorded command" in refused.stderr
    assert not marker.exists()
    assert mrtr_here("replay", str(path), "--trust-target").code == 0 and marker.exists()
    overridden = mrtr_here("replay", str(path), "--stdio", " ".join(server.command))
    assert overridden.code == 0


def test_redaction_and_redacted_values_are_never_sent(tmp_path: Path):
    faults = FaultServer().start()
    try:
        url = faults.url + "/plain"
        path = record(tmp_path, "r.yaml", "call", "t", "-a", "token=s3cr3t-value", "-a", "region=eu", "--url", url,
                      "--redact", "token", "-H", "Authorization: Bearer abc-secret", "-H", "Cookie: sid=cookie-secret",
                      "-H", "X-Custom: kept")
        text = path.read_text()
        for secret in ("s3cr3t-value", "abc-secret", "cookie-secret"):
            assert secret not in text
        document = transcript(path)
        headers = document["rounds"][0]["sent"]["headers"]
        assert headers["Mcp-Param-Token"] == "[redacted]" and headers["Mcp-Param-Region"] == "eu"
        assert headers["Authorization"] == "[redacted]" and headers["Cookie"] == "[redacted]"
        assert headers["X-Custom"] == "kept"
        assert document["request"]["params"]["arguments"] == {"token": "[redacted]", "region": "eu"}
        assert set(document["redacted"]) >= {"argument token", "header Mcp-Param-Token", "header Authorization"}
        sent_before = len(faults.calls("/plain"))
        refused = mrtr_here("replay", str(path))
        assert refused.code == 1 and "redacted the argument 'token'" in refused.stderr and "-a token=VALUE" in refused.stderr
        assert len(faults.calls("/plain")) == sent_before
        # /plain's result names the request's id, which replay (no era probe) numbers from 1 again
        given = mrtr_here("replay", str(path), "-a", "token=fresh", "--ignore", "$.rounds[*].received.result.structuredContent.id")
        assert given.code == 0, given.stderr
        last = faults.calls("/plain")[-1]
        assert last["body"]["params"]["arguments"]["token"] == "fresh" and last["headers"]["Mcp-Param-Token"] == "fresh"
    finally:
        faults.stop()


def test_redacting_a_json_path(tmp_path: Path, scripted):
    server = scripted(steps=[{"result": text_result("x", structuredContent={"apiKey": "k-123", "ok": True})}])
    path = record(tmp_path, "p.yaml", *server.args("call", "t", "--redact", "$.rounds[*].received.result.structuredContent.apiKey"))
    document = transcript(path)
    assert document["rounds"][0]["received"]["result"]["structuredContent"] == {"apiKey": "[redacted]", "ok": True}
    assert "k-123" not in path.read_text()


def test_a_dead_server_leaves_a_transcript_show_can_read(tmp_path: Path, scripted):
    form = elicit("Name?", {"name": {"type": "string"}})
    server = scripted(steps=[{"result": input_required({"n": form})}, {"exit": 9, "stderr": "boom\n"}])
    path = record(tmp_path, "dead.yaml", *server.args("call", "t", "--answer", "n.name=Ada"))
    document = transcript(path)
    assert document["outcome"] == "aborted" and len(document["rounds"]) == 2
    assert document["rounds"][1]["received"] == {}  # sent, never answered
    assert document["error"]["kind"] == "unreachable" and "exited with code 9" in document["error"]["message"]
    shown = mrtr_here("show", str(path))
    assert shown.code == 0 and "? n · elicitation/create (form)" in shown.stdout and "exited with code 9" in shown.stdout


def test_a_call_refused_at_discover_keeps_its_request_and_replays_the_same(tmp_path: Path, scripted):
    server = scripted(discover={"error": {"code": -32601, "message": "Method not found"}})
    path = record(tmp_path, "old.yaml", *server.args("call", "greet", "-a", "name=Ada"))
    document = transcript(path)
    assert document["request"] == {"method": "tools/call", "params": {"name": "greet", "arguments": {"name": "Ada"}}}
    assert document["outcome"] == "error" and document["rounds"] == []
    replayed = mrtr_here("replay", str(path), "--trust-target")
    assert replayed.code == 0, replayed.stderr  # a recorded error that replays identically (CLI.md)
    assert "same as recorded (0 rounds)" in replayed.stderr
    other = scripted(discover={"error": {"code": -32601, "message": "Method not found"}})
    assert mrtr_here("replay", str(path), "--stdio", " ".join(other.command)).code == 0


def test_a_server_dead_at_start_keeps_the_request_and_replay_shows_its_stderr(tmp_path: Path, scripted):
    dead = {"exit": 3, "stderr": "fatal: no config file\n"}
    server = scripted(discover=[dead], steps=[dead])  # started once more for the handshake, it dies again
    path = record(tmp_path, "dead.yaml", *server.args("call", "greet", "-a", "name=Ada"))
    document = transcript(path)
    assert document["request"]["params"] == {"name": "greet", "arguments": {"name": "Ada"}}
    assert document["outcome"] == "aborted"
    replayed = mrtr_here("replay", str(path), "--trust-target")
    assert replayed.code == 4
    assert "its last stderr lines follow" in replayed.stderr and "fatal: no config file" in replayed.stderr


def test_a_stdio_transcript_keeps_the_directory_and_replays_from_elsewhere(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "tests" / "servers" / "scripted_server.py", project / "server.py")
    (project / "script.json").write_text(json.dumps({"steps": [{"result": text_result("ok")}] * 2}))
    path = tmp_path / "rel.yaml"
    run = mrtr_here("call", "t", "--record", str(path), "--", PYTHON, "server.py", "script.json", cwd=project,
                    env={"PYTHONPATH": str(ROOT)})
    assert run.code == 0, run.stderr
    assert transcript(path)["target"]["cwd"] == str(project.resolve())
    replayed = mrtr_here("replay", str(path), "--trust-target")  # from the repository's root
    assert replayed.code == 0, replayed.stderr


def test_ctrl_c_leaves_a_transcript(tmp_path: Path, scripted):
    form = elicit("Name?", {"name": {"type": "string"}})
    server = scripted(steps=[{"result": input_required({"n": form})}, {"silent": True}])
    path = tmp_path / "c.yaml"
    process = subprocess.Popen([PYTHON, "-m", "mrtr_cli", *server.args("call", "t", "--answer", "n.name=Ada",
                                                                        "--record", str(path))],
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while len(server.calls()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=20) == 130
    document = transcript(path)
    assert document["outcome"] == "aborted" and document["error"]["kind"] == "interrupted"
    assert mrtr_here("show", str(path), "--json").json()["outcome"] == "aborted"


def test_a_killed_recorder_leaves_a_partial_transcript(tmp_path: Path, scripted):
    form = elicit("Name?", {"name": {"type": "string"}})
    server = scripted(steps=[{"result": input_required({"n": form})}, {"result": input_required({"m": form})},
                             {"silent": True}])
    path = tmp_path / "k.yaml"
    process = subprocess.Popen([PYTHON, "-m", "mrtr_cli", *server.args("call", "t", "--answer", "n.name=A",
                                                                        "--answer", "m.name=B", "--record", str(path))],
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    partial = tmp_path / "k.yaml.partial"

    def rounds_kept() -> int:
        shown = mrtr_here("show", str(partial), "--json")
        return len(shown.json()["rounds"]) if partial.exists() and shown.code == 0 else 0

    assert wait_for(lambda: len(server.calls()) == 3 and rounds_kept() == 2)  # round 3 asked, rounds 1 and 2 kept
    process.kill()
    process.wait(timeout=10)
    assert not path.exists() and partial.exists()
    shown = mrtr_here("show", str(partial), "--json").json()
    assert shown["outcome"] == "aborted" and len(shown["rounds"]) == 2


def test_tags_are_refused_without_running_anything(tmp_path: Path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.yaml"
    path.write_text(f"mrtr_transcript: 1\nrequest: !!python/object/apply:os.system ['touch {marker}']\n")
    for command in (["show", str(path)], ["replay", str(path), "--trust-target"], ["serve", str(path)]):
        run = mrtr_here(*command)
        assert run.code == 1 and f"{path}:2:10:" in run.stderr and "!!python/object are never accepted" in run.stderr
    assert not marker.exists()


def test_a_malformed_transcript_gets_one_line_with_its_line_number(tmp_path: Path):
    good = Path(ROOT / "recordings" / "two_questions.yaml").read_text()
    broken = tmp_path / "broken.yaml"
    broken.write_text(good.replace("  received:\n", "  receivd:\n", 1))
    run = mrtr_here("show", str(broken))
    assert run.code == 1
    line = run.stderr.strip().splitlines()[-1]
    expected = good.splitlines().index("  received:") + 2  # the value of the misspelt key, below it
    assert f"broken.yaml:{expected}:5: unknown key 'receivd' (did you mean 'received'?)" in line


def test_rerecording_changes_only_what_changes_between_runs(tmp_path: Path):
    args = ("call", "book_table", "--demo", "--answers", "examples/book_table.yaml")
    first, second = record(tmp_path, "1.yaml", *args), record(tmp_path, "2.yaml", *args)
    changed = [a for a, b in zip(first.read_text().splitlines(), second.read_text().splitlines()) if a != b]
    assert len(first.read_text().splitlines()) == len(second.read_text().splitlines())
    assert changed and all(line.strip().startswith(("at:", "requestState:", "elapsed_ms:", "sent_at:")) for line in changed), changed


def test_recordings_replay_green():
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "recordings").glob("*.yaml"))
    assert len(files) >= 10
    for name in files:
        transcript(ROOT / name)
    run = mrtr_here("replay", *files, "--demo", "--json")
    assert run.code == 0, run.stderr
    assert {t["result"] for t in run.json()["transcripts"]} == {"same"}
    jsonschema.validate(run.json(), json.loads((ROOT / "docs" / "json" / "replay.schema.json").read_text()))


def test_strict_replay_compares_notifications(tmp_path: Path):
    path = ROOT / "recordings" / "poll_status.yaml"
    assert mrtr_here("replay", str(path), "--demo", "--strict").code == 0
    edited = tmp_path / "poll.yaml"
    document = yaml.safe_load(path.read_text())
    document["rounds"][0]["received"]["notifications"][0]["params"]["message"] = "something else"
    edited.write_text(yaml.safe_dump(document, sort_keys=False))
    assert mrtr_here("replay", str(edited), "--demo").code == 0
    strict = mrtr_here("replay", str(edited), "--demo", "--strict")
    assert strict.code == 6 and "round 1: notifications" in strict.stderr


def test_show_renders_the_recorded_timeline():
    run = mrtr_here("show", str(ROOT / "recordings" / "book_table.yaml"))
    assert run.code == 0
    assert "\nBooked a table for 4 (window, quiet) in Lisbon on 2026-12-24" in run.stdout
    for expected in ("→ tools/call book_table", "? party · elicitation/create (form)", "from answers-file",
                     "↻ tools/call book_table", "✓ complete · 4 rounds"):
        assert expected in run.stdout
    document = mrtr_here("show", str(ROOT / "recordings" / "book_table.yaml"), "--json").json()
    jsonschema.validate(document, json.loads((ROOT / "docs" / "json" / "conversation.schema.json").read_text()))
    assert len(document["rounds"]) == 4 and document["rounds"][0]["questions"]["date"]["source"] == "answers-file"


def test_a_conversation_that_hopped_shows_each_rounds_instance_and_replays_and_serves_the_same(tmp_path: Path):
    """A round's `instance` (--replica, --restart-between-rounds) is drawn by `show` as the timeline
    drew it, each before its round's request, its name made safe; `show --json` keeps it; `replay`
    (no replicas now) does not compare it; `serve` ignores it."""
    document = yaml.safe_load((ROOT / "recordings" / "book_table.yaml").read_text())
    names = ["127.0.0.1:8001", "127.0.0.1:8002\x1b[2J"]
    for index, entry in enumerate(document["rounds"]):
        document["rounds"][index] = {"round": entry.pop("round"), "id": entry.pop("id"),
                                     "instance": {"position": index % 2, "name": names[index % 2]}, **entry}
    hopped = tmp_path / "hopped.yaml"
    hopped.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))
    run = mrtr_here("show", str(hopped))
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    drawn = [i for i, line in enumerate(lines) if line.startswith("  round ") and " → instance " in line]
    assert [lines[i] for i in drawn[:2]] == ["  round 1 → instance 0 · 127.0.0.1:8001",
                                             "  round 2 → instance 1 · 127.0.0.1:8002\\x1b[2J"]
    assert len(drawn) == 4 and all(lines[i + 1].startswith(("→ tools/call", "↻ tools/call")) for i in drawn)
    shown = mrtr_here("show", str(hopped), "--json").json()
    jsonschema.validate(shown, json.loads((ROOT / "docs" / "json" / "conversation.schema.json").read_text()))
    assert [r["instance"] for r in shown["rounds"]] == [e["instance"] for e in document["rounds"]]
    replayed = mrtr_here("replay", str(hopped), "--demo")
    assert replayed.code == 0 and "same as recorded (4 rounds)" in replayed.stderr, replayed.stderr
    served = mrtr_here("call", "book_table", "--answers", "examples/book_table.yaml", "--json", "--",
                       PYTHON, "-m", "mrtr_cli", "serve", str(hopped))
    assert served.code == 0 and served.json()["outcome"] == "complete", served.stderr
    assert "instance" not in mrtr_here("show", str(ROOT / "recordings" / "book_table.yaml")).stdout


SERVE = [PYTHON, "-m", "mrtr_cli", "serve", str(ROOT / "recordings" / "book_table.yaml")]


def test_serve_is_driven_to_completion_by_mrtr():
    run = mrtr_here("call", "book_table", "--answers", "examples/book_table.yaml", "--json", "--", *SERVE)
    assert run.code == 0, run.stderr
    assert run.json()["result"]["structuredContent"]["received"]["party"] == {"size": 4, "seating": ["window", "quiet"]}
    listed = mrtr_here("list", "tools", "--json", "--", *SERVE).json()
    assert [t["name"] for t in listed["tools"]] == ["book_table"]


def test_serve_over_http():
    with http_server([*SERVE, "--http", "127.0.0.1:0"]) as url:
        run = mrtr_here("call", "book_table", "--answers", "examples/book_table.yaml", "--url", url)
        assert run.code == 0, run.stderr


def test_serve_is_driven_by_the_sdk_clients_automatic_loop():
    recorded = {"date": {"date": "2026-12-24"}, "party": {"size": 4, "seating": ["window", "quiet"]},
                "confirm": {"confirm": True}}

    async def answer(context, params):
        field = next(iter(params.requested_schema["properties"]))
        key = {"date": "date", "size": "party", "confirm": "confirm"}[field]
        return ElicitResult(action="accept", content=recorded[key])

    async def run():
        parameters = StdioServerParameters(command=SERVE[0], args=SERVE[1:], cwd=str(ROOT))
        async with Client(parameters, elicitation_callback=answer) as client:
            return await client.call_tool("book_table", {})

    result = anyio.run(run)
    assert result.structured_content["received"]["confirm"] == {"confirm": True}


def test_serve_asks_again_when_answers_are_missing_and_refuses_wrong_ones():
    peer = StdioPeer(SERVE)
    try:
        first = peer.exchange(request(1, "tools/call", {"name": "book_table", "arguments": {}}))[-1]["result"]
        state = first["requestState"]
        again = peer.exchange(request(2, "tools/call", {"name": "book_table", "arguments": {}, "requestState": state}))
        assert list(again[-1]["result"]["inputRequests"]) == ["date"]
        wrong = {"date": {"action": "accept", "content": {"date": "2031-01-01"}}}
        error = peer.exchange(request(3, "tools/call", {"name": "book_table", "arguments": {}, "requestState": state,
                                                        "inputResponses": wrong}))[-1]["error"]
        assert error["code"] == -32602 and "the answer to 'date' differs from the recording" in error["message"]
        assert error["data"]["recorded"]["content"] == {"date": "2026-12-24"} and error["data"]["key"] == "date"
        unknown = peer.exchange(request(4, "tools/call", {"name": "book_table", "arguments": {"city": "Oslo"}}))
        assert "the nearest" in unknown[-1]["error"]["message"] and "arguments {}" in unknown[-1]["error"]["message"]
    finally:
        peer.close()


def odd_requests(state: str) -> list[str]:
    """Requests a client may send `mrtr serve` that no recording matches, one line each."""
    call = {"name": "book_table", "arguments": {}}
    answer = {"action": "accept", "content": {"date": "2026-12-24"}}
    messages = [
        request(10, "tools/frobnicate"), {"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": [1]},
        request(12, "tools/call", {"name": "book_table", "arguments": {"city": "Oslo"}}),
        request(13, "tools/call", {"name": "book_table", "arguments": [1]}), request(14, "tools/call", {"name": 5}),
        request(15, "tools/call", {"name": "nope"}), request(16, "prompts/get", {"name": "book_table"}),
        request(17, "tools/call", {**call, "requestState": "abc.def"}),
        request(18, "tools/call", {**call, "requestState": 7}),
        request(19, "tools/call", {**call, "requestState": state, "inputResponses": [answer]}),
        request(20, "tools/call", {**call, "requestState": state, "inputResponses": {"elsewhere": answer}}),
        request(21, "tools/call", {**call, "inputResponses": {"date": answer}}),
        request(22, "tools/call", {**call, "requestState": state[:-3] + "AAA", "inputResponses": {"date": answer}}),
        request(23, "tools/list", {"cursor": "x"}), {"jsonrpc": "2.0", "id": 24, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 25, "method": "tools/call", "params": {"name": "book_table", "_meta": []}},
    ]
    return [json.dumps(m) for m in messages] + ["{not json", "[]", "null", '"text"', '{"jsonrpc": "2.0", "id": {}}']


def test_serve_answers_every_odd_request_with_an_error_over_stdio():
    peer = StdioPeer(SERVE, stderr=subprocess.PIPE)
    try:
        first = peer.exchange(request(1, "tools/call", {"name": "book_table", "arguments": {}}))[-1]["result"]
        for line in odd_requests(first["requestState"]):
            reply = peer.exchange_line(line)
            assert "error" in reply or "result" in reply, (line, reply)
            if "error" in reply:
                assert isinstance(reply["error"]["code"], int) and reply["error"]["message"], (line, reply)
        assert peer.exchange(request(99, "tools/list"))[-1]["result"]["tools"][0]["name"] == "book_table"
    finally:
        peer.close()
        assert peer.process.stderr
        errors = peer.process.stderr.read().decode()
        peer.process.stderr.close()
    assert "Traceback" not in errors


def test_serve_answers_every_odd_request_with_an_error_over_http():
    with http_server([*SERVE, "--http", "127.0.0.1:0"]) as url:
        peer = HttpPeer(url)
        first = peer.exchange(request(1, "tools/call", {"name": "book_table", "arguments": {}}))[-1]["result"]
        plain = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        for line in odd_requests(first["requestState"]):
            try:
                headers = peer.headers_for(json.loads(line))
            except (ValueError, AttributeError, TypeError, KeyError):
                headers = plain
            response = peer.post(line, headers)
            assert response.status_code < 500, (line, response.status_code, response.text)
            reply = messages_of(response)[-1]
            assert "error" in reply or "result" in reply, (line, reply)
        peer.close()


UNSERVABLE = {
    "no round": (lambda d: d.update(rounds=[]), "it records no round"),
    "a round never answered": (lambda d: d["rounds"][3].update(received={}), "round 4 has no result or error"),
    "questions in a list": (lambda d: d["rounds"][0]["received"]["result"].update(inputRequests=["date"]),
                            "round 1: inputRequests is not a JSON object"),
    "resultType 5": (lambda d: d["rounds"][1]["received"]["result"].update(resultType=5),
                     "round 2: the result of tools/call has an unknown resultType 5"),
    "another tool": (lambda d: d.update(tool={"name": "other"}), "its tool definition is 'other'"),
    "an older-era question without a message": (
        lambda d: d.update(mrtr_transcript=2, era="older", rounds=[{**d["rounds"][0], "received": {
            "asked_in_flight": {"elicitation#1": {"method": "elicitation/create", "params": {"mode": "form"}}}}}]),
        "round 1: input request 'elicitation#1' is an elicitation without a message"),
}
MALFORMED = {
    "nameless request": (lambda d: d["request"].update(params={}), "request.params: lacks 'name'"),
    "answers in a list": (lambda d: d["rounds"][1]["sent"]["params"].update(inputResponses=[1]),
                          "rounds[1].sent.params.inputResponses: expected a mapping"),
}


def changed_booking(tmp_path: Path, change: Any) -> Path:
    """recordings/book_table.yaml with `change` applied, in a new file."""
    document = yaml.safe_load((ROOT / "recordings" / "book_table.yaml").read_text())
    change(document)
    path = tmp_path / "odd.yaml"
    path.write_text(yaml.safe_dump(document))
    return path


def serve_at_start(path: Path) -> subprocess.CompletedProcess[str]:
    """`mrtr serve PATH` with nothing on stdin: it stops at once, or refuses the file."""
    return subprocess.run([*SERVE[:-1], str(path)], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=30, cwd=ROOT)


@pytest.mark.parametrize("name", MALFORMED)
def test_serve_refuses_a_transcript_outside_the_schema_with_the_place(tmp_path: Path, name: str):
    change, reason = MALFORMED[name]
    path = changed_booking(tmp_path, change)
    done = serve_at_start(path)
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith(f"✗ {path}:") and reason in done.stderr, done.stderr


@pytest.mark.parametrize("name", UNSERVABLE)
def test_serve_refuses_at_start_a_transcript_it_cannot_serve(tmp_path: Path, name: str):
    change, reason = UNSERVABLE[name]
    path = changed_booking(tmp_path, change)
    transcript(path)  # valid: it loads; it just cannot be served
    done = serve_at_start(path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"✗ cannot serve {str(path)!r}: {reason}"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_serve_refuses_at_start_a_recording_that_stops_at_a_question(tmp_path: Path):
    """A call recorded until a question nothing answered (as Ctrl-C at a prompt leaves it) has no reply
    to the client's answer: refused at start, naming where it stops, in either era's recording."""
    stops = {"modern": ("round 2, at question 'party'", ["--answer", "date.date=2026-12-24"]),
             "older": ("round 1, at question 'elicitation#1'", ["--protocol-era", "older"])}
    for era, (where, answers) in stops.items():
        path = tmp_path / f"{era}.yaml"
        recorded = mrtr_here("call", "book_table", "--demo", *answers, "--no-input", "--record", str(path))
        assert recorded.code == 7 and transcript(path)["outcome"] == "incomplete", recorded.stderr
        done = serve_at_start(path)
        assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert done.stderr.startswith(f"✗ cannot serve {str(path)!r}: the recording stops at {where}: nothing "
                                      "after it was recorded (outcome incomplete)"), done.stderr


def test_a_request_the_served_app_fails_on_gets_an_internal_error_not_a_traceback():
    from mrtr_cli.server.dispatcher import Dispatcher

    class Failing:
        info, instructions = {"name": "failing", "version": "0"}, None

        def capabilities(self):
            return {"tools": {}}

        def listing(self, key):
            raise ValueError("a listing nobody foresaw")

    reply = Dispatcher(Failing()).handle(request(1, "tools/list"))
    assert reply.status == 500 and reply.message["error"]["code"] == -32603
    assert reply.message["error"]["message"] == "Internal error: ValueError: a listing nobody foresaw"


def test_a_long_result_that_changed_is_shown_by_the_fields_that_changed(tmp_path: Path):
    """Issue 35: a long result printed whole on one line hid what changed; each changed field is
    shown by its path under the result, recorded `-` and live `+`; a short value stays on one line."""
    path = record(tmp_path, "booked.yaml", "call", "book_table", "--demo", "--answers", "examples/book_table.yaml")
    document = yaml.safe_load(path.read_text())
    result = document["rounds"][-1]["received"]["result"]
    result["content"][0]["text"] = result["content"][0]["text"].replace("Lisbon", "Porto")
    result["structuredContent"]["received"]["party"]["size"] = 5
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    run = mrtr_here("replay", str(path), "--demo")
    assert run.code == 6, run.stderr
    lines = run.stderr.splitlines()
    shown = lines[lines.index(next(line for line in lines if line.endswith(": result"))) + 1:]
    assert shown[0] == "      $.content[0].text" and "in Porto on" in shown[1] and "in Lisbon on" in shown[2]
    assert shown[3:6] == ["      $.structuredContent.received.party.size", "        - 5", "        + 4"]
