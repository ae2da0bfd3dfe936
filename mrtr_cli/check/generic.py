"""`mrtr check`'s generic probes beyond discover's: the caching hints and capabilities of the
lists, the _meta fields every request needs, unknown and removed methods, and the header rules of
tools/call. None calls a tool: the tools/call probes name a tool no server has (`PROBE_TOOL`), and
a server refuses them on their headers before it looks; an unknown tool is refused anyway.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mrtr_cli.check.verdicts import Check, Probe, ProbeFailed, judged, seen, verdict
from mrtr_cli.protocol import jsonrpc, lint_rules, meta

PROBE_TOOL = "__mrtr_probe_absent"
"""The tool the header probes' tools/call names: one no server has."""
CACHING = "server/utilities/caching#cacheable-results"
LISTS = [("tools/list", "tools"), ("prompts/list", "prompts"), ("resources/list", "resources"),
         ("resources/templates/list", "resources")]
"""Each list mrtr asks for, and the capability that declares it."""
REMOVED = ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]


class GenericProber:
    """The generic probes, made through a `Prober` (check/probes.py)."""

    def __init__(self, prober: Any) -> None:
        self.prober = prober

    def checks(self, declared: dict[str, Any] | None) -> list[Check]:
        """The lists' probes (one request of each list judges them all), then each other probe alone."""
        judges: dict[Probe, Callable[[], Check]] = {
            META_MISSING_VERSION: lambda: self.meta_without(meta.PROTOCOL_VERSION, META_MISSING_VERSION),
            META_MISSING_CAPABILITIES: lambda: self.meta_without(meta.CLIENT_CAPABILITIES, META_MISSING_CAPABILITIES),
            CLIENT_INFO_OPTIONAL: self.client_info_optional,
            ERROR_ID_PROBE: self.error_id,
            UNKNOWN_METHOD_PROBE: self.method_not_found,
            REMOVED_PROBE: self.removed_methods,
            HEADER_NAME_MISMATCH: lambda: self.name_header(HEADER_NAME_MISMATCH, "__mrtr_probe_other"),
            HEADER_NAME_MISSING: lambda: self.name_header(HEADER_NAME_MISSING, None),
            HEADER_METHOD_CASE: self.method_case,
        }
        lists = self.prober.run(LIST_PROBES, lambda: self.lists(declared))  # first: the requests go out in order
        return [*lists, *self.prober.run_each(ALONE_PROBES, judges)]

    def _send(self, method: str, params: dict[str, Any] | None = None, **options: Any) -> Any:
        return self.prober.send(method, {**(params or {}), "_meta": self.prober.meta_for()}, **options)

    # -- the lists ------------------------------------------------------------------------------

    def lists(self, declared: dict[str, Any] | None) -> list[Check]:
        replies = {method: self._list(method) for method, _ in LISTS}
        return [*(self._caching(LIST_CACHING[method], method, reply) for method, reply in replies.items()),
                self._not_input_required(replies), self._capabilities_match(declared, replies)]

    def _list(self, method: str) -> Any:
        try:
            return self._send(method)
        except ProbeFailed as failed:
            return str(failed)

    def _caching(self, probe: Probe, method: str, reply: Any) -> Check:
        if isinstance(reply, str):
            return verdict(*probe, False, reply)
        if reply.error is not None:
            offered = reply.error.get("code") != jsonrpc.METHOD_NOT_FOUND
            return verdict(*probe, False if offered else None, seen(reply) if offered else "not offered")
        hints = [f.message for f in lint_rules.check_result(method, reply.result, self.prober.client.settings.capabilities)
                 if f.rule == "caching-hints"] if isinstance(reply.result, dict) else ["no result object"]
        return judged(probe, reply, not hints, hints[0] if hints else f"{method}: ttlMs and cacheScope present")

    def _not_input_required(self, replies: dict[str, Any]) -> Check:
        asking = [method for method, reply in replies.items() if not isinstance(reply, str)
                  and reply.error is None and isinstance(reply.result, dict)
                  and reply.result.get("resultType") == "input_required"]
        return verdict(*LISTS_NOT_INPUT_REQUIRED, not asking, f"input_required from {', '.join(asking)}" if asking
                       else "no list answered input_required")

    def _capabilities_match(self, declared: dict[str, Any] | None, replies: dict[str, Any]) -> Check:
        if declared is None:
            return verdict(*CAPABILITIES_MATCH, None, "no capabilities in the DiscoverResult")
        found = [(method, _mismatch(name in declared, replies[method])) for method, name in LISTS
                 if not isinstance(replies[method], str)]
        wrong = [f"{method}: {why}" for method, why in found if why]
        return verdict(*CAPABILITIES_MATCH, not wrong, "; ".join(wrong) or f"declared {sorted(declared)}")

    # -- _meta, ids and methods ---------------------------------------------------------------

    def meta_without(self, key: str, probe: Probe) -> Check:
        fields = {k: v for k, v in self.prober.meta_for().items() if k != key}
        reply = self.prober.send("server/discover", {"_meta": fields})
        ok = _error_code(reply) == jsonrpc.INVALID_PARAMS and self.prober.status_is(reply, 400)
        return judged(probe, reply, ok, f"_meta without {key}")

    def client_info_optional(self) -> Check:
        fields = {k: v for k, v in self.prober.meta_for().items() if k != meta.CLIENT_INFO}
        reply = self.prober.send("server/discover", {"_meta": fields})
        return judged(CLIENT_INFO_OPTIONAL, reply, reply.error is None, f"_meta without {meta.CLIENT_INFO}")

    def error_id(self) -> Check:
        """The client matches each response to its request by id: an error that came back, came with it."""
        reply = self.prober.send("server/discover", {})
        if reply.error is None:
            return verdict(*ERROR_ID_PROBE, None, f"no error came to judge: {seen(reply)}")
        return judged(ERROR_ID_PROBE, reply, True, f"request id {reply.id}")

    def method_not_found(self) -> Check:
        reply = self._send("mrtr/probe-unknown-method")
        ok = _error_code(reply) == jsonrpc.METHOD_NOT_FOUND and self.prober.status_is(reply, 404)
        return judged(UNKNOWN_METHOD_PROBE, reply, ok, "mrtr/probe-unknown-method")

    def removed_methods(self) -> Check:
        if not self.prober.over_http:
            return verdict(*REMOVED_PROBE, None, "the rule is about HTTP statuses; stdio has none")
        wrong = []
        for method in REMOVED:
            params = {"uri": "mrtr-probe://absent"} if method.startswith("resources/") else {}
            reply = self._send(method, params)
            if _error_code(reply) == jsonrpc.METHOD_NOT_FOUND and reply.status != 404:
                wrong.append(f"{method}: {seen(reply)}")
        return verdict(*REMOVED_PROBE, not wrong, "; ".join(wrong) or f"{', '.join(REMOVED)}: -32601 came with 404, "
                                                                      "or the method is served")

    # -- headers --------------------------------------------------------------------------------

    def name_header(self, probe: Probe, header_name: str | None) -> Check:
        if not self.prober.over_http:
            return verdict(*probe, None, "stdio has no headers")
        params = {"name": header_name} if header_name is not None else {}
        headers_from = {"method": "tools/call", "params": params}
        reply = self._send("tools/call", {"name": PROBE_TOOL, "arguments": {}}, headers_from=headers_from)
        ok = _error_code(reply) == jsonrpc.HEADER_MISMATCH and reply.status == 400
        return judged(probe, reply, ok, f"Mcp-Name: {header_name}" if header_name else "no Mcp-Name")

    def method_case(self) -> Check:
        if not self.prober.over_http:
            return verdict(*HEADER_METHOD_CASE, None, "stdio has no headers")
        reply = self._send("tools/list", headers_from={"method": "TOOLS/LIST", "params": {}})
        ok = _error_code(reply) == jsonrpc.HEADER_MISMATCH and reply.status == 400
        return judged(HEADER_METHOD_CASE, reply, ok, "Mcp-Method: TOOLS/LIST for tools/list")


