"""Lint: what a server sent, checked against the MRTR and 2026-07-28 rules.

Each finding has a severity: `error` for a broken MUST, `warning` for a broken SHOULD, `info`
for a deprecated feature in use; it names its rule and the spec page that states it. These are
pure functions over one message; conversation/linter.py applies them to a live conversation and adds the
rules that need the whole of it. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from mrtr_cli.protocol import jsonrpc, meta, tasks
from mrtr_cli.protocol.mrtr import INPUT_METHODS, MRTR_METHODS, required_capability
from mrtr_cli.protocol.per_value import PerValue

SPEC = "https://modelcontextprotocol.io/specification/2026-07-28/"
TASKS_SPEC = "https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks.html"
"""The tasks extension's page (its rules name it whole: it is not under SPEC)."""
CACHEABLE = ("server/discover", *(method for method, _ in meta.LIST_METHODS.values()), "resources/read")
MAX_SCHEMA_DEPTH = 8
MAX_SCHEMA_NODES = 20_000
MAX_ENUM = 1000
MAX_MESSAGE = 10_000

RULES = {
    "input-required-on-method": ("error", "basic/patterns/mrtr#supported-requests"),
    "input-required-empty": ("error", "basic/patterns/mrtr#server-requirements-basic-workflow"),
    "input-request-method": ("error", "basic/patterns/mrtr#inputrequests"),
    "undeclared-capability": ("error", "basic/patterns/mrtr#server-requirements-basic-workflow"),
    "result-type-unknown": ("error", "basic/index#resulttype"),
    "result-type-missing": ("error", "basic/index#result-responses"),
    "task-undeclared": ("error", TASKS_SPEC + "#capability-negotiation"),
    "task-on-method": ("error", TASKS_SPEC + "#supported-methods"),
    "task-stream-progress": ("error", TASKS_SPEC + "#task-status-notifications"),
    "task-notification-unknown": ("warning", TASKS_SPEC + "#task-status-notifications"),
    "task-notification-invalid": ("error", TASKS_SPEC + "#task-status-notifications"),
    "request-state-type": ("error", "basic/patterns/mrtr#inputrequiredresult"),
    "server-request": ("error", "basic/transports/stdio#receiving-messages"),
    "caching-hints": ("error", "server/utilities/caching#cacheable-results"),
    "interim-caching-hints": ("warning", "server/utilities/caching#cacheable-results"),
    "not-jsonrpc": ("error", "basic/transports/stdio"),
    "unknown-response-id": ("error", "basic/index#responses"),
    "error-without-id": ("error", "basic/index#error-responses"),
    "server-info-missing": ("warning", "basic/index#meta"),
    "form-schema-subset": ("warning", "client/elicitation#requested-schema"),
    "url-not-https": ("warning", "client/elicitation#safe-url-handling"),
    "include-context": ("warning", "client/sampling#capabilities"),
    "schema-too-deep": ("warning", "basic/index#composition-keyword-resource-use"),
    "schema-too-large": ("warning", "basic/index#composition-keyword-resource-use"),
    "enum-too-long": ("warning", "client/elicitation#requested-schema"),
    "message-too-long": ("warning", "client/elicitation#elicitation-requests"),
    "deprecated-sampling": ("info", "client/sampling"),
    "deprecated-roots": ("info", "client/roots"),
    "deprecated-logging": ("info", "server/utilities/logging"),
}
"""rule -> (severity, spec page)."""

