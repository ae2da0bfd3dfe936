"""What becomes of a task when its call ends before the task does: Ctrl-C (exit 130), or any other
end that leaves it unfinished (--task-timeout, a lost server).

Over HTTP the task lives on the server: its id is kept (commands/task_keeper.py), it is not
cancelled unless `--cancel-on-interrupt` asks (then tasks/cancel is sent, once, bounded by a short
timeout; a second Ctrl-C gives up on it), and the command that comes back to it is printed. Over
stdio the task lives in the server process that mrtr stops on exit: that is said, plainly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mrtr_cli.commands.common import Context
from mrtr_cli.commands.task_keeper import TaskKeeper
from mrtr_cli.conversation.client import Client
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.conversation.task_follower import TaskFailed, TaskTimedOut
from mrtr_cli.errors import Interrupted, MrtrError, ProtocolError, ServerError
from mrtr_cli.definition.options import CallOptions, TaskOptions
from mrtr_cli.protocol import jsonrpc, tasks
from mrtr_cli.targets.target import Target, http_url
from mrtr_cli.text import safe_line

if TYPE_CHECKING:  # kept_tasks loads once a server makes a task (or `tasks resume` comes back to one)
    from mrtr_cli.config.kept_tasks import KeptTask, TaskStore

CANCEL_TIMEOUT = 5.0
"""The longest tasks/cancel is waited for after Ctrl-C (or --timeout, when shorter)."""


@dataclass
class TaskWatch:
    """The task of one call (or of `tasks resume`), kept over HTTP, watched over stdio."""

    keeper: TaskKeeper
    url: str | None
    """The server's URL; None for a stdio server (its tasks die with it)."""
    cancel_on_interrupt: bool
    cancelled: str | None = None
    """What became of tasks/cancel after Ctrl-C, when it was sent."""
    unknown: bool = False
    """The server said it does not know the task (any more)."""

    def unfinished(self) -> KeptTask | None:
        """The task, when the server made one, knows it, and it has not ended."""
        task = self.keeper.task
        return task if task is not None and not task.terminal() and not self.unknown else None


def watch_tasks(context: Context, target: Target, call: CallOptions, options: TaskOptions,
                task: KeptTask | None = None) -> TaskWatch | None:
    """Watch the tasks a tools/call may make (none for another method): kept over HTTP.
    `task`: the task `tasks resume` comes back to."""
    if call.method != "tools/call":
        return None
    url = http_url(target)
    # a stdio server's tasks die with it: nothing is kept; over HTTP the store is made once a task is kept
    keeper = TaskKeeper(url or target.address(), call.method, call.name, _task_store if url else None, task)
    context.emit.subscribe(keeper, first=True)
    return TaskWatch(keeper, url, options.cancel_on_interrupt)


def _task_store() -> TaskStore:
    from mrtr_cli.config.kept_tasks import TaskStore

    return TaskStore()


def settle(watch: TaskWatch | None, client: Client, outcome: Outcome, timeout: float) -> MrtrError | None:
    """After the conversation, the client still connected: the failure the outcome should say instead
    of its own (None: its own). A task the server no longer knows (-32602 to tasks/get: the
    extension's answer for an unknown or expired id) is forgotten, and the outcome says so in one
    line. When Ctrl-C (or SIGTERM, SIGHUP) ended it with its task unfinished and
    --cancel-on-interrupt was given, tasks/cancel for the task."""
    if watch is None or watch.unfinished() is None:
        return None
    error = outcome.error
    if isinstance(error, TaskTimedOut) and (watch.url is None or watch.keeper.session_bound):
        error = TaskTimedOut(error.message)  # what became of the task is said after the outcome
    if _unknown_to_the_server(error):
        return _forget_unknown(watch, error)
    if isinstance(error, Interrupted) and watch.cancel_on_interrupt and watch.url is not None:
        watch.cancelled = _cancel(watch, client, min(timeout, CANCEL_TIMEOUT))
    return error if error is not outcome.error else None


def _unknown_to_the_server(error: MrtrError | None) -> bool:
    return isinstance(error, ServerError) and not isinstance(error, TaskFailed) \
        and error.message.startswith(f"{tasks.GET} failed") and error.error.get("code") == jsonrpc.INVALID_PARAMS


def _forget_unknown(watch: TaskWatch, error: MrtrError | None) -> ProtocolError:
    task = watch.unfinished()
    assert task is not None and isinstance(error, ServerError)
    forgotten = watch.keeper.dropped()
    watch.unknown = True
    return unknown_task(task.task_id, tasks.GET, error.error, forgotten)


def unknown_task(task_id: str, method: str, error: dict[str, Any], forgotten: bool) -> ProtocolError:
    """A task the server does not know (-32602 to `method`, whose `error` says so); `forgotten`: its id was kept."""
    return ProtocolError(f"the server does not know task {safe_line(task_id, 300)} (it may have expired): {method} "
                         f"said {safe_line(error.get('message'), 300)!r}",
                         "its id is forgotten" if forgotten else "check the id and the server")


def _cancel(watch: TaskWatch, client: Client, timeout: float) -> str:
    """Send tasks/cancel; what became of it, in words."""
    task = watch.unfinished()
    assert task is not None
    try:
        reply = client.request(tasks.CANCEL, tasks.cancel_params(task.task_id), timeout=timeout)
    except (MrtrError, KeyboardInterrupt) as error:
        failure = error.message if isinstance(error, MrtrError) else "interrupted again"
        return f"tasks/cancel was not answered ({failure}): the task may go on, and its id is kept"
    if reply.error is not None:
        return f"tasks/cancel was refused (error {reply.error.get('code')}): the task may go on, and its id is kept"
    forgotten = watch.keeper.dropped()
    return "tasks/cancel sent and acknowledged (the server decides whether and when it stops)" + \
        ("; its id is forgotten" if forgotten else "")


def show_unfinished(context: Context, watch: TaskWatch | None, outcome: Outcome) -> None:
    """After the outcome: what became of a task the call left unfinished, and how to come back to it
    (nothing when no server was reached: mrtr knows nothing new of the task)."""
    task = watch.unfinished() if watch is not None else None
    if watch is None or task is None or outcome.era is None:
        return
    from mrtr_cli.render import kept_task_lines as task_lines  # rich: only once a task was left unfinished
    for line in task_lines.interrupted_lines(task.task_id, watch.url, watch.cancelled, watch.keeper.trouble,
                                             watch.keeper.session_bound):
        context.consoles.err.print(line)
