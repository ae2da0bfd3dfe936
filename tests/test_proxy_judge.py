"""The judge of the client (`mrtr proxy`): a client written here makes each mistake of issue 29's
item 4 against the real demo server, through the real proxy (one wrong client per transport, and
one of the older era), and gets each finding in `--json FILE`, `--junit FILE`, the timeline's
summary and `--strict`'s exit 2; mrtr as a correct client, in both eras and over HTTP, gets none."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import threading
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import xmlschema

from conftest import PYTHON, ROOT, mrtr_here
from peers import HttpPeer, StdioPeer, converse, demo_http, request
from mrtr_cli.conversation import events
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.protocol.lint_rules import CLIENT_RULES, SPEC
from mrtr_cli.proxy.judge import ClientJudge
from mrtr_cli.proxy.told import Told
from mrtr_cli.proxy.watching import Crossed

DEMO = [PYTHON, "-m", "mrtr_cli", "demo-server"]
OLDER = "2025-11-25"


def proxy(folder: Path, *options: str) -> list[str]:
    """`mrtr proxy` in front of the demo, its reports in `folder`."""
    return [PYTHON, "-m", "mrtr_cli", "proxy", "--json", str(folder / "found.json"), "--junit",
            str(folder / "found.xml"), "--timeline", str(folder / "timeline.txt"), *options, "--", *DEMO]


class Proxied(StdioPeer):
    """The demo behind the stdio shim, as a host sees it: send a line, read a line."""

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout
        line = self.process.stdout.readline()
        assert line, "the proxy closed its stdout"
        return dict(json.loads(line))


def found_rules(folder: Path) -> list[str]:
    return sorted(found["rule"] for found in json.loads((folder / "found.json").read_text())["findings"])


def result_of(received: list[dict[str, Any]]) -> dict[str, Any]:
    return dict(received[-1].get("result") or {})


def wrong_modern_client(peer: Proxied) -> None:
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


STDIO_FINDINGS = sorted(["retry-id-reused", "request-state-altered", "input-responses-missing",
                         "input-responses-unasked", "answer-outside-schema", "answer-without-capability",
                         "request-state-dropped", "request-state-altered", "retry-after-complete",
                         "request-state-invented"])
BROKEN_MUSTS = {"retry-id-reused", "request-state-altered", "input-responses-missing", "answer-without-capability",
                "request-state-dropped", "retry-after-complete", "request-state-invented"}


def test_a_wrong_client_over_stdio_gets_each_finding_in_every_report_and_strict_exits_2(tmp_path: Path) -> None:
    peer = Proxied(proxy(tmp_path, "--strict"))
    try:
        wrong_modern_client(peer)
    finally:
        peer.close()
    assert peer.process.returncode == 2
    assert found_rules(tmp_path) == STDIO_FINDINGS
    document = json.loads((tmp_path / "found.json").read_text())
    assert document["counts"] == {"error": 8, "warning": 2, "info": 0} and document["rules"] == sorted(CLIENT_RULES)
    pages = {found["rule"]: found["page"] for found in document["findings"]}
    assert pages["request-state-altered"] == SPEC + "basic/patterns/mrtr#client-requirements-basic-workflow"
    assert pages["answer-without-capability"] == SPEC + "client/elicitation#capabilities"
    messages = [found["message"] for found in document["findings"]]
    assert "tools/call 'two_questions' (retry id 1): inputResponses lacks 'color', which the server asked" in messages
    xmlschema.XMLSchema(str(ROOT / "tests" / "junit-10.xsd")).validate(str(tmp_path / "found.xml"))
    suite = ElementTree.parse(tmp_path / "found.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == str(len(CLIENT_RULES))
    failed = {case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None}
    assert failed == BROKEN_MUSTS
    timeline = (tmp_path / "timeline.txt").read_text()
    assert "[retry-id-reused]" in timeline and "the client: 8 errors, 2 warnings" in timeline
    lines = timeline.splitlines()
    altered = [lines[number - 1] for number, line in enumerate(lines)
               if "[request-state-altered]" in line and lines[number - 1].startswith("↻")]
    assert len(altered) == 2 and all("requestState not the one received (" in line for line in altered), altered
    assert "echoed" not in "".join(line for line in lines if "requestState" in line and "made-up" in line)


def test_mrtr_as_a_correct_client_gets_no_finding_in_either_era(tmp_path: Path) -> None:
    for era, name, color in (("modern", "name", "color"), ("older", "elicitation#1", "elicitation#2")):
        folder = tmp_path / era
        folder.mkdir()
        done = mrtr_here("call", "two_questions", "--answer", f"{name}.name=Ada", "--answer", f"{color}.color=red",
                         "--no-input", "--protocol-era", era, "--", *proxy(folder, "--strict"))
        assert done.code == 0, done.stderr
        assert "Hello Ada, you like red." in done.stdout
        assert found_rules(folder) == [], era
        timeline = (folder / "timeline.txt").read_text()
        assert "the client: no findings" in timeline
        assert ("requestState echoed (" in timeline) == (era == "modern") and "not the one received" not in timeline
        assert ("asked in flight: elicitation#1 (while request" in timeline) == (era == "older")
        assert "--answer" not in timeline  # the host answers through the proxy, not mrtr's flags


def test_a_wrong_client_of_the_older_era_answers_badly_and_leaves_a_question_unanswered(tmp_path: Path) -> None:
    peer = Proxied(proxy(tmp_path))
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
    assert peer.process.returncode == 0  # no --strict: the server's own exit code
    assert found_rules(tmp_path) == ["answer-outside-schema", "server-request-unanswered"]
    findings = json.loads((tmp_path / "found.json").read_text())["findings"]
    assert findings[1]["page"].startswith("https://modelcontextprotocol.io/specification/2025-11-25/")
    assert findings[1]["severity"] == "info"  # the host closed just after the question came: no MUST broken
    assert findings[1]["message"].endswith("was still unanswered when the connection ended")


def test_over_http_headers_that_disagree_with_the_body_are_found_and_mrtr_s_own_are_not(tmp_path: Path) -> None:
    with demo_http() as url:
        command = [PYTHON, "-m", "mrtr_cli", "proxy", "--http", "127.0.0.1:0", "--to", url,
                   "--json", str(tmp_path / "found.json")]
        proxied = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        try:
            assert proxied.stderr is not None
            listening = proxied.stderr.readline()
            proxy_url = listening.split()[2]
            done = mrtr_here("call", "two_questions", "--answer", "name.name=Ada", "--answer", "color.color=red",
                             "--no-input", "--url", proxy_url)
            assert done.code == 0, done.stderr
            wrong_http_client(HttpPeer(proxy_url))
        finally:
            proxied.send_signal(signal.SIGINT)
            _, stderr = proxied.communicate(timeout=30)
    assert found_rules(tmp_path) == ["header-mismatch", "header-mismatch", "protocol-version-header"]
    messages = [found["message"] for found in json.loads((tmp_path / "found.json").read_text())["findings"]]
    assert "tools/call: Mcp-Name is 'greet' but the body says 'two_questions'" in messages
    assert "tools/list: Mcp-Method is absent but the body says 'tools/list'" in messages
    assert "the client: 3 errors" in stderr


def wrong_http_client(peer: HttpPeer) -> None:
    try:
        call = request(1, "tools/call", {"name": "two_questions"})
        peer.post(call, {**peer.headers_for(call), "Mcp-Name": "greet", "mcp-protocol-version": "2025-11-25"})
        listing = request(2, "tools/list")
        peer.post(listing, {name: value for name, value in peer.headers_for(listing).items() if name != "Mcp-Method"})
    finally:
        peer.close()


class Recorded(StdioPeer):
    """The demo over stdio, every line kept with its direction, in the order it crossed."""

    def __init__(self) -> None:
        super().__init__(DEMO)
        self.lines: list[tuple[str, str]] = []

    def exchange(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        received = super().exchange(message)
        self.lines += [("to_server", json.dumps(message))] + [("to_client", json.dumps(m)) for m in received]
        return received


def retries_first(frames: list[Crossed]) -> list[Crossed]:
    """Each retry moved before the result it answers (the last response told before it)."""
    moved = list(frames)
    for frame in frames:
        if frame.direction == "to_server" and '"requestState"' in frame.text:
            at = moved.index(frame)
            answered = max(n for n in range(at) if isinstance(moved[n].message, jsonrpc.Response))
            moved.insert(answered, moved.pop(at))
    return moved


def results_first(frames: list[Crossed]) -> list[Crossed]:
    """Each response moved before the request it answers."""
    moved = list(frames)
    for frame in frames:
        if isinstance(frame.message, jsonrpc.Response):
            at = moved.index(frame)
            asked = max(n for n in range(at) if isinstance(moved[n].message, jsonrpc.Request)
                        and moved[n].message.id == frame.message.id)
            moved.insert(asked, moved.pop(at))
    return moved


def judged(frames: list[Crossed]) -> set[str]:
    judge = ClientJudge()
    for frame in frames:
        judge.crossed(frame)
    judge.ended()
    return {found.rule for found in judge.findings}


def test_frames_told_out_of_their_causal_order_are_judged_as_they_crossed() -> None:
    """The proxy tells a frame after its bytes went on, one thread a direction: a retry may be told
    before the result it answers, or a result before its request. A correct client stays correct,
    and a wrong one wrong."""
    recorded = Recorded()
    ids = itertools.count(1)
    try:
        for tool in ("two_questions", "poll_status"):
            converse(recorded, ids, "tools/call", {"name": tool})
    finally:
        recorded.close()
    frames = [Crossed(direction, text, jsonrpc.decode(text), {}, "stdio") for direction, text in recorded.lines]
    orders = [frames, retries_first(frames), results_first(frames)]
    assert orders[1] != frames and orders[2] != frames
    assert [judged(order) for order in orders] == [set(), set(), set()]
    altered = [frame._replace(text=frame.text.replace('"requestState": "', '"requestState": "x'))
               if frame.direction == "to_server" else frame for frame in frames]
    altered = [frame._replace(message=jsonrpc.decode(frame.text)) for frame in altered]
    for order in (retries_first(altered), results_first(altered)):
        assert judged(order) == {"request-state-altered"}
    older = older_era_frames()
    assert judged(older) == set() and judged(answers_first(older)) == set() and answers_first(older) != older
    assert judged([frame for frame in older if "accept" not in frame.text]) == {"server-request-unanswered"}
    first_answer = next(frame for frame in older if "accept" in frame.text)
    judge = ClientJudge()
    for frame in older:
        if frame is not first_answer:
            judge.crossed(frame)
    judge.ended()
    [skipped] = judge.findings  # the client answered the server's later question, never the first
    assert (skipped.rule, skipped.severity) == ("server-request-unanswered", "error"), skipped


def older_era_frames() -> list[Crossed]:
    """A correct conversation of the older era with the demo: the server asks in flight, the client answers."""
    recorded = Recorded()
    lines = recorded.lines

    def send(message: dict[str, Any]) -> None:
        assert recorded.process.stdin
        lines.append(("to_server", json.dumps(message)))
        recorded.process.stdin.write(lines[-1][1].encode() + b"\n")
        recorded.process.stdin.flush()

    def receive() -> dict[str, Any]:
        assert recorded.process.stdout
        lines.append(("to_client", recorded.process.stdout.readline().decode().rstrip("\n")))
        return dict(json.loads(lines[-1][1]))

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": OLDER, "capabilities": {"elicitation": {}}, "clientInfo": {"name": "t", "version": "0"}}})
        receive()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "two_questions"}})
        for field, value in (("name", "Ada"), ("color", "red")):
            question = receive()
            send({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {field: value}}})
        assert "Hello Ada" in json.dumps(receive())
    finally:
        recorded.close()
    return [Crossed(direction, text, jsonrpc.decode(text), {}, "stdio") for direction, text in lines]


def answers_first(frames: list[Crossed]) -> list[Crossed]:
    """Each answer of the client moved before the server's request it answers."""
    moved = list(frames)
    for frame in frames:
        if frame.direction == "to_server" and isinstance(frame.message, jsonrpc.Response):
            at = moved.index(frame)
            asked = max(n for n in range(at) if moved[n].direction == "to_client"
                        and isinstance(moved[n].message, jsonrpc.Request))
            moved.insert(asked, moved.pop(at))
    return moved


