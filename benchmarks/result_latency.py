"""How long after the final response the result reaches stdout, with a server slow to exit.

    python benchmarks/result_latency.py [--repeat N] [--linger SECONDS]

The benchmark server (server.py) sleeps `--linger` seconds (default 3) after its stdin closes, as
node servers often take a while to exit. mrtr must print the outcome as soon as the call
completes and only then stop the server: the budget is the result on stdout at most 100 ms after
the server wrote its last response. Both times are CLOCK_MONOTONIC, which processes share.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUDGET_MS = 100.0


def once(linger: float) -> tuple[float, float]:
    """(ms from the last response to the result's line on stdout, whole run in s)."""
    with tempfile.TemporaryDirectory() as folder:
        stamp = Path(folder) / "stamp"
        env = {**os.environ, "NO_COLOR": "1", "MRTR_BENCH_LINGER": str(linger), "MRTR_BENCH_STAMP": str(stamp)}
        command = [sys.executable, "-m", "mrtr_cli", "call", "ask", "-a", "n=1", "--answer", "step.ok=true",
                   "--no-input", "--", sys.executable, str(HERE / "server.py")]
        started = time.monotonic()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                                   cwd=HERE.parent)
        assert process.stdout is not None
        line = process.stdout.readline()
        printed = time.monotonic()
        process.stdout.read()
        code = process.wait()
        if code != 0 or b"done after 1" not in line:
            raise SystemExit(f"mrtr failed ({code}): {line!r}")
        return (printed - float(stamp.read_text())) * 1000, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--linger", type=float, default=3.0)
    options = parser.parse_args()
    runs = [once(options.linger) for _ in range(options.repeat)]
    latencies = [latency for latency, _ in runs]
    median = statistics.median(latencies)
    print(f"server lingers {options.linger:g} s after stdin closes; {options.repeat} runs")
    print(f"result on stdout after the last response: median {median:.1f} ms, max {max(latencies):.1f} ms "
          f"(budget {BUDGET_MS:g} ms): {'met' if max(latencies) <= BUDGET_MS else 'NOT met'}")
    print(f"whole run (mrtr still stops the server cleanly): median {statistics.median(s for _, s in runs):.2f} s")


if __name__ == "__main__":
    main()
