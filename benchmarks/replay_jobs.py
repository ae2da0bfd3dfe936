"""`mrtr replay recordings/*.yaml --repeat 160 --demo` with `-j 2` against `-j 1` (issue 27).

    python benchmarks/replay_jobs.py [--repeat N] [--python PYTHON] [--runs K]

Each mrtr replays the ten recordings K times (1600 conversations at K = 160): `-j 1` in its own
process, one demo server for them all; `-j 2` in two worker processes, a demo server each. The two
take turns (after one warm-up run each); the budget, on a machine with 2 CPUs: `-j 2` at least
1.4x as fast as `-j 1` (paired medians). Not in run.py: a pair takes about a minute and a half.
"""

from __future__ import annotations

import argparse
import os

import speed_cpu
from run import HERE, MRTR, measure_paired, report

BUDGET = 1.4
RECORDINGS = sorted(str(path) for path in (HERE.parent / "recordings").glob("*.yaml"))


def rows(repeat: int, runs: int = 160) -> tuple[list[str], list[tuple[str, float, float]]]:
    replay = [*MRTR, "replay", *RECORDINGS, "--repeat", str(runs), "--demo"]
    measured = measure_paired({"j1": [*replay, "-j", "1"], "j2": [*replay, "-j", "2"]}, repeat)
    one, two = measured["j1"].seconds, measured["j2"].seconds
    count = runs * len(RECORDINGS)
    line = (f"| replay {len(RECORDINGS)} recordings --repeat {runs} --demo ({count} conversations), "
            f"{os.cpu_count()} CPUs | -j 1 {one:.2f} s ({count / one:.0f}/s) · -j 2 {two:.2f} s ({count / two:.0f}/s) "
            f"| j1/j2 {one / two:.2f}x |")
    return [line], [(f"replay -j 2 ≥ {BUDGET}x as fast as -j 1 (shown as j2/j1 ≤ {1 / BUDGET:.3f})", two / one,
                     1 / BUDGET)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3, help="pairs of runs (after one warm-up run each)")
    parser.add_argument("--runs", type=int, default=160, help="--repeat K of each mrtr replay")
    parser.add_argument("--python", help="the interpreter to run every command with (mrtr installed in it)")
    arguments = parser.parse_args()
    speed_cpu.run_under(arguments.python)
    report(*rows(arguments.repeat, arguments.runs))


if __name__ == "__main__":
    main()
