"""`mrtr check`: the demo server and the SDK server pass; a server breaking one rule is told."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PYTHON, ROOT, SDK_SERVER, SERVERS, mrtr_here
from mrtr_cli.check.generic import GENERIC_PROBES
from mrtr_cli.check.probes import EXACT_HEADER_PROBES
from mrtr_cli.check.tool_probes import tampered
from mrtr_cli.check.stream import STREAM_PROBES
from mrtr_cli.check.subscriptions import LISTEN_PROBES
from mrtr_cli.server.state import Sealer, StateRejected
from peers import demo_http, http_server

SCHEMA = json.loads((ROOT / "docs" / "json" / "check.schema.json").read_text())
BOOK = ("--tool", "book_table", "--answers", "examples/book_table.yaml")
NOT_ASKED_BY_BOOK_TABLE = {"asks-sampling", "completes-after-sampling", "asks-roots", "completes-after-roots",
                           "asks-several", "completes-after-several"}
"""The round probes book_table gives nothing to judge: it asks one elicitation question a round."""


def statuses(run) -> dict[str, str]:
    document = run.json()
    jsonschema.validate(document, SCHEMA)
    return {check["id"]: check["status"] for check in document["checks"]}


def test_the_demo_server_passes_over_stdio_and_http():
    run = mrtr_here("check", *BOOK, "--demo", "--json")
    assert run.code == 0, run.stderr
    assert set(statuses(run).values()) == {"pass", "skipped"} and statuses(run)["header-mismatch"] == "skipped"
    with demo_http() as url:
        over_http = mrtr_here("check", *BOOK, "--url", url, "--json")
    verdicts = {k: v for k, v in statuses(over_http).items() if not k.startswith("auth-")}
    assert over_http.code == 0 and set(verdicts.values()) == {"pass", "skipped"}
    assert {k for k, v in verdicts.items() if v == "skipped"} == NOT_ASKED_BY_BOOK_TABLE | {
        "subscription-ack", "subscription-id-tagged",  # the demo offers no listen stream
        "retry-on-another-instance",  # no --replica
        "state-age", "at-most-once", "state-other-principal"}  # no --state-age, --at-most-once, --other-principal


def test_the_sdk_server_passes_with_a_declarative_tool():
    run = mrtr_here("check", "--tool", "greet", "-a", "greeting=hi", "--answer", "__main__:ask_name.name=Ada",
               "--json", "--", *SDK_SERVER)
    assert run.code == 0, run.stderr
    assert set(statuses(run).values()) == {"pass", "skipped"}


def test_without_a_tool_only_the_safe_probes_run():
    run = mrtr_here("check", "--demo")
    assert run.code == 0
    assert "tools/call" not in run.stderr  # no tool the user did not name
    assert "19 pass · 0 fail · 0 warn · 10 skipped" in run.stdout


@pytest.mark.parametrize("fault,check,status", [
    ("meta-not-required", "meta-required", "fail"),
    ("wrong-version-error", "unsupported-version", "fail"),
    ("prompts-undeclared", "capabilities-match", "fail"),
    ("no-server-info", "server-info", "warn"),
    ("server-info-in-discover-only", "server-info", "warn"),
    ("asks-withheld", "capability-withheld", "fail"),
    ("answerless-error", "answerless-retry", "warn"),
    ("extra-error", "extra-answers", "warn"),
])
def test_a_server_breaking_one_rule_is_told_exactly(fault: str, check: str, status: str):
    run = mrtr_here("check", *BOOK, "--json", "--", PYTHON, str(SERVERS / "broken_server.py"), fault)
    verdicts = statuses(run)
    assert verdicts[check] == status, verdicts
    told = [check, *ALSO_TOLD.get(check, [])]
    assert {c for c, s in verdicts.items() if s not in ("pass", "skipped")} == set(told)
    assert run.code == (2 if status == "fail" else 0)
    if status == "fail":
        failed = f"{len(told)} check{'s' if len(told) > 1 else ''} failed: {', '.join(told)}"
        assert run.error_line()["error"]["message"] == failed


ALSO_TOLD = {"capability-withheld": ["capability-withheld-each"]}
"""The probes that judge the same rule more closely, and so fail with it: each kind withheld alone, every round."""


LIST_CACHING = {"tools-list-caching", "prompts-list-caching", "resources-list-caching", "templates-list-caching"}


@pytest.mark.parametrize("fault,failed", [
    ("no-cache-hints", {"discover-caching", *LIST_CACHING, "schema-valid"}),  # the schema requires them too
    ("list-asks", {"lists-not-input-required", *LIST_CACHING}),
])
def test_a_server_breaking_a_list_rule_fails_each_list_it_breaks(fault: str, failed: set[str]):
    run = mrtr_here("check", "--json", "--", PYTHON, str(SERVERS / "broken_server.py"), fault)
    verdicts = statuses(run)
    assert {c for c, s in verdicts.items() if s not in ("pass", "skipped")} == failed and run.code == 2
    assert {c["id"]: c["conformance"] for c in run.json()["checks"]}["tools-list-caching"][0] == \
        "sep-2549-tools-list-caching-hints"


def test_unchecked_state_warns_on_both_state_probes_and_fails_the_forgeries():
    run = mrtr_here("check", *BOOK, "--json", "--", PYTHON, str(SERVERS / "broken_server.py"), "state-unchecked")
    verdicts = statuses(run)
    assert {c for c, s in verdicts.items() if s == "warn"} == {"tampered-state", "state-other-arguments"}
    assert {c for c, s in verdicts.items() if s == "fail"} == {"state-forged-field", "state-tag-tampered",
                                                                "state-truncated"}  # check/state_probes.py
    assert run.code == 2


def test_headers_that_disagree_must_be_refused_over_http():
    with http_server([PYTHON, str(SERVERS / "broken_server.py"), "headers-unchecked", "--http"]) as url:
        run = mrtr_here("check", "--url", url, "--json")
    verdicts = statuses(run)
    assert {c for c, s in verdicts.items() if s == "fail"} == {"header-mismatch", "header-name-mismatch",
                                                                "header-name-missing", "header-method-case"}
    assert run.code == 2


@pytest.mark.parametrize("fault,probe", [("header-value-untrimmed", "header-value-whitespace"),
                                         ("header-names-case-sensitive", "header-name-case")])
def test_header_names_and_values_sent_exactly_as_given_are_judged(fault: str, probe: str):
    with http_server([PYTHON, str(SERVERS / "broken_server.py"), fault, "--http"]) as url:
        run = mrtr_here("check", "--url", url, "--json")
    checks = {check["id"]: check for check in run.json()["checks"]}
    assert {c for c, check in checks.items() if check["status"] == "fail"} == {probe} and run.code == 2
    assert "error -32020" in checks[probe]["seen"] and "(HTTP 400)" in checks[probe]["seen"]


@settings(max_examples=300, deadline=None)
@given(state=st.integers(0, 10**6), name=st.text(max_size=8))
def test_the_tampering_probe_always_changes_what_a_sealed_state_says(state, name):
    sealer, request = Sealer(), {"method": "tools/call", "name": name}
    with pytest.raises(StateRejected):  # altering the last character let one token in 16 through
        sealer.open(tampered(sealer.seal(state, request)), request)


def test_the_tampering_probe_changes_short_and_empty_looking_states():
    assert tampered("1") == "A" and tampered("A") == "B" and tampered("ab") == "aA" and tampered("AAA") == "ABA"


ODD_RESULTS = {
    "resultType 5": ({"resultType": 5}, "unknown resultType 5"),
    "resultType a list": ({"resultType": ["complete"]}, "unknown resultType ['complete']"),
    "resultType null": ({"resultType": None}, "unknown resultType None"),
    "a list": (["complete"], 'not a JSON object: ["complete"]'),
    "a string": ("complete", 'not a JSON object: "complete"'),
    "inputRequests a list": ({"resultType": "input_required", "inputRequests": ["a"]}, "inputRequests is not"),
    "requestState a number": ({"resultType": "input_required", "requestState": 7}, "requestState is a JSON int"),
    "a question not an object": ({"resultType": "input_required", "inputRequests": {"a": "x"}}, "'a' is not a JSON"),
    "a question asking 5": ({"resultType": "input_required", "inputRequests": {"a": {"method": 5}}}, "asks 5"),
}
ERROR_CODE_A_STRING = {"error": {"code": "-32602", "message": "bad"}}
ASKS = {"resultType": "input_required", "requestState": "s1",
        "inputRequests": {"a": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Name?", "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string"}}}}}}}


def odd_check(scripted, **script) -> dict[str, dict[str, str]]:
    """`mrtr check --tool X` over a scripted server; never a crash; the checks by id."""
    server = scripted(tools=[{"name": "X", "inputSchema": {"type": "object"}}], **script)
    run = mrtr_here(*server.args("check", "--tool", "X", "--answer", "a.name=Ada", "--timeout", "1", "--json"))
    assert "unexpected failure" not in run.stderr and "Traceback" not in run.stderr, run.stderr
    assert run.code == 2, run.stderr
    jsonschema.validate(run.json(), SCHEMA)
    return {check["id"]: check for check in run.json()["checks"]}


@pytest.mark.parametrize("name", ODD_RESULTS)
def test_an_odd_first_answer_to_the_tool_fails_naming_what_was_seen(scripted, name: str):
    result, said = ODD_RESULTS[name]
    checks = odd_check(scripted, steps=[{"result": result}])
    assert checks["capability-withheld"]["status"] == "fail" and said in checks["capability-withheld"]["seen"]
    assert {checks[c]["status"] for c in ("answerless-retry", "extra-answers")} == {"skipped"}


@pytest.mark.parametrize("name", ["resultType 5", "a list", "inputRequests a list", "requestState a number"])
def test_odd_answers_to_every_retry_fail_each_probe_naming_what_was_seen(scripted, name: str):
    result, said = ODD_RESULTS[name]
    checks = odd_check(scripted, steps=[{"result": ASKS}] + [{"result": result}] * 6)  # the conversation's retry too
    for probe in ("capability-withheld", "answerless-retry", "tampered-state", "state-other-arguments",
                  "extra-answers"):
        assert checks[probe]["status"] == "fail" and said in checks[probe]["seen"], checks[probe]


def test_odd_answers_to_the_discover_probes_fail_them(scripted):
    odd = [{"result": ["complete"]}, {"result": {"resultType": 5}}, ERROR_CODE_A_STRING]
    checks = odd_check(scripted, discover=["default", *odd], steps=[ERROR_CODE_A_STRING])
    assert checks["discover"]["status"] == "fail" and "not a JSON object" in checks["discover"]["seen"]
    assert checks["meta-required"]["status"] == "fail" and "unknown resultType 5" in checks["meta-required"]["seen"]
    version = checks["unsupported-version"]
    assert version["status"] == "fail" and "error is not an object with an integer code" in version["seen"]
    first = checks["capability-withheld"]
    assert first["status"] == "fail" and "the first tools/call: no response" in first["seen"], first


OLDER_REASON = "the server speaks the initialize-handshake era (2025-11-25): this rule is 2026-07-28's"
OLDER_GROUP = "- skip  {} rules of 2026-07-28 not probed: the server speaks the initialize-handshake era ({})"
OLDER_INIT = {"result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                         "serverInfo": {"name": "old", "version": "1"}}}


def test_an_older_era_demo_gets_the_older_probes_and_the_rest_skipped_with_the_reason():
    run = mrtr_here("check", "--demo", "--protocol-era", "older")
    assert run.code == 0, run.stderr
    assert OLDER_GROUP.format(29, "2025-11-25") in run.stdout and OLDER_REASON not in run.stdout  # one line, not 29
    assert "1 pass · 0 fail · 0 warn · 29 skipped" in run.stdout
    assert "also speaks 2026-07-28: yes, it answered server/discover" in run.stdout
    document = mrtr_here("check", "--demo", "--protocol-era", "older", "--json")
    assert statuses(document) == {"initialize-result": "pass", **{c: "skipped" for c in (
        "discover", "discover-caching", "server-info", "meta-required", "unsupported-version", "header-mismatch",
        *(probe[0] for probe in [*GENERIC_PROBES, *EXACT_HEADER_PROBES, *LISTEN_PROBES, *STREAM_PROBES]))}}
    assert document.json()["era"]["era"] == "older" and document.json()["era"]["speaks_2026_07_28"] is True


def test_an_older_era_check_over_http_also_asks_whether_the_server_speaks_2026_07_28():
    with demo_http() as url:
        run = mrtr_here("check", "--url", url, "--protocol-era", "older", "--tool", "book_table",
                   "--answers", "examples/match_rules.yaml")
    assert run.code == 0, run.stderr
    assert "era: the initialize handshake (2025-11-25); also speaks 2026-07-28: yes" in run.stdout
    assert "2 pass · 0 fail · 0 warn · 71 skipped" in run.stdout


def test_an_older_era_tool_completes_with_its_questions_answered_in_flight():
    run = mrtr_here("check", "--demo", "--protocol-era", "older", "--tool", "book_table",
               "--answers", "examples/match_rules.yaml", "--json")
    assert run.code == 0, run.stderr
    checks = {check["id"]: check for check in run.json()["checks"]}
    assert checks["tool-call-completes"]["status"] == "pass" and "asked in flight" in checks["tool-call-completes"]["seen"]
    assert all(checks[c]["status"] == "skipped" and checks[c]["seen"] == OLDER_REASON for c in (
        "capability-withheld", "answerless-retry", "tampered-state", "state-other-arguments", "extra-answers"))


def test_a_server_refusing_discover_is_checked_in_the_handshake_era(scripted):
    server = scripted(discover={"error": {"code": -32601, "message": "Method not found"}},
                      steps=[OLDER_INIT, {"result": {"content": [{"type": "text", "text": "done"}]}}],
                      tools=[{"name": "X", "inputSchema": {"type": "object"}}])
    run = mrtr_here(*server.args("check", "--tool", "X"))
    assert run.code == 0, run.stderr
    assert ("era: the initialize handshake (2025-06-18); also speaks 2026-07-28: no, it answered server/discover "
            "with error -32601 (Method not found)") in run.stdout
    assert "2 pass · 0 fail · 0 warn · 64 skipped" in run.stdout and "complete after 0 questions" in run.stdout
    assert run.stdout.count(OLDER_GROUP.format(64, "2025-06-18")) == 1 and "this rule is" not in run.stdout
    document = mrtr_here(*server.args("check", "--tool", "X", "--json"))
    assert sum(c["seen"] == OLDER_REASON.replace("2025-11-25", "2025-06-18") for c in document.json()["checks"]) == 64


def test_an_initialize_result_without_server_info_fails(scripted):
    server = scripted(discover={"error": {"code": -32601, "message": "Method not found"}},
                      steps=[{"result": {"protocolVersion": "2025-06-18", "capabilities": {}}}])
    run = mrtr_here(*server.args("check", "--json"))
    assert run.code == 2 and statuses(run)["initialize-result"] == "fail"
    assert run.error_line()["error"]["message"] == "1 check failed: initialize-result"
