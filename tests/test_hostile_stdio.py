"""Hostile input, round two: numbers Python will not read, lines without an end, signals to
mrtr while a server runs, and progress that would keep a request waiting for ever."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from conftest import mrtr_here, text_result
from peers import HttpPeer, demo_here, demo_http, request
from servers.http_faults import HUGE_INTEGER, FaultServer
from mrtr_cli.transport import base
from mrtr_cli.transport.base import Deadline, format_size, parse_size

HUGE_RESPONSE = '{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[],"n":%s}}' % HUGE_INTEGER


def test_a_response_with_a_5000_digit_integer_is_exit_2_with_a_finding(scripted):
    server = scripted(steps=[{"raw": [HUGE_RESPONSE.replace(HUGE_INTEGER, "7" * 20_000)]}])
    run = mrtr_here(*server.args("call", "t", "--json", "-v", "--timeout", "20"))
    assert run.code == 2, run.stderr
    message = run.error_line()["error"]["message"]
    assert "the response to tools/call (id 2) has a JSON integer of more than 4300 digits" in message
    assert [f["rule"] for f in run.json()["findings"]] == ["not-jsonrpc"]
    assert "unexpected failure" not in run.stderr
    assert "7" * 1000 in run.stderr and "7" * 9000 not in run.stderr  # shown with -v, cut


def test_a_notification_with_a_huge_integer_is_ignored_with_a_finding(scripted):
    notification = '{"jsonrpc":"2.0","method":"notifications/message","params":{"n":%s}}' % HUGE_INTEGER
    server = scripted(steps=[{"before": [notification], "result": text_result("ok")}])
    run = mrtr_here(*server.args("call", "t", "--json"))
    assert run.code == 0, run.stderr
    assert [f["rule"] for f in run.json()["findings"]] == ["not-jsonrpc"]


@pytest.mark.parametrize("path,reason", [("hugeint", "application/json body"),  # transport/http_answers.py's wording
                                         ("hugeintsse", "more than 4300 digits")])
def test_a_huge_integer_over_http_is_exit_2(path, reason):
    faults = FaultServer().start()
    try:
        run = mrtr_here("call", "t", "--url", f"{faults.url}/{path}", "--json", "--timeout", "20")
    finally:
        faults.stop()
    assert run.code == 2, run.stderr
    assert reason in run.error_line()["error"]["message"] and "unexpected failure" not in run.stderr


def test_the_demo_server_answers_a_huge_integer_with_a_parse_error():
    huge = json.dumps(request(1, "tools/list")).replace('"params"', f'"n":{HUGE_INTEGER},"params"')
    peer = demo_here()  # its stdio connection, in this process
    try:
        assert peer.exchange_line(huge)["error"]["code"] == -32700
        assert peer.exchange(request(2, "tools/list"))[0]["result"]["tools"]  # still serving
    finally:
        peer.close()
    with demo_http() as url:
        http = HttpPeer(url)
        try:
            answer = http.post(huge, http.headers_for(request(1, "tools/list")))
        finally:
            http.close()
    assert answer.status_code == 400 and answer.json()["error"]["code"] == -32700


def test_a_line_that_never_ends_is_refused_at_the_limit(scripted, tmp_path: Path):
    pidfile = tmp_path / "server.pid"
    server = scripted(pidfile=str(pidfile), steps=[{"unterminated": 200_000}])
    started = time.monotonic()
    run = mrtr_here(*server.args("call", "t", "--max-message-size", "64K", "--timeout", "30", "--json"))
    assert run.code == 2, run.stderr
    assert time.monotonic() - started < 25  # refused at the limit, not after the timeout
    message = run.error_line()["error"]["message"]
    assert "larger than the limit of 64K" in message and "--max-message-size" in message
    assert "Traceback" not in run.stderr and "Exception in thread" not in run.stderr
    assert not process_alive(int(pidfile.read_text()))


def test_the_limit_counts_the_line_without_its_ending(scripted):
    fits = scripted(steps=[{"big": 100}])
    assert mrtr_here(*fits.args("call", "t", "--max-message-size", "1K")).code == 0
    too_big = scripted(steps=[{"big": 2000}])
    run = mrtr_here(*too_big.args("call", "t", "--max-message-size", "1K"))
    assert run.code == 2 and "larger than the limit of 1K" in run.stderr


@pytest.mark.parametrize("value", ["1.5M", "0", "-3", "64X", ""])
def test_a_bad_max_message_size_is_a_usage_error(value):
    run = mrtr_here("discover", "--demo", "--max-message-size", value, "--json")
    assert run.code == 1
    assert "--max-message-size" in run.stderr and run.error_line()["error"]["code"] == "usage"


def test_sizes_are_powers_of_1024():
    assert [parse_size(s) for s in ("1000", "512K", "64M", "1G", "2kb")] == [1000, 512 * 1024, 64 << 20, 1 << 30,
                                                                           2048]
    assert [format_size(n) for n in (64 << 20, 512 * 1024, 1000)] == ["64M", "512K", "1000 bytes"]


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purposes: it runs nothing
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().split(") ")[1][0] != "Z"
    except OSError:
        return True


def wait_for(condition, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_progress_resets_the_timeout_at_most_10_times(scripted):
    server = scripted(steps=[{"progress": 25, "every": 0.1, "silent": True}])
    run = mrtr_here(*server.args("call", "t", "--timeout", "0.3", "--json"))
    assert run.code == 4, run.stderr
    message = run.error_line()["error"]["message"]
    assert "within 0.3 s" not in message
    assert "progress reset the 0.3 s timeout 10 times" in message
    assert "at most 11 x --timeout, 3.3 s" in message
    waited = float(message.split(" after ")[1].split(" s")[0])
    assert 1.0 <= waited < 3.0  # 10 resets 0.1 s apart, then 0.3 s of silence; not the old 10 x ceiling


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


def test_a_deadline_takes_10_resets_and_no_more(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(base, "time", clock)
    deadline = Deadline(5)
    for _ in range(11):
        clock.now += 4.9
        assert deadline.remaining() > 0
        deadline.extend()
    assert deadline.resets == 10 and deadline.ceiling_seconds == 55
    assert deadline.remaining() == pytest.approx(0.1)  # the 11th progress did not reset it
    clock.now += 0.1
    assert deadline.remaining() == 0 and deadline.elapsed() == pytest.approx(54.0)
