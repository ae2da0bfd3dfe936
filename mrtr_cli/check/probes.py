"""`mrtr check`: probes of a server's MRTR and 2026-07-28 behaviour, each a pass, fail, warn or
skip with the rule and what was seen. A broken MUST fails; a broken SHOULD warns.

The safe probes always run. The tool probes run only for the tool the user names (`--tool`),
never another. One of them knowingly breaks the client MUST NOT on requestState: it sends an
altered copy to see that the server refuses it. That happens here, apart from the Session,
which never alters state.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any

from mrtr_cli import events
from mrtr_cli.answering.questions import Chain, Question
from mrtr_cli.conversation.client import Client, Reply
from mrtr_cli.conversation.session import Outcome, Round, Session
from mrtr_cli.errors import IncompleteError, ProtocolError, RequestTimeout, UsageError
from mrtr_cli.check.exact_headers import EXACT_HEADER_PROBES, ExactHeaderProber
from mrtr_cli.check.generic import GENERIC_PROBES, GenericProber
from mrtr_cli.check.tool_rounds import ROUND_PROBES, round_checks
from mrtr_cli.check.verdicts import (SPEC, Check, Probe, ProbeFailed, judged, seen, shape_problem, short, timed,
                                     verdict)
from mrtr_cli.protocol import jsonrpc, meta
from mrtr_cli.protocol import lint_rules
from mrtr_cli.protocol.mrtr import INPUT_RESPONSES, REQUEST_STATE, questions, required_capability
from mrtr_cli.transport.base import Mirrored

__all__ = ["EXACT_HEADER_PROBES", "GENERIC_PROBES", "SPEC", "Check", "Prober", "ToolProber", "tampered"]
PROBE_KEY = "__mrtr_probe"


class Prober:
    """Runs the probes against one server."""

    def __init__(self, client: Client, over_http: bool) -> None:
        self.client = client
        self.over_http = over_http
        self.ignored: list[str] = []
        self.declared: dict[str, Any] | None = None
        """The capabilities the DiscoverResult declared, once discover answered."""

    def __call__(self, event: Any) -> None:
        """Observes the client's events: a frame it could not read is part of what a probe saw."""
        if isinstance(event, events.FrameIgnored):
            self.ignored.append(event.reason)

    def meta_for(self, version: str | None = None, capabilities: meta.Capabilities | None = None) -> dict[str, Any]:
        s = self.client.settings
        return meta.request_meta(version or s.version, capabilities or s.capabilities, s.identity, "mrtr-check")

    def status_is(self, reply: Reply, expected: int) -> bool:
        return not self.over_http or reply.status == expected

    def send(self, method: str, params: dict[str, Any], headers_from: dict[str, Any] | None = None,
             mirrored: Mirrored | None = None) -> Reply:
        """One probe request exactly as given; `ProbeFailed` when no usable response came (a dead
        server still raises)."""
        self.ignored.clear()
        try:
            return self.client.raw(method, params, headers_from, mirrored)
        except (RequestTimeout, ProtocolError) as error:
            raise self.failed(error.message) from None

    def failed(self, message: str) -> ProbeFailed:
        """`ProbeFailed` saying `message`, and the last frame mrtr could not read since the exchange began."""
        unread = f"; mrtr could not read what came: {self.ignored[-1]}" if self.ignored else ""
        return ProbeFailed(message + unread)

    def run(self, probes: list[Probe], probe: Callable[[], list[Check]]) -> list[Check]:
        """The checks `probe` makes, timed; when it got no usable response, the first fails, the rest are skipped."""
        started = time.perf_counter()
        try:
            checks = probe()
        except ProbeFailed as failed:
            id, title, level, page = probes[0]
            checks = [Check(id, title, level, "fail", str(failed), SPEC + page),
                      *(verdict(*rest, None, "not probed: nothing usable came before it") for rest in probes[1:])]
        return timed(checks, time.perf_counter() - started)

    # -- the safe probes ------------------------------------------------------------------------

    def safe_checks(self) -> list[Check]:
        return [*self.run(DISCOVER_PROBES, self.discover), *self.run([META_PROBE], self.meta_required),
                *self.run([VERSION_PROBE], self.unsupported_version),
                *self.run([HEADER_PROBE], self.header_mismatch), *GenericProber(self).checks(self.declared),
                *ExactHeaderProber(self).checks()]

    def discover(self) -> list[Check]:
        reply = self.send("server/discover", {"_meta": self.meta_for()})
        usable = reply.error is None and shape_problem(reply) is None
        result = reply.result if usable else {}
        versions = result.get("supportedVersions")
        answers = usable and isinstance(versions, list) and meta.LATEST_VERSION in versions
        found = lint_rules.check_result("server/discover", result, self.client.settings.capabilities) if answers else []
        hints = [f.message for f in found if f.rule == "caching-hints"]
        capabilities = result.get("capabilities") if answers else None
        self.declared = capabilities if isinstance(capabilities, dict) else None
        detail = f"supportedVersions {versions}" if answers else seen(reply)
        return [
            verdict(*DISCOVER_PROBES[0], answers, short(versions) if answers else detail),
            verdict(*DISCOVER_PROBES[1], None if not answers else not hints,
                    hints[0] if hints else "ttlMs and cacheScope present" if answers else "no DiscoverResult"),
        ]  # whether results name the server is judged on every result (check/stream.py)

    def meta_required(self) -> list[Check]:
        reply = self.send("server/discover", {})
        ok = reply.error is not None and reply.error.get("code") == jsonrpc.INVALID_PARAMS and self.status_is(reply, 400)
        return [judged(META_PROBE, reply, ok, "no _meta")]

    def unsupported_version(self) -> list[Check]:
        reply = self.send("server/discover", {"_meta": self.meta_for(version="1999-01-01")})
        data = (reply.error or {}).get("data")
        ok = (reply.error is not None and reply.error.get("code") == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION
              and isinstance(data, dict) and isinstance(data.get("supported"), list) and self.status_is(reply, 400))
        detail = f"version 1999-01-01{f'; data {short(data)}' if reply.error is not None else ''}"
        return [judged(VERSION_PROBE, reply, ok, detail)]

    def header_mismatch(self) -> list[Check]:
        if not self.over_http:
            return [verdict(*HEADER_PROBE, None, "stdio has no headers")]
        disagreeing = {"method": "tools/list", "params": {"_meta": self.meta_for()}}
        reply = self.send("server/discover", {"_meta": self.meta_for()}, headers_from=disagreeing)
        ok = reply.error is not None and reply.error.get("code") == jsonrpc.HEADER_MISMATCH and reply.status == 400
        return [judged(HEADER_PROBE, reply, ok, "Mcp-Method: tools/list for server/discover")]


