"""What `mrtr proxy` adds to a round trip: the median time of one MRTR round, the same client talking
to benchmarks/server.py directly and through the proxy (stdio shim, and --http), in one run.

    python benchmarks/proxy_overhead.py [--repeat N] [--python PYTHON]

The client is a bare stdlib one in this process (no validation, no output): it sends `ask` with
ROUNDS rounds, answering each, and times every round from its request written to its response read.
The proxy runs as a user runs it: with --record-dir (every round written to a transcript) and, for
the shim, --timeline FILE. Budgets (issue 29): at most 1 ms a round over stdio, 2 ms over HTTP.
"""

from __future__ import annotations

import http.client
import json
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from run import free_port, run_alone
from speed_cpu import ENV, HERE, MRTR, SERVER

ROUNDS = 200
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}
Send = Callable[[bytes], dict]


def round_times(send: Send, rounds: int) -> list[float]:
    """Seconds of each round of one `ask` call of `rounds` rounds."""
    params, times, ids = {"name": "ask", "arguments": {"n": rounds}}, [], iter(range(1, 10**9))
    while True:
        body = json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": "tools/call",
                           "params": {**params, "_meta": META}}).encode()
        started = time.perf_counter()
        result = send(body)["result"]
        times.append(time.perf_counter() - started)
        if result.get("resultType") != "input_required":
            return times
        params = {"name": "ask", "arguments": params["arguments"], "requestState": result["requestState"],
                  "inputResponses": {k: {"action": "accept", "content": {"ok": True}} for k in result["inputRequests"]}}


@contextmanager
def over_stdio(command: list[str]) -> Iterator[Send]:
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=HERE.parent, env=ENV)
    assert process.stdin and process.stdout

    def send(body: bytes) -> dict:
        process.stdin.write(body + b"\n")
        process.stdin.flush()
        return json.loads(process.stdout.readline())

    try:
        yield send
    finally:
        process.stdin.close()
        process.wait(timeout=30)


@contextmanager
def over_http(port: int) -> Iterator[Send]:
    connection = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "ask"}

    def send(body: bytes) -> dict:
        connection.request("POST", "/mcp", body, headers)
        data = connection.getresponse().read()
        return json.loads(data[data.index(b"{"):] if data.startswith(b"event") else data)

    try:
        yield send
    finally:
        connection.close()


@contextmanager
def started(command: list[str], ready: Callable[[subprocess.Popen], None]) -> Iterator[None]:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=HERE.parent, env=ENV)
    try:
        ready(process)
        for stream in (process.stdout, process.stderr):  # the HTTP proxy's timeline: read, so it never blocks
            threading.Thread(target=stream.read, daemon=True).start()
        yield
    finally:
        process.terminate()
        process.wait(timeout=30)
        for stream in (process.stdout, process.stderr):
            if stream:
                stream.close()


def medians(connect: Callable[[], Iterator[Send]], repeat: int) -> float:
    """The median round, over `repeat` calls of ROUNDS rounds (after one call to warm up)."""
    with connect() as send:
        round_times(send, 2)
        samples = [t for _ in range(repeat) for t in round_times(send, ROUNDS)]
    return statistics.median(samples)


def rows(repeat: int) -> tuple[list[str], list[tuple[str, float, float]]]:
    with tempfile.TemporaryDirectory() as folder:
        shim = [*MRTR, "proxy", "--timeline", f"{folder}/timeline.log", "--record-dir", f"{folder}/stdio", "--",
                *SERVER]
        stdio = {"direct": medians(lambda: over_stdio(SERVER), repeat),
                 "proxy": medians(lambda: over_stdio(shim), repeat)}
        server_port, proxy_port = free_port(), free_port()
        proxy = [*MRTR, "proxy", "--http", str(proxy_port), "--to", f"http://127.0.0.1:{server_port}/mcp",
                 "--record-dir", f"{folder}/http"]
        with started([*SERVER, "--http", str(server_port)], lambda p: p.stdout.readline()), \
                started(proxy, lambda p: p.stderr.readline()):
            http = {"direct": medians(lambda: over_http(server_port), repeat),
                    "proxy": medians(lambda: over_http(proxy_port), repeat)}
        kept = len(list(Path(folder, "stdio").iterdir())) + len(list(Path(folder, "http").iterdir()))
    lines, budgets = [], []
    for name, measured, limit in (("stdio", stdio, 1.0), ("HTTP", http, 2.0)):
        added = (measured["proxy"] - measured["direct"]) * 1000
        lines.append(f"| {name} round, direct / through mrtr proxy ({ROUNDS} rounds x {repeat}, {kept} transcripts "
                     f"kept) | {measured['direct'] * 1000:.3f} ms / {measured['proxy'] * 1000:.3f} ms | "
                     f"+{added:.3f} ms a round |")
        budgets.append((f"mrtr proxy adds ≤ {limit:g} ms a {name} round", added, limit, "ms"))
    return lines, budgets


if __name__ == "__main__":
    run_alone(rows, 3)
