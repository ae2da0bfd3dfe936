"""Raw MCP peers for tests: talk to a server over stdio or HTTP without mrtr in between."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx

from conformance import reference_server
from conftest import PYTHON, ROOT, SDK_SERVER
from helpers import fill_form
from mrtr_cli.protocol import headers as mcp_headers

VERSION = "2026-07-28"
ALL_CAPABILITIES = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}


def request(request_id: int, method: str, params: dict[str, Any] | None = None,
            capabilities: dict[str, Any] | None = None, version: str = VERSION) -> dict[str, Any]:
    meta = {"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": ALL_CAPABILITIES if capabilities is None else capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "raw-test-peer", "version": "0"},
            "progressToken": f"p{request_id}"}
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**(params or {}), "_meta": meta}}


class StdioPeer:
    """A server process; `exchange` sends one message and returns what came back for it."""

    def __init__(self, command: list[str], stderr: Any = None) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                        cwd=ROOT)

    def exchange_line(self, line: str) -> dict[str, Any]:
        """Send one line as it is; the one message that comes back."""
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, "the server closed its stdout"
        return json.loads(answer)

    def exchange(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        received = []
        while "id" in message:
            line = self.process.stdout.readline()
            assert line, "the server closed its stdout"
            received.append(json.loads(line))
            if received[-1].get("id") == message["id"] and "method" not in received[-1]:
                break
        return received

    def close(self) -> None:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.close()
        self.process.wait(timeout=10)
        self.process.stdout.close()


class MemoryPeer(StdioPeer):
    """A server in this process behind the in-memory transport (transport/memory.py), its lines as a
    stdio server's: what a StdioPeer of `mrtr demo-server` or `mrtr serve` reads, without the process."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport

    def _line(self) -> str:
        from mrtr_cli.transport.base import Deadline

        frame = self.transport.receive(Deadline(30))
        return str(frame.data)

    def exchange_line(self, line: str) -> dict[str, Any]:
        self.transport.write(line)
        return json.loads(self._line())

    def exchange(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        self.transport.write(json.dumps(message))
        received: list[dict[str, Any]] = []
        while "id" in message:
            received.append(json.loads(self._line()))
            if received[-1].get("id") == message["id"] and "method" not in received[-1]:
                break
        return received

    def close(self) -> None:
        self.transport.close()


def demo_here() -> MemoryPeer:
    """The demo server (`mrtr demo-server`'s dispatcher) in this process, as a stdio peer."""
    from mrtr_cli.commands.in_memory import demo_transport

    return MemoryPeer(demo_transport())


class HttpPeer:
    """A Streamable HTTP endpoint; `post` returns the raw response, `exchange` the messages."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx.Client(timeout=10)

    def headers_for(self, message: dict[str, Any], tool_schema: Any = None) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if "id" in message:
            meta = message.get("params", {}).get("_meta", {})
            version = meta.get("io.modelcontextprotocol/protocolVersion", VERSION)
            headers.update(mcp_headers.standard_headers(message, version))
        if tool_schema is not None:
            params = mcp_headers.header_params(tool_schema)
            headers.update(mcp_headers.param_headers(params, message["params"].get("arguments")))
        return headers

    def post(self, message: Any, headers: dict[str, str] | None = None, **extra: Any) -> httpx.Response:
        body = message if isinstance(message, (bytes, str)) else json.dumps(message)
        chosen = headers if headers is not None else self.headers_for(message)
        return self.client.post(self.url, content=body, headers=chosen, **extra)

    def exchange(self, message: dict[str, Any], tool_schema: Any = None) -> list[dict[str, Any]]:
        response = self.post(message, self.headers_for(message, tool_schema))
        return messages_of(response)

    def close(self) -> None:
        self.client.close()


def messages_of(response: httpx.Response) -> list[dict[str, Any]]:
    kind = response.headers.get("content-type", "")
    if kind.startswith("text/event-stream"):
        return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]
    return [response.json()] if response.content else []


START_SECONDS = 60
"""How long a server may take to listen: a ceiling, not a pace (each waits only until it listens); an SDK
server's imports take seconds of CPU, which -n 4 on two busy cores stretch several times over (it was 20 s and 30 s)."""


def stop(process: subprocess.Popen[Any]) -> None:
    """SIGTERM, then SIGKILL if it has not ended within 30 s (a server still shutting down on a busy machine)."""
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)


@contextmanager
def http_server(command: list[str]) -> Iterator[str]:
    """Start `command` (which prints `listening on URL` to stderr); yield the URL."""
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert process.stderr
        deadline = time.monotonic() + START_SECONDS
        line = ""
        while time.monotonic() < deadline and "listening on" not in line:
            line = process.stderr.readline()
            if not line and process.poll() is not None:
                raise AssertionError("the server exited before listening")
        match = re.search(r"listening on (\S+)", line)
        assert match, f"no listening line: {line!r}"
        yield match.group(1)
    finally:
        stop(process)
        if process.stderr:
            process.stderr.close()


