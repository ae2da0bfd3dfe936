"""`mrtr check --prompt/--resource` on what a conversation owes beyond its rounds, as `--tool` is
checked (issue 34): a "no" is a no (`*-decline-is-no`, `*-cancel-is-no`), a state that can expire
and is consumed at most once (`*-state-never-expires`, `*-state-age`, `*-at-most-once`), one user's
state refused from another (`*-state-other-principal`), two conversations at once that do not mix
(`*-conversations-isolated`), a question the client withheld the capability of refused
(`*-capability-withheld-each`). Each on tests/servers/named_bug_server.py with its bug and without,
the prompt and the resource in one run, through the real CLI, over stdio and Streamable HTTP."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import PYTHON, ROOT, SERVERS, Run, mrtr_here
from peers import http_server

SERVER = [PYTHON, str(SERVERS / "named_bug_server.py")]
SCHEMA = json.loads((ROOT / "docs" / "json" / "check.schema.json").read_text())
ANSWERS = """answers:
  name: {content: {name: Ada}}
  tone: {content: {tone: formal}}
  account: {content: {account: savings}}
  period: {content: {period: "2026-11"}}
"""
TARGETS = ("--prompt", "greeting", "--resource", "vault://report")
PREFIXES = ("prompt-", "resource-")
ALICE = ("-H", "Authorization: Bearer alice-token")
BOB = ("--other-principal", "Authorization: Bearer bob-token")


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path = tmp_path_factory.mktemp("answers") / "answers.yaml"
    path.write_text(ANSWERS)
    yield str(path)


def checked(answers: str, *server: str, flags: tuple[str, ...] = ()) -> tuple[Run, dict[str, dict[str, Any]]]:
    """`mrtr check --json` of the prompt and the resource of the server run with `server` flags."""
    run = mrtr_here("check", *TARGETS, "--answers", answers, *flags, "--json", "--", *SERVER, *server)
    return run, checks_of(run)


def checks_of(run: Run) -> dict[str, dict[str, Any]]:
    assert "Traceback" not in run.stderr and "unexpected failure" not in run.stderr, run.stderr
    jsonschema.validate(run.json(), SCHEMA)
    return {check["id"]: check for check in run.json()["checks"]}


@pytest.fixture(scope="module")
def careful(answers: str) -> tuple[Run, dict[str, dict[str, Any]]]:
    """The server that keeps every rule, its states consumed once, with both replay flags."""
    return checked(answers, "--once", flags=("--at-most-once", "--state-age", "1"))


def test_the_careful_server_passes_every_conversation_probe_of_its_prompt_and_resource(careful: Any):
    run, found = careful
    assert run.code == 0, run.stdout
    for prefix in PREFIXES:
        for id in ("decline-is-no", "cancel-is-no", "state-never-expires", "at-most-once", "conversations-isolated",
                   "capability-withheld-each"):
            assert found[prefix + id]["status"] == "pass", found[prefix + id]
        assert found[prefix + "state-other-principal"]["status"] == "skipped"  # over stdio: no second identity
    assert found["prompt-decline-is-no"]["seen"] == ("declining 'name' (round 1): another result; declining 'tone' "
                                                     "(round 2): another result")
    assert found["resource-decline-is-no"]["seen"].startswith("declining 'account' (round 1): error (resources/read "
                                                              "failed: error -32600: nothing read")
    assert found["prompt-at-most-once"]["seen"] == ("the completing retry (round 3) sent again under a new id: "
                                                    "error -32602: requestState was already used")
    assert found["prompt-decline-is-no"]["title"].endswith("(prompts/get)")
    assert found["resource-capability-withheld-each"]["seen"] == ("elicitation.form withheld: round 1, -32021 listing "
                                                                  '{"elicitation": {"form": {}}}')


def test_a_server_that_asks_what_the_client_withheld_fails_on_the_prompt_and_the_resource(answers: str):
    run, capless = checked(answers, "--bug", "capless")
    assert run.code == 2
    for prefix in PREFIXES:
        found = capless[prefix + "capability-withheld-each"]
        assert found["status"] == "fail" and found["level"] == "MUST", found
        assert found["seen"].startswith("elicitation.form withheld: round 1 still asks ")


def test_the_calls_line_counts_the_conversation_probes_of_each_named_target(careful: Any):
    run, _ = careful
    line = next(line for line in run.stderr.splitlines() if line.startswith("calls: "))
    match = re.fullmatch(r"calls: prompt greeting at most (\d+) times \(.*\); resource vault://report at most "
                         r"(\d+) times \(.*\)", line)
    assert match, line
    for method, most in (("prompts/get greeting", match.group(1)), ("resources/read vault://report", match.group(2))):
        sent = len(re.findall(rf"^[→↻] {re.escape(method)} ", run.stderr, re.M))
        assert 0 < sent <= int(most), (method, sent, most)


def test_a_server_that_takes_a_no_as_its_default_is_warned_on_the_prompt_and_the_resource(answers: str):
    run, deaf = checked(answers, "--bug", "deaf")
    assert run.code == 0  # SHOULDs: warns, not failures
    for prefix, key in (("prompt-", "name"), ("resource-", "account")):
        for id, verb in (("decline-is-no", "declining"), ("cancel-is-no", "cancelling")):
            found = deaf[prefix + id]
            assert found["status"] == "warn" and found["level"] == "SHOULD", found
            assert found["seen"].startswith(f"{verb} {key!r} gave the same result as accepting it (round 1: ")
            assert found["page"].endswith("client/elicitation#response-actions")
    assert '"messages"' in deaf["prompt-decline-is-no"]["seen"]  # a prompt's result is compared by its messages
    assert '"contents"' in deaf["resource-decline-is-no"]["seen"]


def test_a_state_with_the_same_bytes_on_every_run_is_warned_and_one_held_past_its_age_is_told(answers: str,
                                                                                              careful: Any):
    _, lasting = checked(answers, "--bug", "lasting")
    _, found = careful
    for prefix in PREFIXES:
        assert lasting[prefix + "state-never-expires"]["status"] == "warn"
        assert "byte-identical 1." in lasting[prefix + "state-never-expires"]["seen"]
        assert found[prefix + "state-never-expires"]["seen"].startswith("round 1's requestState differs 1.")
        assert found[prefix + "state-age"]["status"] == "warn"  # the careful server has no expiry without --expiry
        assert "(--state-age 1) was accepted" in found[prefix + "state-age"]["seen"]
    _, expiring = checked(answers, "--expiry", "1", flags=("--state-age", "1"))
    for prefix in PREFIXES:
        assert expiring[prefix + "state-age"]["status"] == "pass", expiring[prefix + "state-age"]
        assert expiring[prefix + "state-age"]["seen"].endswith("refused: error -32602: requestState has expired")


def test_a_completing_retry_sent_again_that_acts_again_is_a_must_failure_and_one_answered_alike_a_warn(answers: str):
    run, twice = checked(answers, "--bug", "twice", flags=("--at-most-once",))
    assert run.code == 2
    for prefix in PREFIXES:
        found = twice[prefix + "at-most-once"]
        assert found["status"] == "fail" and found["level"] == "MUST", found
        assert "completed a second time, with " in found["seen"] and "served" in found["seen"]
    assert "prompt-at-most-once" in run.stderr.splitlines()[-1]
    _, same = checked(answers, flags=("--at-most-once",))
    assert same["resource-at-most-once"]["status"] == "warn"
    assert same["resource-at-most-once"]["seen"].endswith("deduplicated, or acted twice: mrtr cannot tell")


def test_two_conversations_mixed_by_a_global_are_warned_on_the_prompt_and_the_resource(answers: str, careful: Any):
    _, shared = checked(answers, "--bug", "shared")
    assert shared["prompt-conversations-isolated"]["status"] == "warn"
    assert shared["prompt-conversations-isolated"]["seen"].startswith("A's result carries B's answer ")
    assert shared["resource-conversations-isolated"]["seen"].startswith("A's result carries B's answer 'current'")
    assert careful[1]["resource-conversations-isolated"]["seen"].endswith("each carries only its own answers")


@pytest.mark.parametrize("bug, status", [((), "pass"), (("--bug", "principal"), "warn")])
def test_one_users_state_is_refused_from_another_user_on_the_prompt_and_the_resource(answers: str, bug: tuple[str, ...],
                                                                                     status: str):
    with http_server([*SERVER, *bug, "http"]) as url:
        run = mrtr_here("check", "--url", url, *ALICE, *BOB, *TARGETS, "--answers", answers, "--json")
    found = checks_of(run)
    for prefix in PREFIXES:
        assert found[prefix + "state-other-principal"]["status"] == status, found[prefix + "state-other-principal"]
    seen = found["resource-state-other-principal"]["seen"]
    assert seen.startswith("round 1's requestState and answers, minted for the usual headers, sent with the "
                           "--other-principal headers (Authorization): ")
    assert ("requestState was issued to another user" in seen) == (status == "pass")
    assert "bob-token" not in run.stdout + run.stderr


def test_two_users_conversations_mixed_are_a_must_failure_on_the_prompt_and_the_resource(answers: str):
    with http_server([*SERVER, "--bug", "shared", "http"]) as url:
        run = mrtr_here("check", "--url", url, *ALICE, *BOB, *TARGETS, "--answers", answers, "--json")
    found = checks_of(run)
    assert run.code == 2
    for prefix in PREFIXES:
        assert found[prefix + "conversations-isolated"]["status"] == "fail"
        assert found[prefix + "conversations-isolated"]["level"] == "MUST"


def test_the_demo_passes_every_conversation_probe_of_its_prompt_and_resource_and_stdio_has_no_second_user(
        tmp_path: Path):
    run = mrtr_here("check", "--demo", "--resource", "vault://alpha", "--answer", "reveal.reveal=true", "--prompt",
                    "release_notes", "-a", "version=2.0", "--answer", "audience.audience=users", "--json")
    found = checks_of(run)
    assert run.code == 0, run.stdout
    for prefix in PREFIXES:
        assert {id: found[prefix + id]["status"] for id in ("decline-is-no", "cancel-is-no", "state-never-expires",
                                                            "conversations-isolated", "state-age")} == {
            "decline-is-no": "pass", "cancel-is-no": "pass", "state-never-expires": "pass",
            "conversations-isolated": "pass", "state-age": "skipped"}
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"local": {"command": PYTHON, "args": SERVER[1:]}}}))
    stdio = mrtr_here("check", "--config", str(config), "--server", "local", "--prompt", "greeting", *BOB)
    assert stdio.code == 1 and "this server is a stdio process" in stdio.stderr, stdio.stderr
