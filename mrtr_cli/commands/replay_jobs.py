"""`replay --jobs N` and `--repeat K`: every run of every transcript, N at a time in worker
processes (or in this one, with N = 1), each transcript shown as soon as it and every one before it
are done, in the order given, whatever order they finish in.

Workers are processes, not threads: a conversation is mostly Python work, and only processes use
two cores. They print nothing (their stdout and stderr go to /dev/null) and hand back each run's
verdict, its errors as plain text (`ReplayVerdict.portable`). With --demo each worker keeps its own
demo server for its conversations (its own `ServerPool`); a stdio transcript starts its server as
usual; a --url server is shared by all.

The start method: "fork" on Linux while this process has no thread but its main one (the pool is
made before any conversation, and ProcessPoolExecutor forks every worker at the first submit,
before its own manager thread): a worker starts in about a millisecond with mrtr already
imported. Elsewhere, or with a thread running, "spawn" (fork after threads is unsafe).

Ctrl-C reaches the parent (the workers ignore SIGINT, so a terminal's Ctrl-C, sent to the whole
process group, does not reach them twice); the parent sends each worker SIGTERM once, which ends
the conversation it is in as mrtr ends one (request cancelled, server shut down), and a worker
then runs nothing more. The parent shows what finished and exits 130.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import multiprocessing.util
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from mrtr_cli.process import signals
from mrtr_cli.errors import Interrupted, interruption
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.transcript.replay_verdict import Failure, ReplayVerdict, folded
from mrtr_cli.transport.shared import ServerPool

STOPPED = {ExitCode.INTERRUPTED, ExitCode.TERMINATED, ExitCode.HANGUP}
"""Ctrl-C, SIGTERM, SIGHUP: replay stops there, and runs no further transcript."""
WORKER_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals that stop a worker (the parent sends SIGTERM; a terminal that goes away, SIGHUP)."""

Replay = Callable[[str, ServerPool], ReplayVerdict]
"""One run of one transcript (a picklable callable: it crosses to the workers)."""
Task = tuple[int, int, str]
"""The transcript's place, the run's number (0: the first), the transcript's path."""


@dataclass
class Replayed:
    """Every run, each transcript's runs folded into one verdict, and what stopped the run."""

    verdicts: list[ReplayVerdict]
    runs: list[ReplayVerdict]
    wall: float
    stop: Interrupted | None = None


@dataclass
class InOrder:
    """Collects the runs as they finish; shows each transcript once it and all before it are done."""

    files: tuple[str, ...]
    repeat: int
    show: Callable[[ReplayVerdict], None]
    done: dict[tuple[int, int], ReplayVerdict] = field(default_factory=dict)
    shown: list[ReplayVerdict] = field(default_factory=list)

    def add(self, index: int, run: int, verdict: ReplayVerdict) -> None:
        self.done[(index, run)] = verdict
        while len(self.shown) < len(self.files) and self._complete(len(self.shown)):
            self._show(len(self.shown), self.repeat)

    def finish(self) -> None:
        """After a stop: show each transcript that has a run done, in order, from its runs done."""
        for index in range(len(self.shown), len(self.files)):
            runs = sum((index, run) in self.done for run in range(self.repeat))
            if runs:
                self._show(index, runs)

    def _complete(self, index: int) -> bool:
        return all((index, run) in self.done for run in range(self.repeat))

    def _show(self, index: int, runs: int) -> None:
        taken = [self.done[(index, run)] for run in range(self.repeat) if (index, run) in self.done][:runs]
        verdict = folded(taken) if self.repeat > 1 else taken[0]
        self.shown.append(verdict)
        self.show(verdict)


def replay_many(replay: Replay, files: tuple[str, ...], jobs: int, repeat: int,
                show: Callable[[ReplayVerdict], None]) -> Replayed:
    """Every run of every transcript, `jobs` at a time; `show` sees each transcript's verdict in order."""
    collector = InOrder(files, repeat, show)
    tasks = [(index, run, path) for index, path in enumerate(files) for run in range(repeat)]
    started = time.monotonic()
    stop = _in_turn(replay, tasks, collector) if jobs == 1 else _in_workers(replay, tasks, jobs, collector)
    wall = time.monotonic() - started
    collector.finish()
    return Replayed(collector.shown, list(collector.done.values()), wall, stop)


