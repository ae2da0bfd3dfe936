"""What the proxy saw cross it, and the one interface of everything that watches it.

The proxy moves bytes; it decodes a copy of each frame for its watchers and never re-encodes what it
passes on. Watchers (the live timeline, the judge of the client, the recorder of conversations) are
told each frame in the order it crossed, then that the connection ended.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Literal, NamedTuple, Protocol

from mrtr_cli.protocol.jsonrpc import Message

Direction = Literal["to_server", "to_client"]
"""Which way a frame went: from the client (host) to the server, or back."""


class Crossed(NamedTuple):
    """One frame that crossed the proxy.

    `text` is the frame exactly as it crossed (an SSE event's data, a POST body, a stdio line without
    its newline); `message` is its decoding (jsonrpc.Malformed when it is not JSON-RPC). `headers` are
    the HTTP headers that came with it (the POST's request headers for `to_server`, the response's for
    `to_client`; empty over stdio), with Authorization and cookies already removed unless
    `--show-secrets`. `channel` names the connection or stream it used ("stdio", or one HTTP exchange:
    frames of the same POST share it), so a watcher can pair a response with its request. `at` is
    when it crossed (time.monotonic(); 0.0: not said, the time it is told), so the watchers, told a
    little later in a thread of their own, still measure the round trip as the bytes made it.
    """

    direction: Direction
    text: str
    message: Message
    headers: Mapping[str, str]
    channel: str
    at: float = 0.0


def crossed_at(frame: Crossed) -> float:
    """When `frame` crossed: its `at`, else now."""
    return frame.at or time.monotonic()


class Watcher(Protocol):
    """Anything told what crossed the proxy."""

    def crossed(self, frame: Crossed) -> None:
        """One frame crossed, in order."""

    def ended(self) -> None:
        """The connection (stdio) or the proxy (HTTP) ended: say what is still open."""
