"""`mrtr check`'s requestState probes (check/state_probes.py) through the real CLI: servers that each
handle their state one careless way (tests/servers/state_server.py), one that does it right, the demo,
and the PyPI `mcp` SDK's MCPServer (sealed state) and low-level Server (plain state)."""

from __future__ import annotations

import pytest

from conftest import PYTHON, ROOT, SERVERS, mrtr_here
from mrtr_cli.check.probes import Prober
from mrtr_cli.check.state_probes import TOOL_STATE_PROBES, Request, StateProber
from mrtr_cli.commands.common import make_context
from mrtr_cli.commands.conversation_builder import build
from mrtr_cli.conversation import events
from mrtr_cli.definition.options import AnsweringOptions, OutputOptions, TargetOptions
from peers import PLAIN_STATE_SERVER, demo_http, free_port, listening, sdk_over_http
from test_check import BOOK, statuses

STATE_SERVER = [PYTHON, str(SERVERS / "state_server.py")]
PAY = ("--skip-probe", "capability-withheld-each", "--tool", "pay_invoice", "-a", "invoice=INV-7", "--answer", "method.method=card",
       "--answer", "confirm.confirm=true")
STATE_IDS = ["state-readable", "state-forged-field", "state-tag-tampered", "state-truncated", "state-skipped-step"]


def checks_of(run) -> dict[str, dict[str, str]]:
    statuses(run)  # valid against docs/json/check.schema.json
    return {check["id"]: check for check in run.json()["checks"]}


def not_passed(run) -> dict[str, str]:
    return {id: check["status"] for id, check in checks_of(run).items() if check["status"] not in ("pass", "skipped")}


@pytest.mark.parametrize("mode,found", [
    ("plain", {"state-forged-field": "fail", "state-other-arguments": "warn"}),
    ("mac-unchecked", {"state-forged-field": "fail", "state-tag-tampered": "fail", "state-truncated": "fail"}),
    ("tag-optional", {"state-truncated": "fail"}),
    ("step-unbound", {"state-skipped-step": "warn"}),
    ("mac-checked", {}),
])
def test_each_careless_way_with_state_is_found_and_the_careful_one_passes(mode, found):
    """Integrity alone: the server's states carry no time (check/replay_probes.py judges that), so
    `state-never-expires` is left out by request."""
    run = mrtr_here("check", *PAY, "--skip-probe", "state-never-expires", "--json", "--", *STATE_SERVER, mode)
    assert not_passed(run) == found
    assert run.code == (2 if "fail" in found.values() else 0)


def test_a_plain_base64_state_holding_the_fee_is_read_and_forged_field_by_field():
    run = mrtr_here("check", *PAY, "--json", "--", *STATE_SERVER, "plain")
    checks = checks_of(run)
    assert checks["state-readable"]["seen"] == (
        "round 1's requestState is base64 JSON with keys `step`, `invoice`, `amount` and no signature; round 2's "
        "requestState is base64 JSON with keys `step`, `invoice`, `amount`, `method`, `fee` and no signature")
    forged = checks["state-forged-field"]["seen"]
    assert forged.startswith("requestState integrity: round 2's field `invoice` changed from \"INV-7\" to "
                             "\"INV-7-forged\" and the call completed with it (its result differs from the unforged "
                             "run's); also `amount` (round 2), `fee` (round 2), `step` (round 1), …")
    assert forged.endswith("round 2: 5 field(s) forged, 2 taken with no effect (`step`, `method`), 3 changed what came")
    assert run.error_line()["error"]["message"] == "1 check failed: state-forged-field"


def test_a_forged_walk_goes_no_further_than_where_it_parts_from_the_conversation():
    """The forged-field probe resumes the conversation with each forged state (`Session.resume`), answered
    as it was: a round asked otherwise is left unanswered. Against `plain`, each of round 1's three
    forgeries costs one call (round 2 asks to confirm another amount or invoice, and nothing is paid
    with it), the unforged walk from round 1 two, each of round 2's five forgeries one, the unforged one
    from round 2 one: 11, the hand walk's count. Answering the rounds that parted would pay with forged
    states and cost 16."""
    context = make_context(OutputOptions(color="never"))
    built = build(context, TargetOptions(command=(*STATE_SERVER, "plain")),
                  AnsweringOptions(answers=("method.method=card", "confirm.confirm=true")))
    params = {"name": "pay_invoice", "arguments": {"invoice": "INV-7"}}
    sent: list[events.RequestSent] = []
    context.emit.subscribe(lambda event: sent.append(event) if isinstance(event, events.RequestSent)
                           and event.method == "tools/call" else None)
    with built.connected() as live:
        outcome = live.session(hopping=False).run("tools/call", params)
        del sent[:]
        prober = StateProber(Prober(live.client, live.session, over_http=False), TOOL_STATE_PROBES,
                             Request("tools/call", params))
        prober.rounds = outcome.rounds
        forged = prober.forged_fields()
    assert forged.status == "fail" and len(sent) == 11
    assert [event.round for event in sent] == [2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3]
    assert [event.state_as_received for event in sent] == [False] * 3 + [True] * 2 + [False] * 5 + [True]


