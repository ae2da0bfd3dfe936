"""`mrtr check`'s rules about what comes on the response streams, judged on every exchange of the
run (the named tool's conversation among them): no request from the server (since 2026-07-28 a
server asks through input_required), no log message for a request that did not ask for logs with
`logLevel` in its `_meta`, every message valid against the spec's JSON schema (shipped as
check/schema-2026-07-28.json; validated once the probes are done, by validation.py), and every
result naming the server in its `_meta`. mrtr's
probes never ask for logs; with `--log-level` the tool's requests do, and the log rule is not judged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.check.verdicts import Check, Probe, short, verdict
from mrtr_cli.protocol import jsonrpc, meta
from mrtr_cli.text import safe_line

LOG_MESSAGE = "notifications/message"
SCHEMA = Path(__file__).with_name("schema-2026-07-28.json")
KEPT_MESSAGES, KEPT_SIZE = 500, 1024 * 1024
"""At most this many messages are validated, each at most this many characters (a 20 MB result is not)."""


class StreamWatch:
    """Observes the client's events: the frames that came besides the responses."""

    def __init__(self, log_level: str | None) -> None:
        self.log_level = log_level
        self.responses = 0
        self.logs: list[str] = []
        self.requests: list[str] = []
        self.methods: dict[Any, str] = {}
        """The method of each request sent, by id: a result is validated as that method's result."""
        self.kept: list[tuple[str, str | None]] = []
        self.unkept = 0
        self.results = 0
        self.unnamed: list[str] = []
        """The methods whose results carried no serverInfo in their _meta."""
        self.validated: list[list[str]] = []
        """The schema's problems with each of the first messages kept, validated ahead (`validate_so_far`)."""
        self.requests_sent: dict[Any, str] = {}
        """Each request sent, in a few words (method, name or URI, round), by id."""
        self.interim = 0
        self.hinted: list[str] = []
        """The input_required results that carried ttlMs or cacheScope, each in a few words."""

    def __call__(self, event: Any) -> None:
        if isinstance(event, events.RequestSent):
            self.methods[event.id] = event.method
            self.requests_sent[event.id] = _request_words(event)
        if not isinstance(event, events.FrameReceived):
            return
        message = event.message
        self._keep(message)
        if isinstance(message, jsonrpc.Response):
            self.responses += 1
            self._note_server_info(message)
            self._note_interim(message)
        elif isinstance(message, jsonrpc.Notification) and message.method == LOG_MESSAGE:
            self.logs.append(message.raw)
        elif isinstance(message, jsonrpc.Request):
            self.requests.append(message.method)

    def _note_server_info(self, response: jsonrpc.Response) -> None:
        if response.error is None and isinstance(response.result, dict):
            self.results += 1
            if meta.server_info(response.result) is None:
                self.unnamed.append(str(self.methods.get(response.id, "a response of unknown id")))

    def _note_interim(self, response: jsonrpc.Response) -> None:
        result = response.result
        if response.error is not None or not isinstance(result, dict) or result.get("resultType") != "input_required":
            return
        self.interim += 1
        hints = [f"{name} {short(result[name])}" for name in ("ttlMs", "cacheScope") if name in result]
        if hints:
            self.hinted.append(f"{self.requests_sent.get(response.id, 'a response of unknown id')}: "
                               f"{', '.join(hints)}")

    def interim_check(self) -> Check:
        """No input_required result of the run carried ttlMs or cacheScope."""
        if not self.interim:
            return verdict(*INTERIM_NO_CACHING_HINTS, None, "no input_required result came")
        if not self.hinted:
            return verdict(*INTERIM_NO_CACHING_HINTS, True, f"none of {self.interim} input_required results "
                                                            "carries ttlMs or cacheScope")
        return verdict(*INTERIM_NO_CACHING_HINTS, False, f"{len(self.hinted)} of {self.interim} input_required "
                                                         f"results carry caching hints; first: "
                                                         f"{safe_line(self.hinted[0], 200)}")

    def _keep(self, message: Any) -> None:
        if isinstance(message, jsonrpc.Malformed):
            return  # not JSON-RPC at all: the probe that read it failed already
        if len(self.kept) >= KEPT_MESSAGES or len(message.raw) > KEPT_SIZE:
            self.unkept += 1
            return
        method = self.methods.get(message.id) if isinstance(message, jsonrpc.Response) else None
        self.kept.append((message.raw, method))

    def validate_so_far(self) -> None:
        """Validate the messages kept until now, ahead of `schema_check` (while a probe would only wait)."""
        from mrtr_cli.forms.validation import wire_problems

        self.validated += [wire_problems(json.loads(raw), method, SCHEMA) for raw, method in
                           self.kept[len(self.validated):]]

    def schema_check(self) -> Check:
        self.validate_so_far()
        broken = [(json.loads(raw), found) for (raw, _), found in zip(self.kept, self.validated) if found]
        unkept = f" ({self.unkept} more not validated: past {KEPT_MESSAGES} messages or 1 MiB each)" \
            if self.unkept else ""
        if broken:
            message, found = broken[0]
            return verdict(*SCHEMA_VALID, False, f"{len(broken)} of {len(self.kept)} invalid; first: "
                                                    f"{'; '.join(found[:2])}: {short(message)}{unkept}")
        return verdict(*SCHEMA_VALID, True, f"{len(self.kept)} messages valid{unkept}")

    def checks(self) -> list[Check]:
        read = f"{self.responses} response{'s' if self.responses != 1 else ''} read"
        asked = f"{len(self.requests)} request(s) from the server: {', '.join(sorted(set(self.requests)))}"
        return [verdict(*NO_SERVER_REQUESTS, not self.requests, asked if self.requests else f"{read}, no request"),
                self._logs_check(read), self.schema_check(), self.server_info_check(), self.interim_check()]

    def server_info_check(self) -> Check:
        """serverInfo in the _meta of every result, as the spec's SHOULD has it (not only discover's)."""
        if not self.results:
            return verdict(*SERVER_INFO, None, "no result came")
        if not self.unnamed:
            return verdict(*SERVER_INFO, True, f"serverInfo in all {self.results} results")
        methods = ", ".join(sorted(set(self.unnamed)))
        return verdict(*SERVER_INFO, False, f"{len(self.unnamed)} of {self.results} results without "
                                            f"serverInfo in _meta: {safe_line(methods, 200)}")

    def _logs_check(self, read: str) -> Check:
        if self.log_level:
            return verdict(*NO_LOG_WITHOUT_LEVEL, None, f"not judged: --log-level {self.log_level} asked for logs")
        if self.logs:
            return verdict(*NO_LOG_WITHOUT_LEVEL, False,
                           f"{len(self.logs)} {LOG_MESSAGE} for requests without logLevel")
        return verdict(*NO_LOG_WITHOUT_LEVEL, True, f"{read}, no {LOG_MESSAGE}")


