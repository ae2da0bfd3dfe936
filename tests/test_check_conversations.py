"""`mrtr check --tool/--resource` on what a server owes a conversation beyond its own rounds
(issue 34): one user's requestState refused from another (`state-other-principal`,
--other-principal), -32021 and not a tool error for each capability withheld alone
(`capability-withheld-each`), no caching hints on interim results (`interim-no-caching-hints`), two
conversations at once that do not mix (`conversations-isolated`); and the first line, which says at
most how many calls the tool receives. Each rule on tests/servers/one_bug_server.py with its bug and
without, through the real CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import PYTHON, ROOT, elicit, input_required, mrtr_here, text_result
from mrtr_cli.check.other_answers import other_answer
from peers import http_server

SERVER = str(ROOT / "tests" / "servers" / "one_bug_server.py")
SCHEMA = json.loads((ROOT / "docs" / "json" / "check.schema.json").read_text())
ANSWERS = """answers:
  size: {content: {size: small}}
  topping: {content: {topping: cheese}}
  format: {content: {format: csv}}
  summary: {text: "one line", model: by-hand}
  month: {content: {month: "2026-11"}}
  passphrase: {content: {passphrase: open}}
"""
ALICE = ("-H", "Authorization: Bearer alice-token")
BOB = ("--other-principal", "Authorization: Bearer bob-token")
NEW_IDS = ["capability-withheld-each", "state-other-principal", "conversations-isolated", "interim-no-caching-hints"]


@pytest.fixture
def answers(tmp_path: Path) -> str:
    path = tmp_path / "answers.yaml"
    path.write_text(ANSWERS)
    return str(path)


def stdio(*bugs: str) -> tuple[str, ...]:
    return ("--stdio", " ".join([PYTHON, SERVER, *(word for bug in bugs for word in ("--bug", bug))]))


def over_http(*bugs: str) -> Any:
    return http_server([PYTHON, SERVER, *(word for bug in bugs for word in ("--bug", bug)), "http"])


def checks_of(run: Any) -> dict[str, dict[str, Any]]:
    assert "Traceback" not in run.stderr and "unexpected failure" not in run.stderr, run.stderr
    jsonschema.validate(run.json(), SCHEMA)
    return {check["id"]: check for check in run.json()["checks"]}


def test_one_users_state_taken_from_another_user_is_warned_and_a_bound_one_passes(answers: str, tmp_path: Path):
    junit = tmp_path / "check.xml"
    with over_http("principal") as url:
        bug = mrtr_here("check", "--url", url, *ALICE, *BOB, "--tool", "statement", "--answers", answers, "--json",
                   "--junit", str(junit), "-v")
    found = checks_of(bug)["state-other-principal"]
    assert found["status"] == "warn" and found["level"] == "SHOULD"
    assert "sent with the --other-principal headers (Authorization): taken, a complete result" in found["seen"]
    assert "Statement of alice" in found["seen"]  # the first user's data, shown to the second
    report = junit.read_text()
    for id in NEW_IDS:
        assert f'name="{id}"' in report  # a test case each
    for text in (bug.stdout, bug.stderr, report):
        assert "bob-token" not in text  # the second identity's value is never shown nor kept
    with over_http() as url:
        bound = mrtr_here("check", "--url", url, *ALICE, *BOB, "--tool", "statement", "--answers", answers, "--json")
    found = checks_of(bound)["state-other-principal"]
    assert found["status"] == "pass", found
    assert found["seen"].endswith("error -32602: requestState was issued to another user (HTTP 400)")


def test_a_second_identity_that_cannot_call_the_tool_skips_the_probe(answers: str):
    with over_http("principal") as url:
        run = mrtr_here("check", "--url", url, *ALICE, "--other-principal", "Authorization: Bearer mallory-token",
                   "--tool", "statement", "--answers", answers, "--json")
    found = checks_of(run)["state-other-principal"]
    assert found["status"] == "skipped"
    assert found["seen"] == ('not probed: the second identity cannot call the tool: a tool error: '
                             '[{"text": "no account for mallory", "type": "text"}]')
    assert "mallory-token" not in run.stdout + run.stderr


def test_without_other_principal_the_probe_is_skipped_saying_what_to_give(answers: str):
    run = mrtr_here("check", *stdio(), "--tool", "statement", "--answers", answers, "--json")
    found = checks_of(run)["state-other-principal"]
    assert found["status"] == "skipped"
    assert found["seen"] == "not probed: give --other-principal 'Authorization: Bearer …' for a second user"


@pytest.mark.parametrize("target", [("--demo",), ("--stdio", f"{PYTHON} {SERVER}")])
def test_other_principal_is_for_http_servers_and_a_named_tool(target: tuple[str, ...], tmp_path: Path):
    run = mrtr_here("check", *target, "--tool", "pizza", *BOB)
    assert run.code == 1 and "--other-principal sends the HTTP headers of a second identity, and this server is a " \
                              "stdio process" in run.stderr, run.stderr
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"local": {"command": PYTHON, "args": [SERVER]}}}))
    assert mrtr_here("check", "--config", str(config), "--server", "local", "--tool", "pizza", *BOB).code == 1
    untargeted = mrtr_here("check", "--url", "http://127.0.0.1:9/mcp", *BOB)
    assert untargeted.code == 1 and "and no tool, prompt or resource is named" in untargeted.stderr
    assert "bob-token" not in untargeted.stderr + run.stderr


def test_a_tool_error_for_an_undeclared_capability_fails_and_minus_32021_with_the_capability_passes(answers: str):
    bug = mrtr_here("check", *stdio("capability"), "--tool", "export", "--answers", answers, "--json")
    assert bug.code == 2
    found = checks_of(bug)
    each = found["capability-withheld-each"]
    assert each["status"] == "fail" and each["level"] == "MUST"
    assert each["seen"].startswith("elicitation.form withheld: round 1 is a complete result with isError where the "
                                   "usual conversation asks 'format' in round 1")
    assert "sampling withheld: round 2 is a complete result with isError" in each["seen"]  # each kind on its own
    assert found["capability-withheld"]["status"] == "fail"  # before: a tool error was taken for "no such question"
    good = mrtr_here("check", *stdio(), "--tool", "export", "--answers", answers, "--json")
    each = checks_of(good)["capability-withheld-each"]
    assert each["status"] == "pass"
    assert each["seen"] == ('elicitation.form withheld: round 1, -32021 listing {"elicitation": {"form": {}}}; '
                            'sampling withheld: round 2, -32021 listing {"sampling": {}}')


def test_caching_hints_on_an_interim_result_are_warned_on_any_target(answers: str):
    bug = mrtr_here("check", *stdio("caching"), "--resource", "notes://draft", "--answers", answers, "--json")
    found = checks_of(bug)["interim-no-caching-hints"]
    assert found["status"] == "warn"
    count = re.fullmatch(r'(\d+) of \1 input_required results carry caching hints; first: resources/read '
                         r'notes://draft round 1: ttlMs 0, cacheScope "private"', found["seen"])
    assert count, found["seen"]  # the resource's conversation, and the probes that run it again
    assert "[interim-caching-hints]" in bug.stderr  # the lint finding, on the timeline
    good = mrtr_here("check", *stdio(), "--resource", "notes://draft", "--answers", answers, "--json")
    assert checks_of(good)["interim-no-caching-hints"]["status"] == "pass"


def test_two_conversations_mixed_by_a_shared_global_are_warned_and_kept_apart_in_request_state_pass(answers: str):
    bug = mrtr_here("check", *stdio("shared"), "--tool", "pizza", "--answers", answers, "--json")
    found = checks_of(bug)["conversations-isolated"]
    assert found["status"] == "warn" and found["level"] == "SHOULD"
    assert found["seen"].startswith("A's result carries B's answer 'medium'; two conversations interleaved, B "
                                    'answering `size.size` "small" → "medium"')
    good = mrtr_here("check", *stdio(), "--tool", "pizza", "--answers", answers, "--json")
    found = checks_of(good)["conversations-isolated"]
    assert found["status"] == "pass" and found["seen"].endswith("each carries only its own answers")


def test_two_users_conversations_mixed_are_a_must_failure(answers: str):
    with over_http("shared") as url:
        run = mrtr_here("check", "--url", url, *ALICE, *BOB, "--tool", "pizza", "--answers", answers, "--json")
    found = checks_of(run)["conversations-isolated"]
    assert run.code == 2 and found["status"] == "fail" and found["level"] == "MUST"
    assert "B as the --other-principal headers (Authorization)" in found["seen"]
    assert "bob-token" not in run.stdout + run.stderr


def test_the_calls_line_comes_once_the_era_is_known_and_before_any_call_and_holds():
    run = mrtr_here("check", "--demo", "--tool", "book_table", "--answers", "examples/book_table.yaml")
    assert run.code == 0, run.stdout
    lines = run.stderr.splitlines()
    at = next(index for index, line in enumerate(lines) if line.startswith("calls: "))
    assert lines[at - 1].startswith("  era: modern (2026-07-28)") and "tools/call" not in "\n".join(lines[:at])
    match = re.fullmatch(r"calls: tool book_table at most (\d+) times \(\d+ single calls, \d+ conversations "
                         r"of at most 11 calls\)", lines[at])
    assert match, lines[at]
    sent = len(re.findall(r"^[→↻] tools/call book_table", run.stderr, re.M))
    assert 0 < sent <= int(match.group(1))


def test_json_says_the_first_lines_numbers_of_calls_for_each_named_target():
    run = mrtr_here("check", "--demo", "--tool", "book_table", "--answers", "examples/book_table.yaml",
                    "--prompt", "release_notes", "-a", "version=2.0", "--answer", "audience.audience=users",
                    "--resource", "vault://recipes", "--json")
    assert run.code == 0, run.stderr
    document = run.json()
    jsonschema.validate(document, SCHEMA)
    assert calls_line_of(run.stderr) == first_line_of(document["calls"])
    assert [(entry["target"], entry["name"]) for entry in document["calls"]] == [
        ("tool", "book_table"), ("prompt", "release_notes"), ("resource", "vault://recipes")]
    tool = document["calls"][0]
    assert tool["at_most"] == tool["single_calls"] + tool["conversations"] * tool["conversation_calls_at_most"]
    sent = len(re.findall(r"^[→↻] tools/call book_table", run.stderr, re.M))
    assert 0 < sent <= tool["at_most"]
    unnamed = mrtr_here("check", "--demo", "--json")
    assert unnamed.json()["calls"] == []  # no target named, no call of one
    jsonschema.validate(unnamed.json(), SCHEMA)
    hopping = mrtr_here("check", "--demo", "--tool", "book_table", "--answers", "examples/book_table.yaml",
                        "--restart-between-rounds", "--json")
    [hops] = hopping.json()["calls"]
    assert calls_line_of(hopping.stderr) == first_line_of([hops]) and hops["at_most"] > tool["at_most"]


def calls_line_of(stderr: str) -> str:
    """The one `calls: ...` line of a check's stderr (printed once the era is known)."""
    [line] = [line for line in stderr.splitlines() if line.startswith("calls: ")]
    return line


