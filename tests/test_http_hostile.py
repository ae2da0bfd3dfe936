"""Hostile HTTP servers, round two: slow answers, endless bodies, odd SSE fields, redirects."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

import pytest

from conftest import mrtr_here
from mrtr_cli.conversation.eras import ModernEra
from mrtr_cli.errors import AuthError, ProtocolError
from mrtr_cli.protocol.meta import LATEST_VERSION
from mrtr_cli.transport.base import AuthNote, Deadline, Frame
from mrtr_cli.transport.http.streamable_http import HttpTransport
from servers.http_faults import FaultServer


@pytest.fixture(scope="module")
def faults():
    server = FaultServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def elsewhere():
    """A second server on another port: another origin."""
    server = FaultServer().start()
    yield server
    server.stop()


def timed(*args: str) -> tuple:
    started = time.monotonic()
    run = mrtr_here(*args)
    return run, time.monotonic() - started


def hung_up(server: FaultServer, path: str, before: int, seconds: float = 10) -> bool:
    """Whether the server saw the client close `path` while it was still writing, once more than
    `before` times (a bounded wait)."""
    stop = time.monotonic() + seconds
    while server.hung_up.count(path) <= before and time.monotonic() < stop:
        time.sleep(0.05)
    return server.hung_up.count(path) > before


@pytest.mark.parametrize("fault", ["trickleheaders", "tricklebody", "tricklesse"])
def test_a_trickling_server_times_out_within_the_timeout(faults, fault):
    run, seconds = timed("call", "t", "--url", f"{faults.url}/mcp/{fault}", "--timeout", "2")
    assert run.code == 4 and "within 2 s" in run.stderr, run.stderr
    assert seconds < 15  # start-up and tools/list included; the trickle itself goes on for 45 s


def test_progress_over_sse_extends_the_timeout(faults):
    run, seconds = timed("call", "t", "--url", f"{faults.url}/mcp/slowprogress", "--timeout", "2")
    assert run.code == 0, run.stderr
    assert "slow but steady" in run.stdout and seconds > 2


@pytest.mark.parametrize("fault,what", [("endlessjson", "a response body"), ("endlesschunked", "a response body"),
                                        ("gzipbomb", "a response body"), ("endlesssse", "an SSE event")])
def test_a_body_or_event_past_the_size_limit_is_exit_2(faults, fault, what):
    before = faults.hung_up.count(f"/mcp/{fault}")
    run = mrtr_here("call", "t", "--url", f"{faults.url}/mcp/{fault}", "--json")
    assert run.code == 2, run.stderr
    message = run.error_line()["error"]["message"]
    assert f"the server sent {what} larger than the limit of 64M" in message
    assert "--max-message-size" in message
    if fault != "gzipbomb":  # the bomb is small: it is all sent before mrtr stops decoding it
        assert hung_up(faults, f"/mcp/{fault}", before)


def frames(url: str, limit: int) -> list:
    """What HttpTransport yields for one tools/call, in this process, with a size limit of `limit` bytes."""
    message = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
    transport = HttpTransport(url, {}, max_message_size=limit)
    exchange = transport.start(json.dumps(message), ModernEra(LATEST_VERSION).headers(message))
    try:
        return [item for item in exchange.frames(Deadline(20)) if isinstance(item, Frame)]
    finally:
        exchange.close()
        transport.close()


class OneLogin:
    """An authorizer that keeps a token, answers the first challenge with a new one, and refuses the next."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, str | None]] = []

    def authorization(self) -> str | None:
        return "Bearer kept"

    def answer(self, status: int, challenge: str | None):
        self.asked.append((status, challenge))
        if len(self.asked) > 1:
            raise AuthError("the server still refuses", "check the account")
        yield AuthNote("authorized", "logged in again")
        return "Bearer fresh"


