"""Hostile input stays bounded: each case must stop within the limit and peak under 200 MB.

    python benchmarks/bounds.py [--rounds N] [--repeat N]

Cases: an endless stdio line, an endless HTTP body, a gzip bomb, a billion-laughs transcript
(each must end with a clear error, not memory exhaustion), and `mrtr show` of a transcript of
100 000 rounds against libyaml alone loading the same file (budget: 3x).
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
PY = sys.executable
MRTR = [PY, str(HERE / "peak.py"), "-m", "mrtr_cli"]
HOSTILE = [PY, str(HERE / "hostile_server.py")]
PEAK_BUDGET = 200 * 1024 * 1024
SHOW_BUDGET = 3.0
ROUNDS = 100_000

BILLION_LAUGHS = """mrtr_transcript: 1
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def run_mrtr(*args: str) -> tuple[int, float, int, str]:
    """Exit code, seconds, peak RSS in bytes and the last stderr line of one mrtr run."""
    started = time.perf_counter()
    done = subprocess.run([*MRTR, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          cwd=HERE.parent, env={**os.environ, "NO_COLOR": "1"}, timeout=300)
    seconds = time.perf_counter() - started
    lines = done.stderr.strip().splitlines()
    peak = int(lines[-1].split()[-1])
    message = lines[-2] if len(lines) > 1 else ""
    return done.returncode, seconds, peak, message


class HttpFault:
    """A hostile HTTP server of hostile_server.py, on an ephemeral port."""

    def __init__(self, fault: str) -> None:
        self.fault = fault

    def __enter__(self) -> str:
        self.process = subprocess.Popen([*HOSTILE, "http", self.fault], stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)  # resets by mrtr are expected
        assert self.process.stdout is not None
        port = self.process.stdout.readline().split()[1]
        return f"http://127.0.0.1:{port}/mcp"

    def __exit__(self, *exc: object) -> None:
        self.process.kill()
        self.process.wait()


def bounded_cases(folder: Path) -> list[tuple[str, tuple[int, float, int, str]]]:
    laughs = folder / "laughs.yaml"
    laughs.write_text(BILLION_LAUGHS)
    results = [("endless stdio line", run_mrtr("call", "x", "--timeout", "120", "--", *HOSTILE, "endless-line"))]
    for fault in ("endless-body", "gzip-bomb"):
        with HttpFault(fault) as url:
            results.append((fault.replace("-", " "), run_mrtr("call", "x", "--timeout", "120", "--url", url)))
    results.append(("billion laughs (show)", run_mrtr("show", str(laughs))))
    return results


def big_transcript(path: Path, rounds: int) -> None:
    """A valid transcript of ROUNDS state-only rounds, written as mrtr writes one."""
    head = (HERE.parent / "recordings" / "poll_status.yaml").read_text().split("rounds:\n")[0]
    state = "eyJwb2xscyI6MX0.c2lnbmF0dXJl" * 4
    with path.open("w") as out:
        out.write(head + "rounds:\n")
        for number in range(1, rounds + 1):
            out.write(f"- round: {number}\n  id: {number + 1}\n  sent:\n    params:\n      name: poll_status\n"
                      f"      arguments: {{}}\n      requestState: {state}\n  received:\n    result:\n"
                      f"      resultType: input_required\n      requestState: {state}\n"
                      f"  elapsed_ms: 0.5\n  answers: {{}}\n  findings: []\n")
        out.write("outcome: aborted\nerror: {kind: interrupted, message: interrupted by the user}\n")


def show_against_libyaml(folder: Path, rounds: int, repeat: int) -> tuple[float, float]:
    path = folder / "big.yaml"
    big_transcript(path, rounds)
    load = [PY, "-c", "import sys, yaml; yaml.load(open(sys.argv[1]), Loader=yaml.CSafeLoader)", str(path)]
    show = [PY, "-m", "mrtr_cli", "show", str(path)]
    times: dict[str, list[float]] = {"libyaml": [], "show": []}
    for _ in range(repeat):
        for name, argv in (("libyaml", load), ("show", show)):
            started = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=HERE.parent, check=False)
            times[name].append(time.perf_counter() - started)
    return statistics.median(times["libyaml"]), statistics.median(times["show"])


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--rounds", type=int, default=ROUNDS, help="rounds of the big transcript")
    arguments.add_argument("--repeat", type=int, default=1, help="runs of show and of libyaml, alternated")
    options = arguments.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'case':24} {'exit':>4} {'seconds':>8} {'peak MB':>8}  message")
        for name, (code, seconds, peak, message) in bounded_cases(Path(folder)):
            within = code in (1, 2) and peak < PEAK_BUDGET
            ok &= within
            print(f"{name:24} {code:>4} {seconds:>8.2f} {peak / 2**20:>8.1f}  {message[:90]}"
                  f"{'' if within else '  <- over budget'}")
        libyaml, show = show_against_libyaml(Path(folder), options.rounds, options.repeat)
        ratio = show / libyaml
        ok &= ratio <= SHOW_BUDGET
        print(f"show of {options.rounds} rounds: {show:.2f} s; libyaml load alone: {libyaml:.2f} s; "
              f"ratio {ratio:.2f}x (budget {SHOW_BUDGET}x)")
    print("all within budget" if ok else "OVER BUDGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