def test_an_hmac_never_compared_lets_every_alteration_through():
    checks = checks_of(mrtr_here("check", *PAY, "--json", "--", *STATE_SERVER, "mac-unchecked"))
    assert checks["state-readable"]["seen"].startswith(
        "round 1's requestState is base64url JSON with keys `step`, `invoice`, `amount`, then `.` and a "
        "43-character tag")
    assert "round 2's field `amount` changed from 4200 to 1 and the call completed with it" in \
        checks["state-forged-field"]["seen"]
    assert checks["state-tag-tampered"]["seen"] == (
        "requestState integrity: round 1's requestState with its last two characters changed was taken into the "
        "next round (an input_required result); 3 more alteration(s) taken")
    assert checks["state-truncated"]["seen"].startswith(
        "requestState integrity: round 1's requestState without its last segment was taken into the next round")


def test_an_opaque_state_whose_tag_is_optional_is_cut_short_and_taken():
    checks = checks_of(mrtr_here("check", *PAY, "--json", "--", *STATE_SERVER, "tag-optional"))
    assert checks["state-readable"]["seen"] == ("round 1's requestState does not read as JSON (173 characters, opaque "
                                                "to mrtr); round 2's requestState does not read as JSON (235 "
                                                "characters, opaque to mrtr)")
    assert checks["state-forged-field"]["status"] == "skipped"
    assert checks["state-tag-tampered"]["seen"] == ("4 altered requestState(s) refused (error -32602: Invalid "
                                                    "requestState: its tag does not match)")
    assert checks["state-truncated"]["seen"] == (
        "requestState integrity: round 1's requestState without its last segment was taken into the next round (an "
        "input_required result); 3 more alteration(s) taken")


def test_a_state_that_names_no_step_is_taken_a_round_early():
    checks = checks_of(mrtr_here("check", *PAY, "--json", "--", *STATE_SERVER, "step-unbound"))
    assert checks["state-skipped-step"]["seen"] == ("round 1's requestState with round 2's answers: a complete "
                                                    "result, as if round 1 had been answered")
    assert checks["state-skipped-step"]["level"] == "SHOULD"


def test_a_verified_and_bound_state_passes_every_state_probe():
    checks = checks_of(mrtr_here("check", *PAY, "--json", "--", *STATE_SERVER, "mac-checked"))
    assert {id: checks[id]["status"] for id in STATE_IDS} == dict.fromkeys(STATE_IDS, "pass")
    assert checks["state-forged-field"]["seen"] == (
        "all 8 forged fields refused (3 of round 1, 5 of round 2): error -32602: Invalid requestState: its signature "
        "does not match")
    assert checks["state-skipped-step"]["seen"] == ("round 1's requestState with round 2's answers: an "
                                                    "input_required result")


@pytest.mark.parametrize("mode,status", [("plain", "fail"), ("mac-checked", "pass")])
def test_a_resource_read_has_its_state_forged_too(mode, status):
    run = mrtr_here("check", "--resource", "invoice://INV-7", "--answer", "format.format=text", "--json", "--",
               *STATE_SERVER, mode)
    checks = checks_of(run)
    assert checks["resource-state-forged-field"]["status"] == status
    assert "state-forged-field" not in checks  # no tool was named
    if status == "fail":
        assert checks["resource-state-forged-field"]["seen"].startswith(
            "requestState integrity: round 1's field `invoice` changed from \"INV-7\" to \"INV-7-forged\" and the "
            "call completed with it")


def test_the_demo_seals_its_state_over_stdio_and_http():
    for run in (mrtr_here("check", *BOOK, "--demo", "--json"), _over_demo_http()):
        checks = checks_of(run)
        assert {id: checks[id]["status"] for id in STATE_IDS} == dict.fromkeys(STATE_IDS, "pass")
        assert checks["state-forged-field"]["seen"].startswith(
            "all 11 forged fields refused (2 of round 1, 3 of round 2, 6 of round 3): error -32602: requestState "
            "failed verification")
        assert checks["state-skipped-step"]["seen"].startswith("round 1's requestState with round 2's answers: an "
                                                                "input_required result")


