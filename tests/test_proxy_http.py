"""`mrtr proxy --http [HOST:]PORT --to URL`, the reverse proxy, with real clients and servers: what
either side sends arrives as it was sent (bodies byte for byte, SSE streamed, the GET stream,
DELETE, end-to-end headers, content encodings), Host is the server's, hop-by-hop headers stop at
the proxy, secrets reach the server but never the timeline or a transcript, and each conversation
is shown live and kept."""

from __future__ import annotations

import gzip
import re
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from conftest import PYTHON, ROOT, mrtr_here
from peers import demo_http
from test_demo_sdk_client import answer_form, answer_roots, answer_sampling

SECRET = "Bearer s3cret-token"


class Proxy:
    """`mrtr proxy --http 127.0.0.1:0 --to URL FLAGS...` running; its URL, and its stderr once it ended."""

    def __init__(self, to: str, *flags: str) -> None:
        self.process = subprocess.Popen([PYTHON, "-m", "mrtr_cli", "proxy", "--http", "127.0.0.1:0", "--to", to,
                                         *flags], stderr=subprocess.PIPE, text=True, cwd=ROOT)
        assert self.process.stderr is not None
        first = self.process.stderr.readline()
        match = re.match(r"listening on (\S+) → ", first)
        assert match, first
        self.url = match.group(1)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=lambda: self.lines.extend(self.process.stderr or []))
        self._reader.start()

    def stop(self) -> str:
        self.process.terminate()
        self.process.wait(timeout=10)
        self._reader.join(timeout=10)
        if self.process.stderr is not None:
            self.process.stderr.close()
        return "".join(self.lines)


@contextmanager
def proxy(to: str, *flags: str) -> Iterator[Proxy]:
    running = Proxy(to, *flags)
    try:
        yield running
    finally:
        running.stop()


