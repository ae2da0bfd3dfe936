"""subscriptions/listen (2026-07-28): long-lived streams on which a server announces list changes.

A listen request opens a subscription: the server first acknowledges it with the notification
types it agreed to honour (those the client asked for and it offers), then sends each
announced change to every subscription that asked for it, tagged with the subscription's id
(the listen request's id). The dispatcher opens a subscription when the app has `Subscriptions`;
over stdio the notifications go out on stdout among the other messages, over HTTP the listen
request's response stream stays open (`hold_open`) until the client leaves or `MAX_LISTEN_SECONDS`.
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

    def listen(self, request_id: Any, params: dict[str, Any], send: Send) -> Subscription:
        """Acknowledge a listen request and keep its stream until it ends."""
        asked = params.get("notifications")
        if not isinstance(asked, dict):
            raise ValueError("subscriptions/listen needs params.notifications (an object)")
        agreed = {key: True for key in self.offered if asked.get(key) is True}
        subscription = Subscription(request_id, agreed, send)
        send(ACKNOWLEDGED, {"_meta": {SUBSCRIPTION_ID: request_id}, "notifications": agreed})
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
    client that left; True when the server ends it at MAX_LISTEN_SECONDS (its response is due)."""
    deadline = time.monotonic() + MAX_LISTEN_SECONDS
    while not subscription.ended.wait(min(KEEPALIVE_SECONDS, max(0.0, deadline - time.monotonic()))):
        if time.monotonic() >= deadline:
            subscription.ended.set()
            return True
        try:
            keepalive()
        except (OSError, ValueError):
            subscription.ended.set()
    return False
