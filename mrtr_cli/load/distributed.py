"""`mrtr load --master`, `--worker` and `--processes N`: Locust's distributed mode, unchanged, with
mrtr's plan on top. The master sends each worker the transcripts (their text), the URLs and the
answers, and its share of --conversations; never a header or a login (the channel is not
encrypted): each worker takes its own -H and auth flags. Each worker sends back every request
event, so the master's summary counts every conversation of every worker."""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import gevent
import gevent.event
from locust.env import Environment

from mrtr_cli.commands.common import Context
from mrtr_cli.errors import UsageError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.load.running import (Collected, ctrl_c_caught, finish, run_time_of, start, user_class,
                                   wait_or_interrupt)
from mrtr_cli.load.users import Budget, Plan, load_transcript
from mrtr_cli.definition.options import AnsweringOptions, LoadingOptions, TargetOptions

PLAN = "mrtr_plan"
"""The message the master sends each worker before its users start: what they replay."""
REQUEST = "mrtr_request"
"""The message a worker sends the master for every Locust request event (a round, a conversation)."""
MASTER_PID = "MRTR_LOAD_MASTER_PID"
"""Set for a --processes worker: its master's process id, so that it dies with it."""
PR_SET_PDEATHSIG = 1
"""Linux's prctl option: the signal a process gets when its parent dies (<linux/prctl.h>)."""
SENT_TARGET_FIELDS = ("url", "replicas", "timeout", "protocol_version", "no_discover", "protocol_era")
"""What of the master's target options a worker takes: where to go and how to speak, never a header."""


