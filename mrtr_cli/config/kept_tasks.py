"""The ids of tasks mrtr started over HTTP, kept so that a task outlives the run that started it
(Ctrl-C, a crash, `--task-timeout`): the extension asks clients to keep task ids durably so that
polling can resume (io.modelcontextprotocol/tasks, "Task Polling").

One JSON file per server URL in the `tasks/` folder of mrtr's configuration directory
(`config_dir.py`: the folder 0700, each file 0600, written whole and renamed; each read-modify-write
holds an exclusive lock on the folder's `.lock`, so that calls running at once lose no id). A task id may be
a bearer token for the server's stored state (the extension's "Task ID unguessability"), so the
files are as private as the token store's. Each kept task says its server, the request that made
it (method and tool), its last status and when it was seen, and its time to live. What a server
said is kept as text of bounded length; a file that cannot be trusted reads as no tasks.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from mrtr_cli.config import config_dir
from mrtr_cli.errors import UsageError

FORMAT_VERSION = 1
"""The `version` of every kept-tasks file; a file of another version reads as no tasks."""
MAX_FILE_SIZE = 256 * 1024
"""The largest kept-tasks file mrtr reads."""
MAX_TASKS_PER_SERVER = 100
"""The most tasks kept for one server: past it the oldest seen is dropped."""
MAX_FILES = 1000
"""The most kept-tasks files `every_task()` looks at."""
MAX_TEXT = 1000
"""The longest text (an id, a status message) kept as the server said it; longer is cut."""
LOCK_FILE = ".lock"
"""The file in the tasks folder whose exclusive lock (flock) every read-modify-write of a kept-tasks file holds:
calls running at once do not lose each other's ids."""
TERMINAL_STATUSES = ("completed", "failed", "cancelled")
"""The statuses a task never leaves (the extension's "Task Status")."""


def server_key(url: str) -> str:
    """`url` as servers are keyed: scheme and host in lower case, no fragment, no trailing slash."""
    parts = urlsplit(url.strip())
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"), parts.query, ""))


def file_name(url: str) -> str:
    """The file of `url`'s tasks: a readable slug of the URL and a short hash of it."""
    key = server_key(url)
    readable = "-".join(re.findall(r"[a-z0-9]+", re.sub(r"^[a-z]+://", "", key.lower())))[:48].rstrip("-")
    import hashlib  # 3 ms of start-up (OpenSSL's binding): only when a task is kept or looked up

    return f"{readable or 'server'}-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:12]}.json"


@dataclass(frozen=True)
class KeptTask:
    """One task mrtr may come back to. Times are seconds since the epoch (this machine's clock)."""

    task_id: str
    server: str
    method: str
    name: str
    status: str
    status_message: str | None
    created_at: float
    seen_at: float
    ttl_ms: int | None = None

    def expires_at(self) -> float | None:
        """When its time to live, counted from its creation, runs out (None: never)."""
        return None if self.ttl_ms is None else self.created_at + self.ttl_ms / 1000

    def expired(self, now: float | None = None) -> bool:
        """Whether its time to live has run out: the server may have discarded it."""
        ends = self.expires_at()
        return ends is not None and (time.time() if now is None else now) >= ends

    def terminal(self) -> bool:
        """Whether its last status is one a task never leaves."""
        return self.status in TERMINAL_STATUSES


def said(value: Any) -> str:
    """What a server said, as text of at most MAX_TEXT characters (a hostile server may say a megabyte,
    or a number where text belongs)."""
    return (value if isinstance(value, str) else str(value))[:MAX_TEXT]


def said_or_none(value: Any) -> str | None:
    return None if value is None else said(value)


def task_from_document(document: Any) -> KeptTask | None:
    """The task a file's entry describes, or None when it has another shape."""
    if not isinstance(document, dict):
        return None
    texts = ("task_id", "server", "method", "name", "status")
    if not all(isinstance(document.get(name), str) for name in texts):
        return None
    if not (document.get("status_message") is None or isinstance(document["status_message"], str)):
        return None
    if not all(_is_time(document.get(name)) for name in ("created_at", "seen_at")):
        return None
    if document.get("ttl_ms") is not None and ttl_or_none(document["ttl_ms"]) is None:
        return None
    values: dict[str, Any] = {field.name: document.get(field.name) for field in fields(KeptTask)}
    return KeptTask(**values)