def free_port() -> int:
    """A port of 127.0.0.1 that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def listening(command: list[str], port: int, name: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """Start `command`, a server `name` that listens on `port` of 127.0.0.1; yield its /mcp URL once
    it accepts connections, and stop it afterwards."""
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, f"{name} exited before it listened"
            assert time.monotonic() < deadline, f"{name} did not listen within {START_SECONDS} s"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


def sdk_over_http(mode: str) -> Any:
    """tests/servers/sdk_server.py over Streamable HTTP on a free port (`json` or `sse` responses);
    yields its /mcp URL. Only its SSE mode can ask in flight (the older era's back-channel)."""
    port = free_port()
    return listening([*SDK_SERVER, "http", str(port), mode], port, "the SDK server")


FASTMCP_SERVER = [PYTHON, str(ROOT / "tests" / "servers" / "fastmcp_server.py")]
"""A fastmcp server (PyPI `fastmcp`), both eras, requestState sealed under a per-process key: add `stdio`, or
`http PORT`."""


def fastmcp_over_http() -> Any:
    """tests/servers/fastmcp_server.py over Streamable HTTP on a free port; yields its /mcp URL."""
    port = free_port()
    return listening([*FASTMCP_SERVER, "http", str(port)], port, "the fastmcp server")


PLAIN_STATE_SERVER = [PYTHON, str(ROOT / "tests" / "servers" / "plain_state_server.py")]
"""The SDK's low-level Server with plain-JSON requestState (any process takes the retry): add
`stdio`, or `http PORT`."""
SHARED_STATE_KEY = "a-key-shared-by-every-instance-0123456789"
"""A key for SDK_STATE_KEY (MCPServer wants 32 characters at least)."""


@contextmanager
def two_instances(command: list[str], name: str, env: dict[str, str] | None = None,
                  after_port: tuple[str, ...] = ()) -> Iterator[tuple[str, str]]:
    """Two processes of the HTTP server `command PORT [after_port...]`, each on a free port of its
    own, as two instances of one server behind a balancer; yields their /mcp URLs."""
    with ExitStack() as stack:
        urls = []
        for number in (1, 2):
            port = free_port()
            started = [*command, str(port), *after_port]
            urls.append(stack.enter_context(listening(started, port, f"{name} {number}", env)))
        yield urls[0], urls[1]


def sdk_instances_over_http(state_key: str | None = None) -> Any:
    """Two processes of tests/servers/sdk_server.py (MCPServer) over Streamable HTTP (JSON responses);
    yields their /mcp URLs. Without `state_key` each seals requestState under a key of its own, made
    at start-up (the SDK's default), so a retry sent to the other is refused; with one
    (SDK_STATE_KEY, e.g. SHARED_STATE_KEY) they share it, and either takes it."""
    env = {key: value for key, value in os.environ.items() if key != "SDK_STATE_KEY"}
    env.update({"SDK_STATE_KEY": state_key} if state_key else {})
    return two_instances([*SDK_SERVER, "http"], "the SDK server", env, ("json",))


def plain_state_instances_over_http() -> Any:
    """Two processes of tests/servers/plain_state_server.py over Streamable HTTP; yields their /mcp URLs."""
    return two_instances([*PLAIN_STATE_SERVER, "http"], "the plain-state server")


def oauth_http(*options: str) -> Any:
    """The OAuth-protected SDK server of tests/servers/oauth_server.py, with its `options`."""
    return http_server([PYTHON, str(ROOT / "tests" / "servers" / "oauth_server.py"), *options])


def everything_over_http() -> Any:
    """The npm reference server-everything's Streamable HTTP transport on a free port; yields its /mcp URL."""
    port = free_port()
    return listening(reference_server("everything", "streamableHttp"), port, "server-everything",
                     env={**os.environ, "PORT": str(port)})


@contextmanager
def demo_http(fixtures: bool = False, state_key: str | None = None) -> Iterator[str]:
    """The demo's Streamable HTTP server (what `mrtr demo-server --http 127.0.0.1:0` serves: the same
    dispatcher and HTTP handler) on a free port, served by a thread of this process; yields its /mcp URL.
    `fixtures`: with the conformance suite's fixtures, as `--conformance-fixtures`; `state_key` as
    `--state-key` (else MRTR_DEMO_STATE_KEY, read now, as at a process's start). Tests of the demo's
    process itself (its listening line, its signals) start `mrtr demo-server`."""
    from mrtr_cli.commands.in_memory import demo_dispatcher
    from mrtr_cli.server.http_serving import ENDPOINT, make_server

    server = make_server(demo_dispatcher(over_http=True, fixtures=fixtures, state_key=state_key), "127.0.0.1", 0)
    serving = threading.Thread(target=server.serve_forever, name="the demo over HTTP", daemon=True)
    serving.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{ENDPOINT}"
    finally:
        server.shutdown()
        server.server_close()
        serving.join()


def answer_all(requests: dict[str, Any]) -> dict[str, Any]:
    """Answers any question generically: forms filled, URLs accepted, sampling and roots replied."""
    responses = {}
    for key, ask in requests.items():
        method, params = ask["method"], ask.get("params", {})
        if method == "elicitation/create" and params.get("mode") == "url":
            responses[key] = {"action": "accept"}
        elif method == "elicitation/create":
            responses[key] = {"action": "accept", "content": fill_form(params["requestedSchema"])}
        elif method == "sampling/createMessage":
            responses[key] = {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "raw"}
        else:
            responses[key] = {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}
    return responses


def converse(peer: Any, ids: Iterator[int], method: str, params: dict[str, Any], schema: Any = None,
             rounds: int = 10) -> list[tuple[dict[str, Any], str]]:
    """The whole MRTR conversation, every message received paired with its method."""
    seen: list[tuple[dict[str, Any], str]] = []
    retry = dict(params)
    for _ in range(rounds):
        message = request(next(ids), method, retry)
        received = peer.exchange(message, schema) if isinstance(peer, HttpPeer) else peer.exchange(message)
        seen += [(m, method) for m in received]
        result = received[-1].get("result", {})
        if result.get("resultType") != "input_required":
            return seen
        retry = dict(params, **({"requestState": result["requestState"]} if "requestState" in result else {}))
        if result.get("inputRequests"):
            retry["inputResponses"] = answer_all(result["inputRequests"])
    raise AssertionError("the conversation did not end")
