"""The timeline's lines for a task (the tasks extension): created, each status and message, how it
ended. Pure functions: nothing here prints (render/timeline.py does)."""

from __future__ import annotations

from mrtr_cli.conversation import events
from mrtr_cli.protocol import tasks
from mrtr_cli.render.styled_line import StyledLine
from mrtr_cli.text import safe_line

STATUS_STYLES = {"working": "mrtr.dim", "input_required": "mrtr.input", "completed": "mrtr.complete",
                 "failed": "mrtr.error", "cancelled": "mrtr.warn"}
"""How each status is drawn (one the server made up: as a warning)."""


def created_line(event: events.TaskCreated) -> StyledLine:
    """`⧗ task 786512e2 created · working · poll every 5 s · ttl 60 s`."""
    line = StyledLine("  ⧗ task ", "mrtr.input")
    line.append(safe_line(event.task_id, 80), "mrtr.key")
    line.append(f" created · {safe_line(event.status, 40)}")
    polls = _polled_every(event)
    if polls is not None:
        line.append(f" · poll every {polls:g} s", "mrtr.dim")
    if event.ttl_ms is not None:
        line.append(f" · ttl {_seconds(event.ttl_ms)}", "mrtr.dim")
    if event.status_message:
        line.append(f": {safe_line(event.status_message, 300)}")
    return line


def status_line(event: events.TaskStatusChanged) -> StyledLine:
    """`… task working: Crunching` (a working task, as progress), `⧗ task input_required`, `✓ task completed`."""
    marker = {"working": "…", "completed": "✓", "failed": "✗", "cancelled": "✗"}.get(event.status, "⧗")
    line = StyledLine(f"  {marker} task {safe_line(event.status, 40)}", STATUS_STYLES.get(event.status, "mrtr.warn"))
    if event.status_message:
        line.append(f": {safe_line(event.status_message, 300)}")
    return line


def following_line(event: events.TaskFollowing) -> StyledLine:
    """`⧗ following task X by notifications/tasks (subscriptions/listen); polling every 10 s as a backstop`,
    or `… polling every 0.5 s: the server sent no task notifications (why)`."""
    task = safe_line(event.task_id, 80)
    if event.by == "notifications":
        return StyledLine(f"  ⧗ following task {task} by notifications/tasks (subscriptions/listen); polling every "
                          f"{event.seconds:g} s as a backstop", "mrtr.dim")
    why = f" ({safe_line(event.why, 200)})" if event.why else ""
    return StyledLine(f"  … polling every {event.seconds:g} s: the server sent no task notifications{why}", "mrtr.dim")


def _polled_every(event: events.TaskCreated) -> float | None:
    """How often mrtr polls the task (a server's 0 ms is held to the floor); None: the server said nothing."""
    if event.poll_seconds is not None:
        return event.poll_seconds
    if event.poll_interval_ms is None:
        return None
    return tasks.poll_seconds(event.poll_interval_ms)  # a recorded task: the rule, without --poll-interval


def _seconds(milliseconds: int) -> str:
    return f"{milliseconds / 1000:g} s" if milliseconds < 3_600_000 else f"{milliseconds / 3_600_000:g} h"
