"""Servers that misbehave on purpose, one fault per test: each asserts the exit code, the
message, and what the transcript kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import elicit, input_required, mrtr_here, text_result
from servers.http_faults import FaultServer

FORM = elicit("Name?", {"name": {"type": "string"}})


def recorded(server, tmp_path: Path, *args: str):
    path = tmp_path / "t.yaml"
    run = mrtr_here(*server.args("call", "t", "--record", str(path), *args))
    return run, yaml.safe_load(path.read_text())


def findings(document: dict) -> list[str]:
    return [f["rule"] for entry in document["rounds"] for f in entry["findings"]]


def test_non_json_and_partial_lines_on_stdout(scripted, tmp_path: Path):
    server = scripted(steps=[{"before": ["hello from print()", '{"jsonrpc": "2.0", "id": 2, "res'],
                              "result": text_result("ok")}])
    run, document = recorded(server, tmp_path)
    assert run.code == 0
    assert run.stderr.count("[not-jsonrpc]") == 2 and "ignored: hello from print()" in run.stderr
    assert findings(document) == ["not-jsonrpc", "not-jsonrpc"] and document["outcome"] == "complete"


def test_strict_turns_must_findings_into_exit_2(scripted):
    server = scripted(steps=[{"before": ["garbage"], "result": text_result("ok")}])
    run = mrtr_here(*server.args("call", "t", "--strict", "--json"))
    assert run.code == 2 and run.json()["outcome"] == "complete"
    assert run.json()["findings"][0]["rule"] == "not-jsonrpc"
    assert run.error_line()["error"] == {"code": "protocol", "message": "the server broke a MUST of the spec (--strict)"}


def test_a_response_with_an_unknown_id(scripted, tmp_path: Path):
    server = scripted(steps=[{"before": ['{"jsonrpc":"2.0","id":999,"result":{"resultType":"complete"}}'],
                              "result": text_result("ok")}])
    run, document = recorded(server, tmp_path)
    assert run.code == 0 and "a response for id 999, which no request in flight has" in run.stderr
    assert findings(document) == ["unknown-response-id"]


def test_a_duplicate_response(scripted, tmp_path: Path):
    duplicate = json.dumps({"jsonrpc": "2.0", "id": 2, "result": input_required({"n": FORM})})
    server = scripted(steps=[{"raw": [duplicate, duplicate]}, {"result": text_result("ok")}])
    run, document = recorded(server, tmp_path, "--answer", "n.name=Ada")
    assert run.code == 0, run.stderr
    assert "a response for id 2, which no request in flight has" in run.stderr
    assert findings(document) == ["unknown-response-id"] and document["rounds"][1]["findings"][0]["rule"] == \
        "unknown-response-id"


def test_an_error_without_an_id(scripted, tmp_path: Path):
    server = scripted(steps=[{"raw": ['{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}']}])
    run, document = recorded(server, tmp_path)
    assert run.code == 2 and "error -32700: Parse error" in run.stderr
    assert findings(document) == ["error-without-id"] and document["outcome"] == "error"
    assert document["rounds"][0]["received"]["error"]["code"] == -32700


def test_a_request_from_the_server(scripted, tmp_path: Path):
    server = scripted(steps=[{"before": ['{"jsonrpc":"2.0","id":"s1","method":"roots/list"}'],
                              "result": text_result("ok")}])
    run, document = recorded(server, tmp_path)
    assert run.code == 0 and "[server-request]" in run.stderr
    assert findings(document) == ["server-request"]


def test_a_server_that_exits_mid_round(scripted, tmp_path: Path):
    server = scripted(steps=[{"result": input_required({"n": FORM})}, {"exit": 2, "stderr": "fatal: out of cheese\n"}])
    run, document = recorded(server, tmp_path, "--answer", "n.name=Ada")
    assert run.code == 4 and "exited with code 2 while mrtr waited for tools/call (id 3)" in run.stderr
    assert "fatal: out of cheese" in run.stderr
    assert document["outcome"] == "aborted" and document["error"]["kind"] == "unreachable"


def test_a_server_that_floods_stderr(scripted, tmp_path: Path):
    server = scripted(steps=[{"flood": 20_000_000, "result": text_result("still fine")}])
    run, document = recorded(server, tmp_path)
    assert run.code == 0 and run.stdout == "still fine\n"
    assert "chatty" not in run.stderr  # only -v shows the server's stderr
    assert document["outcome"] == "complete"
    verbose = mrtr_here(*server.args("call", "t", "-v"))
    assert verbose.code == 0 and verbose.stderr.count("stderr │ the server is very chatty") > 1000


def test_a_server_that_never_answers(scripted, tmp_path: Path):
    server = scripted(steps=[{"silent": True}])
    run, document = recorded(server, tmp_path, "--timeout", "0.5")
    assert run.code == 4 and "no response to tools/call (id 2) within 0.5 s" in run.stderr
    assert document["outcome"] == "aborted" and document["rounds"][0]["received"] == {}
    assert any(m.get("method") == "notifications/cancelled" for m in server.received())


def test_http_faults_are_kept_in_transcripts(tmp_path: Path):
    faults = FaultServer().start()
    try:
        html = tmp_path / "html.yaml"
        run = mrtr_here("call", "t", "--url", faults.url + "/html500", "--record", str(html))
        assert run.code == 2 and "HTTP 500" in run.stderr
        document = yaml.safe_load(html.read_text())
        assert document["outcome"] == "error" and "HTTP 500" in document["error"]["message"]
        cut = tmp_path / "cut.yaml"
        run = mrtr_here("call", "t", "--url", faults.url + "/cut", "--record", str(cut))
        assert run.code == 0 and "sending it once more under a new id" in run.stderr
        document = yaml.safe_load(cut.read_text())
        ids = [r["body"]["id"] for r in faults.calls("/cut")]
        assert document["rounds"][0]["id"] == ids[-1] != ids[0]  # the round keeps the id that was answered
        assert document["rounds"][0]["received"]["content_type"] == "text/event-stream"
    finally:
        faults.stop()


def form(properties: Any, required: Any = None) -> dict[str, Any]:
    """An elicitation whose requestedSchema is exactly as given (no help from `elicit`)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = required
    return {"method": "elicitation/create", "params": {"mode": "form", "message": "m", "requestedSchema": schema}}


ODD_FORMS = {
    "params that are text": ({"method": "elicitation/create", "params": "x"}, "params that are not a JSON object"),
    "a pattern that is no regular expression": (form({"a": {"type": "string", "pattern": "("}}),
                                                "properties/a/pattern: '(' is not a 'regex'"),
    "a minLength that is text": (form({"a": {"type": "string", "minLength": "x"}}),
                                 "properties/a/minLength: 'x' is not of type 'integer'"),
    "a type that is a list with a number": (form({"a": {"type": ["string", 5]}}), "properties/a/type"),
    "properties that are a list": (form([1, 2]), "requestedSchema.properties is not an object of field schemas"),
    "required that is text": (form({"a": {"type": "string"}}, "a"), "requestedSchema.required is not a list"),
}


@pytest.mark.parametrize("name", ODD_FORMS)
def test_a_form_mrtr_cannot_read_is_exit_2_naming_what_is_wrong(scripted, name: str):
    request, said = ODD_FORMS[name]
    server = scripted(steps=[{"result": input_required({"k": request})}])
    run = mrtr_here(*server.args("call", "t", "--answer", "k.a=x", "--no-input", "--json"))
    assert run.code == 2, run.stderr
    assert "unexpected failure" not in run.stderr
    assert said in run.error_line()["error"]["message"]
