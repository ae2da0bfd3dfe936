"""A `mrtr load` run on Locust's local runner: the users' plan from the options, the run bounded by
--run-time or --conversations, every request event collected, and mrtr's summary."""

from __future__ import annotations

import csv
import signal
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import gevent
import gevent.event
from locust.env import Environment
from locust.html import get_html_report
from locust.stats import PERCENTILES_TO_REPORT, StatsCSV

from mrtr_cli.commands.common import Context
from mrtr_cli.errors import UsageError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.load.users import CONVERSATION, Budget, Plan, Transcript, TranscriptUser, load_transcript
from mrtr_cli.definition.options import AnsweringOptions, LoadingOptions, TargetOptions
from mrtr_cli.transcript.paths import parse_path
from mrtr_cli.transcript.replay_verdict import RESULTS, percentiles

DEFAULT_RUN_TIME = 30.0
"""--run-time when neither it nor --conversations is given (seconds)."""


def plan_of(files: tuple[str, ...], arguments: tuple[str, ...], loading: LoadingOptions, ignore: tuple[str, ...],
            target: TargetOptions, answering: AnsweringOptions) -> Plan:
    """What every user replays; each transcript read now, each --weight and --ignore checked (exit 1)."""
    for text in ignore:
        parse_path(text, "--ignore")
    weights = _weights(loading.weights, files)
    transcripts = tuple(load_transcript(path, weights.get(path, 1)) for path in dict.fromkeys(files))
    if target.replicas:
        _refuse_older_with_replicas(transcripts)
    return Plan(transcripts, target, answering, arguments, ignore, loading.think, Budget(loading.conversations))


def _weights(given: tuple[str, ...], files: tuple[str, ...]) -> dict[str, int]:
    weights = {}
    for text in given:
        path, equals, number = text.rpartition("=")
        if not equals or path not in files or not number.isdigit() or int(number) < 1:
            raise UsageError(f"--weight {text!r} is not FILE=N with FILE one of the transcripts and N 1 or more",
                             "give --weight TRANSCRIPT.yaml=3, naming the transcript as it is given")
        weights[path] = int(number)
    return weights


def _refuse_older_with_replicas(transcripts: tuple[Transcript, ...]) -> None:
    from mrtr_cli.transcript import model

    for transcript in transcripts:
        if model.load(transcript.path).spoken.handshake:
            raise UsageError(f"{transcript.path} is of the older era, where a session lives on one instance, "
                             "and --replica routes rounds to several", "leave --replica out for it")


@dataclass
class Collected:
    """Every request event of the run: the times by (request type, name), the conversations'
    results, and each failure's message counted; `reached` once `limit` conversations ended."""

    limit: int | None = None
    times: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    results: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    reached: gevent.event.Event = field(default_factory=gevent.event.Event)

    def on_request(self, request_type: str, name: str, response_time: float, exception: Any = None,
                   context: Any = None, **_: Any) -> None:
        self.times[(request_type, name)].append(float(response_time))
        if request_type == CONVERSATION:
            self.results[(context or {}).get("result", "failed")] += 1
            if exception is not None:
                self.failures[f"{name}: {exception}"] += 1
            if self.limit is not None and self.conversations >= self.limit:
                self.reached.set()

    @property
    def conversations(self) -> int:
        return sum(self.results.values())


USER_CLASS = "MrtrUser"
"""The name of `mrtr load`'s user class: the master and its workers must name it alike."""


def user_class(plan: Plan | None) -> type[TranscriptUser]:
    """`mrtr load`'s Locust user: TranscriptUser with the run's plan (a worker's comes from its master)."""
    return type(USER_CLASS, (TranscriptUser,), {"plan": plan, "abstract": False, "quit_when_done": False})


def run_local(context: Context, plan: Plan, loading: LoadingOptions) -> ExitCode:
    """The users on Locust's local runner in this process until --run-time or --conversations;
    the summary, also after Ctrl-C (130)."""
    environment = Environment(user_classes=[user_class(plan)])
    collected = Collected()
    environment.events.request.add_listener(collected.on_request)
    runner = environment.create_local_runner()
    started = time.monotonic()
    try:
        with ctrl_c_caught() as ctrl_c:  # before the web UI's line: a Ctrl-C right after it is caught too
            start(context, environment, loading)
            interrupted = wait_or_interrupt(plan.budget.reached, run_time_of(loading), ctrl_c)
    finally:
        runner.quit()
        if environment.web_ui is not None:
            environment.web_ui.stop()
    return finish(context, environment, collected, loading, time.monotonic() - started, interrupted)


@contextmanager
def ctrl_c_caught() -> Iterator[Any]:
    """An event set by Ctrl-C while the block runs. The signal is taken by gevent's loop: Python's own
    handler would raise KeyboardInterrupt in whichever greenlet runs (gevent's hub, which prints a
    traceback), not in the one waiting."""
    interrupted = gevent.event.Event()
    handler = gevent.signal_handler(signal.SIGINT, interrupted.set)
    try:
        yield interrupted
    finally:
        handler.cancel()


