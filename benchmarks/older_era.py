"""The older era's budgets, against the official reference server `server-everything` (npm,
installed into the test cache by tests/conformance.py: Node 22 and the server, once).

    python benchmarks/older_era.py [--repeat N]

- an older-era stdio call (initialize, a tool that asks one elicitation in flight, its result):
  mrtr within 1.5x the bare stdlib client of bare_older_client.py doing the same exchange;
- auto-detection: `--protocol-era auto` against `--protocol-era older` on the same call, where the
  server answers server/discover with -32601 at once. Auto sends exactly one request more and
  never waits; its cost must stay within one round trip, measured in the same runs as the
  elapsed time of `initialize` (a request to a server already started) on mrtr's timeline.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from conformance import reference_server  # noqa: E402  (tests/ holds the cache installer)
from run import MRTR, PY, measure, report, row  # noqa: E402

TOOL, NAME = "trigger-elicitation-request", "Ada"
INITIALIZE = re.compile(r"→ initialize  id \d+\n← complete · ([\d.]+) ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=9)
    repeat = parser.parse_args().repeat
    server = reference_server("everything")
    call = [*MRTR, "call", TOOL, "--answer", f"elicitation#1.name={NAME}", "--no-input"]
    results = {"bare": measure([PY, str(HERE / "bare_older_client.py"), TOOL, NAME, "--", *server], repeat),
               "mrtr": measure([*call, "--protocol-era", "older", "--", *server], repeat)}
    extra, round_trip = auto_cost(call, server, repeat * 2)
    lines = [row("older-era stdio call, server-everything, 1 question in flight (mrtr: --protocol-era older)",
                 results),
             f"| auto-detection: auto - older (paired runs), one round trip (initialize after the probe) | "
             f"{extra * 1000:.1f} ms · {round_trip * 1000:.1f} ms | {extra / round_trip:.2f} round trips |"]
    report(lines, [("older-era call: mrtr ≤ 1.5x bare", results["mrtr"].seconds / results["bare"].seconds, 1.5),
                   ("auto-detection ≤ 1 round trip", extra / round_trip, 1.0)])


def auto_cost(call: list[str], server: list[str], pairs: int) -> tuple[float, float]:
    """The median of (auto - older) over runs made in pairs, one after the other, so the machine's
    drift cancels; and the median time of the initialize request that follows auto's probe."""
    differences, round_trips = [], []
    for _ in range(pairs):
        older, _ = timed_run([*call, "--protocol-era", "older", "--", *server])
        auto, stderr = timed_run([*call, "--", *server])
        found = INITIALIZE.search(stderr)
        if not found:
            raise SystemExit(f"no initialize on the timeline:\n{stderr[-2000:]}")
        differences.append(auto - older)
        round_trips.append(float(found.group(1)) / 1000)
    return statistics.median(differences), statistics.median(round_trips)


def timed_run(argv: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stderr[-2000:]}")
    return seconds, done.stderr


if __name__ == "__main__":
    main()
