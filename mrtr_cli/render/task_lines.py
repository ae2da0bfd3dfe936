"""The timeline's lines for a task: one pure function per event (render/timeline.py prints them).

`◆ task 786512e2… working: Gathering sources… · polled every 1 s, kept 300 s` when the server makes
the call a task; `· task 786512e2… input_required: Found multiple interpretations…` at each change.
Everything the server said is made safe and cut (a hostile server may send anything)."""

from __future__ import annotations

from mrtr_cli import events
from mrtr_cli.render.styled_line import StyledLine
from mrtr_cli.text import safe_line

STATUS_STYLES = {"completed": "mrtr.complete", "input_required": "mrtr.input", "failed": "mrtr.error",
                 "cancelled": "mrtr.warn"}
"""A status's style; working and any other is dim."""
ID_SHOWN = 40
"""Characters of a task id the timeline shows."""


def task_created_line(event: events.TaskCreated) -> StyledLine:
    """The call became a task: its id, its first status and message, how often and how long."""
    line = StyledLine("  ◆ task ", "mrtr.input")
    line.append(safe_line(event.task_id, ID_SHOWN), "mrtr.key")
    line.append(f" created, {safe_line(event.status, 40)}", STATUS_STYLES.get(event.status))
    if event.status_message:
        line.append(f": {safe_line(event.status_message, 300)}")
    terms = []
    if event.poll_interval_ms is not None:
        terms.append(f"poll every {event.poll_interval_ms / 1000:g} s")
    if event.ttl_ms is not None:
        terms.append(f"kept {event.ttl_ms / 1000:g} s")
    return line.append(f" · {', '.join(terms)}" if terms else "", "mrtr.dim")


def task_status_line(event: events.TaskStatusChanged) -> StyledLine:
    """The task moved to a status (or said something new in it)."""
    line = StyledLine("  · task ", STATUS_STYLES.get(event.status, "mrtr.dim"))
    line.append(safe_line(event.task_id, ID_SHOWN), "mrtr.key")
    line.append(f" {safe_line(event.status, 40)}")
    return line.append(f": {safe_line(event.status_message, 300)}" if event.status_message else "")
