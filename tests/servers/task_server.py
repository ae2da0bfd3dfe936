"""A 2026-07-28 server of the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), for tests.

Written from the extension's specification (modelcontextprotocol/experimental-ext-tasks,
specification/draft/tasks.md), not from mrtr's demo server: no installable SDK serves the extension
today. A client that declares the extension in a request's `_meta` clientCapabilities gets a
`CreateTaskResult` (flat: `resultType: "task"`, taskId, status, createdAt, lastUpdatedAt, ttlMs,
pollIntervalMs) for each tool below; `tasks/get` returns the DetailedTask (inputRequests, result or
error inlined), `tasks/update` takes `inputResponses`, `tasks/cancel` acknowledges. A client that does
not declare it gets each tool's result at once (and -32021 from the tasks/* methods).

Tools (each works in a thread of its own; `work` seconds per step, default 0.2):
  deploy      working ("building", then "testing"), then input_required: an elicitation `confirm`
              (a boolean `go`), then working, then completed "deployed ENV" (or "not deployed")
  broken      working, then failed with a JSON-RPC error (-32603 "the build farm is down")
  halted      working, then cancelled ("stopped by an operator")
  flaky       working, then completed with isError
  slow        working for `seconds` (default 10), then completed "done"; `poll_ms`: the pollIntervalMs it
              suggests (default 100)

Every tool also takes `listen`, how the task's status notifications are served (the extension's "Task
Status Notifications": a `subscriptions/listen` request naming `notifications.taskIds`, acknowledged with
`notifications/subscriptions/acknowledged` naming the ids agreed to, then `notifications/tasks` carrying
the whole DetailedTask at each change; -32021 to a client that did not declare the extension). Over HTTP:
  notify      (default) every change of the task, until it ends; then the stream closes
  refuse      -32601: the server offers no notifications
  decline     acknowledged without the task's id
  end         acknowledged, the task as it stands once, then the stream closes
  hostile     before the changes: a line that is no JSON, a notification for another task, progress and a
              log message (which the extension forbids there), a notifications/tasks that is no
              DetailedTask, and one whose statusMessage is 100,000 characters
Over stdio the server offers no notifications (-32601).

    python task_server.py http PORT      (prints `listening on URL` to stderr)
    python task_server.py stdio

Standard library only.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

EXTENSION = "io.modelcontextprotocol/tasks"
VERSION = "2026-07-28"
POLL_MS, TTL_MS = 100, 60_000
INFO = {"name": "task-server", "version": "1.0"}
CONFIRM = {"method": "elicitation/create", "params": {
    "mode": "form", "message": "Deploy to production?",
    "requestedSchema": {"type": "object", "properties": {"go": {"type": "boolean", "description": "Go ahead"}},
                        "required": ["go"]}}}
TOOLS = [{"name": name, "description": text, "inputSchema": {"type": "object", "properties": properties}}
         for name, text, properties in [
             ("deploy", "Builds, asks to confirm, deploys.", {"env": {"type": "string"}, "work": {"type": "number"}}),
             ("broken", "Fails with a protocol error.", {"work": {"type": "number"}}),
             ("halted", "Ends cancelled.", {"work": {"type": "number"}}),
             ("flaky", "Completes with a tool error.", {"work": {"type": "number"}}),
             ("slow", "Works for a while.", {"seconds": {"type": "number"}, "poll_ms": {"type": "integer"}})]]
for tool in TOOLS:
    tool["inputSchema"]["properties"]["listen"] = {"type": "string", "enum": ["notify", "refuse", "decline", "end",
                                                                                "hostile"]}
CHANGED = threading.Condition()
"""Notified at every change of any task (what a listen stream waits on); CHANGES counts them."""
CHANGES = [0]


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Task:
    """One task: its fields as tasks/get shows them, changed by its worker thread."""

    def __init__(self, task_id: str) -> None:
        self.fields: dict[str, Any] = {"taskId": task_id, "status": "working", "createdAt": now(),
                                       "lastUpdatedAt": now(), "ttlMs": TTL_MS, "pollIntervalMs": POLL_MS}
        self.lock = threading.Lock()
        self.answers: dict[str, Any] = {}
        self.answered = threading.Event()
        self.cancelled = threading.Event()
        self.listen = "notify"

    def set(self, **fields: Any) -> None:
        with self.lock:
            for name in ("statusMessage", "inputRequests", "result", "error"):
                self.fields.pop(name, None)
            self.fields.update(fields, lastUpdatedAt=now())
        with CHANGED:
            CHANGES[0] += 1
            CHANGED.notify_all()

    def view(self) -> dict[str, Any]:
        with self.lock:
            return dict(self.fields)


TASKS: dict[str, Task] = {}
IDS = itertools.count(1)


def text(value: str, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": error}


def run_tool(task: Task, name: str, arguments: dict[str, Any]) -> None:
    """The tool's work, step by step; `cancelled` (tasks/cancel) ends it early."""
    work = float(arguments.get("work", 0.2))
    if name == "slow":
        task.cancelled.wait(float(arguments.get("seconds", 10)))
        task.set(status="completed", result=text("done"))
        return
    task.set(status="working", statusMessage="building")
    if task.cancelled.wait(work):
        return task.set(status="cancelled", statusMessage="cancelled by the client")
    if name == "broken":
        return task.set(status="failed", statusMessage="the build farm is down",
                        error={"code": -32603, "message": "the build farm is down"})
    if name == "halted":
        return task.set(status="cancelled", statusMessage="stopped by an operator")
    if name == "flaky":
        return task.set(status="completed", result=text("the tests failed", error=True))
    task.set(status="working", statusMessage="testing")
    time.sleep(work)
    deploy(task, str(arguments.get("env", "staging")))


