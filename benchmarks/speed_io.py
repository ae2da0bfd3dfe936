"""Recording, serving and replaying, against their baselines in one run (issue 16, "Speed, round two").

    python benchmarks/speed_io.py [--repeat N]

Rows: `--record` of a 20 MB result vs the bare client (one long word, as base64 content is, and
lines of prose); `mrtr serve` of 1 600 transcripts vs
serving 1 (requests/s); `replay --demo` vs `replay --url` per transcript; `mrtr demo-server
--http` vs the SDK's MCPServer (requests/s of a tool's first round, which asks one question).
Runs are paired and alternate; only ratios taken in the same run mean anything.
"""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from run import BIG, HERE, MRTR, PY, SERVER, free_port, measure_paired, mrtr_call, run_alone

ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # this checkout's mrtr_cli, as the commands run (cwd = ROOT)
SDK_SERVER = [PY, str(ROOT / "tests" / "servers" / "sdk_server.py")]
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}
SERVED = 1600
REQUESTS = 1500


def paired(commands: dict[str, list[str]], repeat: int) -> dict[str, float]:
    """Median seconds of each command, run in turn (run.measure_paired)."""
    return {label: measured.seconds for label, measured in measure_paired(commands, repeat).items()}


RECORDED = {"big": "one long word", "prose": "lines of prose"}
"""The benchmark server's 20 MB results, and what their text is."""


