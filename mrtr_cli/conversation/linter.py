"""The linter: an observer that checks everything a server sends during a conversation and
emits each finding as an event (the timeline shows it, the transcript keeps it).

Per-message rules come from protocol/lint_rules.py. Rules about the whole conversation are here:
deprecated features in use (once each), and a server that has not said who it is by the time
a final result arrives.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.conversation.eras import era_named
from mrtr_cli.protocol import meta
from mrtr_cli.protocol import handshake, lint_rules
from mrtr_cli.protocol.jsonrpc import Notification, Request, Response, same_id
from mrtr_cli.protocol.mrtr import questions


class Linter:
    """Each finding is emitted while the event that caused it is being handled; `told` is them all."""

    def __init__(self, capabilities: meta.Capabilities, emit: events.Observer) -> None:
        self.capabilities = capabilities
        self.emit = emit
        self.findings: list[lint_rules.Finding] = []
        self.in_flight: Any = None
        self.round: int | None = None
        self.identified = False
        self._noted: set[str] = set()
        self.handshake_version: str | None = None
        """The version the initialize handshake chose, in the era that has one (whose rules differ)."""
        self.probing = False
        """The request in flight is the era probe (server/discover): what it provokes is told apart."""
        self.of_the_probe: list[lint_rules.Finding] = []
        """Findings of the era probe: not the conversation's when the server proves to be of the older era."""
        self.refusal_findings: list[lint_rules.Finding] = []
        """Findings on an error answering the era probe, held back: that refusal is what an older-era server
        is expected to send, so they are told only if the server proves to speak 2026-07-28."""
        self.cancelled: set[int] = set()
        """Requests mrtr cancelled, or stopped waiting for (the era probe): a response to one may still come, and
        is no fault (basic/utilities/cancellation)."""
        self._handlers: dict[type, events.Observer] = {
            events.RequestSent: self._sent, events.FrameReceived: self._frame,
            events.ResponseReceived: self._response,
            events.EraChosen: self._era, events.InputRequested: self._asked_in_flight,
            events.CancelSent: self._cancelled, events.TaskStreamProblem: self._task_stream,
            events.ProbeUnanswered: self._left_waiting}

    def __call__(self, event: Any) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:
            handler(event)

    def _sent(self, event: events.RequestSent) -> None:
        self.in_flight, self.round, self.probing = event.id, event.round, event.purpose == "era"

    def _task_stream(self, event: events.TaskStreamProblem) -> None:
        """What a task's listen stream carried against the tasks extension (conversation/task_stream.py)."""
        self._report([lint_rules.finding(event.rule, event.message)])

    def _cancelled(self, event: events.CancelSent) -> None:
        self.cancelled.add(event.id)

    def _left_waiting(self, event: events.ProbeUnanswered) -> None:
        """The era probe, still listened for past its wait: its late answer is no fault either."""
        self.cancelled.add(event.id)

    def _era(self, event: events.EraChosen) -> None:
        handshake_era = era_named(event.era).handshake
        self.handshake_version = event.version if handshake_era else None
        if handshake_era:  # the probe spoke a language the server does not: what it provoked is no fault
            self.findings = [found for found in self.findings if found not in self.of_the_probe]
            self.refusal_findings = []
        self.of_the_probe = []
        self._tell_held()

    def _tell_held(self) -> None:
        """The held findings on the probe's refusal, told: the server was not of the older era after all."""
        held, self.refusal_findings = self.refusal_findings, []
        for found in held:
            self.findings.append(found)
            self.emit(found)

    def _asked_in_flight(self, event: events.InputRequested) -> None:
        """Older era: a server request for a capability mrtr did not declare in initialize."""
        if not event.in_flight or self.handshake_version is None:
            return
        for key, request in event.requests.items():
            capability = handshake.needed_capability(request["method"], request["params"])
            if capability and not handshake.allowed(self.handshake_version, self.capabilities, capability):
                self._report([lint_rules.finding("undeclared-capability", f"the server sent {request['method']} "
                              f"({key}), which needs the client capability {capability}, not declared in "
                              f"initialize ({self.handshake_version})")])

    def _frame(self, event: events.FrameReceived) -> None:
        message = event.message
        if self.handshake_version is not None and isinstance(message, (Request, Notification)):
            return  # server requests and log messages are that era's way
        if isinstance(message, Response) and self.cancelled and any(same_id(message.id, c) for c in self.cancelled):
            return  # a response racing the cancellation
        found = lint_rules.check_frame(message, self.in_flight)
        if self.probing and isinstance(message, Response) and message.error is not None:
            self.refusal_findings.extend(self._as_the_probes(found))
        else:
            self._report(found)
        if isinstance(message, Notification) and message.method == "notifications/message":
            self._once("deprecated-logging", "the server sends log messages (notifications/message)")

    def _response(self, event: events.ResponseReceived) -> None:
        if event.error is not None or self.handshake_version is not None:
            return
        self.identified = self.identified or meta.server_info(event.result) is not None
        self._report(lint_rules.check_result(event.method, event.result, self.capabilities))
        if _final(event.result) and not self.identified:
            self._once("server-info-missing", "no result so far carried serverInfo in its _meta")
        for request in questions(event.result):
            if request.get("method") == "sampling/createMessage":
                self._once("deprecated-sampling", "the server asks for sampling")
            elif request.get("method") == "roots/list":
                self._once("deprecated-roots", "the server asks for roots")

    def told(self) -> list[lint_rules.Finding]:
        """The conversation's findings, asked for by who writes its outcome, before the outcome is said. The
        held ones are told first: no era was chosen, so the refusal stands as it came."""
        self._tell_held()
        return list(self.findings)

    def _once(self, rule: str, message: str) -> None:
        if rule not in self._noted:
            self._noted.add(rule)
            self._report([lint_rules.finding(rule, message)])

    def _report(self, findings: list[lint_rules.Finding]) -> None:
        if not findings:  # the usual frame: nothing to note
            return
        for found in self._as_the_probes(findings):
            if self.probing:
                self.of_the_probe.append(found)
            self.findings.append(found)
            self.emit(found)

    def _as_the_probes(self, findings: list[lint_rules.Finding]) -> list[lint_rules.Finding]:
        """`findings` at the round in flight, saying so when the era probe provoked them."""
        placed = lint_rules.at_round(findings, self.round)
        if not self.probing:
            return list(placed)
        return [dataclasses.replace(found, message=f"{PROBE_PREFIX}{found.message}") for found in placed]


PROBE_PREFIX = "to mrtr's era probe (server/discover): "
"""Findings of the probe say so: the server may be of the older era, which the probe does not speak."""


def _final(result: Any) -> bool:
    return isinstance(result, dict) and result.get("resultType", "complete") != "input_required"


