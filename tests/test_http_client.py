"""mrtr over Streamable HTTP: real servers in JSON and SSE modes, and a server that misbehaves."""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from conftest import mrtr_here
from peers import demo_http, free_port, sdk_over_http
from servers.http_faults import FaultServer


@dataclass(frozen=True)
class Sdk:
    url: str
    mode: str


@pytest.fixture(scope="module", params=["json", "sse"])
def sdk(request):
    with sdk_over_http(request.param) as url:
        yield Sdk(url, request.param)


@pytest.fixture(scope="module")
def faults():
    server = FaultServer().start()
    yield server
    server.stop()


def call_json(url: str, *args: str) -> dict:
    run = mrtr_here(*args, "--url", url, "--json")
    assert run.code == 0, run.stderr
    return run.json()


def test_sdk_form_elicitation_with_sealed_state(sdk):
    document = call_json(sdk.url, "call", "greet", "-a", "greeting=Hi", "--answer", "__main__:ask_name.name=Ada")
    assert document["result"]["structuredContent"] == {"result": "Hi, Ada!"}


def test_sdk_two_rounds_json_or_sse(sdk):
    run = mrtr_here("call", "booking", "-a", "city=Oslo", "--answer", "date.date=2026-12-01", "--answer", "party.size=3",
               "--url", sdk.url, "-v")
    assert run.code == 0, run.stderr
    assert "booked Oslo on 2026-12-01 for 3" in run.stdout
    if sdk.mode == "sse":
        assert "content-type: text/event-stream" in run.stderr and "SSE event: message" in run.stderr
        assert "progress 1/2 checking tables" in run.stderr
    else:
        assert "content-type: application/json" in run.stderr and "content-type: text/event-stream" not in run.stderr


def test_sdk_several_questions_sampling_and_roots(sdk):
    document = call_json(sdk.url, "call", "two_at_once", "--answer", "color.color=green", "--sampling-reply", "a b c")
    assert document["result"]["structuredContent"]["words"]["content"]["text"] == "a b c"
    roots = call_json(sdk.url, "call", "workspace", "--root", "/tmp")
    assert roots["result"]["structuredContent"] == {"result": "roots: file:///tmp"}
    summary = call_json(sdk.url, "call", "summarize", "-a", "text=x", "--sampling-reply", "short")
    assert summary["result"]["structuredContent"] == {"result": "summary from mrtr: short"}


def test_sdk_prompt_and_resource(sdk):
    prompt = call_json(sdk.url, "prompt", "haiku", "-a", "topic=snow", "--answer", "style.style=calm")
    assert prompt["result"]["messages"][0]["content"]["text"] == "Write a calm haiku about snow."
    note = call_json(sdk.url, "read", "notes://n1", "--answer", "passphrase.word=w")
    assert note["result"]["contents"][0]["text"] == "note n1, unlocked with w"


def test_demo_over_http_sends_header_params_and_streams_progress():
    with demo_http() as url:
        book = call_json(url, "call", "book_table", "-a", "city=Zürich", "--answers", "examples/book_table.yaml")
        assert "in Zürich on 2026-12-24" in book["result"]["content"][0]["text"]
        poll = mrtr_here("call", "poll_status", "--url", url, "-v")
        assert poll.code == 0 and "content-type: text/event-stream" in poll.stderr
        listing = mrtr_here("list", "tools", "--url", url, "--json")
        assert listing.json()["excluded"] == []


def test_401_is_exit_3_with_the_challenge(faults):
    run = mrtr_here("call", "t", "--url", faults.url + "/401", "--json")
    assert run.code == 3
    message = run.error_line()["error"]["message"]
    assert 'WWW-Authenticate: Bearer realm="mcp"' in message and "-H 'Authorization: Bearer TOKEN'" in message


def test_403_is_exit_3(faults):
    run = mrtr_here("list", "tools", "--url", faults.url + "/403")
    assert run.code == 3 and "insufficient_scope" in run.stderr