def first_line_of(calls: list[dict[str, Any]]) -> str:
    """The text line `calls: ...` that check --json's `calls` says."""
    return "calls: " + "; ".join(
        f"{entry['target']} {entry['name']} at most {entry['at_most']} times ({entry['single_calls']} single calls, "
        f"{entry['conversations']} conversation{'s' if entry['conversations'] != 1 else ''} of at most "
        f"{entry['conversation_calls_at_most']} calls)" for entry in calls)


def test_in_the_older_era_the_calls_line_counts_the_one_call_the_tool_receives():
    run = mrtr_here("check", "--demo", "--protocol-era", "older", "--tool", "book_table", "--answers",
                    "examples/book_table.yaml", "--prompt", "x")
    calls = [line for line in run.stderr.splitlines() if line.startswith("calls: ")]
    assert calls == ["calls: tool book_table at most 11 times (1 conversation of at most 11 calls)"], run.stderr


@pytest.mark.parametrize("tool", ["book_table", "all_fields"])
def test_the_demo_passes_every_new_probe_that_applies(tool: str):
    run = mrtr_here("check", "--demo", "--tool", tool, "--answers", f"examples/{tool}.yaml", "--json")
    found = checks_of(run)
    assert {id: found[id]["status"] for id in NEW_IDS} == {
        "capability-withheld-each": "pass", "state-other-principal": "skipped", "conversations-isolated": "pass",
        "interim-no-caching-hints": "pass"}


