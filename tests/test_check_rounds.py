"""`mrtr check --tool X`: the named tool's own conversation judged round by round (check/tool_rounds.py),
and answers of the wrong shape or null (check/tool_probes.py): the demo's tools pass, a scripted server
breaking one rule is told."""

from __future__ import annotations

import json

import jsonschema
import pytest

from conftest import ROOT, SDK_SERVER, elicit, input_required, mrtr_here, text_result
from mrtr_cli.check.tool_probes import ALL_TOOL_PROBES
from mrtr_cli.check.stream import STREAM_PROBES

SCHEMA = json.loads((ROOT / "docs" / "json" / "check.schema.json").read_text())
ROUND_IDS = ["result-type-present", "asks-elicitation", "completes-after-elicitation", "asks-sampling", "completes-after-sampling",
             "asks-roots", "completes-after-roots", "carries-state", "completes-with-state", "asks-several",
             "completes-after-several", "multi-round-state", "multi-round-new-state", "multi-round-completes"]

TOOL_IDS = [probe[0] for probe in [*ALL_TOOL_PROBES, *STREAM_PROBES] if probe[0] != "server-info"]
"""The probes of the named tool: the scripted server fails some of the safe probes (and names itself in
no result), which these tests leave alone."""


def checks_of(run) -> dict[str, dict]:
    assert "Traceback" not in run.stderr and "unexpected failure" not in run.stderr, run.stderr
    jsonschema.validate(run.json(), SCHEMA)
    return {check["id"]: check for check in run.json()["checks"]}


def statuses(checks: dict[str, dict], ids: list[str]) -> dict[str, str]:
    return {id: checks[id]["status"] for id in ids}


@pytest.mark.parametrize("tool,judged", [
    ("summarize", ["asks-sampling", "completes-after-sampling"]),
    ("workspace_roots", ["asks-roots", "completes-after-roots"]),
    ("two_questions", ["asks-elicitation", "completes-after-elicitation", "asks-several",
                       "completes-after-several"]),
    ("book_table", ["asks-elicitation", "completes-after-elicitation", "multi-round-state",
                    "multi-round-new-state", "multi-round-completes"]),
])
def test_the_demo_tools_pass_the_round_probes_that_apply_and_skip_the_rest_saying_why(tool: str, judged: list[str]):
    run = mrtr_here("check", "--demo", "--tool", tool, "--answers", f"examples/{tool}.yaml", "--json")
    assert run.code == 0, run.stderr
    checks = checks_of(run)
    expected = {id: "pass" if id in [*judged, "result-type-present", "carries-state", "completes-with-state"]
                else "skipped"
                for id in ROUND_IDS}
    assert statuses(checks, ROUND_IDS) == expected
    assert all(checks[id]["seen"].startswith(("the tool asks no", "no round asks", "the tool asks in one round"))
               for id in ROUND_IDS if expected[id] == "skipped")
    assert statuses(checks, ["answer-wrong-shape", "answers-null"]) == {"answer-wrong-shape": "pass",
                                                                        "answers-null": "pass"}
    assert checks["asks-several"]["conformance"] == ["sep-2322-multiple-inputs-incomplete"]


def test_the_tools_own_conversation_comes_before_the_probes_that_complete_the_call():
    """The SDK server's delete_folder asks only while the folder has files: the round rules are
    judged on the first call, not skipped because a probe emptied the folder first."""
    run = mrtr_here("check", "--tool", "delete_folder", "-a", "folder=tmp", "--answer", "confirm.confirm=true",
               "--json", "--", *SDK_SERVER)
    checks = checks_of(run)
    judged = ["result-type-present", "asks-elicitation", "completes-after-elicitation", "carries-state",
              "completes-with-state"]
    assert statuses(checks, judged) == {id: "pass" for id in judged}
    assert checks["completes-with-state"]["seen"] == "complete in round 2"
    assert checks["capability-withheld"]["status"] == "pass"  # the probes reuse the conversation's first round


ASKS = input_required({"a": elicit("Name?", {"name": {"type": "string"}})}, "s1")
REFUSED = {"error": {"code": -32602, "message": "refused"}}
DONE = {"result": text_result("done")}


def probe_steps(wrong_shape: dict = {"result": ASKS}, null: dict = REFUSED) -> list[dict]:
    """The steps of the tool probes after the conversation (whose first round they reuse):
    capability withheld, answerless retry, tampered state, other arguments, extra answers (round 1
    asked afresh, then the answers), wrong shape, null answers."""
    withheld = {"error": {"code": -32021, "message": "Missing required client capability",
                          "data": {"requiredCapabilities": {"elicitation": {}}}}}
    return [withheld, {"result": ASKS}, REFUSED, REFUSED, {"result": ASKS}, {"result": ASKS}, wrong_shape, null,
            withheld]  # capability-withheld-each; conversations-isolated then meets no step: not judged


def check_scripted(scripted, conversation: list[dict], **probes: dict) -> dict[str, dict]:
    server = scripted(tools=[{"name": "X", "inputSchema": {"type": "object"}}],
                      steps=[*conversation, *probe_steps(**probes)])
    run = mrtr_here(*server.args("check", "--tool", "X", "--answer", "a.name=Ada", "--answer", "b.name=Bo",
                            "--answer", "s.text=hi", "--timeout", "5", "--json"))
    checks = checks_of(run)
    return {id: checks[id] for id in TOOL_IDS}


