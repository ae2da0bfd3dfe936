"""`mrtr check`'s subscriptions/listen probes: the stream starts with the acknowledgement, which
carries the listen request's id; a server that offers nothing a stream delivers is not judged."""

from __future__ import annotations

import json

import pytest

from conftest import SDK_SERVER, mrtr_here
from peers import sdk_over_http

LISTEN = ["subscription-ack", "subscription-id-tagged"]
DECLARES = {"capabilities": {"tools": {"listChanged": True}}}


def ack(meta: dict) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                       "params": {"_meta": meta, "notifications": {"toolsListChanged": True}}})


def listen_verdicts(run) -> dict[str, tuple[str, str]]:
    assert "Traceback" not in run.stderr, run.stderr
    checks = {check["id"]: check for check in run.json()["checks"]}
    return {id: (checks[id]["status"], checks[id]["seen"]) for id in LISTEN}


def test_the_sdk_server_acknowledges_with_the_subscription_id():
    verdicts = listen_verdicts(mrtr_here("check", "--json", "--", *SDK_SERVER))
    assert verdicts["subscription-ack"] == ("pass", "the first message is notifications/subscriptions/acknowledged")
    assert verdicts["subscription-id-tagged"][0] == "pass"


def test_the_demo_offers_no_stream_and_is_not_judged():
    verdicts = listen_verdicts(mrtr_here("check", "--demo", "--json"))
    assert {status for status, _ in verdicts.values()} == {"skipped"}
    assert "declares no listChanged or subscribe capability" in verdicts["subscription-ack"][1]


@pytest.mark.parametrize("step,expected", [
    ({"raw": [ack({"io.modelcontextprotocol/subscriptionId": 900002})]}, ("pass", "pass")),
    ({"raw": [ack({})]}, ("pass", "fail")),
    ({"raw": [json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                          "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 900002}}})]},
     ("fail", "pass")),
    ({"error": {"code": -32601, "message": "Method not found"}}, ("fail", "fail")),
    ({"silent": True}, ("fail", "fail")),
])
def test_a_server_declaring_list_changed_is_judged_on_the_first_message(scripted, step: dict, expected: tuple):
    server = scripted(discover=DECLARES, steps=[step])
    verdicts = listen_verdicts(mrtr_here(*server.args("check", "--json")))
    assert (verdicts["subscription-ack"][0], verdicts["subscription-id-tagged"][0]) == expected, verdicts


@pytest.mark.parametrize("mode", ["json", "sse"])
def test_the_sdk_server_over_http_passes_the_listen_and_exact_header_probes(mode: str):
    with sdk_over_http(mode) as url:
        run = mrtr_here("check", "--url", url, "--json")
    checks = {check["id"]: check["status"] for check in run.json()["checks"]}
    assert run.code == 0, run.stderr
    assert {id: checks[id] for id in [*LISTEN, "header-name-case", "header-value-whitespace", "schema-valid"]} == {
        id: "pass" for id in [*LISTEN, "header-name-case", "header-value-whitespace", "schema-valid"]}
