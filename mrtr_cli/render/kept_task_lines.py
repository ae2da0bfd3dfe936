"""Kept tasks as `mrtr tasks ...` shows them, and what Ctrl-C leaves of a task. Pure functions: nothing
here prints. Everything a server said passes through `safe_line`."""

from __future__ import annotations

import shlex
import time
from typing import Any

from rich.text import Text

from mrtr_cli.config.kept_tasks import KeptTask
from mrtr_cli.render.auth_lines import duration_words
from mrtr_cli.text import safe_line


CONTROL_CHARACTERS = "its id has control characters: see `mrtr tasks list --json` for it exactly"
"""Said instead of a resume command whose id could not be shown as it is (escaped, it would name another id)."""


def resume_command(task_id: str, url: str) -> str:
    """The command that comes back to a task, quoted for a POSIX shell."""
    return f"mrtr tasks resume {shlex.quote(task_id)} --url {shlex.quote(url)}"


def printable(task_id: str) -> bool:
    """Whether an id shows as it is (no character of it needs an escape on a terminal)."""
    return safe_line(task_id, None) == task_id


def shown_resume(task_id: str, url: str) -> str:
    """The resume command to print, or, for an id that cannot be printed as it is, where to find it."""
    return resume_command(task_id, url) if printable(task_id) else f"({CONTROL_CHARACTERS})"


def moment(seconds: float | None) -> str | None:
    """A time as the JSON documents write it (UTC)."""
    return None if seconds is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def kept_task_lines(task: KeptTask, now: float) -> list[Text]:
    """One kept task: its id, then its server, request, last status and time to live, indented."""
    status = task.status + (f": {task.status_message}" if task.status_message else "")
    ends = task.expires_at()
    expiry = "none given by the server" if ends is None else f"expires in {duration_words(ends - now)}"
    fields = (("server", task.server), ("request", f"{task.method} {task.name}"),
              ("last status", f"{status} (seen {duration_words(now - task.seen_at)} ago)"), ("time to live", expiry),
              ("resume", shown_resume(task.task_id, task.server)))
    lines = [Text(safe_line(task.task_id, 300), "mrtr.key")]
    lines += [Text.assemble((f"  {name:<13}", "mrtr.dim"), safe_line(value, 300)) for name, value in fields]
    return lines


def no_tasks_line(directory: str) -> Text:
    return Text(f"no task ids kept (in {safe_line(directory, None)})", "mrtr.dim")


def expired_line(tasks: list[KeptTask]) -> Text:
    """The expired tasks `tasks list` forgot."""
    ids = ", ".join(safe_line(task.task_id, 100) for task in tasks)
    return Text(f"forgot {len(tasks)} expired task{'s' if len(tasks) > 1 else ''} (time to live ran out): {ids}",
                "mrtr.dim")


def task_state_lines(task: dict[str, Any]) -> list[Text]:
    """A task as tasks/get returned it: its status and message, then its other fields, indented."""
    status = safe_line(task.get("status"), 100) + (f": {safe_line(task['statusMessage'], 300)}"
                                                  if isinstance(task.get("statusMessage"), str) else "")
    lines = [Text.assemble((safe_line(task.get("taskId"), 300), "mrtr.key"), f"  {status}")]
    for field in ("createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"):
        if field in task:
            lines.append(Text.assemble((f"  {field:<15}", "mrtr.dim"), safe_line(task[field], 100)))
    questions = task.get("inputRequests")
    if isinstance(questions, dict) and questions:
        keys = ", ".join(safe_line(key, 100) for key in list(questions)[:20])
        lines.append(Text.assemble((f"  {'inputRequests':<15}", "mrtr.dim"), keys))
    if isinstance(task.get("error"), dict):
        error = task["error"]
        lines.append(Text.assemble((f"  {'error':<15}", "mrtr.dim"),
                                   f"{safe_line(error.get('code'), 40)} {safe_line(error.get('message'), 300)}"))
    return lines


def cancelled_line(task_id: str, forgotten: bool) -> Text:
    """`tasks cancel`: the server acknowledged; cancelling is cooperative (the extension's words)."""
    return Text(f"task {safe_line(task_id, 300)}: cancellation asked and acknowledged (the server decides whether "
                "and when the task stops)" + ("; its id is forgotten" if forgotten else ""))


def interrupted_lines(task_id: str, url: str | None, cancelled: str | None, trouble: str | None,
                      session_bound: bool = False) -> list[Text]:
    """What Ctrl-C left of task `task_id`: over HTTP (`url`) kept or cancelled (`cancelled`: what
    became of tasks/cancel), over stdio lost; `trouble`: why the id could not be kept; `session_bound`:
    an older-era task, which belongs to the session mrtr ends."""
    shown = safe_line(task_id, 300)
    if url is None:
        return [Text(f"task {shown} lived in the stdio server, which mrtr stops now: the task is lost", "mrtr.warn")]
    if cancelled is not None:
        return [Text(f"task {shown}: {safe_line(cancelled, 300)}", "mrtr.warn")]
    if session_bound:
        return [Text(f"task {shown} belonged to the session mrtr ends now (a 2025-11-25 task): no later run can "
                     "come back to it, so its id is not kept", "mrtr.warn")]
    if trouble is not None:
        return [Text(f"task {shown} goes on on the server, but its id could not be kept: {safe_line(trouble, 300)}",
                     "mrtr.warn")]
    if not printable(task_id):
        return [Text(f"task {shown} goes on on the server (not cancelled), and its id is kept; {CONTROL_CHARACTERS}",
                     "mrtr.warn")]
    return [Text(f"task {shown} goes on on the server (not cancelled); come back to it with:", "mrtr.warn"),
            Text(f"  {safe_line(resume_command(task_id, url), None)}")]
