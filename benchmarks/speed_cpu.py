"""Issue 16, per round and start-up: mrtr against its baselines in paired, alternating runs.

    python benchmarks/speed_cpu.py [--repeat N] [--case startup|stdio|answers|http]... [--python PYTHON]

Each case runs its variants in turn (the order flips every repeat), so a busy moment of a shared
machine falls on both; the rows give medians and the ratios of medians. The cost per round is
(time of 2000 rounds - time of 1 round) / 1999, for mrtr and for the bare client alike.

Where Linux lets a process choose its CPUs, each stdio run puts the client on one CPU and the
server on another: left to the scheduler, a run of the same code took 0.23 s or 0.6-0.8 s by
where the two processes landed (docs/performance.md), and the medians read whichever mode came.
The cost per round is also measured with both on one CPU, where nothing overlaps.
Runs keep Python's bytecode cache (PYTHONDONTWRITEBYTECODE is dropped), as an installed mrtr has it.
Every command runs with one interpreter, this file's own (`--python PYTHON` runs the benchmark again
under PYTHON), and mrtr is run as a user runs it: the `mrtr` script installed beside that interpreter.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

HERE = Path(__file__).resolve().parent
PY = sys.executable
SERVER = [PY, str(HERE / "server.py")]
SCRIPT = Path(PY).with_name("mrtr")
MRTR = [str(SCRIPT)] if SCRIPT.is_file() else [PY, "-m", "mrtr_cli"]
"""The console script, as a user runs mrtr: `python -m mrtr_cli` from this checkout (the runs' working
directory) would import the checkout's mrtr_cli whatever is installed."""
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "NO_COLOR": "1"}

Budget = tuple[str, float, float]
Sample = TypeVar("Sample")

CPUS = sorted(os.sched_getaffinity(0))[:2] if hasattr(os, "sched_getaffinity") and hasattr(os, "sched_setaffinity") \
    else []
"""The CPUs a stdio run's client and server are put on (none where the platform cannot). Two logical
CPUs may be threads of one core; on the 2-vCPU machines here they are what there is."""
APART = (CPUS[0], CPUS[1]) if len(CPUS) == 2 else None
ONE_CORE = (CPUS[0], CPUS[0]) if CPUS else None


def seconds(argv: list[str], placement: tuple[int, int] | None = None) -> float:
    """Wall time of one run, the client and the server on the CPUs of `placement` (client, server)
    when given; a failed run stops the benchmark."""
    env, pin = ENV, None
    if placement is not None:
        env = {**ENV, "MRTR_BENCH_SERVER_CPU": str(placement[1])}  # benchmarks/server.py moves itself there
        pin = functools.partial(os.sched_setaffinity, 0, {placement[0]})  # the client, before it starts
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=HERE.parent,
                          env=env, preexec_fn=pin)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stderr[-2000:]}")
    return took


def in_turn(variants: dict[str, list[str]], repeat: int, run: Callable[[list[str]], Sample]) -> dict[str, list[Sample]]:
    """`run` of each variant `repeat` times, after one warm-up run each. The variants take turns, the order
    flipping every turn, so a busy moment of the machine falls on all of them."""
    for argv in variants.values():
        run(argv)
    samples: dict[str, list[Sample]] = {name: [] for name in variants}
    for turn in range(repeat):
        for name in list(variants) if turn % 2 == 0 else list(reversed(variants)):
            samples[name].append(run(variants[name]))
    return samples


def paired(variants: dict[str, list[str]], repeat: int, placement: tuple[int, int] | None = None) -> dict[str, float]:
    """Median seconds of each variant, run in turn (`in_turn`)."""
    samples = in_turn(variants, repeat, functools.partial(seconds, placement=placement))
    return {name: statistics.median(values) for name, values in samples.items()}


def mrtr_ask(target: list[str], rounds: int, answers: list[str] | None = None) -> list[str]:
    """mrtr's call of the `ask` tool, answered by `answers` (default: an --answer flag)."""
    return [*MRTR, "call", "ask", "--args", f'{{"n": {rounds}}}', *(answers or ["--answer", "step.ok=true"]),
            "--max-rounds", "3000", "--timeout", "120", *target]


