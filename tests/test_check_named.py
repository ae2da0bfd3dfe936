"""`mrtr check --prompt NAME` and `--resource URI`: the named prompt or resource, driven to its
result, judged as the suite judges its fixture prompt and the first listed resource."""

from __future__ import annotations

import json

import jsonschema

from conftest import PYTHON, ROOT, SERVERS, elicit, input_required, mrtr_here, text_result

SCHEMA = json.loads((ROOT / "docs" / "json" / "check.schema.json").read_text())
NAMED = ["prompt-input-required", "prompt-completes", "resource-input-required", "resource-completes",
         "resource-read-caching"]
ANSWERS = ("--answer", "audience.audience=users", "--answer", "reveal.reveal=true")


def checks_of(run) -> dict[str, dict]:
    assert "Traceback" not in run.stderr and "unexpected failure" not in run.stderr, run.stderr
    jsonschema.validate(run.json(), SCHEMA)
    return {check["id"]: check for check in run.json()["checks"]}


def test_the_demo_prompt_and_resource_that_ask_pass_every_probe():
    run = mrtr_here("check", "--demo", "--prompt", "release_notes", "-a", "version=2.0", "--resource", "vault://recipes",
               *ANSWERS, "--json")
    assert run.code == 0, run.stderr
    checks = checks_of(run)
    assert {id: checks[id]["status"] for id in NAMED} == {id: "pass" for id in NAMED}
    assert checks["resource-read-caching"]["conformance"][0] == "sep-2549-resources-read-caching-hints"
    assert "tools/call" not in run.stderr  # no tool the user did not name


def test_a_resource_that_asks_nothing_skips_the_asking_probes_saying_so():
    checks = checks_of(mrtr_here("check", "--demo", "--resource", "demo://readme", "--json"))
    assert {id: checks[id]["status"] for id in NAMED[2:]} == {
        "resource-input-required": "skipped", "resource-completes": "skipped", "resource-read-caching": "pass"}
    assert checks["resource-completes"]["seen"] == "it asked for no input: complete in round 1"
    assert "prompt-completes" not in checks


def test_a_resource_read_without_caching_hints_fails():
    run = mrtr_here("check", "--resource", "demo://readme", "--json", "--", PYTHON, str(SERVERS / "broken_server.py"),
               "no-cache-hints")
    checks = checks_of(run)
    assert checks["resource-read-caching"]["status"] == "fail" and run.code == 2
    assert "has no ttlMs or cacheScope" in checks["resource-read-caching"]["seen"]


ASKS = input_required({"a": elicit("Name?", {"name": {"type": "string"}})}, "s1")


def test_a_prompt_refusing_its_answers_fails_and_one_answered_passes(scripted):
    prompts = [{"name": "P", "arguments": []}]
    refused = scripted(prompts=prompts, steps=[{"result": ASKS}, {"error": {"code": -32602, "message": "no"}}])
    checks = checks_of(mrtr_here(*refused.args("check", "--prompt", "P", "--answer", "a.name=Ada", "--json")))
    assert (checks["prompt-input-required"]["status"], checks["prompt-completes"]["status"]) == ("pass", "fail")
    assert checks["prompt-completes"]["seen"].startswith("round 2: ")
    message = {"role": "user", "content": text_result("x")["content"][0]}
    done = {"result": {"resultType": "complete", "messages": [message]}}
    answered = scripted(prompts=prompts, steps=[{"result": ASKS}, done])
    checks = checks_of(mrtr_here(*answered.args("check", "--prompt", "P", "--answer", "a.name=Ada", "--json")))
    assert (checks["prompt-input-required"]["status"], checks["prompt-completes"]["status"]) == ("pass", "pass")


def test_an_older_era_server_skips_the_named_probes_with_the_reason():
    run = mrtr_here("check", "--demo", "--protocol-era", "older", "--resource", "demo://readme", "--json")
    checks = checks_of(run)
    assert all(checks[id]["status"] == "skipped" and "2026-07-28's" in checks[id]["seen"] for id in NAMED[2:])


def test_a_tool_prompt_or_resource_the_server_does_not_list_is_a_usage_error_before_any_probe():
    """A typo in --tool, --prompt or --resource must not pass CI with every probe skipped: exit 1 and
    the close names, in either era; a URI a resource template matches counts as listed."""
    unlisted = {("--tool", "book_tabel"): "no tool 'book_tabel'; did you mean 'book_table'? (mrtr list tools)",
                ("--tool", "nosuch"): "the server lists no tool 'nosuch'; see mrtr list tools",
                ("--prompt", "relase_notes"): "no prompt 'relase_notes'; did you mean 'release_notes'? "
                                              "(mrtr list prompts)",
                ("--resource", "demo://readm"): "no resource 'demo://readm'; did you mean 'demo://readme'"}
    for (flag, name), message in unlisted.items():
        run = mrtr_here("check", "--demo", flag, name, "--json")
        assert run.code == 1 and run.stdout == "", run.stderr
        assert run.error_line()["error"]["code"] == "usage"
        assert run.error_line()["error"]["message"].startswith(message), run.stderr
        assert "tools/call" not in run.stderr and "prompts/get" not in run.stderr and "resources/read" not in run.stderr
    older = mrtr_here("check", "--demo", "--protocol-era", "older", "--tool", "book_tabel")
    assert older.code == 1 and older.stderr.strip().endswith("✗ " + unlisted[("--tool", "book_tabel")]), older.stderr
    templated = mrtr_here("check", "--demo", "--resource", "vault://anything", "--answer", "reveal.reveal=true", "--json")
    assert templated.code == 0 and checks_of(templated)["resource-completes"]["status"] == "pass", templated.stderr