def authorizations_sent(faults: FaultServer, authorizer: OneLogin | None) -> tuple[list[object], list[str | None]]:
    """What one tools/call to the 401 fault yields before its error, and the Authorization of each POST."""
    before = len(faults.calls("/401"))
    message = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
    transport = HttpTransport(f"{faults.url}/401", {}, authorizer=None if authorizer is None else lambda _: authorizer)
    exchange = transport.start(json.dumps(message), ModernEra(LATEST_VERSION).headers(message))
    seen: list[object] = []
    try:
        with pytest.raises(AuthError) as refused:
            seen.extend(exchange.frames(Deadline(20)))
    finally:
        exchange.close()
        transport.close()
    seen.append(refused.value.message)
    return seen, [call["headers"].get("Authorization") for call in faults.calls("/401")[before:]]


def test_the_auth_step_answers_a_challenge_and_sends_the_request_again(faults):
    authorizer = OneLogin()
    seen, sent = authorizations_sent(faults, authorizer)
    assert sent == ["Bearer kept", "Bearer fresh"]  # the kept token first, then the authorizer's new one
    challenge = 'Bearer realm="mcp", resource_metadata="https://as.example/prm"'
    assert authorizer.asked == [(401, challenge), (401, challenge)]  # the authorizer bounds the retries
    assert AuthNote("authorized", "logged in again") in seen and seen[-1] == "the server still refuses"


def test_without_an_authorizer_the_challenge_is_the_error(faults):
    seen, sent = authorizations_sent(faults, None)
    assert sent == [None]
    assert "HTTP 401" in str(seen[-1]), seen


def test_a_body_of_exactly_the_limit_passes_one_byte_more_does_not(faults):
    size = len(frames(f"{faults.url}/mcp/normal", 1 << 20)[0].data)
    assert frames(f"{faults.url}/mcp/normal", size)
    with pytest.raises(ProtocolError, match=f"a response body larger than the limit of {size - 1} bytes"):
        frames(f"{faults.url}/mcp/normal", size - 1)


@pytest.mark.parametrize("fault", ["endlessjson", "endlesschunked", "gzipbomb", "endlesssse"])
def test_max_message_size_stops_an_endless_body_early(faults, fault):
    before = faults.hung_up.count(f"/mcp/{fault}")
    run = mrtr_here("call", "t", "--url", f"{faults.url}/mcp/{fault}", "--max-message-size", "1M")
    assert run.code == 2, run.stderr
    assert "larger than the limit of 1M" in run.stderr and "--max-message-size" in run.stderr
    if fault != "gzipbomb":
        assert hung_up(faults, f"/mcp/{fault}", before)


def test_bad_sse_retry_values_are_ignored_or_clamped(faults):
    run = mrtr_here("call", "t", "--url", f"{faults.url}/mcp/badretry")
    assert run.code == 0, run.stderr
    assert "retries read" in run.stdout


def redirect(server: FaultServer, status: int, to: str) -> str:
    return f"{server.url}/mcp/redirect?" + urlencode({"status": status, "to": to})


def lower_keys(headers: dict) -> set:
    return {name.lower() for name in headers}


def test_a_307_to_another_origin_drops_the_users_headers(faults, elsewhere):
    run = mrtr_here("call", "t", "--url", redirect(faults, 307, elsewhere.url + "/mcp/headers"), "-v", "--json",
               "-H", "Authorization: Bearer s3cr3t-token", "-H", "X-Trace: 42")
    assert run.code == 0, run.stderr
    received = lower_keys(run.json()["result"]["structuredContent"]["headers"])
    assert "mcp-method" in received and "authorization" not in received and "x-trace" not in received
    assert elsewhere.calls("/mcp/headers") and not any(
        {"authorization", "x-trace"} & lower_keys(r["headers"]) for r in elsewhere.received)
    assert "HTTP 307" in run.stderr and "another origin" in run.stderr and "s3cr3t" not in run.stderr


