"""The older era's budgets.

    python benchmarks/older_era.py [--repeat N]

- an older-era stdio call against the official reference server `server-everything` (npm, installed
  into the test cache by tests/conformance.py: Node 22 and the server, once): initialize, a tool that
  asks one elicitation in flight, its result; mrtr within 1.5x the bare stdlib client of
  bare_older_client.py doing the same exchange;
- auto-detection's cost: `--protocol-era auto` against `--protocol-era older` on the same call, where
  the server answers server/discover with -32601 at once, must stay within one round trip. Node's
  start-up varies by ±40 ms a run, and a process's by ±20 ms, more than a round trip; so this is
  measured in one process against older_server.py (stdlib), the server started before the clock: the
  era decision of each mode; a round trip is older's own decision, the handshake (initialize).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from conformance import reference_server  # noqa: E402  (tests/ holds the cache installer)
from run import MRTR, PY, measure, report, row  # noqa: E402

TOOL, NAME = "trigger-elicitation-request", "Ada"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=9)
    repeat = parser.parse_args().repeat
    server = reference_server("everything")
    call = [*MRTR, "call", TOOL, "--answer", f"elicitation#1.name={NAME}", "--no-input"]
    results = {"bare": measure([PY, str(HERE / "bare_older_client.py"), TOOL, NAME, "--", *server], repeat),
               "mrtr": measure([*call, "--protocol-era", "older", "--", *server], repeat)}
    extra, round_trip, warm = auto_cost(repeat * 3)
    lines = [row("older-era stdio call, server-everything, 1 question in flight (mrtr: --protocol-era older)",
                 results),
             f"| auto-detection (older_server.py, in process): auto - older · older's handshake · a request "
             f"on the open session | {extra * 1000:.2f} ms · {round_trip * 1000:.2f} ms · {warm * 1000:.2f} ms | "
             f"{extra / round_trip:.2f} handshakes · {extra / warm:.2f} requests |"]
    report(lines, [("older-era call: mrtr ≤ 1.5x bare", results["mrtr"].seconds / results["bare"].seconds, 1.5),
                   ("auto-detection ≤ 1 round trip", extra / round_trip, 1.0)])


def auto_cost(repeat: int) -> tuple[float, float, float]:
    """In one process (so no start-up noise), against older_server.py, the server started before the
    clock: the median time auto's era decision takes beyond `--protocol-era older`'s; the median time
    of `older`'s own decision, the handshake (initialize and its notification, the session's first
    request); and the median time of a request once the session is open (tools/list)."""
    samples: dict[str, list[float]] = {"older": [], "auto": [], "warm": []}
    for _ in range(repeat):
        for era in ("older", "auto"):
            decided, warm = _era_decision(era)
            samples[era].append(decided)
            samples["warm"].append(warm)
    older = statistics.median(samples["older"])
    return statistics.median(samples["auto"]) - older, older, statistics.median(samples["warm"])


def _era_decision(era: str) -> tuple[float, float]:
    """How long deciding the era takes (`conversation/era.py`'s choose_era), the server already
    started, and one request after it."""
    from mrtr_cli.answering.questions import Chain
    from mrtr_cli.commands.common import era_flags
    from mrtr_cli.commands.conversation_builder import client_settings
    from mrtr_cli.conversation import era as era_module
    from mrtr_cli.conversation.client import Client
    from mrtr_cli.conversation.events import Broadcast
    from mrtr_cli.definition.options import TargetOptions
    from mrtr_cli.targets.target import resolve_target

    options = TargetOptions(command=(PY, str(HERE / "older_server.py")), protocol_era=era)
    target = resolve_target(options)
    client = Client(target.open(options), client_settings(options), Broadcast())
    try:
        time.sleep(0.2)  # the server starts before the clock does: neither era pays its start-up
        started = time.perf_counter()
        era_module.choose_era(client, era_flags(options), lambda: target.open(options), Chain([]),
                              probes=target.probes_era)
        decided = time.perf_counter() - started
        started = time.perf_counter()
        client.result_of("tools/list", {})
        return decided, time.perf_counter() - started
    finally:
        client.transport.close()


if __name__ == "__main__":
    main()
