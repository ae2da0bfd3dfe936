"""How one transcript replayed: the same as recorded, diverged (each difference), or failed; and,
for `replay --repeat`/`--jobs`, the runs of a transcript folded into one verdict and the run's
figures (round latency percentiles, conversations per second)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from mrtr_cli.exit_codes import ExitCode, decide
from mrtr_cli.transcript.compare import Difference

RESULTS = ("same", "diverged", "failed")
"""A verdict's results, in the order counts name them."""


class Reported(Protocol):
    """What a verdict keeps of an error: its line, and lines worth showing under it."""

    @property
    def details(self) -> Sequence[str]: ...

    def one_line(self) -> str: ...


@dataclass(frozen=True)
class Failure:
    """An error as plain text: what crosses back from a worker process (an MrtrError subclass with
    an __init__ of its own does not unpickle)."""

    line: str
    details: tuple[str, ...] = ()

    def one_line(self) -> str:
        return self.line


@dataclass
class ReplayVerdict:
    """How one transcript replayed."""

    file: str
    code: ExitCode = ExitCode.OK
    differences: list[Difference] = field(default_factory=list)
    error: Reported | None = None
    rounds: int = 0
    unused_flags: list[str] | None = None
    """The answer flags no question of the live run used (None: the run did not get that far)."""
    elapsed: float = 0.0
    """Seconds the replay took, loading the transcript included."""
    cause: Reported | None = None
    """What made a live run diverge, when mrtr knows it: a retry another instance refused
    (`--replica`, `--restart-between-rounds`)."""
    round_ms: list[float] = field(default_factory=list)
    """Each live round's time, request sent to response read (milliseconds)."""
    runs: dict[str, int] | None = None
    """With --repeat: how many runs were the same, diverged or failed (this verdict is one of them)."""
    shown_run: int = 1
    """Which run this verdict is (1: the first)."""
    live: dict[str, Any] | None = None
    """With --har: the live run's transcript document (its exchanges go to the log)."""
    warnings: list[str] = field(default_factory=list)
    """What the replay warns of, shown under its lines: an --ignore path that matched nothing."""

    @property
    def result(self) -> str:
        if self.error is not None and self.code != ExitCode.DIVERGED:
            return "failed"
        return "diverged" if self.differences else "same"

    def as_dict(self) -> dict[str, Any]:
        """The verdict in replay's --json document."""
        shown = {"file": self.file, "result": self.result, "exit_code": int(self.code),
                 "rounds": self.rounds, "differences": [d.as_dict() for d in self.differences],
                 "error": _one_line(self.error or self.cause)}
        if self.runs is not None:
            shown["runs"] = {**self.runs, "shown": self.shown_run}
        return shown

    def portable(self) -> ReplayVerdict:
        """This verdict with its errors as plain text, fit to cross a process boundary."""
        return dataclasses.replace(self, error=_plain(self.error), cause=_plain(self.cause))


def folded(runs: list[ReplayVerdict]) -> ReplayVerdict:
    """The runs of one transcript as one verdict: the first run whose exit code decides theirs,
    with every run's count and their time together."""
    code = decide(run.code for run in runs)
    number, shown = next((n, run) for n, run in enumerate(runs, 1) if run.code == code)
    return dataclasses.replace(shown, runs={"count": len(runs), **result_counts(runs)}, shown_run=number,
                               elapsed=sum(run.elapsed for run in runs))


@dataclass(frozen=True)
class LoadFigures:
    """What `replay --jobs`/`--repeat` measured over every run."""

    jobs: int
    repeat: int
    counts: dict[str, int]
    wall: float
    round_ms: list[float]

    @property
    def conversations(self) -> int:
        return sum(self.counts.values())

    @property
    def per_second(self) -> float:
        return self.conversations / self.wall if self.wall > 0 else 0.0

    def percentiles(self) -> dict[str, float] | None:
        """p50, p95 and p99 of the rounds' times (nearest rank); None without a round."""
        return percentiles(self.round_ms)

    def as_dict(self) -> dict[str, Any]:
        """The figures in replay's --json document (`load`)."""
        return {"jobs": self.jobs, "repeat": self.repeat, "conversations": self.conversations, **self.counts,
                "wall_seconds": round(self.wall, 3), "conversations_per_second": round(self.per_second, 3),
                "rounds": len(self.round_ms), "round_ms": _rounded(self.percentiles())}


def percentiles(values: Sequence[float]) -> dict[str, float] | None:
    """p50, p95 and p99 of `values` (nearest rank); None without a value."""
    ordered = sorted(values)
    if not ordered:
        return None
    return {f"p{q}": ordered[max(math.ceil(q / 100 * len(ordered)), 1) - 1] for q in (50, 95, 99)}


def load_figures(jobs: int, repeat: int, runs: list[ReplayVerdict], wall: float) -> LoadFigures:
    return LoadFigures(jobs, repeat, result_counts(runs), wall, [ms for run in runs for ms in run.round_ms])


def result_counts(runs: list[ReplayVerdict]) -> dict[str, int]:
    """How many of `runs` were the same, diverged or failed."""
    return {result: sum(run.result == result for run in runs) for result in RESULTS}


def _rounded(latency: dict[str, float] | None) -> dict[str, float] | None:
    return {name: round(ms, 3) for name, ms in latency.items()} if latency is not None else None


def _plain(error: Reported | None) -> Failure | None:
    return Failure(error.one_line(), tuple(error.details)) if error is not None else None


def _one_line(error: Reported | None) -> str | None:
    return error.one_line() if error is not None else None