ANSWERS = ["--answers", str(HERE / "answers.yaml")]
"""The answers file of the rows "with --answers FILE": the benchmark server's one question, answered."""


def bare_ask(client: str, target: str, rounds: int) -> list[str]:
    return [PY, str(HERE / client), target, "ask", str(rounds)]


def row(name: str, medians: dict[str, float], base: str) -> str:
    cells = " · ".join(f"{label} {value * 1000:.1f} ms" for label, value in medians.items())
    ratios = " · ".join(f"{label}/{base} {value / medians[base]:.2f}x" for label, value in medians.items()
                        if label != base)
    return f"| {name} | {cells} | {ratios} |"


def start_up(repeat: int) -> tuple[list[str], list[Budget]]:
    medians = paired({"python": [PY, "-c", "pass"], "help": [*MRTR, "--help"],
                      "call-help": [*MRTR, "call", "--help"]}, repeat)
    budgets = [("mrtr --help ≤ 4x python -c pass", medians["help"] / medians["python"], 4.0),
               ("mrtr call --help ≤ 4x python -c pass", medians["call-help"] / medians["python"], 4.0)]
    return [row("start-up: python -c pass, mrtr --help, mrtr call --help", medians, "python")], budgets


def stdio_rounds(repeat: int) -> tuple[list[str], list[Budget]]:
    where = "client and server on CPUs of their own" if APART else "CPUs as the scheduler chose"
    lines, budgets, runs = [], [], {}
    for rounds, limit in ((1, 1.5), (200, 1.8), (2000, None)):
        runs[rounds] = ask_pair(rounds, repeat, APART)
        lines.append(row(f"stdio call, {rounds} round{'s' if rounds > 1 else ''} ({where})", runs[rounds], "bare"))
        if limit is not None:
            budgets.append((f"stdio {rounds} round{'s' if rounds > 1 else ''}: mrtr ≤ {limit}x bare",
                            runs[rounds]["mrtr"] / runs[rounds]["bare"], limit))
    per = per_round(runs[1], runs[2000])
    lines.append(per_round_row(f"stdio cost per round (2000 rounds - 1) / 1999 ({where})", per))
    budgets.append(("stdio per round at 2000 rounds: mrtr ≤ 3x bare", per["mrtr"] / per["bare"], 3.0))
    if APART:  # on a machine of one CPU, the runs above were on one already
        lines.append(per_round_row("stdio cost per round, client and server on one CPU (nothing overlaps)",
                                   per_round(ask_pair(1, repeat, ONE_CORE), ask_pair(2000, repeat, ONE_CORE))))
    return lines, budgets


def stdio_with_answers_file(repeat: int) -> tuple[list[str], list[Budget]]:
    """Answered from an answers file, as CI runs it: a well-formed file is checked without jsonschema."""
    where = "client and server on CPUs of their own" if APART else "CPUs as the scheduler chose"
    lines, budgets = [], []
    for rounds, limit in ((1, 1.5), (200, 1.8)):
        medians = paired({"bare": bare_ask("bare_client.py", "stdio", rounds),
                          "mrtr": mrtr_ask(["--stdio", " ".join(SERVER)], rounds, ANSWERS)}, repeat, APART)
        lines.append(row(f"stdio call, {rounds_named(rounds)}, with --answers FILE ({where})", medians, "bare"))
        budgets.append((f"stdio {rounds_named(rounds)} with --answers FILE: mrtr ≤ {limit}x bare",
                        medians["mrtr"] / medians["bare"], limit))
    return lines, budgets


def rounds_named(rounds: int) -> str:
    return f"{rounds} round{'s' if rounds > 1 else ''}"


def ask_pair(rounds: int, tries: int, placement: tuple[int, int] | None) -> dict[str, float]:
    return paired({"bare": bare_ask("bare_client.py", "stdio", rounds),
                   "mrtr": mrtr_ask(["--stdio", " ".join(SERVER)], rounds)}, tries, placement)


def per_round(one: dict[str, float], many: dict[str, float]) -> dict[str, float]:
    return {name: (many[name] - one[name]) / 1999 for name in ("bare", "mrtr")}


