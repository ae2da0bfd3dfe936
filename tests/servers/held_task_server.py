"""A small 2026-07-28 server over HTTP whose one tool runs as a task (the io.modelcontextprotocol/tasks
extension, written from its specification) and stays `working` until the test lets it go on.

    python held_task_server.py      (prints `listening on URL` to stderr)

`tools/call` of `deploy` makes a task (`resultType: "task"`). The task is `working` until a POST to
/release (the test's hand, so no test waits on a clock); then `input_required` with one question
(`confirm`, an elicitation with a boolean `ok`), and after `tasks/update` answers it, `completed`
("deployed" or "not deployed"). tasks/cancel makes it `cancelled`; an unknown id is -32602.
GET /log gives every JSON-RPC request received, in order. Standard library only.
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
QUESTION = {"method": "elicitation/create", "params": {
    "mode": "form", "message": "Deploy now?",
    "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}}}
LOCK = threading.Lock()
TASKS: dict[str, dict[str, Any]] = {}
RELEASED: set[str] = set()
LOG: list[dict[str, Any]] = []


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def task_view(task_id: str) -> dict[str, Any]:
    task = TASKS[task_id]
    if task["status"] == "working" and task_id in RELEASED:
        task["status"] = "input_required"
    view = {key: value for key, value in task.items() if key != "answered"}
    if task["status"] == "input_required":
        view["inputRequests"] = {"confirm": QUESTION}
    return view


def call_tool(params: dict[str, Any]) -> dict[str, Any]:
    capabilities = params.get("_meta", {}).get("io.modelcontextprotocol/clientCapabilities", {})
    if TASKS_EXTENSION not in capabilities.get("extensions", {}):
        return {"error": {"code": -32003, "message": "Missing required client capability",
                          "data": {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}}}
    task_id = secrets.token_hex(8)
    TASKS[task_id] = {"taskId": task_id, "status": "working", "statusMessage": "deploying", "createdAt": now(),
                      "lastUpdatedAt": now(), "ttlMs": 3_600_000, "pollIntervalMs": 100}
    return {"result": {"resultType": "task", **task_view(task_id)}}


def task_method(method: str, params: dict[str, Any]) -> dict[str, Any]:
    task_id = params.get("taskId")
    if task_id not in TASKS:
        return {"error": {"code": -32602, "message": "Failed to retrieve task: Task not found"}}
    task = TASKS[task_id]
    if method == "tasks/cancel" and task["status"] not in ("completed", "failed", "cancelled"):
        task.update(status="cancelled", statusMessage="cancelled by the client", lastUpdatedAt=now())
    if method == "tasks/update" and task["status"] == "input_required":
        answer = params.get("inputResponses", {}).get("confirm", {})
        deployed = answer.get("action") == "accept" and answer.get("content", {}).get("ok") is True
        task.update(status="completed", statusMessage="done", lastUpdatedAt=now(), result={
            "content": [{"type": "text", "text": "deployed" if deployed else "not deployed"}], "isError": False})
    if method == "tasks/get":
        return {"result": {"resultType": "complete", **task_view(task_id)}}
    return {"result": {"resultType": "complete"}}


def answer(message: dict[str, Any]) -> dict[str, Any]:
    method, params = message.get("method"), message.get("params") or {}
    if method == "server/discover":
        return {"result": {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                           "capabilities": {"tools": {}, "extensions": {TASKS_EXTENSION: {}}},
                           "serverInfo": {"name": "held-task", "version": "1"}}}
    if method == "tools/list":
        return {"result": {"resultType": "complete", "tools": [{"name": "deploy", "inputSchema": {"type": "object"}}]}}
    if method == "tools/call":
        return call_tool(params)
    if method in ("tasks/get", "tasks/update", "tasks/cancel"):
        return task_method(method, params)
    return {"error": {"code": -32601, "message": f"no method {method}"}}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the standard library's name
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/release":
            with LOCK:
                RELEASED.update(TASKS)
            return self._send(200, {})
        message = json.loads(body)
        with LOCK:
            LOG.append(message)
            if "id" not in message:
                return self._send(202, None)
            reply = answer(message)
        self._send(200, {"jsonrpc": "2.0", "id": message["id"], **reply})

    def do_GET(self) -> None:  # noqa: N802
        if self.path == "/log":
            with LOCK:
                return self._send(200, LOG)
        self._send(405, None)

    def _send(self, status: int, document: Any) -> None:
        data = b"" if document is None else json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", file=sys.stderr, flush=True)
    server.serve_forever()