NO_SERVER_REQUESTS: Probe = (
    "no-server-requests", "no request from the server comes on a response stream (it asks through input_required)",
    "MUST", "basic/patterns/mrtr")
NO_LOG_WITHOUT_LEVEL: Probe = ("no-log-without-level",
                               "no notifications/message for a request without logLevel in _meta", "MUST",
                               "server/utilities/logging#requesting-log-messages")
SCHEMA_VALID: Probe = ("schema-valid", "every message the server sent is valid against the spec's JSON schema", "MUST",
                       "basic/index#messages")
SERVER_INFO: Probe = ("server-info", "every result names the server (serverInfo in _meta)", "SHOULD",
                      "basic/index#meta")
INTERIM_NO_CACHING_HINTS: Probe = ("interim-no-caching-hints",
                                   "no input_required result carries caching hints (ttlMs, cacheScope)", "SHOULD",
                                   "server/utilities/caching#cacheable-results")
STREAM_PROBES: list[Probe] = [NO_SERVER_REQUESTS, NO_LOG_WITHOUT_LEVEL, SCHEMA_VALID, SERVER_INFO,
                              INTERIM_NO_CACHING_HINTS]
"""The rules judged on every exchange of the run, in the order shown (`StreamWatch.checks`)."""


def _request_words(sent: events.RequestSent) -> str:
    """`tools/call book_table round 2`: which request, of which target, in which round."""
    subject = sent.params.get("name") or sent.params.get("uri") if isinstance(sent.params, dict) else None
    named = f" {safe_line(str(subject), 80)}" if isinstance(subject, str) else ""
    return f"{sent.method}{named}{f' round {sent.round}' if sent.round is not None else ''}"
