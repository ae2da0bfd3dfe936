"""`mrtr check`'s rules about what may come on a response stream besides the response, judged on
every exchange of the run (the named tool's conversation among them): no request from the server
(since 2026-07-28 a server asks through input_required), and no log message for a request that did
not ask for logs with `logLevel` in its `_meta`. mrtr's probes never ask for logs; with
`--log-level` the tool's requests do, and the log rule is not judged.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli import events
from mrtr_cli.check.verdicts import Check, Probe, verdict
from mrtr_cli.protocol import jsonrpc

LOG_MESSAGE = "notifications/message"


class StreamWatch:
    """Observes the client's events: the frames that came besides the responses."""

    def __init__(self, log_level: str | None) -> None:
        self.log_level = log_level
        self.responses = 0
        self.logs: list[str] = []
        self.requests: list[str] = []

    def __call__(self, event: Any) -> None:
        if not isinstance(event, events.FrameReceived):
            return
        message = event.message
        if isinstance(message, jsonrpc.Response):
            self.responses += 1
        elif isinstance(message, jsonrpc.Notification) and message.method == LOG_MESSAGE:
            self.logs.append(message.raw)
        elif isinstance(message, jsonrpc.Request):
            self.requests.append(message.method)

    def checks(self) -> list[Check]:
        read = f"{self.responses} response{'s' if self.responses != 1 else ''} read"
        asked = f"{len(self.requests)} request(s) from the server: {', '.join(sorted(set(self.requests)))}"
        logs = (verdict(*STREAM_PROBES[1], None, f"not judged: --log-level {self.log_level} asked for logs")
                if self.log_level else verdict(*STREAM_PROBES[1], not self.logs, f"{len(self.logs)} {LOG_MESSAGE} "
                                               f"for requests without logLevel" if self.logs else
                                               f"{read}, no {LOG_MESSAGE}"))
        return [verdict(*STREAM_PROBES[0], not self.requests, asked if self.requests else f"{read}, no request"),
                logs]


STREAM_PROBES: list[Probe] = [
    ("no-server-requests", "no request from the server comes on a response stream (it asks through input_required)",
     "MUST", "basic/patterns/mrtr"),
    ("no-log-without-level", "no notifications/message for a request without logLevel in _meta", "MUST",
     "server/utilities/logging#requesting-log-messages"),
]
