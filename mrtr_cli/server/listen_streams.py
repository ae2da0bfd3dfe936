"""subscriptions/listen (2026-07-28): long-lived streams on which a server announces list changes.

A listen request opens a subscription: the server first acknowledges it with the notification
types it agreed to honour (those the client asked for and it offers), then sends each
announced change to every subscription that asked for it, tagged with the subscription's id
(the listen request's id). The dispatcher opens a subscription when the app has `Subscriptions`;
over stdio the notifications go out on stdout among the other messages, over HTTP the listen
request's response stream stays open (`hold_open`) until the client leaves or `MAX_LISTEN_SECONDS`.

A listen request may also name `notifications.taskIds` (the tasks extension): the acknowledgement says
which of them the server agreed to, and a subscription given a `watch` (task_store.py's `TaskWatch`, over
HTTP) has it looked at every WATCH_SECONDS while the stream is held open: it sends each agreed task's
changes as `notifications/tasks`, and once every such task has ended (and no list change was asked for)
the server ends the stream with its response.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from mrtr_cli.protocol.meta import SUBSCRIPTION_ACKNOWLEDGED as ACKNOWLEDGED
from mrtr_cli.protocol.meta import SUBSCRIPTION_ID

FILTER_KEYS = {"notifications/tools/list_changed": "toolsListChanged",
               "notifications/prompts/list_changed": "promptsListChanged"}
"""Each list-change notification and the filter key a client opts in to it with."""
WATCH_SECONDS = 0.1
"""How often a stream with task ids looks at its tasks (the demo's tasks step by the clock when looked at)."""
KEEPALIVE_SECONDS = 10.0
"""How often an idle HTTP listen stream sends a comment, to notice a client that left."""
MAX_LISTEN_SECONDS = 3600.0
"""How long an HTTP listen stream stays open before the server ends it with a result."""
Send = Callable[[str, dict[str, Any]], None]


class Subscription:
    """One open listen stream: its id, what it agreed to, and how to reach it."""

    def __init__(self, request_id: Any, agreed: dict[str, bool], send: Send) -> None:
        self.request_id = request_id
        self.agreed = agreed
        self.send = send
        self.ended = threading.Event()
        self.watch: Callable[[], bool] | None = None
        """Looked at every WATCH_SECONDS while the stream is open (the agreed tasks' notifications); True
        once nothing more will come of it."""

    def deliver(self, method: str) -> None:
        """The change `method`, when this stream asked for it; a stream that cannot be written to ends."""
        if not self.agreed.get(FILTER_KEYS[method]):
            return
        try:
            self.send(method, {"_meta": {SUBSCRIPTION_ID: self.request_id}})
        except (OSError, ValueError):
            self.ended.set()


class Subscriptions:
    """The open subscriptions of one server, and the list changes it announces to them."""

    def __init__(self, offered: tuple[str, ...] = tuple(FILTER_KEYS.values())) -> None:
        self.offered = offered
        self.lock = threading.Lock()
        self.open: list[Subscription] = []

    def listen(self, request_id: Any, params: dict[str, Any], send: Send,
               task_ids: list[str] | None = None) -> Subscription:
        """Acknowledge a listen request (with the `task_ids` agreed to, when it asked for tasks) and keep
        its stream until it ends."""
        asked = params.get("notifications")
        if not isinstance(asked, dict):
            raise ValueError("subscriptions/listen needs params.notifications (an object)")
        agreed = {key: True for key in self.offered if asked.get(key) is True}
        subscription = Subscription(request_id, agreed, send)
        told: dict[str, Any] = {**agreed, "taskIds": task_ids} if task_ids is not None else dict(agreed)
        send(ACKNOWLEDGED, {"_meta": {SUBSCRIPTION_ID: request_id}, "notifications": told})
        with self.lock:
            self.open = [s for s in self.open if not s.ended.is_set()] + [subscription]
        return subscription

    def announce(self, method: str) -> None:
        """Send the list change `method` to every open subscription that asked for it."""
        with self.lock:
            self.open = [s for s in self.open if not s.ended.is_set()]
            subscriptions = list(self.open)
        for subscription in subscriptions:
            subscription.deliver(method)


def hold_open(subscription: Subscription, keepalive: Callable[[], None]) -> bool:
    """Wait while an HTTP listen stream is open, a keepalive every KEEPALIVE_SECONDS to notice a
    client that left, its `watch` looked at every WATCH_SECONDS; True when the server ends it (at
    MAX_LISTEN_SECONDS, or once its watch is over and it asked for nothing else): its response is due."""
    deadline = time.monotonic() + MAX_LISTEN_SECONDS
    next_keepalive = time.monotonic() + KEEPALIVE_SECONDS
    step = WATCH_SECONDS if subscription.watch is not None else KEEPALIVE_SECONDS
    while not subscription.ended.wait(max(0.0, min(next_keepalive, deadline, time.monotonic() + step)
                                          - time.monotonic())):
        try:
            if time.monotonic() >= deadline or _watch_over(subscription):
                subscription.ended.set()
                return True
            if time.monotonic() >= next_keepalive:
                next_keepalive = time.monotonic() + KEEPALIVE_SECONDS
                keepalive()
        except (OSError, ValueError):
            subscription.ended.set()
    return False


def _watch_over(subscription: Subscription) -> bool:
    """Whether the subscription's watch is over and nothing else was asked for (its stream may end)."""
    return subscription.watch is not None and subscription.watch() and not any(subscription.agreed.values())
