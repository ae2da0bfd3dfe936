"""The real servers the retry-on-another-instance tests meet (issue 26): first proven without mrtr,
then driven by `--replica` and `--restart-between-rounds`. Two processes of the PyPI `mcp` SDK's
MCPServer refuse each other's requestState (each seals it under a key made at start-up) unless
SDK_STATE_KEY shares one, and the SDK's low-level Server, whose state is plain JSON, completes a
retry whichever process takes it. Without mrtr, the retry is sent to the other process by hand."""

from __future__ import annotations

import itertools
from typing import Any

from conftest import SDK_SERVER, mrtr_here
from peers import (PLAIN_STATE_SERVER, SHARED_STATE_KEY, HttpPeer, answer_all,
                   plain_state_instances_over_http, request, sdk_instances_over_http)

GREET = {"name": "greet", "arguments": {"greeting": "Hi"}}
IDS = itertools.count(1)


def call_once(peer: Any, params: dict[str, Any]) -> dict[str, Any]:
    """One tools/call on `peer` (closed after): the reply."""
    try:
        [reply] = peer.exchange(request(next(IDS), "tools/call", params))
    finally:
        peer.close()
    return dict(reply)


def first_round(url: str) -> dict[str, Any]:
    """Round 1 of `greet` on the instance at `url`: its input_required result."""
    reply = call_once(HttpPeer(url), GREET)
    result = reply["result"]
    assert result["resultType"] == "input_required" and isinstance(result.get("requestState"), str), reply
    return dict(result)


def retry_on(url: str, asked: dict[str, Any]) -> dict[str, Any]:
    """The retry of round 1 (its requestState echoed, its question answered), sent to `url`: the reply."""
    params = {**GREET, "requestState": asked["requestState"], "inputResponses": answer_all(asked["inputRequests"])}
    return call_once(HttpPeer(url), params)


def test_mcpserver_instances_refuse_each_others_request_state_by_default():
    with sdk_instances_over_http() as (first, second):
        asked = first_round(first)
        refused = retry_on(second, asked)
        assert refused["error"]["code"] == -32602, refused
        assert refused["error"]["message"] == "Invalid or expired requestState"
        completed = retry_on(first, asked)  # the same retry, where its state was made
        assert completed["result"]["content"][0]["text"].startswith("Hi, "), completed


def test_mcpserver_instances_that_share_a_key_take_each_others_retries():
    with sdk_instances_over_http(SHARED_STATE_KEY) as (first, second):
        asked = first_round(first)
        completed = retry_on(second, asked)
        assert completed["result"]["content"][0]["text"].startswith("Hi, "), completed
        assert first_round(second)["requestState"] != asked["requestState"]  # still sealed, under the shared key


def test_a_low_level_server_with_plain_json_state_completes_a_retry_on_either_instance():
    with plain_state_instances_over_http() as (first, second):
        asked = first_round(first)
        assert asked["requestState"] == '{"greeting": "Hi"}'
        done = [retry_on(url, asked)["result"]["structuredContent"] for url in (second, first)]
        assert [d["text"] for d in done] == ["Hi, " + answer_all(asked["inputRequests"])["name"]["content"]["name"]
                                             + "!"] * 2
        assert done[0]["pid"] != done[1]["pid"]  # two processes completed it


def test_mrtr_sends_each_peers_retry_to_another_instance_or_a_restarted_one():
    """`--replica` and `--restart-between-rounds` against the real peers: MCPServer refuses the hop
    with its per-process key (exit 2, the hop and its cause named) and takes it with a shared
    key; the plain-JSON server takes it either way; the timeline names each round's instance."""
    greet, sealed, plain = ("greet", "-a", "greeting=Hi"), ("--answer", "__main__:ask_name.name=Ada"), \
        ("--answer", "name.name=Ada")
    with sdk_instances_over_http() as (first, second):
        refused = mrtr_here("call", *greet, *sealed, "--url", first, "--replica", second)
    with sdk_instances_over_http(SHARED_STATE_KEY) as (first, second):
        shared = mrtr_here("call", *greet, *sealed, "--url", first, "--replica", second)
        other = second.removeprefix("http://").removesuffix("/mcp")
    with plain_state_instances_over_http() as (first, second):
        either = mrtr_here("call", *greet, *plain, "--url", first, "--replica", second)
    restarted = mrtr_here("call", *greet, *sealed, "--restart-between-rounds", "--", *SDK_SERVER)
    kept = mrtr_here("call", *greet, *sealed, "--restart-between-rounds", "-e", f"SDK_STATE_KEY={SHARED_STATE_KEY}", "--",
                *SDK_SERVER)
    fresh = mrtr_here("call", *greet, *plain, "--restart-between-rounds", "--", *PLAIN_STATE_SERVER, "stdio")
    assert (refused.code, restarted.code) == (2, 2), refused.stderr + restarted.stderr
    assert "✗ the retry went to another instance (" in refused.stderr
    assert "and was refused: error -32602 'Invalid or expired requestState'; a server whose requestState is valid " \
           "only in the process that made it" in refused.stderr
    assert "✗ the retry went to a restarted server and was refused: error -32602 'Invalid or expired " \
           "requestState'" in restarted.stderr
    for run in (shared, either, kept, fresh):
        assert run.code == 0 and "Hi, Ada!" in run.stdout, run.stderr
    assert f"round 2 → instance 1 · {other}" in shared.stderr
    assert "round 2 → instance 1 · restart 1" in kept.stderr
