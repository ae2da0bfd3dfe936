"""`--har FILE` on call and replay over HTTP, against the demo served over HTTP: one HAR 1.2 entry a
round, holding every field HAR 1.2 requires, no secret (unless `--show-secrets`: then the secret headers as
sent, and still no OAuth exchange), an event stream's messages as SSE text; and exit 1 over stdio, before
anything runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import PYTHON, ROOT, mrtr_here
from peers import demo_http, oauth_http

SECRET = "Bearer sekrit-token-1234"
NAME_VALUES = {"type": "array", "items": {"type": "object", "required": ["name", "value"],
                                          "properties": {"name": {"type": "string"}, "value": {"type": "string"}}}}
HAR_1_2 = {
    "type": "object", "required": ["log"], "properties": {"log": {
        "type": "object", "required": ["version", "creator", "entries"], "properties": {
            "version": {"const": "1.2"},
            "creator": {"type": "object", "required": ["name", "version"]},
            "entries": {"type": "array", "items": {
                "type": "object", "required": ["startedDateTime", "time", "request", "response", "cache", "timings"],
                "properties": {
                    "startedDateTime": {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$"},
                    "time": {"type": "number", "minimum": 0},
                    "request": {"type": "object", "required": ["method", "url", "httpVersion", "cookies", "headers",
                                                               "queryString", "headersSize", "bodySize"],
                                "properties": {"headers": NAME_VALUES, "queryString": NAME_VALUES,
                                               "postData": {"type": "object", "required": ["mimeType", "text"]}}},
                    "response": {"type": "object", "required": ["status", "statusText", "httpVersion", "cookies",
                                                                "headers", "content", "redirectURL", "headersSize",
                                                                "bodySize"],
                                 "properties": {"headers": NAME_VALUES, "status": {"type": "integer"},
                                                "content": {"type": "object", "required": ["size", "mimeType"]}}},
                    "timings": {"type": "object", "required": ["send", "wait", "receive"]}}}}}}}}
"""What HAR 1.2 (w3c.github.io/web-performance/specs/HAR/Overview.html) requires of a log and its entries."""


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with demo_http() as url:
        yield url


def log_of(path: Path) -> list[dict[str, Any]]:
    log = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(log, HAR_1_2)
    return list(log["log"]["entries"])


def test_a_call_is_one_entry_a_round_without_its_secret(tmp_path: Path, demo_url: str):
    har = tmp_path / "call.har"
    done = mrtr_here("call", "book_table", "--url", demo_url, "--answers", "examples/book_table.yaml",
                "-H", f"Authorization: {SECRET}", "--har", str(har))
    assert done.code == 0, done.stderr
    entries = log_of(har)
    assert len(entries) == 4 and {entry["request"]["url"] for entry in entries} == {demo_url}
    assert "sekrit" not in har.read_text()
    headers = {h["name"]: h["value"] for h in entries[0]["request"]["headers"]}
    assert headers["Mcp-Method"] == "tools/call" and headers["Authorization"] == "[redacted]"
    sent = json.loads(entries[1]["request"]["postData"]["text"])
    assert sent["method"] == "tools/call" and "inputResponses" in sent["params"]
    answer = json.loads(entries[-1]["response"]["content"]["text"])
    assert answer["result"]["resultType"] == "complete"


def test_an_event_streams_messages_are_kept_as_sse_text(tmp_path: Path, demo_url: str):
    har = tmp_path / "poll.har"
    assert mrtr_here("call", "poll_status", "--url", demo_url, "--no-input", "--har", str(har)).code == 0
    streamed = [entry["response"]["content"] for entry in log_of(har)
                if entry["response"]["content"]["mimeType"] == "text/event-stream"]
    assert streamed
    events = [block for block in streamed[0]["text"].split("\n\n") if block]
    assert all(block.startswith("event: message\ndata: ") for block in events)
    methods = [json.loads(block.split("data: ", 1)[1]).get("method") for block in events]
    assert methods[0] == "notifications/progress" and methods[-1] is None  # the response comes last


def test_replay_writes_the_live_runs_exchanges(tmp_path: Path, demo_url: str):
    har = tmp_path / "replay.har"
    done = mrtr_here("replay", str(ROOT / "recordings" / "book_table.yaml"), "--url", demo_url, "--har", str(har))
    assert done.code == 0, done.stderr
    assert len(log_of(har)) == 4


def test_over_stdio_it_is_exit_1_before_anything_runs(tmp_path: Path):
    har = tmp_path / "x.har"
    for command in (["call", "book_table", "--demo", "--har", str(har)],
                    ["replay", str(ROOT / "recordings" / "book_table.yaml"), "--demo", "--har", str(har)],
                    ["proxy", "--har", str(har), "--", PYTHON, "server.py"]):
        done = mrtr_here(*command)
        assert done.code == 1 and done.stderr.count("\n") == 1 and "--har writes HTTP exchanges" in done.stderr, \
            done.stderr
        assert not har.exists()


def test_an_http_proxy_writes_the_exchanges_that_crossed_it_without_secrets(tmp_path: Path, demo_url: str):
    from test_proxy_http import proxy

    har = tmp_path / "proxy.har"
    with proxy(demo_url, "--har", str(har)) as running:
        done = mrtr_here("call", "book_table", "--url", running.url, "--answers", "examples/book_table.yaml",
                    "-H", f"Authorization: {SECRET}")
        assert done.code == 0, done.stderr
    entries = log_of(har)
    assert len(entries) == 4 and {entry["request"]["url"] for entry in entries} == {demo_url}
    assert "sekrit" not in har.read_text()


def request_headers(entry: dict[str, Any]) -> dict[str, str]:
    return {h["name"]: h["value"] for h in entry["request"]["headers"]}


def test_show_secrets_keeps_the_secret_headers_as_sent_and_redact_still_hides_what_it_names(tmp_path: Path,
                                                                                             demo_url: str):
    har, transcript = tmp_path / "call.har", tmp_path / "call.yaml"
    done = mrtr_here("call", "book_table", "--url", demo_url, "--answers", "examples/book_table.yaml",
                     "-H", f"Authorization: {SECRET}", "-H", "Cookie: session=crumb-5678", "-H", "X-Team: blue",
                     "--redact", "X-Team", "--show-secrets", "--har", str(har), "--record", str(transcript))
    assert done.code == 0, done.stderr
    log = json.loads(har.read_text(encoding="utf-8"))
    entries = log_of(har)
    assert len(entries) == 4
    for entry in entries:
        headers = request_headers(entry)
        assert (headers["Authorization"], headers["Cookie"], headers["X-Team"]) == \
            (SECRET, "session=crumb-5678", "[redacted]")
    assert "secrets shown" in log["log"]["comment"]
    written = transcript.read_text()
    assert "sekrit" not in written and "crumb" not in written  # the transcript of the same run keeps none
    named = tmp_path / "named.har"
    again = mrtr_here("call", "book_table", "--url", demo_url, "--answers", "examples/book_table.yaml",
                      "-H", f"Authorization: {SECRET}", "--redact", "authorization", "--show-secrets",
                      "--har", str(named))
    assert again.code == 0, again.stderr
    assert {request_headers(entry)["Authorization"] for entry in log_of(named)} == {"[redacted]"}


def test_show_secrets_on_replay_and_the_proxy_keeps_the_live_secret_headers(tmp_path: Path, demo_url: str):
    from test_proxy_http import proxy

    har = tmp_path / "replay.har"
    done = mrtr_here("replay", str(ROOT / "recordings" / "book_table.yaml"), "--url", demo_url,
                     "-H", f"Authorization: {SECRET}", "--show-secrets", "--har", str(har))
    assert done.code == 0, done.stderr
    assert {request_headers(entry)["Authorization"] for entry in log_of(har)} == {SECRET}
    proxied = tmp_path / "proxy.har"
    with proxy(demo_url, "--har", str(proxied), "--show-secrets") as running:
        call = mrtr_here("call", "book_table", "--url", running.url, "--answers", "examples/book_table.yaml",
                         "-H", f"Authorization: {SECRET}")
        assert call.code == 0, call.stderr
    entries = log_of(proxied)
    assert len(entries) == 4
    assert {request_headers(entry).get("authorization") for entry in entries} == {SECRET}


def test_show_secrets_leaves_the_oauth_exchanges_out(tmp_path: Path):
    client_secret = "machine-secret-9f3a"
    har = tmp_path / "oauth.har"
    with oauth_http("--machine-client", f"ci-bot:{client_secret}") as url:
        done = mrtr_here("call", "whoami", "--url", url, "--client-credentials", "--client-id", "ci-bot",
                         "--no-auth-store", "--show-secrets", "--har", str(har),
                         env={"MRTR_CONFIG_DIR": str(tmp_path / "config"), "MRTR_CLIENT_SECRET": client_secret})
    assert done.code == 0, done.stderr
    entries = log_of(har)
    assert entries and {entry["request"]["url"] for entry in entries} == {url}  # no metadata, no /token
    assert all(request_headers(entry)["Authorization"].startswith("Bearer ") for entry in entries)
    assert client_secret not in har.read_text()