OLDER_SPEC = "https://modelcontextprotocol.io/specification/2025-11-25/"
CLIENT_RULES = {
    "request-state-altered": ("error", "basic/patterns/mrtr#client-requirements-basic-workflow"),
    "request-state-dropped": ("error", "basic/patterns/mrtr#client-requirements-basic-workflow"),
    "request-state-invented": ("error", "basic/patterns/mrtr#client-requirements-basic-workflow"),
    "retry-id-reused": ("error", "basic/patterns/mrtr#client-requirements-basic-workflow"),
    "retry-after-complete": ("error", "basic/patterns/mrtr#client-requirements-basic-workflow"),
    "input-responses-missing": ("error", "basic/patterns/mrtr#client-requirements-basic-workflow"),
    "input-responses-unasked": ("warning", "basic/patterns/mrtr#inputresponses"),
    "answer-outside-schema": ("warning", "client/elicitation#response-actions"),
    "answer-without-capability": ("error", "client/elicitation#capabilities"),
    "header-mismatch": ("error", "basic/transports/streamable-http#standard-request-headers"),
    "protocol-version-header": ("error", "basic/transports/streamable-http#protocol-version-header"),
    "server-request-unanswered": ("error", OLDER_SPEC + "basic#responses"),
}
"""What a client did, judged by `mrtr proxy`: rule -> (severity, spec page)."""
RULES.update(CLIENT_RULES)


@dataclass(frozen=True)
class Finding:
    """Something a server did against the spec."""

    severity: str
    rule: str
    message: str
    page: str = ""
    round: int | None = None


def finding(rule: str, message: str) -> Finding:
    severity, page = RULES[rule]
    return Finding(severity, rule, message, page if page.startswith("https://") else SPEC + page)


def at_round(findings: list[Finding], number: int | None) -> list[Finding]:
    return [replace(f, round=number) for f in findings]


def check_frame(message: jsonrpc.Message, in_flight: Any) -> list[Finding]:
    """A frame as it arrived: JSON-RPC at all, a request from the server, an id nobody sent."""
    if isinstance(message, jsonrpc.Malformed):
        return [finding("not-jsonrpc", f"the server sent something that is not a JSON-RPC message: {message.reason}")]
    if isinstance(message, jsonrpc.Request):
        return [finding("server-request", f"the server sent a {message.method} request; since 2026-07-28 servers "
                                          "ask through input_required results")]
    if isinstance(message, jsonrpc.Response):
        return _check_response_id(message, in_flight)
    return []


def _check_response_id(message: jsonrpc.Response, in_flight: Any) -> list[Finding]:
    if message.id is None:
        return [finding("error-without-id", "an error response without the id of the request it answers")]
    if not jsonrpc.same_id(message.id, in_flight):
        return [finding("unknown-response-id", f"a response for id {message.id!r}, which no request in flight has")]
    return []


def check_result(method: str, result: Any, capabilities: meta.Capabilities) -> list[Finding]:
    """A result: its resultType, MRTR's rules on input_required, caching hints."""
    if not isinstance(result, dict):
        return []
    if "resultType" not in result:
        return [finding("result-type-missing", f"the result of {method} has no resultType (read as complete)")] \
            + _check_cache_hints(method, result)
    kind = result["resultType"]
    if kind == "input_required":
        return check_input_required(method, result, capabilities)
    if kind == tasks.TASK:
        return check_task_created(method, capabilities)
    if kind != "complete":
        return [finding("result-type-unknown", f"the result of {method} has the unknown resultType {kind!r}")]
    return _check_cache_hints(method, result)


def check_task_created(method: str, capabilities: meta.Capabilities) -> list[Finding]:
    """A CreateTaskResult: only to a request that declared the tasks extension, only for a method that may make one."""
    if not capabilities.tasks:
        return [finding("task-undeclared", f"{method} was answered with a task, and mrtr did not declare the "
                                           f"{tasks.EXTENSION} extension (--no-tasks)")]
    if method not in tasks.TASK_METHODS:
        return [finding("task-on-method", f"{method} was answered with a task; only "
                                          f"{', '.join(tasks.TASK_METHODS)} may be")]
    return []


