"""Instructions per round and per one-round call, counted by valgrind's callgrind: the same count on
every run, where wall time on a shared machine moves by half (docs/performance.md).

    python benchmarks/round_instructions.py      # needs valgrind (apt-get install valgrind); about 1 min

Each process is counted, and the server it spawns apart from it: mrtr's `call ask` and the bare client,
over stdio with benchmarks/server.py. A round costs (instructions of 401 rounds - of 1 round) / 400.
A round's work with its server's is what one CPU runs for it when nothing overlaps: the counted
reading of the cost per round (benchmarks/speed_cpu.py times it). Bytecode is cached first, as an
installed mrtr has it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from speed_cpu import ENV, HERE, SERVER, bare_ask, mrtr_ask

ROUNDS = 401


def mrtr(rounds: int) -> list[str]:
    return mrtr_ask(["--era-probe-wait", "600", "--stdio", " ".join(SERVER)], rounds)  # a server under valgrind is slow


def bare(rounds: int) -> list[str]:
    return bare_ask("bare_client.py", "stdio", rounds)


def instructions(argv: list[str]) -> tuple[int, int]:
    """The instructions `argv`'s own process ran, and those of the processes it started (the server)."""
    with tempfile.TemporaryDirectory() as logs:  # a log a process: mrtr keeps its server's stderr to itself
        valgrind = ["valgrind", "--tool=callgrind", "--trace-children=yes", "--callgrind-out-file=/dev/null",
                    f"--log-file={logs}/%p"]
        started = subprocess.Popen([*valgrind, *argv], cwd=HERE.parent, env=ENV, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, errors = started.communicate()
        texts = {int(log.name): log.read_text() for log in Path(logs).iterdir()}
    if started.returncode != 0 or started.pid not in texts:
        raise SystemExit(f"failed under valgrind ({started.returncode}): {' '.join(argv)}\n{errors[-2000:]}")
    counts = {pid: _collected(pid, text) for pid, text in texts.items()}
    own = counts.pop(started.pid)
    return own, sum(counts.values())


def _collected(pid: int, log: str) -> int:
    """The count in process `pid`'s log; a process killed before it ended (mrtr stops a server that
    does not exit within 2 s of its stdin closing) writes none."""
    found = re.search(r"Collected : (\d+)", log)
    if found is None:
        raise SystemExit(f"callgrind wrote no count for process {pid}; its log ends:\n{log[-2000:]}")
    return int(found.group(1))


def main() -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    clients = {"bare": bare, "mrtr": mrtr}
    for make in clients.values():  # bytecode cached, as an installed mrtr has it
        subprocess.run(make(1), cwd=HERE.parent, env=ENV, stdin=subprocess.DEVNULL, capture_output=True, check=True)
    counts = {name: (instructions(make(1)), instructions(make(ROUNDS))) for name, make in clients.items()}
    own = {name: (many[0] - one[0]) / (ROUNDS - 1) for name, (one, many) in counts.items()}
    served = {name: (many[1] - one[1]) / (ROUNDS - 1) for name, (one, many) in counts.items()}
    total = {name: own[name] + served[name] for name in clients}
    print("| process | one-round call | a round | its server's, a round | a round with its server's |")
    print("|---|---|---|---|---|")
    for name, (one, _) in counts.items():
        print(f"| {name} | {one[0] / 1e6:.0f} million | {own[name] / 1e3:.0f} thousand | "
              f"{served[name] / 1e3:.0f} thousand | {total[name] / 1e3:.0f} thousand |")
    print(f"| mrtr/bare | {counts['mrtr'][0][0] / counts['bare'][0][0]:.2f}x | {own['mrtr'] / own['bare']:.2f}x | "
          f"{served['mrtr'] / served['bare']:.2f}x | {total['mrtr'] / total['bare']:.2f}x |")


if __name__ == "__main__":
    main()
