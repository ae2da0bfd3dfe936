"""The demo server and `mrtr serve` for clients of the initialize-handshake era (2024-11-05 to 2025-11-25).

Real peers: the PyPI `mcp` SDK client in `mode="legacy"` (it negotiates 2025-11-25; earlier versions by
setting the version its `initialize` offers), and raw clients that speak the wire exactly (older_peers.py).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp.client.session
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from conftest import PYTHON, ROOT
from older_peers import OlderHttp, OlderStdio, answer_anything, initialize, plain, schema_problems
from peers import demo_http, http_server, request
from test_demo_sdk_client import answer_form, answer_roots, answer_sampling
from mrtr_cli.server.demo import TOOLS

STDIO_DEMO = StdioServerParameters(command=PYTHON, args=["-m", "mrtr_cli", "demo-server"], cwd=str(ROOT))
MODERN_ONLY = {"resultType", "ttlMs", "cacheScope"}


async def every_result(client: Client) -> dict[str, Any]:
    """What each demo tool, the prompt and the vault resource finally give."""
    results: dict[str, Any] = {}
    for name in sorted(TOOLS):
        result = await client.call_tool(name, {})
        results[name] = (result.is_error, [c.text for c in result.content], result.structured_content)
    prompt = await client.get_prompt("release_notes", {"version": "3.1"})
    results["release_notes"] = [m.content.text for m in prompt.messages]
    results["vault"] = [c.text for c in (await client.read_resource("vault://sdk")).contents]
    return results


def sdk_run(target: Any, body: Any, mode: str = "auto", **callbacks: Any) -> Any:
    callbacks = callbacks or {"elicitation_callback": answer_form, "sampling_callback": answer_sampling,
                              "list_roots_callback": answer_roots}

    async def run() -> Any:
        async with Client(target, mode=mode, **callbacks) as client:
            return client.session.protocol_version, await body(client)

    return anyio.run(run)


@pytest.fixture(scope="module")
def modern_results() -> dict[str, Any]:
    version, results = sdk_run(STDIO_DEMO, every_result)
    assert version == "2026-07-28"
    return results


def test_an_older_sdk_client_gets_the_modern_results_over_stdio(modern_results):
    version, results = sdk_run(STDIO_DEMO, every_result, mode="legacy")
    assert version == "2025-11-25"
    assert results == modern_results


def test_an_older_sdk_client_gets_the_modern_results_over_http(modern_results):
    with demo_http() as url:
        version, results = sdk_run(url, every_result, mode="legacy")
    assert version == "2025-11-25"
    assert results == modern_results


def offering(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    """The SDK offers its latest handshake version in initialize; this makes it offer `version`."""
    monkeypatch.setattr(mcp.client.session, "LATEST_HANDSHAKE_VERSION", version)


def test_a_2025_06_18_sdk_client_gets_forms_without_modes_or_multi_selects(monkeypatch):
    offering(monkeypatch, "2025-06-18")
    asked = []

    async def record(context: Any, params: Any) -> Any:
        asked.append(params.model_dump(by_alias=True, exclude_none=True))
        return await answer_form(context, params)

    async def body(client: Client) -> Any:
        return [await client.call_tool(name, {}) for name in ("book_table", "all_fields", "connect_account")]

    version, (booked, all_fields, connect) = sdk_run(STDIO_DEMO, body, mode="legacy", elicitation_callback=record)
    assert version == "2025-06-18"
    assert not booked.is_error and booked.structured_content["received"]["party"] == {"size": 1}  # no default in 2025-06-18
    assert [list(a["requestedSchema"]["properties"]) for a in asked] == [["date"], ["size"], ["confirm"]]
    peer = OlderStdio()
    peer.open("2025-06-18")
    raw = peer.call(plain(1, "tools/call", {"name": "book_table"}))
    peer.close()
    assert all("mode" not in m["params"] for m in raw[:-1])
    assert "default" not in raw[1]["params"]["requestedSchema"]["properties"]["size"]
    assert all_fields.is_error and "multi-select" in all_fields.content[0].text
    assert connect.is_error and "URL-mode elicitation does not exist in protocol version 2025-06-18" in \
        connect.content[0].text


def test_a_2025_03_26_sdk_client_over_http_gets_sampling_but_no_elicitation(monkeypatch):
    offering(monkeypatch, "2025-03-26")

    async def body(client: Client) -> Any:
        return await client.call_tool("summarize", {}), await client.call_tool("two_questions", {})

    with demo_http() as url:
        version, (summary, asked) = sdk_run(url, body, mode="legacy")
    assert version == "2025-03-26"
    assert summary.content[0].text == "Summary from sdk-llm: sdk summary" and summary.structured_content is None
    assert asked.is_error and "elicitation/create does not exist in protocol version 2025-03-26" in \
        asked.content[0].text


def test_a_capability_the_client_did_not_declare_ends_the_call_with_an_error_result():
    async def body(client: Client) -> Any:
        return await client.call_tool("summarize", {})

    _, result = sdk_run(STDIO_DEMO, body, mode="legacy", elicitation_callback=answer_form)
    assert result.is_error and "sampling, which the client did not declare in initialize" in result.content[0].text


def test_url_mode_sends_its_completion_notification_in_2025_11_25():
    peer = OlderStdio()
    assert peer.open("2025-11-25")["result"]["protocolVersion"] == "2025-11-25"
    received = peer.call(plain(1, "tools/call", {"name": "connect_account", "arguments": {}}))
    peer.close()
    asked, complete, result = received
    assert asked["method"] == "elicitation/create" and asked["params"]["mode"] == "url"
    assert complete == {"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
                        "params": {"elicitationId": asked["params"]["elicitationId"]}}
    assert result["result"]["content"][0]["text"].startswith("Connected your github account")


@pytest.mark.parametrize("offered, negotiated", [("2025-11-25", "2025-11-25"), ("2025-06-18", "2025-06-18"),
                                                 ("2025-03-26", "2025-03-26"), ("2024-11-05", "2024-11-05"),
                                                 ("1999-01-01", "2025-11-25"), ("2026-07-28", "2025-11-25")])
def test_version_negotiation(offered, negotiated):
    peer = OlderStdio()
    result = peer.open(offered)["result"]
    peer.close()
    assert result["protocolVersion"] == negotiated
    assert result["serverInfo"]["name"] == "mrtr-demo" and "tools" in result["capabilities"]


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_what_the_demo_sends_an_older_client_is_valid_by_that_versions_schema(version):
    peer = OlderStdio()
    seen = [(peer.open(version), "InitializeResult")]
    for index, method in enumerate(["tools/list", "prompts/list", "resources/list", "resources/templates/list",
                                    "ping", "logging/setLevel"], start=1):
        seen.append((peer.call(plain(index, method, {"level": "info"} if method == "logging/setLevel" else {}))[-1],
                     None))
    for index, name in enumerate(["book_table", "two_questions", "summarize", "workspace_roots"], start=10):
        seen += [(message, "call") for message in peer.call(plain(index, "tools/call", {"name": name}))]
    peer.close()
    problems = [(m, schema_problems(m, _definition(m), version)) for m, _ in seen]
    assert [p for p in problems if p[1]] == []
    assert not any(MODERN_ONLY & set(m.get("result", {})) for m, _ in seen)
    assert not any("io.modelcontextprotocol/serverInfo" in m.get("result", {}).get("_meta", {}) for m, _ in seen)


def _definition(message: dict[str, Any]) -> str:
    if message.get("method") == "elicitation/create":
        return "ElicitRequest"
    if message.get("method") == "sampling/createMessage":
        return "CreateMessageRequest"
    if message.get("method") == "roots/list":
        return "ListRootsRequest"
    if message.get("method"):
        return "ServerNotification"
    return "JSONRPCResponse" if "result" in message else "JSONRPCError"


def test_stdio_session_rules():
    peer = OlderStdio()
    peer.open("2025-11-25")
    assert peer.call(plain(1, "ping"))[-1]["result"] == {}
    assert peer.call(plain(2, "logging/setLevel", {"level": "nope"}))[-1]["error"]["code"] == -32602
    assert peer.call(initialize("2025-11-25") | {"id": 3})[-1]["error"]["code"] == -32600
    assert peer.call(request(4, "tools/list"))[-1]["error"]["code"] == -32600  # a 2026-07-28 request
    peer.send("{not json")
    assert peer.receive()["error"]["code"] == -32700
    peer.send({"jsonrpc": "2.0", "id": 999, "result": {}})  # a response nobody asked for: ignored
    assert peer.call(plain(5, "logging/setLevel", {"level": "info"}))[-1]["result"] == {}
    logged = peer.call(plain(6, "tools/call", {"name": "book_table"}))
    assert logged[-1]["result"]["content"][0]["text"].startswith("Booked a table")
    assert {"method": "notifications/message"}.items() <= logged[0].items()
    assert peer.close() == 0


def test_a_request_before_initialize_is_refused_and_the_connection_stays_modern():
    peer = OlderStdio()
    first = peer.call(plain(1, "tools/list"))[-1]
    assert first["error"]["code"] == -32602 and "_meta must carry" in first["error"]["message"]
    assert peer.call(initialize("2025-11-25"))[-1]["error"]["code"] == -32602  # judged as 2026-07-28
    peer.close()


def test_stdin_closing_during_a_question_ends_the_server():
    peer = OlderStdio()
    peer.open("2025-11-25")
    peer.send(plain(1, "tools/call", {"name": "book_table"}))
    assert peer.receive()["method"] == "elicitation/create"
    assert peer.close() == 0


def test_http_sessions():
    with demo_http() as url:
        peer = OlderHttp(url)
        opened = peer.open("2025-11-25")
        assert opened.status_code == 200 and len(peer.session or "") >= 20
        kind, received = peer.call(plain(1, "tools/call", {"name": "two_questions"}))
        assert kind.startswith("text/event-stream")
        assert [m.get("method") for m in received] == ["elicitation/create", "elicitation/create", None]
        assert received[-1]["result"]["content"][0]["text"] == "Hello text, you like red."
        kind, [listed] = peer.call(plain(2, "tools/list"))
        assert kind.startswith("application/json") and not MODERN_ONLY & set(listed["result"])
        assert peer.post(plain(3, "tools/list"), session="not-a-session").status_code == 404
        assert peer.post({"jsonrpc": "2.0", "id": 77, "result": {}}).status_code == 400
        peer.version, session = None, peer.session
        peer.session = None
        missing = peer.post(plain(4, "tools/list"))
        assert missing.status_code == 400 and "Mcp-Session-Id" in missing.json()["error"]["message"]
        assert peer.client.get(url, headers=peer.headers(session)).status_code == 405
        assert peer.delete(session).status_code == 200
        assert peer.post(plain(5, "tools/list"), session=session).status_code == 404
        assert peer.delete(session).status_code == 404
        assert peer.delete().status_code == 405
        peer.close()


def test_a_modern_http_client_is_unaffected_by_sessions():
    with demo_http() as url:
        peer = OlderHttp(url)
        peer.open("2025-11-25")
        modern = peer.client.post(url, json=request(1, "server/discover"), headers={
            "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "server/discover"})
        assert modern.status_code == 200 and modern.json()["result"]["supportedVersions"] == ["2026-07-28"]
        peer.close()


RECORDED_ANSWERS = {"Which day": {"date": "2026-12-24"}, "How many": {"size": 4, "seating": ["window", "quiet"]},
                    "Book a table": {"confirm": True}}


def recorded_answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    content = next(v for k, v in RECORDED_ANSWERS.items() if params["message"].startswith(k))
    return {"action": "accept", "content": content}


def test_serve_plays_the_recorded_questions_to_an_older_client_over_stdio():
    async def answer(context: Any, params: Any) -> Any:
        from mcp.types import ElicitResult
        return ElicitResult(**recorded_answer("elicitation/create", {"message": params.message}))

    serve = StdioServerParameters(command=PYTHON, args=["-m", "mrtr_cli", "serve", "recordings/book_table.yaml"],
                                  cwd=str(ROOT))
    version, result = sdk_run(serve, lambda client: client.call_tool("book_table", {}), mode="legacy",
                              elicitation_callback=answer)
    assert version == "2025-11-25"
    assert result.content[0].text.startswith("Booked a table for 4 (window, quiet) in Lisbon on 2026-12-24.")


def test_serve_over_http_refuses_an_answer_that_differs_from_the_recording():
    command = [PYTHON, "-m", "mrtr_cli", "serve", "recordings/book_table.yaml", "--http", "127.0.0.1:0"]
    with http_server(command) as url:
        peer = OlderHttp(url)
        peer.open("2025-11-25")
        _, played = peer.call(plain(1, "tools/call", {"name": "book_table", "arguments": {}}), recorded_answer)
        _, differing = peer.call(plain(2, "tools/call", {"name": "book_table", "arguments": {}}), answer_anything)
        peer.close()
    assert [m.get("method") for m in played] == ["elicitation/create"] * 3 + [None]
    assert "resultType" not in played[-1]["result"] and "Booked a table for 4" in str(played[-1]["result"])
    assert differing[-1]["error"]["code"] == -32602 and "differs from the recording" in differing[-1]["error"]["message"]


def test_a_cancelled_call_stops_asking_and_gets_no_response():
    peer = OlderStdio()
    peer.open("2025-11-25")
    peer.send(plain(1, "tools/call", {"name": "book_table"}))
    assert peer.receive()["method"] == "elicitation/create"
    peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "user"}})
    assert peer.call(plain(2, "ping")) == [{"jsonrpc": "2.0", "id": 2, "result": {}}]  # nothing for call 1 first
    peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}})  # not in flight
    assert peer.call(plain(3, "tools/call", {"name": "greet"}))[-1]["id"] == 3
    assert peer.process.stdin and peer.process.stdout
    peer.process.stdin.close()
    rest = [json.loads(line) for line in peer.process.stdout.read().splitlines()]
    assert not [message for message in rest if message.get("id") == 1], rest  # not even once stdin closed
    peer.process.stdout.close()
    assert peer.process.wait(timeout=15) == 0


def test_a_cancelled_call_over_http_ends_its_stream_without_a_response():
    with demo_http() as url:
        peer = OlderHttp(url)
        peer.open("2025-11-25")
        with peer.client.stream("POST", url, json=plain(1, "tools/call", {"name": "book_table"}),
                                headers=peer.headers()) as streamed:
            lines = streamed.iter_lines()
            first = next(line for line in lines if line.startswith("data:"))
            assert json.loads(first[5:])["method"] == "elicitation/create"
            cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
            assert peer.post(cancel).status_code == 202
            assert [line for line in lines if line.startswith("data:")] == []
        peer.close()
