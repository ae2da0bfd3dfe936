"""The server side of MCP 2026-07-28: one JSON-RPC request in, one response out.

It checks what every request must carry (`_meta` with a version and capabilities: -32602;
a version it speaks: -32022), routes the method (-32601), opens sealed requestState
(-32602 when it fails verification), refuses to ask what the client did not declare
(-32021), seals the state of an input_required result, and adds serverInfo to every result
and caching hints to complete results of discover, the lists and resources/read. An app with
`subscriptions` also serves subscriptions/listen (listen_streams.py). Given a `TaskStore`, it
declares the io.modelcontextprotocol/tasks extension, lets a tools/call from a client that declared
it become a task (`Call.start_task`) and serves tasks/get, tasks/update and tasks/cancel to such
clients (-32021 to others). Serving HTTP (`task_notifications`), a subscriptions/listen that names
`notifications.taskIds` is acknowledged with the ids of the tasks it knows, whose changes the stream then
carries as notifications/tasks (task_store.py's `TaskWatch`; -32021 to a client without the extension).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mrtr_cli.protocol import jsonrpc, meta
from mrtr_cli.protocol.headers import NAMED_METHODS
from mrtr_cli.protocol.mrtr import INPUT_REQUESTS, INPUT_RESPONSES, MRTR_METHODS, REQUEST_STATE, required_capability
from mrtr_cli.server.app import App, Call, NeedInput, RpcError
from mrtr_cli.server.state import Sealer, StateRejected
from mrtr_cli.server.listen_streams import Subscription, Subscriptions
from mrtr_cli.server.task_plans import TASKS_EXTENSION, declares_tasks, missing_tasks_capability
from mrtr_cli.server.task_store import TaskStore, TaskWatch

SUPPORTED_VERSIONS = list(meta.SPOKEN_VERSIONS)
LISTS = dict(meta.LIST_METHODS.values())
"""Each list method and the result key its items go under."""
LIST_CACHE = (300_000, "public")
"""ttlMs and cacheScope of discover and the lists: the same for every caller, fresh for 5 minutes."""
READ_CACHE = (0, "private")
"""ttlMs and cacheScope of resources/read: a read may depend on the caller's answers."""
PAGE_SIZE = 100
LISTEN = "subscriptions/listen"
TASK_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")
Notify = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True)
class DispatchReply:
    """The response to send (None for a notification) and the HTTP status it goes with."""

    message: dict[str, Any] | None
    status: int = 200
    listening: Subscription | None = None
    """An open subscriptions/listen stream (no message now), and the response due when the server ends it."""
    ending: dict[str, Any] | None = None