def test_a_scripted_tool_keeping_every_rule_passes(scripted):
    checks = check_scripted(scripted, [{"result": ASKS}, DONE])
    assert {id for id, check in checks.items() if check["status"] in ("fail", "warn")} == set()
    assert checks["completes-after-elicitation"]["seen"] == "complete in round 2"


@pytest.mark.parametrize("probe", ["wrong_shape", "null"])
def test_answers_of_the_wrong_shape_or_null_taken_into_a_complete_result_warn(scripted, probe: str):
    checks = check_scripted(scripted, [{"result": ASKS}, DONE], **{probe: DONE})
    warned = {id for id, check in checks.items() if check["status"] == "warn"}
    assert warned == {"answer-wrong-shape" if probe == "wrong_shape" else "answers-null"}
    if probe == "wrong_shape":
        assert checks["answer-wrong-shape"]["seen"] == "'a' answered with 12345: a complete result"


def test_an_error_after_the_answers_fails_each_completion_probe(scripted):
    checks = check_scripted(scripted, [{"result": ASKS}, REFUSED])
    assert {id for id, check in checks.items() if check["status"] == "fail"} == {
        "completes-after-elicitation", "completes-with-state"}
    assert "round 2" in checks["completes-with-state"]["seen"] and "refused" in checks["completes-with-state"]["seen"]


def test_a_second_round_with_the_same_state_warns(scripted):
    checks = check_scripted(scripted, [{"result": ASKS}, {"result": ASKS}, DONE])
    assert statuses(checks, ["multi-round-state", "multi-round-new-state", "multi-round-completes"]) == {
        "multi-round-state": "pass", "multi-round-new-state": "warn", "multi-round-completes": "pass"}
    assert checks["multi-round-new-state"]["seen"] == "round 2: the same requestState as round 1"


def test_a_malformed_second_round_fails_the_probe_of_the_kind_it_asked(scripted):
    broken = input_required({"s": {"method": "sampling/createMessage", "params": {"maxTokens": 5}}}, "s2")
    checks = check_scripted(scripted, [{"result": ASKS}, {"result": broken}])
    assert checks["asks-sampling"]["status"] == "fail" and "without a messages list" in checks["asks-sampling"]["seen"]
    assert checks["completes-after-sampling"]["status"] == "skipped"
    assert checks["completes-after-elicitation"]["status"] == "fail"


def test_several_questions_answered_at_once_complete(scripted):
    several = input_required({"a": elicit("Name?", {"name": {"type": "string"}}),
                              "b": elicit("Other?", {"name": {"type": "string"}})}, "s1")
    checks = check_scripted(scripted, [{"result": several}, DONE])
    assert statuses(checks, ["asks-several", "completes-after-several"]) == {
        "asks-several": "pass", "completes-after-several": "pass"}


def test_answers_that_run_out_leave_the_completion_probes_not_judged(scripted):
    other = input_required({"z": elicit("Unknown?", {"name": {"type": "string"}})}, "s2")
    checks = check_scripted(scripted, [{"result": ASKS}, {"result": other}])
    assert checks["completes-after-elicitation"]["status"] == "skipped"
    assert checks["completes-after-elicitation"]["seen"].startswith("not judged: ")
    assert checks["multi-round-completes"]["status"] == "skipped"


LOG = json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
ASKING = json.dumps({"jsonrpc": "2.0", "id": "s-1", "method": "elicitation/create",
                     "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}})


@pytest.mark.parametrize("line,probe", [(LOG, "no-log-without-level"), (ASKING, "no-server-requests")])
def test_a_log_or_a_request_on_the_tools_response_stream_fails(scripted, line: str, probe: str):
    checks = check_scripted(scripted, [{"result": ASKS, "before": [line]}, DONE])
    assert {id for id, check in checks.items() if check["status"] == "fail"} == {probe}
    assert checks[probe]["seen"].startswith("1 ")


def test_a_message_the_schema_forbids_fails_the_schema_probe(scripted):
    checks = check_scripted(scripted, [{"result": ASKS}, {"result": {"resultType": "complete", "content": "x"}}])
    assert {id for id, check in checks.items() if check["status"] == "fail"} == {"schema-valid"}
    assert "CallToolResult/content: 'x' is not of type 'array' (result of tools/call)" in checks["schema-valid"]["seen"]


def test_a_first_round_whose_state_is_no_string_fails_the_state_probe(scripted):
    numbered = {**ASKS, "requestState": 7}
    checks = check_scripted(scripted, [{"result": numbered}])
    assert checks["carries-state"]["status"] == "fail" and "requestState is a JSON int" in checks["carries-state"]["seen"]
    assert checks["completes-with-state"]["status"] == "skipped"


def test_a_first_round_asking_without_a_result_type_fails_the_result_type_probe(scripted):
    untyped = {key: value for key, value in ASKS.items() if key != "resultType"}
    checks = check_scripted(scripted, [{"result": untyped}])
    assert checks["result-type-present"]["status"] == "fail"
    assert checks["result-type-present"]["seen"] == "the first round asks, with no resultType"
    assert checks["result-type-present"]["conformance"] == ["sep-2322-result-type-included"]


def test_a_first_round_asking_under_another_result_type_fails_the_result_type_probe(scripted):
    checks = check_scripted(scripted, [{"result": {**ASKS, "resultType": "incomplete"}}])
    assert checks["result-type-present"]["status"] == "fail"
    assert checks["result-type-present"]["seen"] == 'resultType "incomplete"'