def per_round_row(name: str, per: dict[str, float]) -> str:
    return (f"| {name} | bare {per['bare'] * 1000:.3f} ms · mrtr {per['mrtr'] * 1000:.3f} ms | "
            f"mrtr/bare {per['mrtr'] / per['bare']:.2f}x |")


def http_round(repeat: int) -> tuple[list[str], list[Budget]]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([*SERVER, "--http", str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        url = f"http://127.0.0.1:{port}/mcp"
        medians = paired({"httpx": bare_ask("bare_httpx_client.py", url, 1), "mrtr": mrtr_ask(["--url", url], 1),
                          "mrtr --answers": mrtr_ask(["--url", url], 1, ANSWERS)}, repeat)
    finally:
        server.terminate()
        server.wait()
    return ([row("HTTP call, 1 round, vs a bare httpx client (mrtr with --answer, then with --answers FILE)",
                 medians, "httpx")],
            [("HTTP 1 round: mrtr ≤ 1.5x bare httpx", medians["mrtr"] / medians["httpx"], 1.5),
             ("HTTP 1 round with --answers FILE: mrtr ≤ 1.5x bare httpx",
              medians["mrtr --answers"] / medians["httpx"], 1.5)])


INSTALLATION = """
import importlib.metadata, importlib.util, json, platform, sys
try:
    direct = json.loads(importlib.metadata.distribution("mrtr").read_text("direct_url.json") or "{}")
except importlib.metadata.PackageNotFoundError:
    direct = None
found = importlib.util.find_spec("mrtr_cli")
print(json.dumps({"version": platform.python_version(), "package": found.origin if found else None,
                  "editable": None if direct is None else direct.get("dir_info", {}).get("editable", False)}))
"""
"""Run by PY outside this checkout: its Python, where it finds mrtr_cli, and whether mrtr is installed editable."""


def installation() -> str:
    """The line of a report that says which interpreter ran every command and how mrtr is installed in it: an
    editable install slows every process of the interpreter (`python -c pass` and the bare clients too), so
    the ratios read kinder than a user's install would."""
    done = subprocess.run([PY, "-c", INSTALLATION], capture_output=True, text=True, env=ENV, check=True,
                          cwd=os.path.dirname(PY))
    found = json.loads(done.stdout)
    package = os.path.dirname(found["package"]) if found["package"] else "nowhere"
    kind = {None: "not installed as a distribution", True: "EDITABLE install (ratios read kinder)",
            False: "installed, not editable"}[found["editable"]]
    return f"interpreter: {PY} (Python {found['version']}); mrtr: {kind}, mrtr_cli in {package}; run as {' '.join(MRTR)}"


def run_under(python: str | None) -> None:
    """Start this benchmark again under `python` (never returns), unless it already runs under it: every
    command of a run uses the benchmark's own interpreter."""
    if python and os.path.abspath(python) != PY:
        os.execv(python, [python, *sys.argv])


CASES = {"startup": start_up, "stdio": stdio_rounds, "answers": stdio_with_answers_file, "http": http_round}


def add_rows(lines: list[str], budgets: list[Budget], repeat: int, cases: list[str] | None = None) -> None:
    """The rows and budgets of this file (of `cases`, or all), added to benchmarks/run.py's tables."""
    for name in cases or list(CASES):
        more_lines, more_budgets = CASES[name](repeat)
        lines.extend(more_lines)
        budgets.extend(more_budgets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--case", action="append", choices=list(CASES), help="only these cases (default: all)")
    parser.add_argument("--python", help="the interpreter to run every command with (mrtr installed in it)")
    arguments = parser.parse_args()
    run_under(arguments.python)
    print(installation())
    lines: list[str] = []
    budgets: list[Budget] = []
    add_rows(lines, budgets, arguments.repeat, arguments.case)
    print("| case | medians | ratios |\n|---|---|---|")
    print("\n".join(lines))
    print("\n| budget | measured | within |\n|---|---|---|")
    for name, value, limit in budgets:
        print(f"| {name} | {value:.2f}x | {'yes' if value <= limit else 'NO'} |")


if __name__ == "__main__":
    main()
