"""Instructions per round and per one-round call, counted by valgrind's callgrind: the same count on
every run, where wall time on a shared machine moves by half (docs/performance.md).

    python benchmarks/round_instructions.py      # needs valgrind (apt-get install valgrind); about 2 min

Each process is counted alone (the server it spawns is not): mrtr's `call ask` and the bare client,
over stdio with benchmarks/server.py. A round costs (instructions of 401 rounds - of 1 round) / 400.
Bytecode is cached first, as an installed mrtr has it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = sys.executable
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "NO_COLOR": "1"}
ROUNDS = 401


def mrtr(rounds: int) -> list[str]:
    return [PY, "-m", "mrtr_cli", "call", "ask", "--args", f'{{"n": {rounds}}}', "--answer", "step.ok=true",
            "--max-rounds", str(ROUNDS + 1), "--timeout", "600", "--stdio", f"{PY} {HERE / 'server.py'}"]


def bare(rounds: int) -> list[str]:
    return [PY, str(HERE / "bare_client.py"), "stdio", "ask", str(rounds)]


def instructions(argv: list[str]) -> int:
    """The instructions `argv`'s own process ran, its children not counted."""
    subprocess.run(argv, cwd=HERE.parent, env=ENV, stdin=subprocess.DEVNULL, capture_output=True, check=True)
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv], cwd=HERE.parent,
                          env=ENV, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no count for {' '.join(argv)}")
    return int(found.group(1))


def main() -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    clients = {"bare": bare, "mrtr": mrtr}
    counts = {name: (instructions(make(1)), instructions(make(ROUNDS))) for name, make in clients.items()}
    per_round = {name: (many - one) / (ROUNDS - 1) for name, (one, many) in counts.items()}
    print("| process | one-round call | a round |\n|---|---|---|")
    for name, (one, _) in counts.items():
        print(f"| {name} | {one / 1e6:.0f} million | {per_round[name] / 1e3:.0f} thousand |")
    print(f"| mrtr/bare | {counts['mrtr'][0] / counts['bare'][0]:.2f}x | {per_round['mrtr'] / per_round['bare']:.2f}x |")


if __name__ == "__main__":
    main()