def _check_cache_hints(method: str, result: dict[str, Any]) -> list[Finding]:
    if method not in CACHEABLE:
        return []
    ttl, scope = result.get("ttlMs"), result.get("cacheScope")
    missing = [name for name, value in (("ttlMs", ttl), ("cacheScope", scope)) if value is None]
    if missing:
        return [finding("caching-hints", f"the complete result of {method} has no {' or '.join(missing)}")]
    if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0 or scope not in ("public", "private"):
        return [finding("caching-hints", f"the result of {method} has ttlMs {ttl!r} and cacheScope {scope!r}; "
                                         "ttlMs must be an integer >= 0 and cacheScope public or private")]
    return []


def check_input_required(method: str, result: dict[str, Any], capabilities: meta.Capabilities) -> list[Finding]:
    if method not in MRTR_METHODS:
        return [finding("input-required-on-method", f"{method} was answered with input_required")]
    requests, state = result.get("inputRequests"), result.get("requestState")
    found = []
    if not requests and state is None:
        found.append(finding("input-required-empty", "an input_required result with neither inputRequests nor "
                                                     "requestState"))
    if state is not None and not isinstance(state, str):
        found.append(finding("request-state-type", f"requestState is a JSON {type(state).__name__}, not a string"))
    for key, request in (requests.items() if isinstance(requests, dict) else []):
        found += _question_findings(request, str(key), capabilities)
    return found + interim_caching_hints(method, result)


def interim_caching_hints(method: str, result: dict[str, Any]) -> list[Finding]:
    """An input_required result is interim: the caching page has it "not cacheable" and carrying "no
    caching hints" (no keyword, so a warning)."""
    hints = [name for name in ("ttlMs", "cacheScope") if name in result]
    if not hints:
        return []
    return [finding("interim-caching-hints", f"the input_required result of {method} carries "
                                             f"{' and '.join(hints)}; interim results carry no caching hints")]


def check_question(key: str, request: Any, capabilities: meta.Capabilities) -> list[Finding]:
    """One inputRequests entry: a method of the three, a declared capability, a sane form."""
    method = request.get("method") if isinstance(request, dict) else None
    if method not in INPUT_METHODS:
        return [finding("input-request-method", f"inputRequests[{key!r}] asks {method!r}, not one of "
                                                f"{', '.join(INPUT_METHODS)}")]
    params = request.get("params")
    params = params if isinstance(params, dict) else {}
    capability = required_capability(request)
    found = [] if capabilities.allows(capability) else [finding(
        "undeclared-capability", f"inputRequests[{key!r}] needs the client capability {capability}, "
                                 "which the client did not declare")]
    if method == "elicitation/create":
        found += _check_elicitation(key, params)
    if method == "sampling/createMessage" and params.get("includeContext") in ("thisServer", "allServers"):
        found.append(finding("include-context", f"inputRequests[{key!r}] uses includeContext "
                                                f"{params['includeContext']!r} without the sampling.context capability"))
    return found


def _findings_of(request: Any, key: str, capabilities: meta.Capabilities) -> tuple[Finding, ...]:
    return tuple(check_question(key, request, capabilities))


_question_findings = PerValue(_findings_of)
"""`check_question`, made once for a question asked again as it was (findings are frozen)."""


def _check_elicitation(key: str, params: dict[str, Any]) -> list[Finding]:
    found = []
    message = params.get("message")
    if isinstance(message, str) and len(message) > MAX_MESSAGE:
        found.append(finding("message-too-long", f"the message of {key!r} has {len(message)} characters "
                                                 f"(mrtr shows at most {MAX_MESSAGE})"))
    if params.get("mode") == "url":
        return found + _check_url(key, params.get("url"))
    schema = params.get("requestedSchema")
    return found + (check_schema(key, schema) if isinstance(schema, dict) else [])


def _check_url(key: str, url: Any) -> list[Finding]:
    parts = urlsplit(url) if isinstance(url, str) else None
    host = parts.hostname if parts else None
    if parts and parts.scheme != "https" and host not in ("localhost", "127.0.0.1", "::1"):
        return [finding("url-not-https", f"the URL of {key!r} is {parts.scheme or 'schemeless'}, not https")]
    return []