def _error_code(reply: Any) -> Any:
    return (reply.error or {}).get("code")


def _mismatch(declared: bool, reply: Any) -> str:
    """Why a list's answer disagrees with the capability declared for it, or ''."""
    if declared and reply.error is not None:
        return f"declared, yet {seen(reply)}"
    if not declared and _error_code(reply) != jsonrpc.METHOD_NOT_FOUND:
        return f"not declared, yet {seen(reply)} instead of -32601"
    return ""


STATELESS = "basic/transports/streamable-http"
TOOLS_LIST_CACHING: Probe = ("tools-list-caching", "tools/list carries ttlMs and cacheScope", "MUST", CACHING)
PROMPTS_LIST_CACHING: Probe = ("prompts-list-caching", "prompts/list carries ttlMs and cacheScope", "MUST", CACHING)
RESOURCES_LIST_CACHING: Probe = ("resources-list-caching", "resources/list carries ttlMs and cacheScope", "MUST",
                                 CACHING)
TEMPLATES_LIST_CACHING: Probe = ("templates-list-caching", "resources/templates/list carries ttlMs and cacheScope",
                                 "MUST", CACHING)
LIST_CACHING: dict[str, Probe] = {"tools/list": TOOLS_LIST_CACHING, "prompts/list": PROMPTS_LIST_CACHING,
                                  "resources/list": RESOURCES_LIST_CACHING,
                                  "resources/templates/list": TEMPLATES_LIST_CACHING}