class ToolProber:
    """The probes of one named tool: they need its first round of questions."""

    def __init__(self, prober: Prober, chain: Chain, name: str, arguments: dict[str, Any],
                 mirrored: Mirrored | None = None) -> None:
        self.prober = prober
        self.client = prober.client
        self.chain = chain
        self.params: dict[str, Any] = {"name": name, "arguments": arguments}
        self.mirrored = mirrored
        """The arguments the tool's calls also send as headers (conversation/preparation.py)."""

    def checks(self) -> list[Check]:
        """The tool's own conversation first: a tool with side effects may ask only once (a
        `delete_folder` asks while the folder has files), and the probes after it complete the
        call with odd answers or other arguments. Its first round is the one the probes reuse."""
        started = time.perf_counter()
        outcome = self.conversation()
        rounds = timed(round_checks(outcome), time.perf_counter() - started)
        return [*self.prober.run(TOOL_PROBES, lambda: self._probes(outcome)), *rounds]

    def _probes(self, outcome: Outcome) -> list[Check]:
        first = self._first_round(outcome)
        if shape_problem(first.reply) is not None:
            raise ProbeFailed(f"the first tools/call: {seen(first.reply)}")
        if first.reply.error is not None:  # as `mrtr call` fails on it, check does: nothing of the tool is judged
            raise ProbeFailed(f"the tool's own call was answered with {seen(first.reply)}: no rule of its "
                              "conversation can be judged (does it need arguments? -a KEY=VALUE)")
        if not _input_required(first.reply):
            why = f"the tool did not ask for input: {seen(first.reply)}"
            return [verdict(*probe, None, why) for probe in TOOL_PROBES]
        asked = first.reply.result.get("inputRequests") or {}
        state = first.reply.result.get(REQUEST_STATE)
        answers = self._answers(asked, first)
        return [*self.prober.run(TOOL_PROBES[:1], lambda: [self.capability_withheld(asked)]),
                *self.prober.run(TOOL_PROBES[1:2], lambda: [self.answerless_retry(state)]),
                *self.prober.run(TOOL_PROBES[2:3], lambda: [self.tampered_state(state, answers)]),
                *self.prober.run(TOOL_PROBES[3:4], lambda: [self.state_with_other_arguments(state, answers)]),
                *self.prober.run(TOOL_PROBES[4:5], lambda: [self.extra_answers(state, answers)]),
                *self.prober.run(TOOL_PROBES[5:6], lambda: [self.wrong_shape(asked, state, answers)]),
                *self.prober.run(TOOL_PROBES[6:7], lambda: [self.null_answers(state)])]

    def conversation(self) -> Outcome:
        """The tool's whole conversation, as `mrtr call` has it (judged round by round in check/tool_rounds.py)."""
        self.prober.ignored.clear()
        return Session(self.client, self.chain).run("tools/call", self.params, self.mirrored)

    def _first_round(self, outcome: Outcome) -> Round:
        """The conversation's first round; `ProbeFailed` when no usable response came to it."""
        if outcome.rounds:
            return outcome.rounds[0]
        error = outcome.error.message if outcome.error is not None else "no response"
        raise self.prober.failed(f"the first tools/call: {error}")

    def _answers(self, asked: dict[str, Any], first: Round) -> dict[str, Any] | str:
        """The answers the conversation gave the first round; else asked for now, or why there are none."""
        answered = {key: answer.response for key, answer in first.answers.items()}
        if answered.keys() == asked.keys():
            return answered
        try:
            return {key: self.chain.answer(Question(1, key, request, "", index, len(asked))).response
                    for index, (key, request) in enumerate(asked.items(), 1)}
        except (IncompleteError, UsageError) as error:
            return f"{error.message} (pass --answer or --answers)"

    def _retry(self, params: dict[str, Any], capabilities: meta.Capabilities | None = None) -> Reply:
        return self.prober.send("tools/call", {**params, "_meta": self.prober.meta_for(capabilities=capabilities)},
                                mirrored=self.mirrored)

    def capability_withheld(self, asked: dict[str, Any]) -> Check:
        probe = TOOL_PROBES[0]
        if not asked:
            return verdict(*probe, None, "the first round asked no question")
        needed = required_capability(next(iter(asked.values()))).partition(".")[0]
        withheld = meta.Capabilities(**{name: name != needed for name in ("elicitation", "sampling", "roots")})
        reply = self._retry(self.params, withheld)
        if reply.error is not None:
            ok = reply.error.get("code") == jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY and self.prober.status_is(reply, 400)
        else:
            ok = not any(required_capability(r).partition(".")[0] == needed for r in questions(reply.result))
        return judged(probe, reply, ok, f"{needed} withheld")

    def answerless_retry(self, state: str | None) -> Check:
        reply = self._retry(_with_state(self.params, state))
        return judged(TOOL_PROBES[1], reply, _input_required(reply), "no inputResponses")

    def tampered_state(self, state: str | None, answers: dict[str, Any] | str) -> Check:
        probe = TOOL_PROBES[2]
        if state is None:
            return verdict(*probe, None, "the first round carried no requestState")
        reply = self._retry(_with_answers(_with_state(self.params, tampered(state)), answers))
        return judged(probe, reply, reply.error is not None, "state altered in its middle character")

    def state_with_other_arguments(self, state: str | None, answers: dict[str, Any] | str) -> Check:
        probe = TOOL_PROBES[3]
        if state is None:
            return verdict(*probe, None, "the first round carried no requestState")
        other, change = _other_arguments(self.params["arguments"])
        reply = self._retry(_with_answers(_with_state({**self.params, "arguments": other}, state), answers))
        return judged(probe, reply, reply.error is not None, change)

    def extra_answers(self, state: str | None, answers: dict[str, Any] | str) -> Check:
        probe = TOOL_PROBES[4]
        if isinstance(answers, str):
            return verdict(*probe, None, answers)
        extra = {**answers, PROBE_KEY: {"action": "accept", "content": {}}}
        reply = self._retry({**_with_state(self.params, state), INPUT_RESPONSES: extra})
        return judged(probe, reply, reply.error is None, f"an extra answer {PROBE_KEY!r}")

    def wrong_shape(self, asked: dict[str, Any], state: str | None, answers: dict[str, Any] | str) -> Check:
        """The first question answered with a number where its response object is due."""
        probe = TOOL_PROBES[5]
        if not asked:
            return verdict(*probe, None, "the first round asked no question")
        key = next(iter(asked))
        wrong = {**(answers if isinstance(answers, dict) else {}), key: WRONG_SHAPE}
        reply = self._retry({**_with_state(self.params, state), INPUT_RESPONSES: wrong})
        return judged(probe, reply, not _complete(reply), f"{key!r} answered with {WRONG_SHAPE}")

    def null_answers(self, state: str | None) -> Check:
        """`inputResponses: null`: a protocol error, to be refused, not taken as answers."""
        reply = self._retry({**_with_state(self.params, state), INPUT_RESPONSES: None})
        return judged(TOOL_PROBES[6], reply, not _complete(reply), "inputResponses null")