def test_5xx_html_is_exit_2_summarised_safely(faults):
    run = mrtr_here("call", "t", "--url", faults.url + "/html500", "--color", "always")
    assert run.code == 2
    assert "HTTP 500" in run.stderr and "an HTML page (Internal \\x1b[2J Server Error" in run.stderr
    assert "\x1b[2J" not in run.stderr and "<script>" not in run.stderr


def test_jsonrpc_error_body_on_a_5xx_is_shown_as_such(faults):
    run = mrtr_here("call", "t", "--url", faults.url + "/jsonrpc500", "--json")
    assert run.code == 2
    assert run.json()["error"] == {"type": "jsonrpc", "code": -32603, "message": "database down"}


def test_legacy_status_without_a_jsonrpc_body(faults):
    run = mrtr_here("list", "tools", "--url", faults.url + "/legacy405")
    assert run.code == 2 and "initialize-handshake era" in run.stderr


def test_202_for_a_request(faults):
    run = mrtr_here("call", "t", "--url", faults.url + "/accepted")
    assert run.code == 2 and "202 Accepted" in run.stderr


def test_a_broken_stream_is_reissued_once_visibly(faults):
    run = mrtr_here("call", "t", "--url", faults.url + "/cut")
    assert run.code == 0, run.stderr
    assert "second time lucky" in run.stdout
    assert "ended before the response; sending it once more under a new id" in run.stderr
    first, second = faults.calls("/cut")
    assert first["body"]["id"] != second["body"]["id"]


def test_a_stream_broken_twice_is_exit_4(faults):
    run = mrtr_here("call", "t", "--url", faults.url + "/cutalways")
    assert run.code == 4 and "ended before the response, twice" in run.stderr


def test_timeout_closes_the_stream(faults):
    started = time.monotonic()
    run = mrtr_here("call", "t", "--url", faults.url + "/slow", "--timeout", "1")
    assert run.code == 4 and "within 1 s" in run.stderr
    assert time.monotonic() - started < 20


def test_connection_refused_and_dns_are_exit_4():
    refused = mrtr_here("list", "tools", "--url", f"http://127.0.0.1:{free_port()}/mcp")
    assert refused.code == 4 and "cannot reach" in refused.stderr and "--url" in refused.stderr
    unknown = mrtr_here("list", "tools", "--url", "http://no-such-host.invalid/mcp")
    assert unknown.code == 4 and "cannot reach" in unknown.stderr


def test_extra_headers_are_sent_and_secrets_hidden_in_verbose_output(faults):
    run = mrtr_here("call", "t", "--url", faults.url + "/headers", "-H", "Authorization: Bearer s3cr3t-token",
               "-H", "X-Trace: 42", "-v", "--json")
    received = run.json()["result"]["structuredContent"]["headers"]
    assert received["Authorization"] == "Bearer s3cr3t-token" and received["X-Trace"] == "42"
    assert received["Mcp-Method"] == "tools/call" and received["Mcp-Name"] == "t"
    assert received["MCP-Protocol-Version"] == "2026-07-28"
    assert "Authorization: Bearer s3cr3t" not in run.stderr and "Authorization: Bearer [hidden" in run.stderr
    shown = mrtr_here("call", "t", "--url", faults.url + "/headers", "-H", "Authorization: Bearer s3cr3t-token",
                 "-v", "--show-secrets")
    assert "Authorization: Bearer s3cr3t-token" in shown.stderr


def test_proxy_from_the_environment(faults):
    run = mrtr_here("call", "t", "--url", "http://mcp.example.invalid/mcp/headers",
               env={"HTTP_PROXY": faults.url, "NO_PROXY": ""})
    assert run.code == 0, run.stderr
    assert any(r["path"] == "http://mcp.example.invalid/mcp/headers" for r in faults.received)


def test_bad_urls_and_headers_are_usage_errors():
    assert mrtr_here("list", "tools", "--url", "ftp://x/mcp").code == 1
    run = mrtr_here("list", "tools", "--url", "http://127.0.0.1:1/mcp", "-H", "MCP-Protocol-Version: 1")
    assert run.code == 1 and "mrtr sets" in run.stderr
