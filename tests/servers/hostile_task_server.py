"""A hostile server of the tasks extension (2026-07-28), for tests: tests/servers/task_server.py (written
from the extension's specification) with more tools, each misbehaving as a hostile server may:

  asks_forever  input_required on every tasks/get, each time with a new roots/list key (never ends);
                pollIntervalMs 0
  chatty        a new statusMessage of 300,000 characters (terminal escapes first) on every tasks/get,
                pollIntervalMs 0; completed after 60 polls
  odd_poll      a CreateTaskResult with pollIntervalMs 1.5 (not whole milliseconds); the task works until
                cancelled (tasks/get then says cancelled)
  control_id    a task whose id has control characters (a newline, ESC, a quote); works `seconds` (default 30)
  long_id       a task whose id is 1010 characters long; works `seconds` (default 30)

    python hostile_task_server.py http PORT      (prints `listening on URL` to stderr)

Standard library only.
"""

from __future__ import annotations

import itertools
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import task_server as base  # noqa: E402 - beside this file

ROOTS = {"method": "roots/list", "params": {}}
HOSTILE_IDS = {"control_id": "x$(touch pwned)\n\x1b[2J'; rm -rf ~ #", "long_id": "L" * 1010}
CHATTY_POLLS = 60


class Looked(base.Task):
    """A task that counts the looks at it (tasks/get), and asks to be polled without pause."""

    def __init__(self, task_id: str) -> None:
        super().__init__(task_id)
        self.looks = itertools.count(1)
        self.fields["pollIntervalMs"] = 0


class AsksForever(Looked):
    """input_required, with a new question on every look."""

    def view(self) -> dict[str, Any]:
        look = next(self.looks)
        return {**super().view(), "status": "input_required", "inputRequests": {f"roots{look}": ROOTS}}


class Chatty(Looked):
    """A new, huge statusMessage on every look, then completed."""

    def view(self) -> dict[str, Any]:
        look = next(self.looks)
        if look > CHATTY_POLLS:
            return {**super().view(), "status": "completed", "result": base.text("done")}
        message = f"\x1b]0;PWNED\x07\x1b[2J\x1b[31mstep {look}\u202e" + "A" * 300_000
        return {**super().view(), "statusMessage": message}


def works_until_cancelled(task: base.Task, seconds: float) -> None:
    if task.cancelled.wait(seconds):
        task.set(status="cancelled", statusMessage="cancelled by the client")
    else:
        task.set(status="completed", result=base.text("done"))


def hostile_call(params: dict[str, Any]) -> dict[str, Any]:
    name, arguments = params.get("name"), params.get("arguments") or {}
    if name not in HOSTILE or not base.declares_tasks(params):
        return plain_call(params)
    number = next(base.IDS)
    task_id = HOSTILE_IDS.get(str(name), f"task-{number}")
    task: base.Task = {"asks_forever": AsksForever, "chatty": Chatty}.get(str(name), base.Task)(task_id)
    base.TASKS[task_id] = task
    if name in ("odd_poll", "control_id", "long_id"):
        seconds = float(arguments.get("seconds", 30))
        threading.Thread(target=works_until_cancelled, args=(task, seconds), daemon=True).start()
    created = {**task.fields, "status": "working"}
    if name == "odd_poll":
        created["pollIntervalMs"] = 1.5
    return {"resultType": "task", **created}


HOSTILE = ("asks_forever", "chatty", "odd_poll", "control_id", "long_id")
plain_call = base.call_tool
base.TOOLS.extend({"name": name, "description": "Misbehaves (tests/servers/hostile_task_server.py).",
                   "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}}}
                  for name in HOSTILE)
base.METHODS["tools/call"] = hostile_call

if __name__ == "__main__":
    base.main(sys.argv[1:])