class Upstream(BaseHTTPRequestHandler):
    """A server that keeps what reached it and answers each method its own way: POST with an SSE
    stream whose second event waits for `release`, or gzip JSON; GET with a stream; DELETE with 204."""

    protocol_version = "HTTP/1.1"
    received: list[tuple[str, dict[str, str], bytes]]
    release: threading.Event

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append(("POST", dict(self.headers.items()), body))
        if b'"gzip"' in body:
            return self._reply(200, {"Content-Type": "application/json", "Content-Encoding": "gzip"}, GZIPPED)
        if b'"cut"' in body:  # 10 bytes of the 100 it announces, then the connection closes
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b'{"jsonrpc"')
            self.close_connection = True
            return None
        self._stream([b'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n\n',
                      b'data: {"jsonrpc":"2.0","id":7,"result":{"content":[]}}\n\n'])

    def do_GET(self) -> None:
        self.received.append(("GET", dict(self.headers.items()), b""))
        self.release.set()
        self._stream([b": keep-alive\n\n", b'data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n'])

    def do_DELETE(self) -> None:
        self.received.append(("DELETE", dict(self.headers.items()), b""))
        self._reply(204, {}, b"")

    def _reply(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for name, value in {**headers, "Content-Length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _stream(self, events: list[bytes]) -> None:
        """Events sent as they are ready, the connection closed at the end (no length, not chunked)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Set-Cookie", "session=hidden")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(events[0])
        self.wfile.flush()
        assert self.release.wait(30), "the client never saw the first event"
        self.wfile.write(events[1])
        self.close_connection = True


GZIPPED = gzip.compress(b'{"jsonrpc":"2.0","id":8,"result":{"content":[],"zipped":true}}')


@contextmanager
def upstream() -> Iterator[tuple[str, Any]]:
    handler = type("Handler", (Upstream,), {"received": [], "release": threading.Event()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


BODY = b'{ "jsonrpc":"2.0", "id":7, "method":"tools/call","params":{"name":"caf\\u00e9"} }'


def test_bodies_streams_get_delete_and_headers_pass_as_sent(tmp_path: Path):
    with upstream() as (url, handler), proxy(url, "-v") as running:
        with httpx.Client(timeout=30) as client:
            headers = {"Authorization": SECRET, "Cookie": "a=b", "X-Custom": "kept", "Keep-Alive": "timeout=5",
                       "Connection": "keep-alive, X-Dropped", "X-Dropped": "by Connection",
                       "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            with client.stream("POST", running.url, content=BODY, headers=headers) as streamed:
                raw = streamed.iter_raw()
                first = next(raw)  # the second event waits for `release`: a buffering proxy never gets here
                handler.release.set()
                rest = b"".join(raw)
            zipped = client.post(running.url, content=b'{"jsonrpc":"2.0","id":8,"method":"gzip"}',
                                 headers={"Content-Type": "application/json", "Accept-Encoding": "gzip"})
            handler.release.clear()
            with client.stream("GET", running.url, headers={"Accept": "text/event-stream"}) as listened:
                heard = listened.read()
            deleted = client.delete(running.url, headers={"Mcp-Session-Id": "s-1"})
            with pytest.raises(httpx.RemoteProtocolError):  # the connection closes: the client never waits on it
                client.post(running.url, content=b'{"jsonrpc":"2.0","id":9,"method":"cut"}',
                            headers={"Content-Type": "application/json"})
        shown = running.stop()
    assert first + rest == (b'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n\n'
                            b'data: {"jsonrpc":"2.0","id":7,"result":{"content":[]}}\n\n')
    assert streamed.headers["set-cookie"] == "session=hidden" and "content-length" not in streamed.headers
    assert zipped.headers["content-encoding"] == "gzip" and zipped.json()["result"]["zipped"] is True
    assert heard.endswith(b"notifications/tools/list_changed\"}\n\n") and deleted.status_code == 204
    method, got, body = handler.received[0]
    assert body == BODY
    assert got["Host"] == url.split("/")[2] and got["Authorization"] == SECRET and got["Cookie"] == "a=b"
    assert got["X-Custom"] == "kept" and not {"Keep-Alive", "X-Dropped", "Connection"} & set(got)
    assert [m for m, _, _ in handler.received] == ["POST", "POST", "GET", "DELETE", "POST"]
    assert handler.received[3][1]["Mcp-Session-Id"] == "s-1"
    assert "→ tools/call café  id 7" in shown and "x-custom: kept" in shown, shown
    assert "s3cret" not in shown and "a=b" not in shown and "session=hidden" not in shown, shown


def sdk_book(url: str, mode: str) -> Any:
    async def run() -> Any:
        async with Client(url, mode=mode, elicitation_callback=answer_form, sampling_callback=answer_sampling,
                          list_roots_callback=answer_roots) as client:
            return await client.call_tool("book_table", {"city": "Oslo"})

    return anyio.run(run)


def test_real_clients_of_both_eras_through_the_proxy_are_shown_and_kept_without_secrets(tmp_path: Path):
    kept = tmp_path / "kept"
    with demo_http() as demo, proxy(demo, "--record-dir", str(kept)) as running:
        modern, older = sdk_book(running.url, "auto"), sdk_book(running.url, "legacy")
        own = mrtr_here("call", "book_table", "-a", "city=Rome", "--url", running.url, "-H", f"Authorization: {SECRET}",
                        "--answer", "date.date=2026-12-24", "--answer", "party.size=3", "--answer", "confirm=accept",
                        "--no-input", "-v")
        shown = running.stop()
    assert modern.structured_content == older.structured_content
    assert own.code == 0 and "Booked a table for 3 in Rome" in own.stdout, own.stderr
    assert "round 3 asks 1 question" in shown and "asked in flight: elicitation#1" in shown, shown
    assert shown.count("from host") >= 9 and "s3cret" not in shown, shown
    assert shown.count("✗ error") == 1 and shown.count("✓ complete") == 3, shown
    transcripts = sorted(kept.iterdir())
    assert all("-tools-call-book_table" in path.name for path in transcripts)
    texts = [path.read_text() for path in transcripts]
    assert not any("s3cret" in text for text in texts)
    # the SDK's first call sends no Mcp-Param-City (it has not listed the tools yet): -32020, kept as it went
    assert ["outcome: error" in text for text in texts] == [True, False, False, False]
    assert "Mcp-Param-City header is missing" in texts[0]
    with demo_http() as again:
        replayed = mrtr_here("replay", *map(str, transcripts[1:]), "--url", again)
    assert replayed.code == 0 and replayed.stderr.count("same as recorded") == 3, replayed.stderr


def test_options_that_cannot_apply_a_bad_upstream_and_a_busy_port_are_one_line_and_their_exit_code(tmp_path: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = mrtr_here("proxy", "--http", str(port), "--to", "http://127.0.0.1:9/mcp")
    assert busy.code == 4 and busy.stderr.strip().endswith(
        f"cannot listen on 127.0.0.1:{port}: Address already in use; pick another port (0 picks a free one)")
    assert "unexpected" not in busy.stderr and len(busy.stderr.splitlines()) == 1, busy.stderr
    refusals = {("--http", "0", "--to", "ftp://example.com/mcp"): "--to ftp://example.com/mcp: not an http:// or",
                ("--http", "0", "--to", "http:///mcp"): "not an http:// or https:// URL with a host",
                ("--http", "0", "--to", "http://h/mcp", "--timeline", "t.log"): "--timeline is the stdio shim's",
                ("--config", "c.json", "--", "true"): "--config name a host's configuration",
                ("--json", "--strict", "--", "true"): "--json needs a FILE",
                ("--wrap", "--config", "c.json", "--server", "s", "--strict"): "--strict judges a proxy that runs",
                ("--unwrap", "--config", "c.json", "--server", "s", "--json", "f", "--junit", "g"):
                    "--json, --junit judge a proxy that runs",
                ("--bogus", "--json", "f", "--", "true"): "No such option: --bogus"}
    for given, said in refusals.items():
        refused = mrtr_here("proxy", *given, cwd=tmp_path)
        assert refused.code == 1 and said in refused.stderr, (given, refused.stderr)
        assert len(refused.stderr.splitlines()) == 1, refused.stderr  # once, and no JSON line: --json is a FILE here
    assert list(tmp_path.iterdir()) == []


def test_each_option_name_is_one_entry_of_each_command() -> None:
    """`--json` and `--strict` name two entries each (the output options; `mrtr proxy`'s), never of the
    same command."""
    from mrtr_cli.definition.command_table import AUTH, COMMANDS, TASKS
    from mrtr_cli.definition.option_table import BY_NAME, SHARED_NAMES, TABLE, of_group

    commands = [*COMMANDS, *AUTH.commands, *TASKS.commands]
    for command in commands:
        names = [name for group, fields in command.groups for option in of_group(group, fields)
                 for name in option.names]
        assert len(names) == len(set(names)), command.name
    shared = {name for name in {n for option in TABLE for n in option.names}
              if sum(name in option.names for option in TABLE) > 1}
    assert shared == set(SHARED_NAMES) and not shared & set(BY_NAME)
    for name, groups in SHARED_NAMES.items():
        assert sorted(option.group for option in TABLE if name in option.names) == sorted(groups)