def check_schema(key: str, schema: dict[str, Any]) -> list[Finding]:
    """Bounds first (a hostile schema must stay cheap), then the spec's flat subset."""
    bound = beyond_bounds(schema)
    if bound is not None:
        return [finding(bound[0], f"the schema of {key!r} {bound[1]}")]
    return _check_enums(key, schema) + _check_subset(key, schema)


def beyond_bounds(schema: Any) -> tuple[str, str] | None:
    """(rule, what) when a schema is deeper or larger than mrtr validates or shows; else None."""
    if _within_bounds(schema):
        return None
    depth, nodes = _measure(schema)
    if depth > MAX_SCHEMA_DEPTH:
        return "schema-too-deep", f"nests more than {MAX_SCHEMA_DEPTH} levels"
    if nodes > MAX_SCHEMA_NODES:
        return "schema-too-large", f"has more than {MAX_SCHEMA_NODES} parts"
    return None


def _within_bounds(node: Any) -> bool:
    """Whether a JSON value is within both bounds, measured a level at a time (the usual small
    schema, twice a round, costs a few list extensions). When it is not, `_measure` says which
    bound it breaks first, as it always has."""
    level, count, values = 0, 0, [node]
    while values:
        count += len(values)
        if count > MAX_SCHEMA_NODES or level > MAX_SCHEMA_DEPTH:
            return False
        children: list[Any] = []
        for value in values:
            if isinstance(value, dict):
                children.extend(value.values())
            elif isinstance(value, list):
                children.extend(value)
            if len(children) > MAX_SCHEMA_NODES:
                return False
        level, values = level + 1, children
    return True


def _measure(node: Any, depth: int = 0) -> tuple[int, int]:
    """(deepest nesting, number of values) of a JSON value, iteratively."""
    deepest, count, stack = 0, 0, [(node, depth)]
    while stack:
        value, level = stack.pop()
        count += 1
        deepest = max(deepest, level)
        if count > MAX_SCHEMA_NODES or level > MAX_SCHEMA_DEPTH:
            return deepest, count
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack.extend((child, level + 1) for child in children)
    return deepest, count


def _check_enums(key: str, schema: dict[str, Any]) -> list[Finding]:
    properties = schema.get("properties")
    for name, prop in (properties.items() if isinstance(properties, dict) else ()):
        options = _options(prop)
        if len(options) > MAX_ENUM:
            return [finding("enum-too-long", f"field {name!r} of {key!r} offers {len(options)} choices "
                                             f"(the bound is {MAX_ENUM})")]
    return []


def _options(prop: Any) -> list[Any]:
    if not isinstance(prop, dict):
        return []
    items = prop.get("items")
    items = items if isinstance(items, dict) else prop
    for field in ("enum", "oneOf", "anyOf"):
        options = items.get(field)
        if isinstance(options, list):
            return options
    return []


PRIMITIVES = ("string", "number", "integer", "boolean")


def _check_subset(key: str, schema: dict[str, Any]) -> list[Finding]:
    problem = outside_subset(schema)
    return [finding("form-schema-subset", f"the form of {key!r} is outside the spec's flat subset: {problem}")] \
        if problem else []


def outside_subset(schema: dict[str, Any]) -> str | None:
    """Why a requested schema is outside the spec's flat form subset, or None when it is inside."""
    if schema.get("type") != "object" or not isinstance(schema.get("properties"), dict):
        return "it is not an object with properties"
    for name, prop in schema["properties"].items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        if kind is not None and not isinstance(kind, str):
            return f"field {name!r} names its type as {type(kind).__name__}, not one name"
        if kind == "array" and _options(prop):
            continue
        if kind not in PRIMITIVES:
            return f"field {name!r} is a {kind or 'untyped'} value"
    return None
