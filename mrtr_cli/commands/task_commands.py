"""`mrtr tasks list|get|cancel`: the task ids mrtr keeps, and one request about one task.

`list` talks to no server. `get` and `cancel` send tasks/get or tasks/cancel for one task id to the
server over HTTP the target flags name, or, when they name none, the server the id is kept for. A
task lives on its server: one of a stdio server lived in the process mrtr stopped when its call
ended, so these commands refuse a stdio target (exit 1). A kept task whose time to live ran out, or
a task the server does not know (-32602, the extension's "Protocol Errors"), is exit 2, and its id
is forgotten. `mrtr tasks resume` is commands/task_resume.py.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, NamedTuple

from mrtr_cli.commands.common import Context, guarded
from mrtr_cli.commands.conversation_builder import build
from mrtr_cli.commands.task_interrupt import unknown_task
from mrtr_cli.errors import ProtocolError, ServerError, UsageError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.config.kept_tasks import KeptTask, TaskStore, said, said_or_none
from mrtr_cli.definition.options import AnsweringOptions, OutputOptions, TargetOptions
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.render import kept_task_lines as task_lines
from mrtr_cli.render.result_texts import result_texts
from mrtr_cli.render.styled_line import StyledLine
from mrtr_cli.targets.target import Target, http_url, names_a_server, resolve_target
from mrtr_cli.text import safe_line

VERSION = 1
"""The `version` of the `--json` documents of `mrtr tasks ...`."""
STDIO_REASON = ("a task of a stdio server lived in the process mrtr started for the call, and stopped when the "
                "call ended: no other process knows it")


def run_list(options: TargetOptions, output: OutputOptions) -> int:
    """Show the task ids kept (of the `--url` server only, when given); forget the expired ones."""

    def body(context: Context) -> ExitCode:
        store, now = TaskStore(), time.time()
        kept = store.tasks_of(options.url) if options.url else store.every_task()
        expired = [task for task in kept if task.expired(now)]
        for task in expired:
            store.drop(task)
        alive = [task for task in kept if not task.expired(now)]
        if output.json:
            context.print_json({"version": VERSION, "directory": str(store.directory),
                                "tasks": [task_view(task) for task in alive],
                                "expired_forgotten": [task_view(task) for task in expired]})
            return ExitCode.OK
        _print_list(context, alive, expired, str(store.directory), now)
        return ExitCode.OK

    return guarded(output, body)


def _print_list(context: Context, alive: list[KeptTask], expired: list[KeptTask], directory: str, now: float) -> None:
    out = context.consoles.out
    if not alive:
        out.print(task_lines.no_tasks_line(directory))
    for number, task in enumerate(alive):
        if number:
            out.print()
        for line in task_lines.kept_task_lines(task, now):
            out.print(line)
    if expired:
        context.consoles.err.print(task_lines.expired_line(expired))


def task_view(task: KeptTask) -> dict[str, Any]:
    """A kept task in the `--json` documents."""
    return {"task_id": task.task_id, "server": task.server, "method": task.method, "name": task.name,
            "status": task.status, "status_message": task.status_message, "created_at": task_lines.moment(task.created_at),
            "seen_at": task_lines.moment(task.seen_at), "expires_at": task_lines.moment(task.expires_at()),
            "resume": task_lines.resume_command(task.task_id, task.server)}


def run_get(task_id: str, options: TargetOptions, output: OutputOptions) -> int:
    """tasks/get TASK_ID: the task's status, and its result or error once it has one."""

    def body(context: Context) -> ExitCode:
        found = locate(task_id, options, "get")
        task = ask(context, found, "tasks/get", task_id)
        if not isinstance(task, dict):
            raise ProtocolError(f"tasks/get returned {safe_line(type(task).__name__)}, not a task",
                                "check the server's tasks/get")
        _note_status(found, task)
        if output.json:
            context.print_json({"version": VERSION, "server": found.url, "task": task})
        else:
            _print_task(context, task)
        return ExitCode.OK

    return guarded(output, body)


