"""mrtr's CPU time following a 10-second task, minus that of a one-round call (issue 28).

    python benchmarks/task_cpu.py [--repeat N] [--seconds S]

The server is tests/servers/task_server.py over Streamable HTTP (written from the tasks extension's
specification). The task is its `slow` tool, working S seconds (default 10); the one-round call is the
same tool with `--no-tasks`, answered at once. What is measured is the user + system CPU time of the
mrtr process alone (os.wait4's rusage of the child), not the wall time: waiting between polls must
cost nothing. Three task rows: polled (the server refuses the task's subscriptions/listen stream,
`listen=refuse`) at a suggested poll every second (the budget: under 0.1 s more than the one-round call)
and every 100 ms (the floor mrtr holds a suggestion to: 10x the polls, shown for scale); then followed by
its notifications/tasks (the server acknowledges the stream; it suggests 100 ms, which mrtr no longer
polls at: one tasks/get to catch up, then the 10 s backstop). Then the demo's `deploy_service` (`mrtr
demo-server --http`: works three seconds at pollIntervalMs 500, asks for approval, completes), as a task
followed by notifications, as a task polled (`--poll-interval 0.5`, which opens no stream) and, for the
difference, with `--no-tasks` (the approval an input_required round).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PY = sys.executable
TASK_SERVER = [PY, str(ROOT / "tests" / "servers" / "task_server.py"), "http", "0"]
DEMO_SERVER = [PY, "-m", "mrtr_cli", "demo-server", "--http", "127.0.0.1:0"]
BUDGET = 0.1
ENV = {**os.environ, "NO_COLOR": "1"}


def cpu_seconds(argv: list[str]) -> float:
    """User + system CPU time of one run of `argv` (the child alone), which must succeed."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=ENV)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed ({os.waitstatus_to_exitcode(status)}): {' '.join(argv)}")
    return usage.ru_utime + usage.ru_stime


def started_server(argv: list[str]) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert server.stderr is not None
    line = server.stderr.readline()
    if "listening on" not in line:
        server.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return server, line.split()[-1]


def sampled(variants: dict[str, list[str]], repeat: int) -> dict[str, float]:
    """The median CPU time of each variant, run in turn (a noisy moment touches every variant alike)."""
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeat):
        for name, argv in variants.items():
            samples[name].append(cpu_seconds(argv))
    return {name: statistics.median(values) for name, values in samples.items()}


def demo_medians(repeat: int) -> dict[str, float]:
    server, url = started_server(DEMO_SERVER)
    mrtr = [PY, "-m", "mrtr_cli", "call", "deploy_service", "--url", url, "--no-input", "--answer",
            "approve.approve=true"]
    try:
        return sampled({"demo deploy_service, --no-tasks": [*mrtr, "--no-tasks"],
                        "demo deploy_service as a task, polled every 0.5 s": [*mrtr, "--poll-interval", "0.5"],
                        "demo deploy_service as a task, by notifications": mrtr}, repeat)
    finally:
        server.terminate()
        server.wait(timeout=10)


def medians(url: str, seconds: float, repeat: int) -> dict[str, float]:
    mrtr = [PY, "-m", "mrtr_cli", "call", "slow", "--url", url, "--no-input", "--timeout", "30"]
    variants = {"one-round call (--no-tasks)": [*mrtr, "--no-tasks", "-a", "seconds=0"],
                f"{seconds:g} s task, polled every 1 s": [*mrtr, "-a", f"seconds={seconds}", "-a", "poll_ms=1000",
                                                          "-a", "listen=refuse"],
                f"{seconds:g} s task, polled every 0.1 s": [*mrtr, "-a", f"seconds={seconds}", "-a", "poll_ms=100",
                                                            "-a", "listen=refuse"],
                f"{seconds:g} s task, by notifications": [*mrtr, "-a", f"seconds={seconds}", "-a", "poll_ms=100"]}
    return sampled(variants, repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0)
    options = parser.parse_args()
    server, url = started_server(TASK_SERVER)
    try:
        found = medians(url, options.seconds, options.repeat)
    finally:
        server.terminate()
        server.wait(timeout=10)
    demo = demo_medians(options.repeat)
    base = found.pop("one-round call (--no-tasks)")
    print(f"| case | mrtr CPU (user+sys), median of {options.repeat} | minus one-round call |")
    print("|---|---|---|")
    print(f"| one-round call (--no-tasks) | {base * 1000:.0f} ms | |")
    for name, value in found.items():
        print(f"| {name} | {value * 1000:.0f} ms | {(value - base) * 1000:+.0f} ms |")
    plain = demo.pop("demo deploy_service, --no-tasks")
    print(f"| demo deploy_service, --no-tasks | {plain * 1000:.0f} ms | |")
    for name, task in demo.items():
        print(f"| {name} | {task * 1000:.0f} ms | {(task - plain) * 1000:+.0f} ms (minus --no-tasks) |")
    budgeted = next(iter(found.values())) - base
    verdict = "met" if budgeted < BUDGET else "MISSED"
    print(f"\nbudget: following the task costs under {BUDGET * 1000:.0f} ms of CPU more than the one-round call "
          f"(polled every 1 s): {budgeted * 1000:+.0f} ms, {verdict}")
    sys.exit(0 if budgeted < BUDGET else 1)


if __name__ == "__main__":
    main()