def _in_turn(replay: Replay, tasks: list[Task], collector: InOrder) -> Interrupted | None:
    """In this process, one after the other, on one ServerPool; a stopped run stops them all."""
    pool = ServerPool()
    try:
        for index, run, path in tasks:
            collector.add(index, run, replay(path, pool))
            if collector.done[(index, run)].code in STOPPED:
                return None
    finally:
        pool.close()
    return None


def _in_workers(replay: Replay, tasks: list[Task], jobs: int, collector: InOrder) -> Interrupted | None:
    """In `jobs` worker processes; Ctrl-C (or SIGTERM, SIGHUP) here stops them and is returned."""
    with ProcessPoolExecutor(min(jobs, len(tasks)), _start_method(), _start_worker, (replay,)) as executor:
        futures = {executor.submit(_work, path): (index, run) for index, run, path in tasks}
        try:
            _collect(futures, collector)
        except KeyboardInterrupt as raised:
            stop = interruption(raised)
            for future in futures:
                future.cancel()
            _stop_workers()
            _collect({f: at for f, at in futures.items() if not f.cancelled()}, collector, stop)
            return stop
    return None


def _collect(futures: dict[Future[ReplayVerdict | None], tuple[int, int]], collector: InOrder,
             stop: Interrupted | None = None) -> None:
    """Each run's verdict as it comes; after `stop`, a run the workers stopped says what stopped it."""
    for future in as_completed(futures):
        index, run = futures[future]
        verdict = _verdict(future, collector.files[index])
        if verdict is not None and stop is not None and verdict.code in STOPPED:
            verdict = dataclasses.replace(verdict, code=stop.exit_code, error=Failure(stop.one_line()))
        if verdict is not None:
            collector.add(index, run, verdict)


def _verdict(future: Future[ReplayVerdict | None], path: str) -> ReplayVerdict | None:
    """The run's verdict; None when a stopped worker did not run it; a worker that died is a failure."""
    try:
        return future.result()
    except Exception as error:  # noqa: BLE001 - a worker killed (BrokenProcessPool), or its result unreadable
        return ReplayVerdict(path, ExitCode.USAGE,
                             error=Failure(f"the worker process replaying it ended: {type(error).__name__}"))


def _start_method() -> Any:
    """fork on Linux while only the main thread runs (see the module's docstring), else spawn."""
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _stop_workers() -> None:
    """SIGTERM, once, to each worker process."""
    for child in multiprocessing.active_children():
        if child.pid is not None:
            os.kill(child.pid, signal.SIGTERM)


@dataclass
class Worker:
    """What a worker process keeps between its runs (one in each worker, `_worker`)."""

    replay: Replay
    pool: ServerPool = field(default_factory=ServerPool)
    stopped: bool = False

    def note_stop(self, number: int, frame: FrameType | None) -> None:
        """A signal between two runs: run nothing more."""
        self.stopped = True


_worker: Worker | None = None
"""This process's Worker, in a worker process (set once, by `_start_worker`)."""


def _start_worker(replay: Replay) -> None:
    """A worker's start: silent, deaf to Ctrl-C, its idle demo server shut down when it exits."""
    global _worker
    _worker = Worker(replay)
    sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the process's life
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _idle(_worker)
    multiprocessing.util.Finalize(_worker.pool, _worker.pool.close, exitpriority=10)


def _idle(worker: Worker) -> None:
    for number in WORKER_SIGNALS:
        signal.signal(number, worker.note_stop)


def _work(path: str) -> ReplayVerdict | None:
    """One run in a worker: mrtr's own signal handling while the conversation lasts."""
    worker = _worker
    if worker is None or worker.stopped:
        return None
    signals.install()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        verdict = worker.replay(path, worker.pool)
    except KeyboardInterrupt as raised:  # a signal at the edge of the conversation
        error = interruption(raised)
        verdict = ReplayVerdict(path, error.exit_code, error=error)
    finally:
        _idle(worker)
    worker.stopped = verdict.code in STOPPED
    return verdict.portable()