def _print_task(context: Context, task: dict[str, Any]) -> None:
    for line in task_lines.task_state_lines(task):
        context.consoles.err.print(line)
    if task.get("status") == "completed" and isinstance(task.get("result"), dict):
        for piece in result_texts(task["result"]):  # a str piece is safe already, and never markup
            context.consoles.out.print(StyledLine(piece) if isinstance(piece, str) else piece)


def _note_status(found: Located, task: dict[str, Any]) -> None:
    """The kept task's last status, as tasks/get said it; a terminal task, now shown, is forgotten."""
    if found.kept is None:
        return
    seen = replace(found.kept, status=said(task.get("status")), status_message=said_or_none(task.get("statusMessage")),
                   seen_at=time.time())
    store = TaskStore()
    if seen.terminal():
        store.drop(seen)
    else:
        store.keep(seen)


def run_cancel(task_id: str, options: TargetOptions, output: OutputOptions) -> int:
    """tasks/cancel TASK_ID; the id is forgotten once the server acknowledges it."""

    def body(context: Context) -> ExitCode:
        found = locate(task_id, options, "cancel")
        ask(context, found, "tasks/cancel", task_id)
        forgotten = found.kept is not None and TaskStore().drop(found.kept)
        if output.json:
            context.print_json({"version": VERSION, "server": found.url, "task_id": task_id,
                                "cancel_acknowledged": True, "forgotten": forgotten})
        else:
            context.consoles.err.print(task_lines.cancelled_line(task_id, forgotten))
        return ExitCode.OK

    return guarded(output, body)


class Located(NamedTuple):
    """The server of a task, and the task as kept there (None when mrtr does not keep it)."""

    target: Target
    url: str
    options: TargetOptions
    kept: KeptTask | None


def locate(task_id: str, options: TargetOptions, verb: str) -> Located:
    """The HTTP server the target flags name, or the one `task_id` is kept for when they name none;
    a stdio server is a usage error, a kept task whose time to live ran out exit 2."""
    store = TaskStore()
    if not names_a_server(options):
        options = options._replace(url=_kept_server(store, task_id, verb))
    target = resolve_target(options)
    url = http_url(target)
    if url is None:
        raise UsageError(f"mrtr tasks {verb} needs the server over HTTP that the task lives on: {STDIO_REASON}",
                         "give --url URL (tasks over stdio cannot be come back to)")
    kept = next(iter(store.find(task_id, url)), None)
    if kept is not None and kept.expired():
        store.drop(kept)
        raise ProtocolError(f"task {safe_line(task_id, 300)} expired at {task_lines.moment(kept.expires_at())} (its "
                            "time to live ran out): the server may have discarded it", "its id is forgotten")
    return Located(target, url, options, kept)


def _kept_server(store: TaskStore, task_id: str, verb: str) -> str:
    """The one server `task_id` is kept for; none or several is a usage error."""
    servers = sorted({task.server for task in store.find(task_id)})
    if len(servers) == 1:
        return servers[0]
    shown = safe_line(task_id, 300)
    if not servers:
        raise UsageError(f"task {shown} is not kept here: name its server", f"mrtr tasks {verb} ID --url URL")
    raise UsageError(f"task {shown} is kept for {len(servers)} servers: name one", f"mrtr tasks {verb} ID --url URL")


def ask(context: Context, found: Located, method: str, task_id: str) -> Any:
    """The result of `method` for `task_id`; a task the server does not know is exit 2, forgotten."""
    conversation = build(context, found.options, AnsweringOptions(), target=found.target)  # nothing to answer
    with conversation.connected() as live:
        reply = live.client.request(method, {"taskId": task_id})
    if reply.error is None:
        return reply.result
    if reply.error.get("code") == jsonrpc.INVALID_PARAMS:
        if found.kept is not None:
            TaskStore().drop(found.kept)
        raise unknown_task(task_id, method, reply.error, found.kept is not None)
    raise ServerError(method, reply.error, "check the server's logs")
