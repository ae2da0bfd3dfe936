"""`mrtr check`'s probes of how a server reads header names and values (HTTP only): a header name
in lower or upper case is the same header, and the whitespace around a value is not part of it
(RFC 9110 §5.5). mrtr's own requests cannot send either (its HTTP client writes its headers from
the body, and refuses a value with whitespace around it), so these requests go through the
transport's `post_exact`, headers exactly as given. The whitespace probe names a tool no server has
(`PROBE_TOOL`): a server that trims the value refuses it as an unknown tool, not as a mismatch.
"""

from __future__ import annotations

import json
import time
from typing import Any

from mrtr_cli.check.generic import PROBE_TOOL, STATELESS
from mrtr_cli.check.verdicts import Check, Probe, ProbeFailed, judged, verdict
from mrtr_cli.conversation.client import Reply
from mrtr_cli.errors import ProtocolError, RequestTimeout
from mrtr_cli.protocol import headers as mcp_headers
from mrtr_cli.protocol import jsonrpc

EXACT_ID = 900001
"""The id of the requests sent with exact headers (they do not go through the client's ids)."""


class ExactHeaderProber:
    """The header name and value probes, made through a `Prober` (check/probes.py)."""

    def __init__(self, prober: Any) -> None:
        self.prober = prober

    def checks(self) -> list[Check]:
        if not self.prober.over_http:
            return [verdict(*probe, None, "stdio has no headers") for probe in EXACT_HEADER_PROBES]
        run = self.prober.run
        return [*run([HEADER_NAME_CASE], self.name_case), *run([HEADER_VALUE_WHITESPACE], self.value_whitespace)]

    def name_case(self) -> list[Check]:
        replies = [self._post("tools/list", {}, {mcp_headers.METHOD_HEADER: "tools/list"}, name_case)
                   for name_case in (str.lower, str.upper)]
        wrong = [(reply, case) for reply, case in zip(replies, ("lowercase", "uppercase"))
                 if reply.error is not None or (reply.status or 0) >= 400]
        if wrong:
            reply, case = wrong[0]
            return [judged(HEADER_NAME_CASE, reply, False, f"{case} header names")]
        return [judged(HEADER_NAME_CASE, replies[1], True, "lowercase and uppercase header names")]

    def value_whitespace(self) -> list[Check]:
        padded = f"  {PROBE_TOOL}  "
        headers = {mcp_headers.METHOD_HEADER: "tools/call", mcp_headers.NAME_HEADER: padded}
        reply = self._post("tools/call", {"name": PROBE_TOOL, "arguments": {}}, headers)
        ok = (reply.error or {}).get("code") != jsonrpc.HEADER_MISMATCH
        return [judged(HEADER_VALUE_WHITESPACE, reply, ok, f"Mcp-Name: {json.dumps(padded)} (a tool no server has)")]

    def _post(self, method: str, params: dict[str, Any], own: dict[str, str], name_case: Any = None) -> Reply:
        """One request with `own` headers (names cased by `name_case`) over the standard ones."""
        message = jsonrpc.request(EXACT_ID, method, {**params, "_meta": self.prober.meta_for()})
        standard = mcp_headers.standard_headers(message, self.prober.client.settings.version)
        headers = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream"),
                   *((name, value) for name, value in standard.items() if name not in own),
                   *((name_case(name) if name_case else name, value) for name, value in own.items())]
        started = time.perf_counter()
        try:
            frames, status = self.prober.client.transport.post_exact(
                headers, jsonrpc.encode(message).encode("utf-8"), self.prober.client.settings.timeout)
        except (RequestTimeout, ProtocolError) as error:
            raise ProbeFailed(error.message) from None
        return _reply(method, frames, status, (time.perf_counter() - started) * 1000)


def _reply(method: str, frames: list[str], status: int, elapsed: float) -> Reply:
    """The response to the exact request among `frames`; `ProbeFailed` when none came."""
    for frame in frames:
        message = jsonrpc.decode(frame)
        if isinstance(message, jsonrpc.Response) and jsonrpc.same_id(message.id, EXACT_ID):
            return Reply(EXACT_ID, method, message.result, message.error, elapsed, status)
    raise ProbeFailed(f"no JSON-RPC response to the request (HTTP {status})")


HEADER_NAME_CASE: Probe = ("header-name-case", "header names are read in any case (mcp-method, MCP-METHOD)", "MUST",
                           f"{STATELESS}#case-sensitivity")
HEADER_VALUE_WHITESPACE: Probe = ("header-value-whitespace",
                                  "whitespace around a header value is not part of it (Mcp-Name)", "MUST",
                                  f"{STATELESS}#server-validation")
EXACT_HEADER_PROBES: list[Probe] = [HEADER_NAME_CASE, HEADER_VALUE_WHITESPACE]
"""The probes sent with exact headers, in the order they run and are shown."""
