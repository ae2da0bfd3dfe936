"""`mrtr check --tool X`: a requestState asked for again later, held --state-age seconds, or its
completing retry sent twice (--at-most-once) (check/replay_probes.py); and a question declined or
cancelled that ends as accepting it did (check/refusal_probes.py). Each against
tests/servers/voucher_server.py with the rule broken and kept, the demo, the SDK's MCPServer and its
low-level Server (over Streamable HTTP), through the real CLI; and --skip-probe."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import jsonschema
import pytest

from conftest import PYTHON, ROOT, SDK_SERVER, SERVERS, Run, mrtr_here
from peers import plain_state_instances_over_http

SCHEMA = json.loads((ROOT / "docs" / "json" / "check.schema.json").read_text())
VOUCHER = [PYTHON, str(SERVERS / "voucher_server.py")]
REDEEM = ["--tool", "redeem", "-a", "voucher=V1", "--answer", "confirm.confirm=true"]
NEW_PROBES = ["decline-is-no", "cancel-is-no", "state-never-expires", "state-age", "at-most-once"]


def check(*server: str, flags: tuple[str, ...] = ()) -> tuple[Run, dict[str, dict]]:
    """`mrtr check --json` of the voucher server run with `server` flags, and its checks by id."""
    run = mrtr_here("check", *REDEEM, "--skip-probe", "capability-withheld-each", *flags, "--json", "--", *VOUCHER, *server)
    assert "Traceback" not in run.stderr, run.stderr
    jsonschema.validate(run.json(), SCHEMA)
    return run, {c["id"]: c for c in run.json()["checks"]}


def test_a_state_with_the_same_bytes_on_every_run_can_never_expire_and_is_told_naming_the_round():
    _, plain = check("--state", "plain")
    assert plain["state-never-expires"]["status"] == "warn" and plain["state-never-expires"]["level"] == "SHOULD"
    assert plain["state-never-expires"]["seen"].startswith("round 1's requestState was byte-identical 1.")
    assert "it carries no time and no nonce, so it can never expire" in plain["state-never-expires"]["seen"]
    _, sealed = check("--state", "sealed")
    assert sealed["state-never-expires"]["status"] == "pass", sealed["state-never-expires"]
    assert "differs" in sealed["state-never-expires"]["seen"]


def test_a_state_held_past_its_age_is_refused_by_a_server_with_an_expiry_and_taken_by_one_without():
    """The server refuses a state 1 s old; mrtr holds it at least 1 s after the round that made it
    came: the refusal does not depend on how fast anything runs."""
    _, lasting = check("--state", "sealed", "--redeem", "same", flags=("--state-age", "1"))
    assert lasting["state-age"]["status"] == "warn"
    assert "held 1." in lasting["state-age"]["seen"] and "(--state-age 1) was accepted" in lasting["state-age"]["seen"]
    _, expiring = check("--state", "sealed", "--expiry", "1", "--redeem", "same", flags=("--state-age", "1"))
    assert expiring["state-age"]["status"] == "pass", expiring["state-age"]
    assert "refused: error -32602: requestState has expired" in expiring["state-age"]["seen"]


def test_a_completing_retry_sent_again_that_acts_again_is_a_must_failure():
    run, twice = check("--redeem", "again", flags=("--at-most-once",))
    assert run.code == 2 and twice["at-most-once"]["status"] == "fail" and twice["at-most-once"]["level"] == "MUST"
    seen = twice["at-most-once"]["seen"]
    assert seen.startswith("the completing retry (round 2) sent again under a new id completed a second time, with "
                           "content"), seen
    assert '"redemption": 1' in seen and "where the first had" in seen
    assert "at-most-once" in run.stderr.splitlines()[-1]  # the one line naming what failed
    run, once = check("--redeem", "once", flags=("--at-most-once",))
    assert once["at-most-once"]["status"] == "pass", once["at-most-once"]
    assert "sent again under a new id: error -32602: requestState was already used" in once["at-most-once"]["seen"]


def test_a_completing_retry_answered_the_same_again_is_a_warn_mrtr_cannot_tell_apart():
    _, same = check("--redeem", "same", flags=("--at-most-once",))
    assert same["at-most-once"]["status"] == "warn" and same["at-most-once"]["level"] == "MUST"
    assert same["at-most-once"]["seen"].endswith("completed with the same result: deduplicated, or acted twice: "
                                                 "mrtr cannot tell")


def test_a_tool_that_acts_on_a_declined_or_cancelled_question_is_told():
    _, deaf = check("--decline", "as-accept", "--redeem", "same")
    for id, verb in (("decline-is-no", "declining"), ("cancel-is-no", "cancelling")):
        assert deaf[id]["status"] == "warn" and deaf[id]["level"] == "SHOULD"
        assert deaf[id]["seen"].startswith(f"{verb} 'confirm' gave the same result as accepting it (round 1: ")
        assert deaf[id]["page"].endswith("client/elicitation#response-actions")
    _, heard = check("--decline", "heard", "--redeem", "same")
    assert heard["decline-is-no"]["status"] == "pass" and heard["cancel-is-no"]["status"] == "pass"
    assert heard["decline-is-no"]["seen"] == "declining 'confirm' (round 1): another result"


def test_a_result_that_changes_from_run_to_run_leaves_a_no_not_judged_rather_than_passed():
    """A counter in the result makes every run another result: a deaf tool must not pass on that."""
    for decline in ("as-accept", "heard"):
        _, drifting = check("--decline", decline, "--redeem", "again")
        for id in ("decline-is-no", "cancel-is-no"):
            assert drifting[id]["status"] == "skipped", (decline, drifting[id])
            assert drifting[id]["seen"].startswith("not judged: accepting again gave another result")


def test_without_their_flags_the_state_age_and_at_most_once_probes_are_skipped_saying_how():
    run, checks = check("--state", "plain", "--redeem", "again")
    assert run.code == 0, run.stdout
    assert checks["state-age"]["status"] == "skipped" and "--state-age SECONDS" in checks["state-age"]["seen"]
    assert checks["at-most-once"]["status"] == "skipped" and "--at-most-once" in checks["at-most-once"]["seen"]


def test_the_demo_passes_every_new_probe_and_the_junit_report_has_a_case_for_each(tmp_path: Path):
    report = tmp_path / "check.xml"
    run = mrtr_here("check", "--demo", "--tool", "book_table", "--answers", "examples/book_table.yaml", "--json",
               "--junit", str(report))
    assert run.code == 0, run.stderr
    checks = {c["id"]: c for c in run.json()["checks"]}
    assert {id: checks[id]["status"] for id in NEW_PROBES} == {
        "decline-is-no": "pass", "cancel-is-no": "pass", "state-never-expires": "pass", "state-age": "skipped",
        "at-most-once": "skipped"}
    assert checks["decline-is-no"]["seen"].count("another result") == 3  # date, party, confirm: each refused
    cases = {case.get("name") for case in ElementTree.parse(report).getroot().iter("testcase")}
    assert set(NEW_PROBES) <= cases
    sampling = mrtr_here("check", "--demo", "--tool", "summarize", "--answers", "examples/summarize.yaml", "--json")
    checks = {c["id"]: c for c in sampling.json()["checks"]}
    assert checks["decline-is-no"]["status"] == "skipped"
    assert checks["decline-is-no"]["seen"] == "the tool asks no form question with a required field"


def test_the_sdk_mcpserver_seals_its_state_so_it_differs_and_its_low_level_server_over_http_does_not():
    run = mrtr_here("check", "--tool", "greet", "-a", "greeting=hi", "--answer", "__main__:ask_name.name=Ada", "--json",
               "--", *SDK_SERVER)
    checks = {c["id"]: c for c in run.json()["checks"]}
    assert checks["state-never-expires"]["status"] == "pass", checks["state-never-expires"]
    with plain_state_instances_over_http() as (url, _):
        plain = mrtr_here("check", "--url", url, "--tool", "greet", "-a", "greeting=hi", "--answer", "name.name=Ada",
                     "--json")
    checks = {c["id"]: c for c in plain.json()["checks"]}
    assert checks["state-never-expires"]["status"] == "warn", checks["state-never-expires"]
    assert checks["state-never-expires"]["seen"].startswith("round 1's requestState was byte-identical")


@pytest.mark.parametrize("flag", [("--state-age", "5"), ("--at-most-once",)])
def test_the_replay_flags_without_a_named_target_are_exit_1_saying_what_to_give(flag: tuple[str, ...]):
    run = mrtr_here("check", "--demo", *flag)
    assert run.code == 1
    assert f"✗ {flag[0]} in mrtr check retries the named target's requestState, and no tool, prompt or resource " \
           "is named; give --tool NAME, --prompt NAME or --resource URI" in run.stderr


def test_a_state_age_out_of_bounds_is_exit_1():
    run = mrtr_here("check", "--demo", "--tool", "book_table", "--state-age", "0.5")
    assert run.code == 1 and "'0.5' is not a number of seconds from 1 to 3600" in run.stderr


def test_skip_probe_leaves_a_probe_out_by_request_and_an_unknown_id_is_exit_1_with_the_nearest():
    run, checks = check("--redeem", "again", flags=("--at-most-once", "--skip-probe", "at-most-once",
                                                    "--skip-probe", "discover"))
    assert run.code == 0, run.stdout  # the one failure was of the probe left out
    assert checks["at-most-once"] == {**checks["at-most-once"], "status": "skipped",
                                      "seen": "skipped, by request (--skip-probe)"}
    assert checks["discover"]["status"] == "skipped" and checks["discover-caching"]["status"] == "pass"
    typo = mrtr_here("check", "--demo", "--skip-probe", "state-never-expire")
    assert typo.code == 1
    assert typo.stderr.strip() == ("✗ --skip-probe 'state-never-expire': no such probe; did you mean "
                                   "'state-never-expires' or 'prompt-state-never-expires'?")
    shouted = mrtr_here("check", "--demo", "--skip-probe", "STATE-NEVER-EXPIRES")  # case aside, as tool names are
    assert shouted.code == 1 and "did you mean 'state-never-expires'?" in shouted.stderr
    alone = mrtr_here("check", "--demo", "--skip-probe", "schema-valid")  # no --tool needed
    assert alone.code == 0 and "skipped, by request (--skip-probe)" in alone.stdout


def test_extra_answers_on_a_server_that_takes_each_state_once_pass_on_a_round_1_asked_afresh():
    """The voucher server refuses a requestState used before ("consumed at most once"): the
    conversation's own round 1 state is spent, so the extra answer goes with a fresh one, and a
    server that ignores the extra key passes (before: a false warn, "requestState was already used")."""
    _, once = check("--redeem", "once")
    assert once["extra-answers"]["status"] == "pass", once["extra-answers"]
    assert once["extra-answers"]["seen"] == "an extra answer '__mrtr_probe': a complete result"