ASKING_SERVER = r'''
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue
    if "inputResponses" in message["params"]:
        result = {"content": [{"type": "text", "text": "done \x1b[2J"}]}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": "p1", "method": "ping"}), flush=True)
        result = {"resultType": "input_required", "requestState": "S1", "inputRequests": {
            "r": {"method": "roots/list", "params": {}},
            "k": {"method": "elicitation/create", "params": {"mode": "form", "message": "hi \x1b[2J",
                                                              "requestedSchema": {"type": "object"}}}}}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
'''


def test_a_client_sending_odd_answers_is_still_judged_and_nothing_it_sends_reaches_the_terminal_raw(
        tmp_path: Path) -> None:
    """The answers of the reviewer's repro (`roots` a string, an ESC in an action) broke the
    timeline's watcher, which kept the judge from the frame; and a modern-era server's `ping` the
    host never answered was a broken MUST."""
    server = tmp_path / "server.py"
    server.write_text(ASKING_SERVER)
    meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {"roots": {}, "elicitation": {"form": {}}}}}
    frames = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}, **meta}},
              {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                  "name": "t", "arguments": {}, "requestState": "WRONG", **meta,
                  "inputResponses": {"r": {"roots": "x"}, "k": {"action": "accept\x1b[5m", "content": {}}}}}]
    peer = Proxied([PYTHON, "-m", "mrtr_cli", "proxy", "--json", str(tmp_path / "found.json"), "--timeline",
                    str(tmp_path / "timeline.txt"), "--strict", "--", PYTHON, str(server)])
    try:
        peer.send(frames[0])
        assert peer.receive()["method"] == "ping" and "inputRequests" in peer.receive()["result"]
        peer.send(frames[1])
        assert peer.receive()["result"]["content"][0]["text"] == "done \x1b[2J"  # to the host as the server sent it
    finally:
        peer.close()
    assert peer.process.returncode == 2
    assert found_rules(tmp_path) == ["answer-outside-schema", "request-state-altered", "retry-id-reused"]
    timeline = (tmp_path / "timeline.txt").read_text()
    assert "\x1b" not in timeline and "watcher failed" not in timeline, timeline
    assert "✓ r ← roots \"x\"  from host" in timeline and "✓ k ← accept\\x1b[5m {}  from host" in timeline, timeline
    assert "its action is 'accept\\x1b[5m'" in timeline and "│ hi \\x1b[2J" in timeline, timeline
    assert "the client: 2 errors, 1 warning" in timeline and "✓ complete" in timeline, timeline