class Dispatcher:
    """Answers requests for one App."""

    def __init__(self, app: App, sealer: Sealer | None = None, page_size: int = PAGE_SIZE,
                 tasks: TaskStore | None = None, task_notifications: bool = False) -> None:
        self.app = app
        self.sealer = sealer or Sealer()
        self.page_size = page_size
        self.tasks = tasks
        self.task_notifications = task_notifications and tasks is not None
        """Whether listen streams carry task notifications (HTTP holds a stream open and watches it)."""

    def handle(self, message: Any, notify: Notify = lambda method, params: None) -> DispatchReply:
        """The reply to one decoded JSON-RPC message."""
        request_id = message.get("id") if isinstance(message, dict) else None
        try:
            request = check_envelope(message)
            if request is None:
                return DispatchReply(None, 202)
            if request["method"] == LISTEN and (self.app.subscriptions is not None or self._asks_tasks(request)):
                return self._listen(request, notify)
            return DispatchReply(jsonrpc.result_response(request_id, self._dispatch(request, notify)))
        except RpcError as error:
            return DispatchReply({"jsonrpc": "2.0", "id": request_id, "error": error.error_object()}, error.status)
        except Exception as error:  # noqa: BLE001 - a request nobody foresaw gets an error, never a traceback
            failure = {"code": jsonrpc.INTERNAL_ERROR, "message": f"Internal error: {type(error).__name__}: {error}"}
            return DispatchReply({"jsonrpc": "2.0", "id": request_id, "error": failure}, 500)

    def handle_text(self, text: str | bytes, notify: Notify = lambda method, params: None) -> DispatchReply:
        """The reply to one frame as text; unparseable text gets -32700."""
        try:
            message = json.loads(text)
        except (ValueError, RecursionError) as error:
            parse_error = {"code": jsonrpc.PARSE_ERROR, "message": f"Parse error: {error}"}
            return DispatchReply({"jsonrpc": "2.0", "id": None, "error": parse_error}, 400)
        return self.handle(message, notify)

    def _dispatch(self, request: dict[str, Any], notify: Notify) -> dict[str, Any]:
        method, params = request["method"], request.get("params") or {}
        _check_meta(params)
        if method == "server/discover":
            return self._decorate(self._discover(), LIST_CACHE)
        if method in LISTS:
            return self._decorate(self.page(LISTS[method], params), LIST_CACHE)
        if method in MRTR_METHODS:
            return self._mrtr(request, notify)
        if method in TASK_METHODS and self.tasks is not None:
            return self._decorate(self._task_method(self.tasks, method, params))
        raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}", status=404)

    def _asks_tasks(self, request: dict[str, Any]) -> bool:
        return self.task_notifications and bool(_asked_task_ids(request["params"]))

    def _listen(self, request: dict[str, Any], notify: Notify) -> DispatchReply:
        """Open a subscription, acknowledged through `notify`, where the app's list changes go and the
        changes of the tasks it names that the server knows."""
        params = request["params"]
        _check_meta(params)
        asked = _asked_task_ids(params) if self.task_notifications else []
        if asked and not declares_tasks(params["_meta"][meta.CLIENT_CAPABILITIES]):
            raise missing_tasks_capability(LISTEN)
        agreed = self.tasks.known(asked) if self.tasks is not None and asked else []
        try:
            subscription = (self.app.subscriptions or Subscriptions(offered=())).listen(
                request["id"], params, notify, agreed if asked else None)
        except ValueError as error:
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Invalid params: {error}") from None
        if self.tasks is not None and asked:  # none agreed: the stream ends at the first look, unless it asked more
            subscription.watch = TaskWatch(self.tasks, agreed, request["id"], notify)
        ending = jsonrpc.result_response(request["id"], self._decorate({}))
        return DispatchReply(None, listening=subscription, ending=ending)

    def _discover(self) -> dict[str, Any]:
        capabilities = self.app.capabilities()
        if self.tasks is not None:
            capabilities = {**capabilities, "extensions": {**capabilities.get("extensions", {}), TASKS_EXTENSION: {}}}
        result: dict[str, Any] = {"supportedVersions": SUPPORTED_VERSIONS, "capabilities": capabilities}
        if self.app.instructions:
            result["instructions"] = self.app.instructions
        return result

    def page(self, key: str, params: dict[str, Any]) -> dict[str, Any]:
        """One page of a listing, from `params.cursor`, with `nextCursor` when more follow."""
        items = self.app.listing(key)
        start = _cursor_offset(params.get("cursor"), len(items))
        page: dict[str, Any] = {key: items[start:start + self.page_size]}
        if start + self.page_size < len(items):
            page["nextCursor"] = str(start + self.page_size)
        return page

    def _mrtr(self, request: dict[str, Any], notify: Notify) -> dict[str, Any]:
        call = self._call(request, notify)
        outcome = self.app.handle(call)
        if isinstance(outcome, NeedInput):
            return self._decorate(self._input_required(call, outcome))
        return self._decorate(outcome, READ_CACHE if call.method == "resources/read" else None)

    def _call(self, request: dict[str, Any], notify: Notify) -> Call:
        method, params = request["method"], request["params"]
        subject_key = NAMED_METHODS[method]
        subject = params.get(subject_key)
        if not isinstance(subject, str):
            raise RpcError(jsonrpc.INVALID_PARAMS, f"{method} needs params.{subject_key} (a string)")
        arguments = params.get("arguments") or {}
        responses = params.get(INPUT_RESPONSES) or {}
        if not isinstance(arguments, dict) or not isinstance(responses, dict):
            raise RpcError(jsonrpc.INVALID_PARAMS, "arguments and inputResponses must be objects")
        state = self._open_state(params.get(REQUEST_STATE), _binding(method, subject, arguments))
        request_meta = params["_meta"]
        declared = request_meta[meta.CLIENT_CAPABILITIES]
        start_task = None
        if self.tasks is not None and method == "tools/call" and declares_tasks(declared):
            start_task = self.tasks.create
        return Call(method, subject, arguments, responses, state, declared, notify,
                    request_meta.get(meta.PROGRESS_TOKEN), _log_level(request_meta), start_task)

    def _task_method(self, tasks: TaskStore, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """tasks/get (the task), tasks/update and tasks/cancel (an empty acknowledgement)."""
        if not declares_tasks(params["_meta"][meta.CLIENT_CAPABILITIES]):
            raise missing_tasks_capability(method)
        if method == "tasks/get":
            return tasks.get(params.get("taskId"))
        if method == "tasks/update":
            tasks.update(params.get("taskId"), params.get(INPUT_RESPONSES))
        else:
            tasks.cancel(params.get("taskId"))
        return {}

    def _open_state(self, token: Any, binding: dict[str, Any]) -> Any:
        if token is None:
            return None
        if not isinstance(token, str):
            raise RpcError(jsonrpc.INVALID_PARAMS, "requestState must be a string")
        try:
            return self.sealer.open(token, binding)
        except StateRejected as rejected:
            raise RpcError(jsonrpc.INVALID_PARAMS, str(rejected)) from None

    def _input_required(self, call: Call, need: NeedInput) -> dict[str, Any]:
        _check_capabilities(need.requests, call.capabilities)
        result: dict[str, Any] = {"resultType": "input_required"}
        if need.requests:
            result[INPUT_REQUESTS] = need.requests
        if need.state is not None or not need.requests:
            result[REQUEST_STATE] = self.sealer.seal(need.state, _binding(call.method, call.subject, call.arguments))
        return result

    def _decorate(self, result: dict[str, Any], cache: tuple[int, str] | None = None) -> dict[str, Any]:
        """serverInfo on every result; caching hints (unless the app set them) on complete ones."""
        result = {"resultType": "complete", **result}
        result["_meta"] = {**(result.get("_meta") or {}), meta.SERVER_INFO: self.app.info}
        if cache is not None and result["resultType"] == "complete":
            result.setdefault("ttlMs", cache[0])
            result.setdefault("cacheScope", cache[1])
        return result


def check_envelope(message: Any) -> dict[str, Any] | None:
    """The request to handle; None for a notification; -32600 for anything else."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
        raise RpcError(jsonrpc.INVALID_REQUEST, "Invalid request: expected a JSON-RPC 2.0 request", status=400)
    if "id" not in message:
        return None
    if message["id"] is None or isinstance(message["id"], (bool, float, dict, list)):
        raise RpcError(jsonrpc.INVALID_REQUEST, "Invalid request: the id must be a string or an integer", status=400)
    if not isinstance(message.get("params", {}), dict):
        raise RpcError(jsonrpc.INVALID_REQUEST, "Invalid request: params must be an object", status=400)
    message.setdefault("params", {})
    return message


def _check_meta(params: dict[str, Any]) -> None:
    request_meta = params.get("_meta")
    request_meta = request_meta if isinstance(request_meta, dict) else {}
    missing = [key for key, kind in ((meta.PROTOCOL_VERSION, str), (meta.CLIENT_CAPABILITIES, dict))
               if not isinstance(request_meta.get(key), kind)]
    if missing:
        raise RpcError(jsonrpc.INVALID_PARAMS, f"Invalid params: _meta must carry {' and '.join(missing)}",
                       status=400)
    version = request_meta[meta.PROTOCOL_VERSION]
    if version not in SUPPORTED_VERSIONS:
        raise RpcError(jsonrpc.UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                       {"supported": SUPPORTED_VERSIONS, "requested": version}, status=400)


def _check_capabilities(requests: dict[str, dict[str, Any]], declared: dict[str, Any]) -> None:
    missing = [required_capability(r) for r in requests.values() if not _declares(declared, required_capability(r))]
    if missing:
        required: dict[str, Any] = {}
        for capability in missing:
            top, _, sub = capability.partition(".")
            required.setdefault(top, {}).update({sub: {}} if sub else {})
        raise RpcError(jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY,
                       f"Missing required client capability: {', '.join(sorted(set(missing)))}",
                       {"requiredCapabilities": required}, status=400)


def _declares(declared: dict[str, Any], capability: str) -> bool:
    top, _, sub = capability.partition(".")
    value = declared.get(top)
    if not isinstance(value, dict):
        return False
    if top == "elicitation" and sub == "form":
        return "form" in value or not value  # {} means form only
    return not sub or sub in value


def _binding(method: str, subject: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"method": method, "subject": subject, "arguments": arguments}


def _cursor_offset(cursor: Any, length: int) -> int:
    if cursor is None:
        return 0
    if not isinstance(cursor, str) or not cursor.isdigit() or int(cursor) > length:
        raise RpcError(jsonrpc.INVALID_PARAMS, f"Invalid params: unknown cursor {cursor!r}")
    return int(cursor)


def _asked_task_ids(params: Any) -> list[str]:
    """The task ids a listen request names under `notifications.taskIds` (strings only)."""
    asked = params.get("notifications") if isinstance(params, dict) else None
    ids = asked.get("taskIds") if isinstance(asked, dict) else None
    return [task_id for task_id in ids if isinstance(task_id, str)] if isinstance(ids, list) else []


def _log_level(request_meta: dict[str, Any]) -> str | None:
    level = request_meta.get(meta.LOG_LEVEL)
    return level if level in meta.LOG_LEVELS else None

