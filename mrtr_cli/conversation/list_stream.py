"""A connection that stays open (`mrtr shell`) hears of list changes on one `subscriptions/listen` stream
(2026-07-28, over HTTP): it asks for the list_changed notifications of the lists the server says change
(`listChanged` in its capabilities), and each one heard makes the kept lists stale.

The stream is a POST of its own whose event stream stays open; a daemon thread reads it and only calls
`changed` (which must be safe from another thread: it marks, nothing is told or drawn). Over stdio no such
stream is opened (task_stream.py says why): a list_changed there arrives while a request waits, and the
session's broadcast carries it. A stream the server refuses or ends only ends it: the lists are still fetched
again when their ttlMs lapses.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from mrtr_cli.conversation.client import Client
from mrtr_cli.errors import MrtrError
from mrtr_cli.process import signals
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.transport.base import Deadline, Exchange, Frame

LISTEN = "subscriptions/listen"
FILTERS = {"tools": ("toolsListChanged", "notifications/tools/list_changed"),
           "prompts": ("promptsListChanged", "notifications/prompts/list_changed"),
           "resources": ("resourcesListChanged", "notifications/resources/list_changed")}
"""For each server capability whose `listChanged` says its list changes: the filter key that opts in to its
notification, and the notification."""
OPEN_SECONDS = 24 * 3600.0
"""How long the stream is read at most (a server ends its own sooner: the demo's after an hour)."""

Changed = Callable[[str], None]
"""Told the method of each list_changed notification heard (from the reading thread)."""


def listen_filters(capabilities: Any) -> dict[str, bool]:
    """The subscription filter for the lists the server says change; {} when it says none does."""
    if not isinstance(capabilities, dict):
        return {}
    return {key: True for capability, (key, _) in FILTERS.items()
            if isinstance(capabilities.get(capability), dict) and capabilities[capability].get("listChanged") is True}


class ListStream:
    """One subscriptions/listen stream for list changes over `client`, read in a thread of its own."""

    def __init__(self, client: Client, changed: Changed) -> None:
        self.client = client
        self.changed = changed
        self._exchange: Exchange | None = None
        self._closed = threading.Event()

    def open(self, filters: dict[str, bool]) -> bool:
        """Send the listen request and read its stream; whether it was sent."""
        try:
            _, self._exchange = self.client.open_stream(LISTEN, {"notifications": filters})
        except MrtrError:
            return False
        signals.start(threading.Thread(target=self._read, args=(self._exchange,), name="mrtr-list-stream",
                                       daemon=True))
        return True

    def close(self) -> None:
        self._closed.set()
        if self._exchange is not None:
            self._exchange.close()

    def _read(self, exchange: Exchange) -> None:
        try:
            self._heard(exchange.frames(Deadline(OPEN_SECONDS)))
        except Exception:  # noqa: BLE001 - a broken or closed stream only ends it
            return

    def _heard(self, items: Iterable[Any]) -> None:
        announced = {notification for _, notification in FILTERS.values()}
        for item in items:
            if self._closed.is_set():
                return
            if not isinstance(item, Frame):
                continue
            message = jsonrpc.decode(item.data)
            if isinstance(message, jsonrpc.Notification) and message.method in announced:
                self.changed(message.method)
            elif isinstance(message, jsonrpc.Response):
                return  # the server ended the subscription