def tampered(state: str) -> str:
    """`state` with its middle character changed: the probe that alters state, knowingly.

    Not the last character: in base64 the last one may carry padding bits a decoder ignores,
    so changing it can leave the decoded state as it was.
    """
    middle = len(state) // 2
    return state[:middle] + ("B" if state[middle:middle + 1] == "A" else "A") + state[middle + 1:]


DISCOVER_PROBES: list[Probe] = [
    ("discover", "server/discover answers with the versions it speaks", "MUST", "server/discover"),
    ("discover-caching", "server/discover carries ttlMs and cacheScope", "MUST",
     "server/utilities/caching#cacheable-results"),
]
META_PROBE: Probe = ("meta-required", "a request without _meta is rejected with -32602 (HTTP 400)", "MUST",
                     "basic/index#meta")
VERSION_PROBE: Probe = ("unsupported-version", "an unsupported version gets -32022 with data.supported (HTTP 400)",
                        "MUST", "basic/versioning#protocol-version-negotiation")
HEADER_PROBE: Probe = ("header-mismatch", "headers that disagree with the body get -32020 (HTTP 400)", "MUST",
                       "basic/transports/streamable-http#server-validation")
TOOL_PROBES: list[Probe] = [
    ("capability-withheld", "withholding the capability a question needs gives -32021 or no such question", "MUST",
     "basic/patterns/mrtr#server-requirements-basic-workflow"),
    ("answerless-retry", "a retry without the answers is asked again, not failed", "SHOULD",
     "basic/patterns/mrtr#error-handling"),
    ("tampered-state", "a tampered requestState is rejected", "SHOULD",
     "basic/patterns/mrtr#server-requirements-basic-workflow"),
    ("state-other-arguments", "a requestState sent with other arguments is rejected", "SHOULD",
     "basic/patterns/mrtr#server-requirements-basic-workflow"),
    ("extra-answers", "unknown extra inputResponses are ignored", "SHOULD", "basic/patterns/mrtr#error-handling"),
    ("answer-wrong-shape", "an answer of the wrong shape is not taken into a complete result", "SHOULD",
     "basic/patterns/mrtr#error-handling"),
    ("answers-null", "inputResponses null is not taken into a complete result (a JSON-RPC error)", "SHOULD",
     "basic/patterns/mrtr#error-handling"),
]
ALL_TOOL_PROBES: list[Probe] = [*TOOL_PROBES, *ROUND_PROBES]
"""Every probe that needs the named tool."""
WRONG_SHAPE = 12345
"""The answer the wrong-shape probe sends: a number where an object is due, as the suite sends."""


def _input_required(reply: Reply) -> bool:
    return reply.error is None and isinstance(reply.result, dict) and reply.result.get("resultType") == "input_required"


def _complete(reply: Reply) -> bool:
    return reply.error is None and isinstance(reply.result, dict) and reply.result.get("resultType", "complete") == \
        "complete"


def _with_state(params: dict[str, Any], state: str | None) -> dict[str, Any]:
    return {**params, REQUEST_STATE: state} if state is not None else dict(params)


def _with_answers(params: dict[str, Any], answers: dict[str, Any] | str) -> dict[str, Any]:
    return {**params, INPUT_RESPONSES: answers} if isinstance(answers, dict) else params


def _other_arguments(arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The same arguments with one string changed (or one added): another request."""
    other = copy.deepcopy(arguments)
    for key, value in other.items():
        if isinstance(value, str):
            other[key] = value + "-other"
            return other, f"argument {key!r} changed"
    other[PROBE_KEY] = "other"
    return other, f"argument {PROBE_KEY!r} added"