def test_another_valid_answer_changes_each_field_its_schema_lets_change():
    request = {"method": "elicitation/create", "params": {"requestedSchema": {"type": "object", "properties": {
        "when": {"type": "string", "format": "date"}, "size": {"type": "integer", "minimum": 1, "maximum": 4},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"}, "ok": {"type": "boolean"},
        "pick": {"type": "array", "maxItems": 1, "items": {"enum": ["a", "b"]}}, "one": {"enum": ["x"]}}}}}
    answer = {"action": "accept", "content": {"when": "2026-12-31", "size": 4, "code": "ABC", "ok": True,
                                              "pick": ["a"], "one": "x"}}
    changed, changes = other_answer(request, answer)
    assert changed["content"] == {"when": "2027-01-01", "size": 3, "code": "ABC", "ok": False, "pick": ["b"],
                                  "one": "x"}
    assert set(changes) == {"when", "size", "ok", "pick"}  # a pattern, a one-choice enum: left as they were
    assert other_answer(request, {"action": "decline"}) == ({"action": "decline"}, {})


def test_minus_32021_that_does_not_list_the_capability_fails(scripted: Any):
    """The schema's MissingRequiredClientCapabilityError requires data.requiredCapabilities: a bare
    -32021 tells the client nothing about what to declare."""
    asks = input_required({"a": elicit("Name?", {"name": {"type": "string"}})}, "s1")
    listed = {"error": {"code": -32021, "message": "Missing required client capability",
                        "data": {"requiredCapabilities": {"elicitation": {}}}}}
    bare = {"error": {"code": -32021, "message": "Missing required client capability"}}
    refused = {"error": {"code": -32602, "message": "refused"}}
    steps = [{"result": asks}, {"result": text_result("done")},  # the conversation
             listed, {"result": asks}, refused, refused, {"result": asks}, {"result": asks},  # the retries of round 1
             refused, refused,  # (extra-answers asks round 1 afresh first)
             bare]  # capability-withheld-each
    server = scripted(tools=[{"name": "X", "inputSchema": {"type": "object"}}], steps=steps)
    run = mrtr_here(*server.args("check", "--tool", "X", "--answer", "a.name=Ada", "--timeout", "5", "--json"))
    found = checks_of(run)
    assert found["capability-withheld"]["status"] == "pass"
    assert found["capability-withheld-each"]["status"] == "fail"
    assert found["capability-withheld-each"]["seen"] == ("elicitation.form withheld: round 1, -32021 whose "
                                                         "data.requiredCapabilities (null) does not list "
                                                         "elicitation.form")