def _over_demo_http():
    with demo_http() as url:
        return mrtr_here("check", *BOOK, "--url", url, "--json")


def test_the_demo_resource_and_prompt_pass_their_state_probes():
    run = mrtr_here("check", "--demo", "--resource", "vault://alpha", "--answer", "reveal.reveal=true", "--prompt",
               "release_notes", "-a", "version=2.0", "--answer", "audience.audience=users", "--json")
    checks = checks_of(run)
    for prefix in ("resource-", "prompt-"):
        assert checks[f"{prefix}state-forged-field"]["status"] == "pass"
        assert checks[f"{prefix}state-tag-tampered"]["status"] == "pass"
        assert checks[f"{prefix}state-truncated"]["status"] == "pass"
        assert checks[f"{prefix}state-skipped-step"]["status"] == "skipped"  # one round: no step to skip


def test_the_sdk_mcpserver_seals_its_state_and_refuses_every_alteration_over_http():
    with sdk_over_http("json") as url:
        run = mrtr_here("check", "--tool", "greet", "-a", "greeting=hi", "--answer", "__main__:ask_name.name=Ada",
                   "--json", "--url", url)
    checks = checks_of(run)
    assert checks["state-readable"]["seen"].startswith("round 1's requestState does not read as JSON")
    assert checks["state-forged-field"]["status"] == "skipped"
    assert checks["state-tag-tampered"]["seen"] == ("2 altered requestState(s) refused (error -32602: Invalid or "
                                                    "expired requestState (HTTP 400))")
    assert checks["state-truncated"]["seen"] == ("3 altered requestState(s) refused (error -32602: Invalid or expired "
                                                 "requestState (HTTP 400))")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_sdk_low_level_server_takes_a_forged_plain_state(transport):
    args = ("check", "--tool", "greet", "-a", "greeting=hi", "--answer", "name.name=Ada", "--json")
    if transport == "stdio":
        run = mrtr_here(*args, "--", *PLAIN_STATE_SERVER, "stdio")
    else:
        port = free_port()
        with listening([*PLAIN_STATE_SERVER, "http", str(port)], port, "the plain-state server") as url:
            run = mrtr_here(*args, "--url", url)
    checks = checks_of(run)
    assert checks["state-readable"]["seen"] == "round 1's requestState is JSON with key `greeting` and no signature"
    assert checks["state-forged-field"]["seen"] == (
        "requestState integrity: round 1's field `greeting` changed from \"hi\" to \"hi-forged\" and the call "
        "completed with it (its result differs from the unforged run's); round 1: 1 field(s) forged, 1 changed "
        "what came")
    assert checks["state-forged-field"]["status"] == "fail" and run.code == 2


def test_forgeries_are_bounded_and_the_evidence_says_how_many_were_left_out():
    pay_big = [a.replace("INV-7", "INV-9") for a in PAY]
    checks = checks_of(mrtr_here("check", *pay_big, "--json", "--", *STATE_SERVER, "mac-checked"))
    assert checks["state-forged-field"]["seen"] == (
        "all 40 forged fields refused (20 of round 1, 20 of round 2): error -32602: Invalid requestState: its "
        "signature does not match; 16 field(s) left out (at most 20 a round, 60 calls in all)")


def test_the_weak_example_server_fails_as_the_manual_shows():
    """docs/commands/check.md's "When the state can be forged": every line it shows is what check prints."""
    page = (ROOT / "docs" / "commands" / "check.md").read_text(encoding="utf-8")
    block = page.split("$ mrtr check --tool buy_tickets", 1)[1].split("```", 1)[0]
    command, *shown = block.strip("\n").splitlines()
    assert command.endswith("-- python examples/weak_server.py")
    run = mrtr_here("check", "--tool", "buy_tickets", "-a", "event=opera", "--answer", "seats.seats=2", "--",
               PYTHON, str(ROOT / "examples" / "weak_server.py"))
    assert run.code == 2 and len(shown) == 4
    printed = run.stdout.splitlines()
    assert all(line in printed for line in shown), run.stdout


def test_the_example_server_passes_every_state_probe_it_can_be_given():
    checks = checks_of(mrtr_here("check", "--tool", "greet", "-a", "greeting=Hi", "--answer", "name.name=Ada", "--json",
                            "--", PYTHON, str(ROOT / "examples" / "my_server.py")))
    assert checks["state-readable"]["seen"] == "round 1's requestState is base64 JSON with key `greeting` and no signature"
    assert checks["state-forged-field"]["seen"] == ("the forged field refused (1 of round 1): error -32602: Invalid or "
                                                    "expired requestState")
    assert {checks[id]["status"] for id in STATE_IDS[2:]} == {"skipped"}  # no tag, one round