class SlowWatcher:
    """A watcher that waits for `release` at each frame (its `crossed` fails if it waits in vain)."""

    def __init__(self) -> None:
        self.release, self.started = threading.Event(), threading.Event()
        self.seen: list[str] = []

    def crossed(self, frame: Crossed) -> None:
        self.started.set()
        assert self.release.wait(30), "the frames were held until the watcher was told them"
        self.seen.append(frame.text)

    def ended(self) -> None:
        self.seen.append("ended")


class FailingWatcher:
    def crossed(self, frame: Crossed) -> None:
        raise AttributeError("'str' object has no attribute 'get'")

    def ended(self) -> None:
        raise ValueError("at the end too")


def test_a_failing_watcher_keeps_no_frame_from_the_others_and_a_slow_one_stops_watching_not_the_bytes() -> None:
    slow, notes = SlowWatcher(), []
    told = Told([FailingWatcher(), slow], notes.append, max_queued=5)
    message = jsonrpc.decode('{"jsonrpc":"2.0","method":"notifications/x"}')
    told.crossed(Crossed("to_server", "1", message, {}, "stdio"))
    assert slow.started.wait(30)
    for number in range(2, 10):
        told.crossed(Crossed("to_server", str(number), message, {}, "stdio"))  # no wait: the watcher is stuck at 1
    told.noted(events.FrameIgnored("not told: watching stopped", "too large"))
    slow.release.set()
    told.ended()
    assert slow.seen == ["1", "2", "3", "4", "5", "6", "ended"]  # 1 being told, 5 waiting, then no more
    said = [note.raw for note in notes]
    assert said.count("a watcher failed: AttributeError: 'str' object has no attribute 'get'") == 6, said
    assert said.count("a watcher failed: ValueError: at the end too") == 1, said
    assert len(said) == 8 and "the watchers fell behind the traffic (more than 5 frames" in said[6], said
    slow, notes = SlowWatcher(), []
    told = Told([slow], notes.append, max_queued_bytes=3)
    for text in ("aa", "bb", "c"):
        told.crossed(Crossed("to_server", text, message, {}, "stdio"))  # "bb" would make 4 characters waiting
    slow.release.set()
    told.ended()
    assert slow.seen == ["aa", "ended"] and len(notes) == 1 and "or 3 bytes waiting" in notes[0].raw, notes


def test_proxy_writes_its_conversations_and_the_clients_findings(tmp_path: Path):
    """--html on a proxy a host launches (test_html_page.py holds the page itself)."""
    from browser import distinct_colours, dom, screenshot
    from test_html_page import parsed

    page_path = tmp_path / "proxy.html"
    peer = Proxied([PYTHON, "-m", "mrtr_cli", "proxy", "--html", str(page_path), "--", *DEMO])
    try:
        wrong_modern_client(peer)
    finally:
        peer.close()
    tags = parsed(dom(page_path, tmp_path)).tags
    names = [attrs["data-name"] for tag, attrs in tags if tag == "section" and "data-name" in attrs]
    assert names[0] == "1. tools/call two_questions" and names[-1] == "5. tools/call workspace_roots"
    rules = [attrs["data-rule"] for _, attrs in tags if attrs.get("data-rule")]
    assert "retry-id-reused" in rules and "request-state-invented" in rules
    assert distinct_colours(screenshot(page_path, tmp_path, "proxy.png")) > 20
