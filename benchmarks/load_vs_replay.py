"""`mrtr load` (one Locust local runner, one process) beside `mrtr replay -j 2` (two worker
processes) on the same transcripts against one demo server over HTTP (issue 38, item 6).

    python benchmarks/load_vs_replay.py [--conversations N] [--users U] [--repeat K] [--python PYTHON]

Each side's conversations a second comes from its own --json (replay's `load.conversations_per_second`,
load's `conversations_per_second`), K runs each in turn, medians. Per core: replay -j 2 keeps two worker
processes busy, load one. The budget: `mrtr load` at least as fast per core as `replay -j 2`, so what a
load run costs is Locust's, not mrtr's. The demo server runs too (on the same machine): both sides share it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from contextlib import contextmanager
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRANSCRIPTS = [str(HERE.parent / "tests" / "load" / name) for name in ("book_table.yaml", "two_questions.yaml")]
BUDGET = 1.0
"""load's conversations a second per core over replay -j 2's, at least."""


@contextmanager
def demo(python: str) -> Iterator[str]:
    """The demo over HTTP on a free port of 127.0.0.1; yields its /mcp URL."""
    process = subprocess.Popen([python, "-m", "mrtr_cli", "demo-server", "--http", "127.0.0.1:0"],
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        match = None
        while match is None:
            line = process.stderr.readline()
            if not line:
                raise SystemExit("the demo server exited before listening")
            match = re.search(r"listening on (\S+)", line)
        yield match.group(1)
    finally:
        process.terminate()
        process.wait(timeout=10)


def per_second(command: list[str], key: tuple[str, ...]) -> float:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
    value = json.loads(done.stdout)
    for part in key:
        value = value[part]
    return float(value)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=400, help="conversations of each run")
    parser.add_argument("--users", type=int, default=10, help="mrtr load --users")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side, in turn")
    parser.add_argument("--python", default=sys.executable, help="the interpreter mrtr is installed in")
    arguments = parser.parse_args()
    mrtr = [arguments.python, "-m", "mrtr_cli"]
    repeat_each = max(arguments.conversations // len(TRANSCRIPTS), 1)
    loads, replays = [], []
    with demo(arguments.python) as url:
        load = [*mrtr, "load", *TRANSCRIPTS, "--url", url, "--users", str(arguments.users), "--conversations",
                str(repeat_each * len(TRANSCRIPTS)), "--json"]
        replay = [*mrtr, "replay", *TRANSCRIPTS, "--url", url, "-j", "2", "--repeat", str(repeat_each), "--json"]
        per_second(load, ("conversations_per_second",))  # warm-up: the disk cache, the demo's first imports
        for _ in range(arguments.repeat):
            loads.append(per_second(load, ("conversations_per_second",)))
            replays.append(per_second(replay, ("load", "conversations_per_second")))
    load_rate, replay_rate = statistics.median(loads), statistics.median(replays)
    ratio = load_rate / (replay_rate / 2)
    print(f"{os.cpu_count()} CPUs, {repeat_each * len(TRANSCRIPTS)} conversations a run, medians of {arguments.repeat}")
    print(f"| mrtr load --users {arguments.users} (1 process) | {load_rate:.1f}/s | {load_rate:.1f}/s per core |")
    print(f"| mrtr replay -j 2 (2 processes) | {replay_rate:.1f}/s | {replay_rate / 2:.1f}/s per core |")
    verdict = "ok" if ratio >= BUDGET else "OVER BUDGET"
    print(f"load per core / replay -j 2 per core: {ratio:.2f}x (budget ≥ {BUDGET:.1f}x): {verdict}")


if __name__ == "__main__":
    main()