"""The caching probe of each list, by its method."""
LISTS_NOT_INPUT_REQUIRED: Probe = ("lists-not-input-required", "no list answers input_required", "MUST",
                                   "basic/patterns/mrtr")
CAPABILITIES_MATCH: Probe = ("capabilities-match",
                             "the declared capabilities match what the lists do (-32601 when not declared)", "MUST",
                             "server/discover")
LIST_PROBES: list[Probe] = [*(LIST_CACHING[method] for method, _ in LISTS), LISTS_NOT_INPUT_REQUIRED,
                            CAPABILITIES_MATCH]
"""What the one request of each list judges, in the order shown."""
META_MISSING_VERSION: Probe = ("meta-missing-version",
                               "_meta without the protocol version is rejected with -32602 (HTTP 400)", "MUST",
                               "basic/index#meta")
META_MISSING_CAPABILITIES: Probe = ("meta-missing-capabilities",
                                    "_meta without the client capabilities is rejected with -32602 (HTTP 400)",
                                    "MUST", "basic/index#meta")
CLIENT_INFO_OPTIONAL: Probe = ("client-info-optional", "a request without clientInfo is served", "MUST",
                               "basic/index#meta")
META_PROBES: list[Probe] = [META_MISSING_VERSION, META_MISSING_CAPABILITIES, CLIENT_INFO_OPTIONAL]
ERROR_ID_PROBE: Probe = ("error-id", "an error response carries the request's id", "MUST", "basic/index#responses")
UNKNOWN_METHOD_PROBE: Probe = ("method-not-found", "an unknown method gets -32601 (HTTP 404)", "MUST",
                               f"{STATELESS}#server-validation")
REMOVED_PROBE: Probe = ("removed-methods", "a removed method the server does not serve gets -32601 (HTTP 404)",
                        "MUST", f"{STATELESS}#server-validation")
HEADER_NAME_MISMATCH: Probe = ("header-name-mismatch",
                               "an Mcp-Name that disagrees with params.name gets -32020 (HTTP 400)", "MUST",
                               f"{STATELESS}#server-validation")
HEADER_NAME_MISSING: Probe = ("header-name-missing", "a tools/call without Mcp-Name gets -32020 (HTTP 400)", "MUST",
                              f"{STATELESS}#server-validation")
HEADER_METHOD_CASE: Probe = ("header-method-case", "an Mcp-Method differing in case gets -32020 (HTTP 400)", "MUST",
                             f"{STATELESS}#case-sensitivity")
HEADER_PROBES: list[Probe] = [HEADER_NAME_MISMATCH, HEADER_NAME_MISSING, HEADER_METHOD_CASE]
ALONE_PROBES: list[Probe] = [*META_PROBES, ERROR_ID_PROBE, UNKNOWN_METHOD_PROBE, REMOVED_PROBE, *HEADER_PROBES]
"""The probes judged each on a request of its own, in the order they run and are shown."""
GENERIC_PROBES: list[Probe] = [*LIST_PROBES, *ALONE_PROBES]
