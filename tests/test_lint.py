"""Lint: a fixture per rule, and nothing to say about the spec's own example messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SPEC, elicit
from helpers import spec_validator
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.protocol import lint_rules
from mrtr_cli.protocol.meta import Capabilities

ALL = Capabilities()
SAMPLING = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}


def rules(findings: list[lint_rules.Finding]) -> list[str]:
    return [f.rule for f in findings]


def input_required(**fields):
    return {"resultType": "input_required", **fields}


@pytest.mark.parametrize("method,result,capabilities,rule", [
    ("tools/list", input_required(requestState="s"), ALL, "input-required-on-method"),
    ("tools/call", input_required(), ALL, "input-required-empty"),
    ("tools/call", input_required(inputRequests={"k": {"method": "ping"}}), ALL, "input-request-method"),
    ("tools/call", input_required(inputRequests={"k": SAMPLING}), Capabilities(sampling=False), "undeclared-capability"),
    ("tools/call", input_required(inputRequests={"k": {**SAMPLING, "params": {**SAMPLING["params"], "tools": []}}}),
     ALL, "undeclared-capability"),
    ("tools/call", {"resultType": "later"}, ALL, "result-type-unknown"),
    ("tools/call", {"content": []}, ALL, "result-type-missing"),
    ("tools/call", input_required(requestState=7), ALL, "request-state-type"),
    ("tools/list", {"resultType": "complete", "tools": []}, ALL, "caching-hints"),
    ("resources/read", {"resultType": "complete", "contents": [], "ttlMs": -1, "cacheScope": "public"}, ALL,
     "caching-hints"),
    ("server/discover", {"resultType": "complete", "ttlMs": 0, "cacheScope": "everyone"}, ALL, "caching-hints"),
    ("tools/call", input_required(inputRequests={"k": elicit("m", {"a": {"type": "object"}})}), ALL,
     "form-schema-subset"),
    ("tools/call", input_required(inputRequests={"k": {"method": "elicitation/create", "params": {
        "mode": "url", "message": "m", "url": "http://example.com/x"}}}), ALL, "url-not-https"),
    ("tools/call", input_required(inputRequests={"k": {**SAMPLING, "params": {**SAMPLING["params"],
                                                                             "includeContext": "allServers"}}}),
     ALL, "include-context"),
    ("tools/call", input_required(inputRequests={"k": elicit("x" * 20_000, {"a": {"type": "string"}})}), ALL,
     "message-too-long"),
    ("tools/call", input_required(inputRequests={"k": elicit("m", {"a": {"type": "string", "enum": list(
        range(1200))}})}), ALL, "enum-too-long"),
])
def test_a_fixture_per_result_rule(method, result, capabilities, rule):
    found = lint_rules.check_result(method, result, capabilities)
    assert rule in rules(found)
    severity, page = lint_rules.RULES[rule]
    assert all(f.page.startswith(lint_rules.SPEC) for f in found)
    assert next(f for f in found if f.rule == rule).severity == severity


def deep(levels: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def test_schema_bounds():
    assert rules(lint_rules.check_schema("k", deep(20))) == ["schema-too-deep"]
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(11_000)}}
    assert rules(lint_rules.check_schema("k", wide)) == ["schema-too-large"]
    assert lint_rules.check_schema("k", {"type": "object", "properties": {"a": {"type": "string"}}}) == []


@pytest.mark.parametrize("frame,in_flight,rule", [
    ("not json", 1, "not-jsonrpc"),
    ('{"jsonrpc":"2.0","id":9,"method":"roots/list"}', 1, "server-request"),
    ('{"jsonrpc":"2.0","id":2,"result":{}}', 1, "unknown-response-id"),
    ('{"jsonrpc":"2.0","id":"1","result":{}}', 1, "unknown-response-id"),
    ('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}', 1, "error-without-id"),
])
def test_a_fixture_per_frame_rule(frame, in_flight, rule):
    assert rules(lint_rules.check_frame(jsonrpc.decode(frame), in_flight)) == [rule]


def test_well_formed_results_have_no_findings():
    good = {"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "public"}
    assert lint_rules.check_result("tools/list", good, ALL) == []
    asked = input_required(inputRequests={"k": elicit("m", {"a": {"type": "string"}})}, requestState="s")
    assert lint_rules.check_result("tools/call", asked, ALL) == []
    assert lint_rules.check_frame(jsonrpc.decode('{"jsonrpc":"2.0","id":1,"result":{}}'), 1) == []


RESULTS = {"CallToolResult": "tools/call", "DiscoverResult": "server/discover", "GetPromptResult": "prompts/get",
           "ListPromptsResult": "prompts/list", "ListResourceTemplatesResult": "resources/templates/list",
           "ListResourcesResult": "resources/list", "ListToolsResult": "tools/list",
           "ReadResourceResult": "resources/read", "InputRequiredResult": "tools/call"}
SERVER_MESSAGES = [*(f"{r}Response" for r in RESULTS if r != "InputRequiredResult"), "ProgressNotification",
                   "LoggingMessageNotification", "ResourceUpdatedNotification", "ToolListChangedNotification",
                   "PromptListChangedNotification", "ResourceListChangedNotification", "HeaderMismatchError",
                   "MissingRequiredClientCapabilityError", "UnsupportedProtocolVersionError"]


def examples(kind: str) -> list[Path]:
    return sorted((SPEC / "examples" / kind).glob("*.json"))


def test_no_finding_on_the_specs_examples():
    """Every server message among the official examples lints clean, but where the example
    contradicts the official schema itself (a ReadResourceResultResponse example omits the ttlMs and
    cacheScope the schema requires): there the finding and the schema agree."""
    checked = 0
    for kind, method in RESULTS.items():
        results = [(p, json.loads(p.read_text())) for p in examples(kind)]
        results += [(p, json.loads(p.read_text())["result"]) for p in examples(f"{kind}Response")]
        for path, example in results:
            found = lint_rules.check_result(method, example, ALL)
            if found:
                assert rules(found) == ["caching-hints"], (path, found)
                assert not spec_validator(kind).is_valid(example), f"{path} is schema-valid but linted"
            checked += 1
    for kind in SERVER_MESSAGES:
        for path in examples(kind):
            message = jsonrpc.decode(path.read_text())
            in_flight = getattr(message, "id", None)
            assert lint_rules.check_frame(message, in_flight) == [], path
            checked += 1
    assert checked > 30


def _json_trees(leaves: int):
    from hypothesis import strategies as st

    return st.recursive(st.one_of(st.none(), st.integers(), st.text(max_size=2)),
                        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner,
                                                                                     max_size=4),
                        max_leaves=leaves)


def test_the_quick_bounds_check_agrees_with_the_measure():
    """beyond_bounds measures level by level first; its verdict is the full measure's, at and past both bounds."""
    from hypothesis import given, settings

    def deep(levels: int) -> object:
        value: object = "leaf"
        for _ in range(levels):
            value = {"a": value}
        return value

    @settings(max_examples=300, deadline=None)
    @given(_json_trees(60))
    def agrees(tree):
        depth, nodes = lint_rules._measure(tree)
        within = depth <= lint_rules.MAX_SCHEMA_DEPTH and nodes <= lint_rules.MAX_SCHEMA_NODES
        assert lint_rules._within_bounds(tree) is within

    agrees()
    for levels in (7, 8, 9, 30):
        assert lint_rules._within_bounds(deep(levels)) is (levels <= lint_rules.MAX_SCHEMA_DEPTH)
    for size in (lint_rules.MAX_SCHEMA_NODES - 1, lint_rules.MAX_SCHEMA_NODES, 10 * lint_rules.MAX_SCHEMA_NODES):
        wide = {"enum": list(range(size))}  # the dict and its list: two values more
        assert lint_rules._within_bounds(wide) is (size + 2 <= lint_rules.MAX_SCHEMA_NODES)
        assert (lint_rules.beyond_bounds(wide) is None) is (size + 2 <= lint_rules.MAX_SCHEMA_NODES)