def test_a_308_within_the_origin_keeps_them(faults):
    run = mrtr_here("call", "t", "--url", redirect(faults, 308, faults.url + "/mcp/headers"), "--json",
               "-H", "Authorization: Bearer s3cr3t-token")
    assert run.code == 0, run.stderr
    assert run.json()["result"]["structuredContent"]["headers"]["Authorization"] == "Bearer s3cr3t-token"


@pytest.mark.parametrize("status,to,said", [
    (307, "javascript:alert(1)", "to javascript:alert(1) (HTTP 307): mrtr follows only http and https"),
    (307, "https://127.0.0.1:1/mcp", "from http to https"),
    (307, "http://[::1/mcp", "to http://[::1/mcp (HTTP 307), which is not a valid URL"),
    (302, "/mcp/headers", "(HTTP 302)"),
    (303, "/mcp/headers", "(HTTP 303)"),
])
def test_a_bad_redirect_is_exit_2_with_the_location_shown(faults, status, to, said):
    run = mrtr_here("call", "t", "--url", redirect(faults, status, to), "--json")
    assert run.code == 2, run.stderr
    assert said in run.error_line()["error"]["message"]


def test_a_redirect_loop_ends(faults):
    url = redirect(faults, 307, "")  # an empty Location: the same URL again
    run = mrtr_here("call", "t", "--url", redirect(faults, 307, url))
    assert run.code == 2 and "more than 5 redirects" in run.stderr, run.stderr


@pytest.mark.parametrize("fault,seen", [
    ("garbagesse", "ended before the response"),
    ("notgzip", "does not decode as its Content-Encoding says"),
    ("quietsse", "within 1 s"),
])
def test_check_of_a_hostile_server_is_a_checklist_of_failures(faults, fault, seen):
    """Garbage on the SSE stream, a gzip body that is not gzip, an SSE stream that never ends:
    every probe ends, each failing with what it saw, and check says so with exit 2."""
    run = mrtr_here("check", "--url", f"{faults.url}/mcp/{fault}", "--timeout", "1", "--json")
    assert run.code == 2 and "unexpected failure" not in run.stderr, run.stderr
    checks = {check["id"]: check for check in run.json()["checks"]}
    assert checks["method-not-found"]["status"] == "fail" and seen in checks["method-not-found"]["seen"], checks
    assert checks["subscription-ack"]["status"] in ("fail", "skipped")


@pytest.mark.timeout(60)  # the guard (and an endless stream that is not ended ends, after 45 s, with no response)
def test_check_ends_a_tool_call_answered_by_an_endless_stream_of_events_naming_the_timeout(faults):
    """Issue 35: the tool call's response is an SSE stream that never ends. Progress that always
    grows (and log messages) reset --timeout at most 10 times; in the older era, ping requests the
    server sends without end are answered, and answering restarts the timeout, yet the server's own
    time still ends the call at 11 x --timeout. The probe fails, naming the timeout."""
    modern = mrtr_here("check", "--tool", "t", "--timeout", "1", "--no-auth", "--url", f"{faults.url}/mcp/eventssse")
    assert modern.code == 2, modern.stderr
    lines = modern.stdout.splitlines()
    first = lines[lines.index(next(line for line in lines if "withholding the capability" in line)) + 1]
    assert "the first tools/call: no response to tools/call" in first and "1 s" in first, first
    older = mrtr_here("check", "--tool", "t", "--timeout", "1", "--no-auth", "--url", f"{faults.url}/mcp/olderasking")
    assert older.code == 2, older.stderr
    lines = older.stdout.splitlines()
    failed = lines[lines.index(next(line for line in lines if "the tool's call completes" in line)) + 1]
    assert "no response to tools/call" in failed, failed
    # as a rule the ceiling ends it; were the stream to stall a second on a loaded machine, the timeout itself
    assert ("s of the server's time: it kept asking" in failed and "at most 11 x --timeout, 11 s" in failed) or \
        "within 1 s of the server's own time since mrtr last answered it" in failed, failed
