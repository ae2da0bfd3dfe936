"""The keeper of task ids: an observer of the conversation's events, like the recorder.

A task the server makes over HTTP (events.TaskCreated) in the 2026-07-28 era is kept at once in mrtr's configuration
directory (kept_tasks.py), with its server, the request that made it and its status; each status
change (events.TaskStatusChanged) updates it; when the conversation ends (events.OutcomeReached)
with the task in a terminal status, its outcome is about to be shown, and the id is dropped. A
task that is not terminal then (Ctrl-C, --task-timeout, a lost connection) stays kept, for
`mrtr tasks resume`. An older-era task (2025-11-25) belongs to the session mrtr ends on exit: it is
watched, never kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mrtr_cli.conversation import events
from mrtr_cli.process import signals
from mrtr_cli.errors import UsageError
if TYPE_CHECKING:  # kept_tasks (file locks, hashes, a dataclass) loads once a server makes a task
    from mrtr_cli.config.kept_tasks import KeptTask, TaskStore

KEPT_BY = (events.TaskCreated, events.TaskStatusChanged, events.OutcomeReached)
"""The events the keeper acts on."""


class TaskKeeper:
    """Keeps the task of one request (`method` of `name`) to the server at `url`. Without a
    `store` (a stdio server, whose tasks die with it) it only watches: `task` says which. `store`
    may be what makes the store, called once a task is to be kept or dropped: a call whose server
    makes no task loads no kept_tasks and looks up no folder."""

    def __init__(self, url: str, method: str, name: str, store: TaskStore | Callable[[], TaskStore] | None,
                 task: KeptTask | None = None) -> None:
        self.url, self.method, self.name = url, method, name
        self._store = store
        self.task = task
        """The task being followed (kept, or terminal and dropped); None until the server makes one.
        `tasks resume` starts with the task it resumes."""
        self.trouble: str | None = None
        """Why the id could not be kept, when it could not (the conversation goes on without it)."""
        self.session_bound = False
        """The task is of the older era (2025-11-25): it belongs to the session mrtr ends, so it is not kept."""

    @property
    def store(self) -> TaskStore | None:
        """Where the task is kept (made now, the first time it is asked for); None over stdio."""
        if callable(self._store):
            self._store = self._store()
        return self._store

    def __call__(self, event: Any) -> None:
        if not isinstance(event, KEPT_BY):
            return  # a round's other events, before any signal is held: this runs for every event of every call
        with signals.held():  # a Ctrl-C while a task is kept lands once it is kept whole, never between
            if isinstance(event, events.TaskCreated):
                self._created(event)
            elif isinstance(event, events.TaskStatusChanged) and self.task and event.task_id == self.task.task_id:
                self._changed(event)
            elif isinstance(event, events.OutcomeReached) and self.task and self.task.terminal():
                self.dropped()

    def dropped(self) -> bool:
        """Forget the task: it ended and is shown, was cancelled, or the server does not know it. Whether
        its id was kept (and is now forgotten)."""
        store = None if self.task is None or self.session_bound else self.store
        if store is None or self.task is None:
            return False
        try:
            return store.drop(self.task)
        except UsageError as error:  # a folder that cannot be written: noted, never a failed call
            self.trouble = error.message
            return False

    def _created(self, event: events.TaskCreated) -> None:
        from mrtr_cli.config.kept_tasks import KeptTask, said, said_or_none, ttl_or_none

        now = time.time()
        self.task = KeptTask(event.task_id, self.url, self.method, self.name, said(event.status),
                             said_or_none(event.status_message), now, now, ttl_or_none(event.ttl_ms))
        self.session_bound = event.session_bound
        self._keep(self.task)

    def _changed(self, event: events.TaskStatusChanged) -> None:
        from dataclasses import replace

        from mrtr_cli.config.kept_tasks import said, said_or_none

        assert self.task is not None
        self.task = replace(self.task, status=said(event.status), status_message=said_or_none(event.status_message),
                            seen_at=time.time())
        if not self.task.terminal():
            self._keep(self.task)

    def _keep(self, task: KeptTask) -> None:
        """Keep `task` (not over stdio, nor an older-era one); a folder that cannot be written is noted,
        never a failed call."""
        store = None if self.session_bound else self.store
        if store is None:
            return
        try:
            store.keep(task)
        except UsageError as error:
            self.trouble = error.message
