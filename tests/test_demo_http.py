"""The demo server's Streamable HTTP rules, on a real socket on 127.0.0.1."""

from __future__ import annotations

import http.client
import json
from concurrent.futures import ThreadPoolExecutor

from urllib.parse import urlsplit

import httpx
import pytest

from mrtr_cli.server.demo import TOOLS
from peers import HttpPeer, demo_http, messages_of, request

BOOK_SCHEMA = TOOLS["book_table"][0]["inputSchema"]


@pytest.fixture(scope="module")
def url():
    with demo_http() as address:
        yield address


@pytest.fixture
def peer(url):
    http = HttpPeer(url)
    yield http
    http.close()


def test_listening_line_names_the_endpoint(url):
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp") and not url.endswith(":0/mcp")


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_only_post(url, method):
    response = httpx.request(method, url)
    assert response.status_code == 405 and response.headers["allow"] == "POST"


def test_other_paths_are_404(url):
    response = httpx.post(url.replace("/mcp", "/other"), json={})
    assert response.status_code == 404


def test_notifications_get_202(peer):
    response = peer.post({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
    assert response.status_code == 202 and response.content == b""


def test_foreign_origin_is_403(peer):
    message = request(1, "tools/list")
    response = peer.post(message, {**peer.headers_for(message), "Origin": "https://evil.example.com"})
    assert response.status_code == 403
    assert peer.post(message, {**peer.headers_for(message), "Origin": "http://localhost:3000"}).status_code == 200


def test_rebound_host_is_refused(peer):
    message = request(1, "tools/list")
    response = peer.post(message, {**peer.headers_for(message), "Host": "evil.example.com"})
    assert 400 <= response.status_code < 500


@pytest.mark.parametrize("change,problem", [
    ({"Mcp-Method": "prompts/list"}, "does not match"),
    ({"Mcp-Method": None}, "header is missing"),
    ({"Mcp-Method": "TOOLS/LIST"}, "does not match"),
    ({"MCP-Protocol-Version": None}, "header is missing"),
    ({"MCP-Protocol-Version": "2025-11-25"}, "does not match _meta"),
])
def test_headers_that_disagree_with_the_body(peer, change, problem):
    message = request(1, "tools/list")
    headers = {**peer.headers_for(message), **change}
    response = peer.post(message, {k: v for k, v in headers.items() if v is not None})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32020 and problem in error["message"]


@pytest.mark.parametrize("change,problem", [
    ({"Mcp-Name": "wrong_tool"}, "Mcp-Name header value 'wrong_tool'"),
    ({"Mcp-Name": None}, "Mcp-Name header is missing"),
    ({"Mcp-Param-City": "Porto"}, "Mcp-Param-City header value 'Porto'"),
    ({"Mcp-Param-City": None}, "Mcp-Param-City header is missing"),
    ({"Mcp-Param-City": "=?base64?!!!?="}, "malformed Base64"),
])
def test_name_and_param_headers_are_checked(peer, change, problem):
    message = request(1, "tools/call", {"name": "book_table", "arguments": {"city": "Lisbon"}})
    headers = {**peer.headers_for(message, BOOK_SCHEMA), **change}
    response = peer.post(message, {k: v for k, v in headers.items() if v is not None})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32020 and problem in response.json()["error"]["message"]


def test_sentinel_values_and_whitespace_are_accepted(peer):
    message = request(1, "tools/call", {"name": "book_table", "arguments": {"city": " Zürich"}})
    headers = peer.headers_for(message, BOOK_SCHEMA)
    assert headers["Mcp-Param-City"].startswith("=?base64?")
    assert peer.post(message, headers).json()["result"]["resultType"] == "input_required"
    plain = request(2, "tools/call", {"name": "book_table", "arguments": {}})
    headers = {**peer.headers_for(plain, BOOK_SCHEMA), "Mcp-Name": "  book_table  "}
    address = urlsplit(peer.url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    connection.request("POST", address.path, body=json.dumps(plain), headers=headers)  # httpx refuses the spaces
    assert connection.getresponse().status == 200
    connection.close()


def test_http_statuses_of_protocol_errors(peer):
    assert peer.post(request(1, "no/such")).status_code == 404
    assert peer.post(request(1, "tools/list", version="1999-01-01")).status_code == 400
    no_meta = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    assert peer.post(no_meta).status_code == 400
    assert peer.post(request(1, "tools/call", {"name": "summarize"}, capabilities={})).status_code == 400
    garbage = peer.post(b"{not json", {**peer.headers_for(request(1, "tools/list"))})
    assert garbage.status_code == 400 and garbage.json()["error"]["code"] == -32700


def test_content_type_and_accept(peer):
    message = request(1, "tools/list")
    headers = peer.headers_for(message)
    assert peer.post(message, {**headers, "Content-Type": "text/plain"}).status_code == 415
    assert peer.post(message, {**headers, "Accept": "application/json"}).status_code == 406


def test_progress_makes_the_response_an_sse_stream(peer):
    response = peer.post(request(7, "tools/call", {"name": "poll_status", "arguments": {}}))
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["x-accel-buffering"] == "no"
    messages = messages_of(response)
    assert messages[0]["method"] == "notifications/progress" and messages[0]["params"]["progressToken"] == "p7"
    assert messages[-1]["id"] == 7 and messages[-1]["result"]["resultType"] == "input_required"
    plain = peer.post(request(8, "tools/list"))
    assert plain.headers["content-type"] == "application/json"


def test_concurrent_requests(url):
    def one(n: int) -> str:
        with httpx.Client(timeout=10) as client:
            peer = HttpPeer(url)
            peer.client = client
            return peer.exchange(request(n, "tools/call", {"name": "two_questions"}))[-1]["result"]["resultType"]

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(one, range(24))) == ["input_required"] * 24


def test_json_body_is_one_line_of_utf8(peer):
    response = peer.post(request(1, "tools/list"))
    assert json.loads(response.content.decode("utf-8"))["result"]["tools"]