def record_row(repeat: int, folder: Path, tool: str) -> tuple[str, float]:
    stdio = ["--stdio", " ".join(SERVER)]
    times = paired({"bare": [PY, str(HERE / "bare_client.py"), "stdio", tool, str(BIG)],
                    "mrtr --record": [*mrtr_call([*stdio, "--record", str(folder / f"{tool}.yaml")], tool, BIG)]},
                   max(2, repeat // 2))
    ratio = times["mrtr --record"] / times["bare"]
    return (f"| --record of a 20 MB result, {RECORDED[tool]} (stdio) | bare {times['bare'] * 1000:.0f} ms · mrtr "
            f"--record {times['mrtr --record'] * 1000:.0f} ms | {ratio:.2f}x |", ratio)


@contextmanager
def listening(argv: list[str], port: int) -> Iterator[str]:
    """A server process listening on 127.0.0.1:`port`; yields its /mcp URL once it accepts."""
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise SystemExit(f"did not start: {' '.join(argv)}")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def requests_per_second(url: str, calls: list[tuple[str, dict]], count: int = REQUESTS) -> float:
    """tools/call first rounds, one after another on one keep-alive connection."""
    port = int(url.split(":")[2].split("/")[0])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.connect()
    connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no delayed-ACK stalls either side
    started = time.perf_counter()
    for number in range(count):
        name, arguments = calls[number % len(calls)]
        body = json.dumps({"jsonrpc": "2.0", "id": number + 1, "method": "tools/call",
                           "params": {"name": name, "arguments": arguments, "_meta": META}}).encode()
        connection.request("POST", "/mcp", body, {
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name})
        response = connection.getresponse()
        data = response.read()
        if response.status != 200 or b'"input_required"' not in data:
            raise SystemExit(f"unexpected reply from {url}: {response.status} {data[:300]!r}")
    connection.close()
    return count / (time.perf_counter() - started)


def transcripts(folder: Path, count: int) -> list[Path]:
    """`count` transcripts of the benchmark server's `ask` (one question), each with its own arguments."""
    from mrtr_cli.fileio import yaml_dumper, yaml_loader

    first = folder / "ask.yaml"
    subprocess.run(mrtr_call(["--stdio", " ".join(SERVER), "--record", str(first)], "ask", 1), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    document = yaml_loader.load_file(first, "transcript")
    paths = []
    for number in range(count):
        arguments = {"n": 1, "copy": number}
        document["request"]["params"]["arguments"] = arguments
        for entry in document["rounds"]:
            entry["sent"]["params"]["arguments"] = arguments
        paths.append(folder / f"t{number:04}.yaml")
        paths[-1].write_text(yaml_dumper.dumps(document), encoding="utf-8")
    return paths


def serve_row(repeat: int, folder: Path) -> tuple[str, float]:
    paths = transcripts(folder, SERVED)
    calls = [("ask", {"n": 1, "copy": number}) for number in range(SERVED)]
    rates: dict[str, list[float]] = {"1": [], str(SERVED): []}
    for _ in range(max(2, repeat // 2)):
        for label, served in (("1", paths[:1]), (str(SERVED), paths)):
            port = free_port()
            with listening([*MRTR, "serve", *map(str, served), "--http", f"127.0.0.1:{port}"], port) as url:
                rates[label].append(requests_per_second(url, calls[:len(served)]))
    one, many = statistics.median(rates["1"]), statistics.median(rates[str(SERVED)])
    return (f"| mrtr serve: {SERVED} transcripts vs 1 (req/s, first rounds over HTTP) | 1: {one:.0f} req/s · "
            f"{SERVED}: {many:.0f} req/s | {many / one:.2f}x |", many / one)


def replay_row(repeat: int, folder: Path) -> tuple[str, float]:
    count = 20
    files = []
    for number in range(count):
        files.append(str(folder / f"b{number:02}.yaml"))
        shutil.copy(ROOT / "recordings" / "book_table.yaml", files[-1])
    port = free_port()
    with listening([*MRTR, "demo-server", "--http", f"127.0.0.1:{port}"], port) as url:
        times = paired({"--url": [*MRTR, "replay", *files, "--url", url], "--demo": [*MRTR, "replay", *files, "--demo"]},
                       max(2, repeat // 2))
    per = {label: seconds / count * 1000 for label, seconds in times.items()}
    ratio = times["--demo"] / times["--url"]
    return (f"| replay of {count} transcripts, per transcript: --demo vs --url (a demo-server --http) | --url "
            f"{per['--url']:.1f} ms · --demo {per['--demo']:.1f} ms | {ratio:.2f}x |", ratio)


def demo_http_row(repeat: int) -> tuple[str, float]:
    rates: dict[str, list[float]] = {"sdk": [], "mrtr": []}
    for _ in range(max(2, repeat // 2)):
        port = free_port()
        with listening([*SDK_SERVER, "http", str(port), "json"], port) as url:
            requests_per_second(url, [("greet", {"greeting": "Hi"})], 50)  # warm up
            rates["sdk"].append(requests_per_second(url, [("greet", {"greeting": "Hi"})]))
        port = free_port()
        with listening([*MRTR, "demo-server", "--http", f"127.0.0.1:{port}"], port) as url:
            requests_per_second(url, [("book_table", {})], 50)
            rates["mrtr"].append(requests_per_second(url, [("book_table", {})]))
    sdk, mrtr = statistics.median(rates["sdk"]), statistics.median(rates["mrtr"])
    return (f"| demo-server --http vs the SDK's MCPServer (req/s, a first round asking one question) | SDK "
            f"{sdk:.0f} req/s · mrtr {mrtr:.0f} req/s | {mrtr / sdk:.2f}x |", mrtr / sdk)


def rows(repeat: int) -> tuple[list[str], list[tuple[str, float, float]]]:
    """The lines and the budgets (time ratios: at most; throughput ratios: written as their inverse)."""
    with tempfile.TemporaryDirectory() as folder:
        records = {tool: record_row(repeat, Path(folder), tool) for tool in RECORDED}
        serve, serve_ratio = serve_row(repeat, Path(folder))
        replay, replay_ratio = replay_row(repeat, Path(folder))
    demo, demo_ratio = demo_http_row(repeat)
    budgets = [*[(f"--record 20 MB, {RECORDED[tool]}: mrtr ≤ 2.5x bare", ratio, 2.5)
                 for tool, (_, ratio) in records.items()],
               ("serve 1 600 transcripts: req/s ≥ 0.8x serving 1 (shown inverted: ≤ 1.25x)", 1 / serve_ratio, 1.25),
               ("replay --demo per transcript ≤ 2x replay --url", replay_ratio, 2.0),
               ("demo-server --http req/s ≥ 2x the SDK's (shown inverted: ≤ 0.5x)", 1 / demo_ratio, 0.5)]
    return [*[line for line, _ in records.values()], serve, replay, demo], budgets


if __name__ == "__main__":
    run_alone(rows, default_repeat=5)