def ttl_or_none(value: Any) -> int | None:
    """A time to live a server gave, when it is a sensible number of milliseconds."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**15:
        return value
    return None


def _is_time(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) < 1e12


class TaskStore:
    """The tasks kept on disk, one file per server URL."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else config_dir.folder(config_dir.TASKS)

    def path_for(self, url: str) -> Path:
        """Where the tasks of the server at `url` are kept."""
        return self.directory / file_name(url)

    def tasks_of(self, url: str) -> list[KeptTask]:
        """The tasks kept for the server at `url` (another server's, in a file of the same name, are not)."""
        key = server_key(url)
        return [task for task in _read_tasks(self.path_for(url)) if server_key(task.server) == key]

    def find(self, task_id: str, url: str | None = None) -> list[KeptTask]:
        """The kept tasks of id `task_id`: of the server at `url`, or of every server when None."""
        kept = self.tasks_of(url) if url is not None else self.every_task()
        return [task for task in kept if task.task_id == task_id]

    def keep(self, task: KeptTask) -> Path:
        """Keep `task` (replacing the one of its id for its server) and say where. An id longer than
        MAX_TEXT is refused (UsageError): a cut id would name another task."""
        if len(task.task_id) > MAX_TEXT:
            raise UsageError(f"the id is {len(task.task_id)} characters long, longer than the {MAX_TEXT} mrtr keeps")
        with self._locked():
            others = [kept for kept in self.tasks_of(task.server) if kept.task_id != task.task_id]
            newest = sorted(others, key=lambda kept: kept.seen_at)[-(MAX_TASKS_PER_SERVER - 1):]
            return self._write(task.server, [*newest, task])

    def drop(self, task: KeptTask) -> bool:
        """Forget `task` (its id, of its server); whether it was kept."""
        if not self.find(task.task_id, task.server):
            return False  # nothing to forget: no lock, no folder made
        with self._locked():
            kept = self.tasks_of(task.server)
            remaining = [other for other in kept if other.task_id != task.task_id]
            if len(remaining) == len(kept):
                return False
            self._write(task.server, remaining)
            return True

    def every_task(self) -> list[KeptTask]:
        """Every kept task that can be trusted, by server then by when it was created."""
        found = [task for path in self._files() for task in _read_tasks(path)]
        return sorted(found, key=lambda task: (server_key(task.server), task.created_at))

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the folder's exclusive lock (its lock file owner-only, never reached through a symbolic link)."""
        try:
            config_dir.make_private_folder(self.directory)
            flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
            descriptor = os.open(self.directory / LOCK_FILE, flags, 0o600)
        except OSError as error:
            raise _unwritable(self.directory, error) from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield
        finally:
            os.close(descriptor)  # which releases the lock

    def _write(self, url: str, tasks: list[KeptTask]) -> Path:
        path = self.path_for(url)
        try:
            if not tasks:
                path.unlink(missing_ok=True)
                return path
            config_dir.make_private_folder(self.directory)
            document = {"version": FORMAT_VERSION, "server": url, "tasks": [asdict(task) for task in tasks]}
            config_dir.write_private_file(path, json.dumps(document, indent=2) + "\n", prefix=".tasks-")
        except OSError as error:
            raise _unwritable(self.directory, error) from None
        return path

    def _files(self) -> list[Path]:
        return config_dir.kept_files(self.directory, MAX_FILES)


def _unwritable(directory: Path, error: OSError) -> UsageError:
    return UsageError(f"cannot keep task ids in {directory}: {error.strerror or error}",
                      f"check that the directory is writable, or set {config_dir.CONFIG_DIR_VARIABLE}")


def _read_tasks(path: Path) -> list[KeptTask]:
    """The tasks in the file at `path`; none when it is missing or cannot be trusted."""
    data = config_dir.read_own_file(path, MAX_FILE_SIZE)
    if data is None:
        return []
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return []
    if not isinstance(document, dict) or document.get("version") != FORMAT_VERSION:
        return []
    entries = document.get("tasks")
    found = (task_from_document(entry) for entry in (entries if isinstance(entries, list) else []))
    return [task for task in found if task is not None]
