"""mrtr against its baselines, side by side in one run: medians, ratios, and the budgets.

    python benchmarks/run.py [--repeat N] [--python PYTHON | --installed]

Machines here are shared and noisy: only ratios taken in the same run mean anything. Every command runs with
one interpreter (this file's, or PYTHON: the benchmark starts again under it), mrtr as the `mrtr` script
installed beside it; the report's first lines say which interpreter and which install (editable or not).
`--installed` measures mrtr as a user installs it: it installs this checkout, not editable (`pip install
'.[test]'`, mrtr itself again on every run), into a venv of its own (INSTALLED_VENV), and runs there.
The report ends with the imports a one-round stdio call pays for, grouped, and why (benchmarks/imports.py).
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import imports
import speed_cpu

HERE = Path(__file__).resolve().parent
PY = speed_cpu.PY
SERVER = [PY, str(HERE / "server.py")]
MRTR = speed_cpu.MRTR
BIG = 20_000_000
INSTALLED_VENV = Path(tempfile.gettempdir()) / "mrtr-bench-installed"
"""Where `--installed` keeps its venv: made once, its dependencies kept, mrtr installed again on every run."""


@dataclass
class Measure:
    seconds: float
    peak: int | None = None


def once(argv: list[str], peak: bool = False) -> Measure:
    command = [PY, str(HERE / "peak.py"), *(argv[1:] if argv[0] == PY else argv)] if peak else argv
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          cwd=HERE.parent, env=speed_cpu.ENV)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stderr[-2000:]}")
    size = int(done.stderr.strip().splitlines()[-1].split()[-1]) if peak else None
    return Measure(seconds, size)


def measure(argv: list[str], repeat: int, peak: bool = False) -> Measure:
    once(argv, peak)  # warm the caches
    return summed_up([once(argv, peak) for _ in range(repeat)])


def measure_paired(variants: dict[str, list[str]], repeat: int, peak: bool = False) -> dict[str, Measure]:
    """Each variant `repeat` times, in turn (speed_cpu.in_turn)."""
    samples = speed_cpu.in_turn(variants, repeat, functools.partial(once, peak=peak))
    return {label: summed_up(runs) for label, runs in samples.items()}


def summed_up(samples: list[Measure]) -> Measure:
    """The median time and the largest peak."""
    peaks = [s.peak for s in samples if s.peak is not None]
    return Measure(statistics.median(s.seconds for s in samples), max(peaks) if peaks else None)


def mrtr_call(target: list[str], tool: str, value: int) -> list[str]:
    key = "n" if tool == "ask" else "size"
    return [*MRTR, "call", tool, "--args", f'{{"{key}": {value}}}', "--answer", "step.ok=true",
            "--max-rounds", "1000", "--timeout", "120", *target]


def clients(target: str, mrtr_target: list[str], tool: str, value: int) -> dict[str, list[str]]:
    return {"bare": [PY, str(HERE / "bare_client.py"), target, tool, str(value)],
            "mrtr": mrtr_call(mrtr_target, tool, value),
            "sdk": [PY, str(HERE / "sdk_client.py"), target, tool, str(value)]}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class HttpServer:
    def __enter__(self) -> str:
        port = free_port()
        self.process = subprocess.Popen([*SERVER, "--http", str(port)], stdout=subprocess.PIPE, text=True)
        assert self.process.stdout and self.process.stdout.readline().strip() == "ready"
        return f"http://127.0.0.1:{port}/mcp"

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait()


def row(name: str, results: dict[str, Measure], base: str = "bare") -> str:
    cells = [f"{label} {m.seconds * 1000:8.1f} ms" + (f" {m.peak / 1e6:6.1f} MB" if m.peak else "")
             for label, m in results.items()]
    ratios = [f"{label}/{base} {m.seconds / results[base].seconds:5.2f}x" for label, m in results.items() if label != base]
    return f"| {name} | {' | '.join(cells)} | {' · '.join(ratios)} |"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--python", help="the interpreter to run every command with (mrtr installed in it)")
    parser.add_argument("--installed", action="store_true",
                        help="install this checkout, not editable, into a venv of its own, and measure that")
    arguments = parser.parse_args()
    if arguments.installed and arguments.python:
        parser.error("--installed makes its own interpreter: give --python or --installed, not both")
    installing = arguments.installed and Path(PY) != INSTALLED_VENV / "bin" / "python"  # not yet started again there
    speed_cpu.run_under(installed_python() if installing else arguments.python)
    repeat = arguments.repeat
    lines, budgets = [], []
    stdio = ["--stdio", " ".join(SERVER)]

    start = measure_paired({"python": [PY, "-c", "pass"], "version": [*MRTR, "--version"], "help": [*MRTR, "--help"]},
                           repeat * 2)
    lines.append(row("start-up: python -c pass, mrtr --version, mrtr --help", start, "python"))
    budgets.append(("mrtr --version ≤ 8x python -c pass", start["version"].seconds / start["python"].seconds, 8.0))

    for n in (1, 200):
        results = measure_paired(clients("stdio", stdio, "ask", n), repeat if n == 1 else max(2, repeat // 2))
        lines.append(row(f"stdio call, {n} round{'s' if n > 1 else ''} of questions", results))
        budgets.append((f"stdio {n} round{'s' if n > 1 else ''}: mrtr ≤ {2.5 if n == 1 else 3.0}x bare",
                        results["mrtr"].seconds / results["bare"].seconds, 2.5 if n == 1 else 3.0))

    with HttpServer() as url:
        for n in (1, 200):
            results = measure_paired(clients(url, ["--url", url], "ask", n), repeat if n == 1 else max(2, repeat // 2))
            lines.append(row(f"HTTP call, {n} round{'s' if n > 1 else ''} of questions", results))
        big_http = measure_paired({label: argv for label, argv in clients(url, ["--url", url], "big", BIG).items()
                                   if label != "sdk"}, repeat, peak=True)
        lines.append(row("HTTP (SSE) 20 MB result", big_http))
        replay = replay_rows(url, repeat)
    big_stdio = measure_paired({label: argv for label, argv in clients("stdio", stdio, "big", BIG).items()
                                if label != "sdk"}, repeat, peak=True)
    lines.append(row("stdio 20 MB result", big_stdio))
    for name, big in (("stdio", big_stdio), ("HTTP SSE", big_http)):
        budgets.append((f"{name} 20 MB: mrtr ≤ 2x bare wall time", big["mrtr"].seconds / big["bare"].seconds, 2.0))
        budgets.append((f"{name} 20 MB: mrtr peak memory ≤ 5x the payload", (big["mrtr"].peak or 0) / BIG, 5.0))
    lines.append(replay[0])
    budgets.append(("replay 400 transcripts ≤ 4.4x the time of 100", replay[1], 4.4))
    speed_cpu.add_rows(lines, budgets, max(10, repeat * 2))  # issue 16: per round and start-up, paired
    for module in ("speed_io", "check_time"):  # recording, serving, replaying; check --tool vs one call
        more_lines, more_budgets = __import__(module).rows(repeat)
        lines.extend(more_lines)
        budgets.extend(more_budgets)
    report(lines, budgets)
    print()
    print("\n".join(imports.table(max(5, repeat))))


def installed_python() -> str:
    """The interpreter of INSTALLED_VENV, with this checkout installed in it as `pip install .` installs it
    (a wheel built and copied into site-packages; no import hook of an editable install)."""
    python = INSTALLED_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(INSTALLED_VENV)], check=True)
    checkout = str(HERE.parent)
    for extra in (["--quiet", f"{checkout}[test]"], ["--quiet", "--no-deps", "--force-reinstall", checkout]):
        done = subprocess.run([str(python), "-m", "pip", "install", *extra], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"pip install {' '.join(extra)} failed:\n{done.stderr[-2000:]}")
    return str(python)


def replay_rows(url: str, repeat: int) -> tuple[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        first = Path(folder) / "t.yaml"
        subprocess.run(mrtr_call(["--url", url, "--record", str(first)], "ask", 1), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times = {}
        for count in (100, 400):
            batch = Path(folder) / str(count)
            batch.mkdir()
            for i in range(count):
                shutil.copy(first, batch / f"t{i:03}.yaml")
            times[count] = measure([*MRTR, "replay", *map(str, sorted(batch.glob("*.yaml")))], max(1, repeat // 3))
    per = {c: m.seconds / c * 1000 for c, m in times.items()}
    line = (f"| replay 100 / 400 transcripts | {times[100].seconds:.2f} s / {times[400].seconds:.2f} s | "
            f"{per[100]:.1f} / {per[400]:.1f} ms per transcript · 400/100 {times[400].seconds / times[100].seconds:.2f}x |")
    return line, times[400].seconds / times[100].seconds


def run_alone(rows, default_repeat: int) -> None:
    """The `main` of a benchmark file runnable alone: its rows (`rows(repeat)`) and their report."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=default_repeat)
    parser.add_argument("--python", help="the interpreter to run every command with (mrtr installed in it)")
    arguments = parser.parse_args()
    speed_cpu.run_under(arguments.python)
    report(*rows(arguments.repeat))


def report(lines: list[str], budgets: list[tuple]) -> None:
    """The medians, then each budget: (name, measured, limit), a ratio shown as `1.23x`; or (name,
    measured, limit, unit), shown in that unit (`0.12 ms`)."""
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(speed_cpu.installation())
    print()
    print("| case | medians | ratios |")
    print("|---|---|---|")
    print("\n".join(lines))
    print()
    print("| budget | measured | within |")
    print("|---|---|---|")
    for name, value, limit, *unit in budgets:
        shown = f"{value:.2f} {unit[0]}" if unit else f"{value:.2f}x"
        print(f"| {name} | {shown} | {'yes' if value <= limit else 'NO'} |")


if __name__ == "__main__":
    main()
