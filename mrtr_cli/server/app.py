"""What a served application provides, and what each of its handlers receives.

The dispatcher (dispatcher.py) owns the protocol; an `App` (the demo server, the transcript
mock) owns the content: its lists, and a `handle` for tools/call, prompts/get and
resources/read that returns a complete result or `NeedInput`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.protocol import meta

if TYPE_CHECKING:
    from mrtr_cli.server.listen_streams import Subscriptions


class RpcError(Exception):
    """A JSON-RPC error to answer with; `status` is the HTTP status it carries."""

    def __init__(self, code: int, message: str, data: Any = None, status: int = 200) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.status = status

    def error_object(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


@dataclass
class NeedInput:
    """A handler's answer when it needs input: questions (maybe none) and state to seal (maybe none)."""

    requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    state: Any = None


@dataclass
class Call:
    """One tools/call, prompts/get or resources/read as a handler sees it."""

    method: str
    subject: str
    arguments: dict[str, Any]
    responses: dict[str, Any]
    state: Any
    capabilities: dict[str, Any]
    notify: Callable[[str, dict[str, Any]], None] = lambda method, params: None
    progress_token: Any = None
    log_level: str | None = None
    start_task: Callable[[Any], dict[str, Any]] | None = None
    """Set when this call may become a task (2026-07-28, the client declared the tasks extension on
    it, the server keeps tasks): makes a task that runs the given `task_plans.TaskPlan` and returns
    its CreateTaskResult."""

    def answer(self, key: str) -> dict[str, Any] | None:
        """The client's answer to question `key` on this retry, if it sent one."""
        response = self.responses.get(key)
        return response if isinstance(response, dict) else None

    def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """A progress notification, when the client asked for progress."""
        if self.progress_token is None:
            return
        params: dict[str, Any] = {"progressToken": self.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        self.notify("notifications/progress", params)

    def log(self, level: str, data: Any) -> None:
        """A log message, when the client asked for this level or a lower one."""
        if self.log_level is None or meta.LOG_LEVELS.index(level) < meta.LOG_LEVELS.index(self.log_level):
            return
        self.notify("notifications/message", {"level": level, "logger": "demo", "data": data})


class App(Protocol):
    """Content served through the dispatcher."""

    # read-only members (properties), so that an app may hold narrower values: MockApp's None
    @property
    def info(self) -> dict[str, Any]: ...

    @property
    def instructions(self) -> str | None: ...

    @property
    def subscriptions(self) -> Subscriptions | None:
        """What announces list changes to `subscriptions/listen` streams; None: the app never changes."""

    def capabilities(self) -> dict[str, Any]: ...

    def listing(self, key: str) -> list[dict[str, Any]]:
        """tools, prompts, resources or resourceTemplates, in a stable order."""

    def tool(self, name: str) -> dict[str, Any] | None:
        """The definition of the tool `name` (as listed), or None (the header checks look it up
        on every tools/call over HTTP: a look-up, not a scan)."""

    def handle(self, call: Call) -> dict[str, Any] | NeedInput:
        """A complete result, or the input needed; `RpcError` for a bad request."""