def wait_or_interrupt(done: Any, timeout: float | None, ctrl_c: Any = None) -> bool:
    """Wait for `done` (an event, a greenlet) or `timeout`; True when Ctrl-C came first (`ctrl_c`: the
    event of a ctrl_c_caught already around the caller, else one caught for the wait alone)."""
    if ctrl_c is None:
        with ctrl_c_caught() as caught:
            return wait_or_interrupt(done, timeout, caught)
    gevent.wait([done, ctrl_c], timeout=timeout, count=1)
    return bool(ctrl_c.is_set())


def start(context: Context, environment: Environment, loading: LoadingOptions) -> None:
    """Start the users now (headless), or serve Locust's web UI on 127.0.0.1 to start them from
    (--web; the run's clock then starts at once all the same)."""
    if not loading.web:
        assert environment.runner is not None
        environment.runner.start(loading.users, spawn_rate=loading.spawn_rate or loading.users)
        return
    # Locust's web UI reads Locust's own options from sys.argv (and would take mrtr's for its own): mrtr has
    # read them already, so the UI sees none
    del sys.argv[1:]
    environment.create_web_ui(host="127.0.0.1", port=loading.web_port)
    gevent.sleep(0)  # the UI's greenlet binds its port before it blocks: then the line below is true
    context.consoles.err.print(f"Locust's web UI: http://127.0.0.1:{loading.web_port}/ (start the users there)",
                               markup=False, highlight=False)


def finish(context: Context, environment: Environment, collected: Collected, loading: LoadingOptions, wall: float,
           interrupted: bool) -> ExitCode:
    """Locust's reports, mrtr's summary (or --json), and the exit code."""
    _write_reports(environment, loading)
    code = _exit_code(collected, interrupted)
    if context.output.json:
        context.print_json(load_document(collected, wall))
        if code == ExitCode.DIVERGED:
            context.error_line(code, f"{collected.conversations - collected.results['same']} of "
                                     f"{collected.conversations} conversations did not replay the same")
    else:
        for line in summary_lines(collected, wall):
            context.consoles.out.print(line, markup=False, highlight=False)
    return code


def _exit_code(collected: Collected, interrupted: bool) -> ExitCode:
    if interrupted:
        return ExitCode.INTERRUPTED
    return ExitCode.DIVERGED if collected.results["diverged"] or collected.results["failed"] else ExitCode.OK


def _write_reports(environment: Environment, loading: LoadingOptions) -> None:
    """Locust's own reports of the run: --csv PREFIX (its request, failure and exception tables)
    and --html FILE."""
    if loading.csv:
        stats = StatsCSV(environment, PERCENTILES_TO_REPORT)
        for suffix, table in (("stats", stats.requests_csv), ("failures", stats.failures_csv),
                              ("exceptions", stats.exceptions_csv)):
            with open(f"{loading.csv}_{suffix}.csv", "w", newline="", encoding="utf-8") as file:
                table(csv.writer(file))
    if loading.html:
        with open(loading.html, "w", encoding="utf-8") as file:
            file.write(get_html_report(environment, show_download_link=False))


def load_document(collected: Collected, wall: float) -> dict[str, Any]:
    """`mrtr load --json` (docs/json/load.schema.json): replay's figures of the run, each failure
    counted, and each round's and conversation's percentiles."""
    conversations = collected.conversations
    return {"version": 1, "conversations": conversations, **{r: collected.results[r] for r in RESULTS},
            "wall_seconds": round(wall, 3),
            "conversations_per_second": round(conversations / wall, 3) if wall > 0 else 0.0,
            "failures": [{"message": message, "count": count} for message, count in collected.failures.most_common()],
            "requests": [{"type": request_type, "name": name, "count": len(times),
                          "ms": {key: round(value, 3) for key, value in (percentiles(times) or {}).items()}}
                         for (request_type, name), times in _ordered(collected)]}


def _ordered(collected: Collected) -> list[tuple[tuple[str, str], list[float]]]:
    """The rounds first, then the conversations, each in the order they were first seen."""
    return sorted(collected.times.items(), key=lambda item: item[0][0] == CONVERSATION)


def run_time_of(loading: LoadingOptions) -> float | None:
    if loading.run_time is not None:
        return loading.run_time
    return None if loading.conversations is not None else DEFAULT_RUN_TIME


def summary_lines(collected: Collected, wall: float) -> list[str]:
    """`N conversations: same, diverged, failed; per second`, each failure counted, then p50/p95/p99
    of each round and each conversation."""
    counts = ", ".join(f"{collected.results[result]} {result}" for result in RESULTS)
    rate = collected.conversations / wall if wall > 0 else 0.0
    lines = [f"{collected.conversations} conversations ({counts}) in {wall:.1f} s: {rate:.1f} conversations a second"]
    lines += [f"  ✗ {count} × {message}" for message, count in collected.failures.most_common()]
    width = max((len(name) for _, name in collected.times), default=0)
    for (request_type, name), times in _ordered(collected):
        shown = percentiles(times) or {}
        figures = "  ".join(f"{key} {value:.1f} ms" for key, value in shown.items())
        lines.append(f"  {name:<{width}}  {len(times):>6}  {figures}")
    return lines