def shares(total: int | None, workers: int) -> list[int | None]:
    """--conversations split as evenly as can be: the first workers take one more."""
    if total is None:
        return [None] * workers
    return [total // workers + (1 if n < total % workers else 0) for n in range(workers)]


def plan_message(plan: Plan, url: str, share: int | None) -> dict[str, Any]:
    target = {field: getattr(plan.target._replace(url=url), field) for field in SENT_TARGET_FIELDS}
    answers_file = plan.answering.answers_file
    return {"transcripts": [{"name": Path(t.path).name, "text": Path(t.path).read_text(encoding="utf-8"),
                             "weight": t.weight} for t in plan.transcripts],
            "target": target, "answers": list(plan.answering.answers),
            "answers_text": Path(answers_file).read_text(encoding="utf-8") if answers_file else None,
            "arguments": list(plan.arguments), "ignore": list(plan.ignore), "think": plan.think, "share": share}


def plan_from_message(data: dict[str, Any], folder: Path, target: TargetOptions,
                      answering: AnsweringOptions) -> Plan:
    """A worker's plan: the master's transcripts written into `folder` (under their own names, the
    conversations' names), its URLs, and this worker's own headers and login flags."""
    transcripts = []
    for sent in data["transcripts"]:
        path = folder / Path(sent["name"]).name
        path.write_text(sent["text"], encoding="utf-8")
        transcripts.append(load_transcript(str(path), int(sent["weight"])))
    answers_file = None
    if data["answers_text"] is not None:
        answers_file = str(folder / "answers.yaml")
        Path(answers_file).write_text(data["answers_text"], encoding="utf-8")
    sent_target = {**data["target"], "replicas": tuple(data["target"]["replicas"])}
    answering = answering._replace(answers=tuple(data["answers"]), answers_file=answers_file)
    return Plan(tuple(transcripts), target._replace(**sent_target), answering, tuple(data["arguments"]),
                tuple(data["ignore"]), float(data["think"]), Budget(data["share"]))


def run_master(context: Context, plan: Plan, loading: LoadingOptions, url: str) -> ExitCode:
    """Locust's master: waits for --expect-workers workers, sends each its plan, starts the users
    on them, and ends once --run-time has passed or every worker's share of --conversations ended."""
    workers = loading.processes or loading.expect_workers
    if loading.conversations is not None and loading.users < workers:
        raise UsageError(f"--users {loading.users} is fewer than the {workers} workers: a worker without a user "
                         "would never end its share of --conversations", f"give --users {workers} or more")
    if loading.processes:
        loading = loading._replace(master_bind_host="127.0.0.1", master_bind_port=_free_port())
    environment = Environment(user_classes=[user_class(None)])
    collected = Collected(limit=loading.conversations)
    runner = environment.create_master_runner(loading.master_bind_host, loading.master_bind_port)
    runner.register_message(REQUEST, lambda environment, msg, **_: collected.on_request(**msg.data))
    started = time.monotonic()
    helpers = _local_workers(loading, plan.target.headers) if loading.processes else []
    try:
        with ctrl_c_caught() as ctrl_c:  # before any line of the master's: a Ctrl-C right after one is caught too
            interrupted = _wait_for_workers(runner, workers, ctrl_c)
            if not interrupted:
                for node, share in zip(list(runner.clients.ready), shares(loading.conversations, workers)):
                    runner.send_message(PLAN, plan_message(plan, url, share), client_id=node.id)
                started = time.monotonic()
                start(context, environment, loading)
                interrupted = wait_or_interrupt(collected.reached, run_time_of(loading), ctrl_c)
    finally:
        runner.quit()
        if environment.web_ui is not None:
            environment.web_ui.stop()
        for helper in helpers:
            helper.wait()
    return finish(context, environment, collected, loading, time.monotonic() - started, interrupted)


def _wait_for_workers(runner: Any, workers: int, ctrl_c: Any) -> bool:
    """Until `workers` workers are connected (nothing is measured yet); True on Ctrl-C meanwhile."""
    never = gevent.event.Event()
    while len(runner.clients.ready) < workers:
        if wait_or_interrupt(never, 0.05, ctrl_c):
            return True
    return False


def _free_port() -> int:
    """A port of 127.0.0.1 free a moment ago: --processes' master listens there for its own workers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _local_workers(loading: LoadingOptions, headers: tuple[str, ...]) -> list[subprocess.Popen[bytes]]:
    """--processes N: N `mrtr load --worker` processes on this machine, each with this run's -H."""
    command = [sys.executable, "-m", "mrtr_cli", "load", "--worker", "--master-host", "127.0.0.1",
               "--master-port", str(loading.master_bind_port)]
    for header in headers:
        command += ["-H", header]
    environment = {**os.environ, MASTER_PID: str(os.getpid())}
    return [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
            for _ in range(loading.processes or 0)]


def _die_with_the_master() -> None:
    """A --processes worker ends when its master does, killed or not: on Linux the kernel sends it
    SIGTERM then (prctl PR_SET_PDEATHSIG), and a master already gone by now is seen as a changed parent.
    macOS and Windows offer no such signal: there a killed master's workers run on until the
    master's channel times out (Locust's heartbeat)."""
    master = os.environ.pop(MASTER_PID, None)
    if master is None or not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != int(master):  # it died before the prctl: no signal will come
        raise SystemExit(ExitCode.INTERRUPTED)


def run_worker(context: Context, loading: LoadingOptions, target: TargetOptions,
               answering: AnsweringOptions) -> ExitCode:
    """A Locust worker: its users replay the plan the master sends, and every request event goes
    back to the master; at the end, this worker's own summary."""
    if not loading.master_host:
        raise UsageError("--worker needs the master's host", "give --master-host HOST (and --master-port PORT)")
    _die_with_the_master()
    user = user_class(None)
    environment = Environment(user_classes=[user])
    collected = Collected()
    runner = environment.create_worker_runner(loading.master_host, loading.master_port)
    folder = Path(tempfile.mkdtemp(prefix="mrtr-load-"))

    def take_plan(environment: Any, msg: Any, **_: Any) -> None:
        user.plan = plan_from_message(msg.data, folder, target, answering)

    def send_back(**event: Any) -> None:
        collected.on_request(**event)
        runner.send_message(REQUEST, _portable(event))

    runner.register_message(PLAN, take_plan)
    environment.events.request.add_listener(send_back)
    started = time.monotonic()
    interrupted = wait_or_interrupt(gevent.spawn(runner.greenlet.join), None)  # a Group: joined, not waited on
    if interrupted:
        runner.quit()
    return finish(context, environment, collected, loading, time.monotonic() - started, interrupted)


def _portable(event: dict[str, Any]) -> dict[str, Any]:
    """A request event as the master's `Collected` takes it (the exception as its message)."""
    exception = event.get("exception")
    return {"request_type": event["request_type"], "name": event["name"], "response_time": event["response_time"],
            "exception": str(exception) if exception is not None else None, "context": event.get("context") or {}}

