"""The stdio shim: what a host launches instead of the server. The server runs behind it
(transport/stdio_relay.py moves the bytes); each whole line that crossed is decoded once, as a copy,
and told to the watchers in the order it crossed."""

from __future__ import annotations

import time
from collections.abc import Sequence

from mrtr_cli.conversation import events
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.proxy.told import Told
from mrtr_cli.proxy.watching import Crossed, Direction, Watcher
from mrtr_cli.transport.base import format_size
from mrtr_cli.transport.stdio_relay import TO_SERVER, Seen, StdioRelay

CHANNEL = "stdio"


def run_shim(command: list[str], max_message_size: int, watchers: Sequence[Watcher], note: events.Observer) -> int:
    """Run `command` behind the shim until it exits (or the host closes stdin); its exit code. A
    signal (SIGTERM, Ctrl-C) stops the server's process group on the way out."""
    told = Told(watchers, note)

    def seen(line: Seen) -> None:
        way: Direction = "to_server" if line.direction == TO_SERVER else "to_client"
        if line.line is not None:
            told.crossed(Crossed(way, line.line.decode("utf-8", "replace"), jsonrpc.decode(line.line), {}, CHANNEL,
                                 time.monotonic()))
            return
        toward = "to the server" if way == "to_server" else "to the host"
        told.noted(events.FrameIgnored(f"a message of {format_size(line.size)} {toward} passed through whole; "
                                       "past --max-message-size it is neither recorded nor judged", "too large"))

    relay = StdioRelay(command, max_message_size, seen)
    try:
        return relay.run()
    finally:
        relay.stop()
        told.ended()
