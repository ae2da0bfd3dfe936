"""The judge of the client (`mrtr proxy`): a client written here makes each mistake of issue 29's
item 4 against the real demo server, one wrong client per transport and era, and gets each finding;
a correct client gets none. Every frame the judge sees is one that crossed between the client and
the real server, in the order it crossed."""

from __future__ import annotations

import itertools
import json
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import httpx
import xmlschema

from conftest import PYTHON, ROOT
from peers import ALL_CAPABILITIES, HttpPeer, StdioPeer, converse, demo_http, messages_of, request
from mrtr_cli.commands import proxy_judging
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.protocol.lint_rules import CLIENT_RULES, SPEC
from mrtr_cli.proxy.judge import ClientJudge
from mrtr_cli.proxy.watching import Crossed

DEMO = [PYTHON, "-m", "mrtr_cli", "demo-server"]
OLDER = "2025-11-25"


def crossed(direction: Any, text: str, headers: Any = None, channel: str = "stdio") -> Crossed:
    return Crossed(direction, text, jsonrpc.decode(text), headers or {}, channel)


class JudgedStdio(StdioPeer):
    """The demo over stdio, each line both ways shown to a judge as the proxy shows it."""

    def __init__(self) -> None:
        super().__init__(DEMO)
        self.judge = ClientJudge()

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin
        line = json.dumps(message)
        self.judge.crossed(crossed("to_server", line))
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout
        line = self.process.stdout.readline().decode().rstrip("\n")
        assert line, "the server closed its stdout"
        self.judge.crossed(crossed("to_client", line))
        return dict(json.loads(line))

    def exchange(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        self.send(message)
        received = [self.receive()]
        while not (received[-1].get("id") == message["id"] and "method" not in received[-1]):
            received.append(self.receive())
        return received

    def close(self) -> None:
        super().close()
        self.judge.ended()


class JudgedHttp(HttpPeer):
    """The demo over HTTP; each POST is one channel, its headers shown with its body."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.judge = ClientJudge()
        self.channels = itertools.count(1)

    def post(self, message: Any, headers: dict[str, str] | None = None, **extra: Any) -> httpx.Response:
        chosen = headers if headers is not None else self.headers_for(message)
        channel = f"post-{next(self.channels)}"
        self.judge.crossed(crossed("to_server", json.dumps(message), chosen, channel))
        response = super().post(message, chosen, **extra)
        for received in messages_of(response):
            self.judge.crossed(crossed("to_client", json.dumps(received), dict(response.headers), channel))
        return response


def rules_of(judge: ClientJudge) -> list[str]:
    return sorted(found.rule for found in judge.findings)


def result_of(received: list[dict[str, Any]]) -> dict[str, Any]:
    return dict(received[-1].get("result") or {})


def wrong_modern_client(peer: JudgedStdio) -> None:
    """Every retry mistake, against the demo's real results."""
    asked = result_of(peer.exchange(request(1, "tools/call", {"name": "two_questions"})))
    assert set(asked["inputRequests"]) == {"name", "color"} and asked["requestState"] != "forged"
    wrong = {"name": {"action": "accept", "content": {"name": 5}}, "zzz": {"action": "accept", "content": {}}}
    peer.exchange(request(1, "tools/call", {"name": "two_questions", "inputResponses": wrong,
                                            "requestState": "forged"}, capabilities={"roots": {}}))
    peer.exchange(request(2, "tools/call", {"name": "poll_status"}))
    again = result_of(peer.exchange(request(3, "tools/call", {"name": "poll_status", "inputResponses": {}})))
    peer.exchange(request(4, "tools/call", {"name": "poll_status", "requestState": again["requestState"] + "x"}))
    state = result_of(peer.exchange(request(5, "tools/call", {"name": "poll_status"})))["requestState"]
    for number in itertools.count(6):
        result = result_of(peer.exchange(request(number, "tools/call", {"name": "poll_status",
                                                                         "requestState": state})))
        if result.get("resultType") != "input_required":
            break
        state = result["requestState"]
    peer.exchange(request(number + 1, "tools/call", {"name": "poll_status", "requestState": state}))
    peer.exchange(request(number + 2, "tools/call", {"name": "workspace_roots", "requestState": "made-up"}))


def test_a_wrong_client_over_stdio_gets_each_finding_and_a_correct_one_none(tmp_path: Path) -> None:
    peer = JudgedStdio()
    try:
        wrong_modern_client(peer)
    finally:
        peer.close()
    assert rules_of(peer.judge) == sorted([
        "retry-id-reused", "request-state-altered", "input-responses-missing", "input-responses-unasked",
        "answer-outside-schema", "answer-without-capability", "request-state-dropped", "request-state-altered",
        "retry-after-complete", "request-state-invented"]), peer.judge.findings
    pages = {found.rule: found.page for found in peer.judge.findings}
    assert pages["request-state-altered"] == SPEC + "basic/patterns/mrtr#client-requirements-basic-workflow"
    assert pages["answer-without-capability"] == SPEC + "client/elicitation#capabilities"
    assert peer.judge.broke_a_must()
    correct = JudgedStdio()
    try:
        for tool in ("two_questions", "poll_status", "all_fields", "summarize", "workspace_roots", "book_table"):
            converse(correct, itertools.count(1), "tools/call", {"name": tool})
    finally:
        correct.close()
    assert correct.judge.findings == [] and not correct.judge.broke_a_must()


def test_a_wrong_client_of_the_older_era_answers_badly_and_leaves_a_question_unanswered() -> None:
    peer = JudgedStdio()
    try:
        peer.exchange({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": OLDER, "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "wrong", "version": "0"}}})
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        peer.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "two_questions"}})
        question = peer.receive()
        assert question["method"] == "elicitation/create"
        peer.send({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": 5}}})
        follow_up = peer.receive()
        while "method" not in follow_up:
            follow_up = peer.receive()
        assert follow_up["method"] == "elicitation/create"
    finally:
        peer.close()
    assert rules_of(peer.judge) == ["answer-outside-schema", "server-request-unanswered"], peer.judge.findings
    assert peer.judge.findings[1].page.startswith("https://modelcontextprotocol.io/specification/2025-11-25/")


def test_a_wrong_client_over_http_sends_headers_that_disagree_with_the_body() -> None:
    with demo_http() as url:
        peer = JudgedHttp(url)
        try:
            call = request(1, "tools/call", {"name": "two_questions"})
            headers = peer.headers_for(call)
            peer.post(call, {**headers, "Mcp-Name": "greet", "mcp-protocol-version": "2025-11-25"})
            listing = request(2, "tools/list")
            peer.post(listing, {name: value for name, value in peer.headers_for(listing).items()
                                if name != "Mcp-Method"})
            converse(peer, itertools.count(3), "tools/call", {"name": "two_questions"})
        finally:
            peer.close()
            peer.judge.ended()
    assert rules_of(peer.judge) == ["header-mismatch", "header-mismatch", "protocol-version-header"]
    messages = [found.message for found in peer.judge.findings]
    assert "tools/call: Mcp-Name is 'greet' but the body says 'two_questions'" in messages
    assert "tools/list: Mcp-Method is absent but the body says 'tools/list'" in messages


def test_the_reports_name_every_rule_and_strict_makes_a_broken_must_exit_2(tmp_path: Path) -> None:
    peer = JudgedStdio()
    try:
        wrong_modern_client(peer)
    finally:
        peer.close()
    lines: list[str] = []
    json_path, junit_path = tmp_path / "findings.json", tmp_path / "findings.xml"
    proxy_judging.finish(peer.judge, str(json_path), str(junit_path), lines.append)
    assert lines[0] == "the client: 8 errors, 2 warnings"
    assert len(lines) == 11 and all(line.startswith("  ! ") for line in lines[1:])
    document = json.loads(json_path.read_text())
    assert document["counts"] == {"error": 8, "warning": 2, "info": 0}
    assert document["rules"] == sorted(CLIENT_RULES) and len(document["findings"]) == 10
    xmlschema.XMLSchema(str(ROOT / "tests" / "junit-10.xsd")).validate(str(junit_path))
    suite = ElementTree.parse(junit_path).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == str(len(CLIENT_RULES))
    failed = sorted(case.get("name", "") for case in suite.iter("testcase") if case.find("failure") is not None)
    assert failed == sorted({"retry-id-reused", "request-state-invented", "input-responses-missing",
                             "answer-without-capability", "request-state-dropped", "request-state-altered",
                             "retry-after-complete"})
    assert proxy_judging.exit_code(peer.judge, True, 0) == 2
    assert proxy_judging.exit_code(peer.judge, False, 3) == 3
    assert proxy_judging.exit_code(ClientJudge(), True, 0) == 0
    clean: list[str] = []
    proxy_judging.finish(ClientJudge(), None, None, clean.append)
    assert clean == ["the client: no findings (every rule of mrtr's judge held)"]