def deploy(task: Task, env: str) -> None:
    task.set(status="input_required", statusMessage="waiting for a confirmation", inputRequests={"confirm": CONFIRM})
    task.answered.wait(300)
    answer = task.answers.get("confirm") or {}
    task.set(status="working", statusMessage="deploying")
    time.sleep(0.1)
    go = answer.get("action") == "accept" and (answer.get("content") or {}).get("go") is True
    task.set(status="completed", result=text(f"deployed {env}" if go else "not deployed"))


def declares_tasks(params: dict[str, Any]) -> bool:
    capabilities = (params.get("_meta") or {}).get("io.modelcontextprotocol/clientCapabilities") or {}
    return EXTENSION in (capabilities.get("extensions") or {})


def at_once(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool's result for a client that did not declare the extension."""
    outcomes = {"deploy": text("deployed at once (no task)"), "flaky": text("the tests failed", error=True),
                "slow": text("done"), "halted": text("done"), "broken": text("done")}
    return {"resultType": "complete", **outcomes.get(name, text(f"no tool {name}", error=True))}


def call_tool(params: dict[str, Any]) -> dict[str, Any]:
    name, arguments = params.get("name"), params.get("arguments") or {}
    if not declares_tasks(params) or name not in {tool["name"] for tool in TOOLS}:
        return at_once(str(name), arguments)
    task = Task(f"task-{next(IDS)}")
    if isinstance(arguments.get("poll_ms"), int):
        task.fields["pollIntervalMs"] = arguments["poll_ms"]
    task.listen = str(arguments.get("listen", "notify"))
    TASKS[task.fields["taskId"]] = task
    threading.Thread(target=run_tool, args=(task, name, arguments), daemon=True).start()
    created = task.view()
    created.pop("statusMessage", None)
    return {"resultType": "task", **created, "status": "working"}


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.error = {"code": code, "message": message, **({"data": data} if data is not None else {})}


def task_of(params: dict[str, Any]) -> Task:
    if not declares_tasks(params):
        raise RpcError(-32021, "Missing required client capability",
                       {"requiredCapabilities": {"extensions": {EXTENSION: {}}}})
    task = TASKS.get(params.get("taskId"))  # type: ignore[arg-type]
    if task is None:
        raise RpcError(-32602, "Failed to retrieve task: Task not found")
    return task


def tasks_update(params: dict[str, Any]) -> dict[str, Any]:
    task = task_of(params)
    responses = params.get("inputResponses")
    if isinstance(responses, dict) and "confirm" in responses and "confirm" in (task.view().get("inputRequests") or {}):
        task.answers.update(responses)
        task.answered.set()
    return {"resultType": "complete"}


def tasks_cancel(params: dict[str, Any]) -> dict[str, Any]:
    task_of(params).cancelled.set()
    return {"resultType": "complete"}


CACHING = {"ttlMs": 0, "cacheScope": "public"}
DISCOVER = {"resultType": "complete", "supportedVersions": [VERSION], "serverInfo": INFO,
            "capabilities": {"tools": {}, "extensions": {EXTENSION: {}}}, **CACHING}
METHODS = {
    "server/discover": lambda params: DISCOVER,
    "tools/list": lambda params: {"resultType": "complete", "tools": TOOLS, **CACHING},
    "tools/call": call_tool,
    "tasks/get": lambda params: {"resultType": "complete", **task_of(params).view()},
    "tasks/update": tasks_update,
    "tasks/cancel": tasks_cancel,
}


def handle(message: dict[str, Any]) -> dict[str, Any] | None:
    """The response to one message (None for a notification)."""
    if "id" not in message:
        return None
    method, params = message.get("method"), message.get("params") or {}
    handler = METHODS.get(str(method))
    try:
        if handler is None:
            raise RpcError(-32601, f"Method not found: {method}")
        result = handler(params)
        result.setdefault("_meta", {})["io.modelcontextprotocol/serverInfo"] = INFO
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}
    except RpcError as failure:
        return {"jsonrpc": "2.0", "id": message["id"], "error": failure.error}


