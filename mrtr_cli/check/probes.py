"""`mrtr check`: probes of a server's MRTR and 2026-07-28 behaviour, each a pass, fail, warn or
skip with the rule and what was seen. A broken MUST fails; a broken SHOULD warns.

The safe probes always run: discover's here, the rest in check/generic.py and
check/exact_headers.py, all through one `Prober`. The probes of a named tool are
check/tool_probes.py's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.conversation.client import Client, Reply
from mrtr_cli.conversation.session import Sessions
from mrtr_cli.errors import ProtocolError, RequestTimeout
from mrtr_cli.check.exact_headers import EXACT_HEADER_PROBES, ExactHeaderProber
from mrtr_cli.check.generic import GENERIC_PROBES, GenericProber
from mrtr_cli.check.verdicts import (SPEC, Check, Probe, ProbeFailed, by_request, judged, seen, shape_problem, short,
                                     timed, verdict)
from mrtr_cli.protocol import jsonrpc, meta
from mrtr_cli.protocol import lint_rules
from mrtr_cli.protocol.headers import Mirrored

__all__ = ["EXACT_HEADER_PROBES", "GENERIC_PROBES", "SPEC", "Check", "Prober"]


class Prober:
    """Runs the probes against one server."""

    def __init__(self, client: Client, sessions: Sessions, over_http: bool,
                 skipped: frozenset[str] = frozenset()) -> None:
        self.client = client
        self.sessions = sessions
        """The command's sessions (`Live.session`): every conversation a probe runs whole is one of them."""
        self.over_http = over_http
        self.skipped = skipped
        """The probe ids --skip-probe left out: a group of probes all left out sends nothing."""
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
        """The checks `probe` makes, timed; when it got no usable response, the first fails, the rest are skipped.
        Those left out by --skip-probe are skipped, by request; when all are, `probe` is not run."""
        if all(id in self.skipped for id, *_ in probes):
            return by_request([verdict(*rest, None, "") for rest in probes], self.skipped)
        started = time.perf_counter()
        try:
            checks = probe()
        except ProbeFailed as failed:
            id, title, level, page = probes[0]
            checks = [Check(id, title, level, "fail", str(failed), SPEC + page),
                      *(verdict(*rest, None, "not probed: nothing usable came before it") for rest in probes[1:])]
        return timed(by_request(checks, self.skipped), time.perf_counter() - started)

    def run_each(self, probes: list[Probe], judges: dict[Probe, Callable[[], Check]]) -> list[Check]:
        """Each probe in `probes` by its judge, timed on its own: one that got no usable response fails alone."""
        return [check for probe in probes for check in self._run_alone(probe, judges[probe])]

    def _run_alone(self, probe: Probe, judge: Callable[[], Check]) -> list[Check]:
        return self.run([probe], lambda: [judge()])

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
            verdict(*DISCOVER_PROBE, answers, short(versions) if answers else detail),
            verdict(*DISCOVER_CACHING_PROBE, None if not answers else not hints,
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


DISCOVER_PROBE: Probe = ("discover", "server/discover answers with the versions it speaks", "MUST", "server/discover")
DISCOVER_CACHING_PROBE: Probe = ("discover-caching", "server/discover carries ttlMs and cacheScope", "MUST",
                                 "server/utilities/caching#cacheable-results")
DISCOVER_PROBES: list[Probe] = [DISCOVER_PROBE, DISCOVER_CACHING_PROBE]
"""What the one server/discover request of `Prober.discover` judges, in this order."""
META_PROBE: Probe = ("meta-required", "a request without _meta is rejected with -32602 (HTTP 400)", "MUST",
                     "basic/index#meta")
VERSION_PROBE: Probe = ("unsupported-version", "an unsupported version gets -32022 with data.supported (HTTP 400)",
                        "MUST", "basic/versioning#protocol-version-negotiation")
HEADER_PROBE: Probe = ("header-mismatch", "headers that disagree with the body get -32020 (HTTP 400)", "MUST",
                       "basic/transports/streamable-http#server-validation")
