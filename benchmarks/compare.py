"""Two checkouts of mrtr side by side, in CPU time: did a change make mrtr slower?

    python benchmarks/compare.py OTHER_CHECKOUT [--repeat N]

Runs the same cases with this checkout's mrtr and OTHER_CHECKOUT's, alternating, and prints the
medians of the CPU time (user + system) each run cost mrtr's process and its children. CPU time,
unlike wall time, hardly moves when other jobs share the machine, so a busy machine still gives an
answer; the spread (lowest to highest of each checkout's runs) says how far to trust it.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = sys.executable
SERVER = f"{PY} {HERE / 'server.py'}"


def cases() -> dict[str, list[str]]:
    call = ["call", "ask", "--answer", "step.ok=true", "--max-rounds", "1000", "--stdio", SERVER]
    return {
        "mrtr --help": ["--help"],
        "mrtr call --help": ["call", "--help"],
        "stdio call, 1 round": [*call[:2], "--args", '{"n": 1}', *call[2:]],
        "stdio call, 200 rounds": [*call[:2], "--args", '{"n": 200}', *call[2:]],
        "demo call, 4 rounds": ["call", "book_table", "--demo", "--answers", "examples/book_table.yaml"],
    }


def cpu_seconds(checkout: Path, args: list[str]) -> float:
    """CPU time (user + system) of one `python -m mrtr_cli ARGS` in `checkout`, children included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([PY, "-m", "mrtr_cli", *args], cwd=checkout, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, env={**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(checkout)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}) in {checkout}: mrtr {' '.join(args)}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the other checkout (e.g. a git worktree of the base commit)")
    parser.add_argument("--repeat", type=int, default=9)
    options = parser.parse_args()
    here, other = HERE.parent, options.other.resolve()
    print(f"| case | {other.name} (ms CPU) | {here.name} (ms CPU) | ratio |")
    print("|---|---|---|---|")
    for name, args in cases().items():
        samples: dict[Path, list[float]] = {other: [], here: []}
        for _ in range(options.repeat):
            for checkout in (other, here):
                samples[checkout].append(cpu_seconds(checkout, args) * 1000)
        medians = {checkout: statistics.median(values) for checkout, values in samples.items()}
        spread = {checkout: f"{min(values):.0f}-{max(values):.0f}" for checkout, values in samples.items()}
        print(f"| {name} | {medians[other]:.0f} ({spread[other]}) | {medians[here]:.0f} ({spread[here]}) | "
              f"{medians[here] / medians[other]:.2f}x |")


if __name__ == "__main__":
    main()