def listen_refusal(message: dict[str, Any]) -> dict[str, Any] | None:
    """The error that answers a subscriptions/listen instead of a stream (None: a stream it is)."""
    params = message.get("params") or {}
    asked = (params.get("notifications") or {}).get("taskIds") or []
    if asked and not declares_tasks(params):
        error = RpcError(-32021, "Missing required client capability",
                         {"requiredCapabilities": {"extensions": {EXTENSION: {}}}})
        return {"jsonrpc": "2.0", "id": message.get("id"), "error": error.error}
    if any(TASKS[task_id].listen == "refuse" for task_id in asked if task_id in TASKS) or not asked:
        return {"jsonrpc": "2.0", "id": message.get("id"), "error": {"code": -32601, "message": "Method not found"}}
    return None


def hostile_frames(task: Task) -> list[str]:
    """What a hostile listen stream sends before the task's changes."""
    tagged = {"_meta": {"io.modelcontextprotocol/subscriptionId": 0}}
    notes = [("notifications/tasks", {**task.view(), "taskId": "task-elsewhere"}),
             ("notifications/progress", {"progressToken": "x", "progress": 1}),
             ("notifications/message", {"level": "info", "data": "hello"}),
             ("notifications/tasks", {"taskId": task.fields["taskId"], "status": "sleeping"}),
             ("notifications/tasks", {**task.view(), "statusMessage": "x" * 100_000})]
    return ["{not json"] + [json.dumps({"jsonrpc": "2.0", "method": method, "params": {**params, **tagged}})
                            for method, params in notes]


class Endpoint(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        message = json.loads(body)
        if message.get("method") == "subscriptions/listen" and listen_refusal(message) is None:
            return self.listen(message)
        response = listen_refusal(message) if message.get("method") == "subscriptions/listen" else handle(message)
        if response is None:
            self.send_response(202)
            self.end_headers()
            return
        data = json.dumps(response).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def listen(self, message: dict[str, Any]) -> None:
        """A listen stream: acknowledged, then each task's DetailedTask at every change until all have ended."""
        asked = [TASKS[task_id] for task_id in message["params"]["notifications"]["taskIds"] if task_id in TASKS]
        agreed = [task for task in asked if task.listen != "decline"]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        tag = {"io.modelcontextprotocol/subscriptionId": message["id"]}
        self.event(json.dumps({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
            "_meta": tag, "notifications": {"taskIds": [task.fields["taskId"] for task in agreed]}}}))
        for task in agreed:
            for frame in hostile_frames(task) if task.listen == "hostile" else []:
                self.event(frame)
        try:
            self.follow(agreed, tag)
        except OSError:
            pass  # the client left
        self.close_connection = True

    def follow(self, agreed: list[Task], tag: dict[str, Any]) -> None:
        """Each change of the agreed tasks, until each has ended (a task served `end` only once)."""
        told: dict[str, dict[str, Any]] = {}
        while agreed:
            with CHANGED:
                seen = CHANGES[0]
            for task in agreed:
                view = task.view()
                if told.get(view["taskId"]) != view:
                    told[view["taskId"]] = view
                    self.event(json.dumps({"jsonrpc": "2.0", "method": "notifications/tasks",
                                           "params": {**view, "_meta": tag}}))
            agreed = [task for task in agreed if task.listen != "end"
                      and told[task.fields["taskId"]]["status"] not in ("completed", "failed", "cancelled")]
            with CHANGED:
                CHANGED.wait_for(lambda: CHANGES[0] != seen, timeout=10)

    def event(self, data: str) -> None:
        self.wfile.write(f"event: message\ndata: {data}\n\n".encode())
        self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def main(argv: list[str]) -> None:
    if argv[:1] == ["http"]:
        server = ThreadingHTTPServer(("127.0.0.1", int(argv[1])), Endpoint)
        print(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", file=sys.stderr, flush=True)
        server.serve_forever()
    for line in sys.stdin:
        response = handle(json.loads(line))
        if response is not None:
            print(json.dumps(response), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
