"""Raw clients of the initialize-handshake era, over stdio and HTTP: the wire exactly, no SDK in between.

Each sends `initialize`, then `notifications/initialized`, and `call` answers the server's requests
(through `answer(method, params) -> result`) until the response to the call arrives.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import httpx
import jsonschema

from conftest import PYTHON, ROOT
from helpers import fill_form

Answer = Callable[[str, dict[str, Any]], dict[str, Any]]
CAPABILITIES = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}
DEMO = [PYTHON, "-m", "mrtr_cli", "demo-server"]


def initialize(version: str, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    params = {"protocolVersion": version, "capabilities": CAPABILITIES if capabilities is None else capabilities,
              "clientInfo": {"name": "raw-older-peer", "version": "0"}}
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}


def plain(request_id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}


def answer_anything(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """Forms filled, URLs accepted, sampling and roots replied."""
    if method == "elicitation/create" and params.get("mode") == "url":
        return {"action": "accept"}
    if method == "elicitation/create":
        return {"action": "accept", "content": fill_form(params["requestedSchema"])}
    if method == "sampling/createMessage":
        return {"role": "assistant", "content": {"type": "text", "text": "raw summary"}, "model": "raw"}
    return {"roots": [{"uri": "file:///tmp/raw", "name": "raw"}]}


class OlderStdio:
    """A demo (or serve) process spoken to over stdio in the older era."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.process = subprocess.Popen(command or DEMO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)

    def send(self, message: Any) -> None:
        assert self.process.stdin
        line = message if isinstance(message, str) else json.dumps(message)
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout
        line = self.process.stdout.readline()
        assert line, "the server closed its stdout"
        return json.loads(line)

    def open(self, version: str, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        self.send(initialize(version, capabilities))
        reply = self.receive()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    def call(self, message: dict[str, Any], answer: Answer = answer_anything) -> list[dict[str, Any]]:
        """Every message received until the response to `message`, the server's requests answered."""
        self.send(message)
        received = [self.receive()]
        while "method" in received[-1] or received[-1].get("id") != message["id"]:
            if "method" in received[-1] and "id" in received[-1]:
                ask = received[-1]
                self.send({"jsonrpc": "2.0", "id": ask["id"], "result": answer(ask["method"], ask.get("params", {}))})
            received.append(self.receive())
        return received

    def close(self) -> int:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.close()
        code = self.process.wait(timeout=15)
        self.process.stdout.close()
        return code


class OlderHttp:
    """A Streamable HTTP endpoint spoken to in the older era (2025-11-25 transport rules)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx.Client(timeout=20)
        self.session: str | None = None
        self.version: str | None = None

    def headers(self, session: str | None = None) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if session or self.session:
            headers["Mcp-Session-Id"] = session or self.session or ""
        if self.version:
            headers["MCP-Protocol-Version"] = self.version
        return headers

    def post(self, message: dict[str, Any], session: str | None = None) -> httpx.Response:
        return self.client.post(self.url, content=json.dumps(message), headers=self.headers(session))

    def open(self, version: str, capabilities: dict[str, Any] | None = None) -> httpx.Response:
        response = self.post(initialize(version, capabilities))
        self.session = response.headers.get("Mcp-Session-Id")
        self.version = response.json()["result"]["protocolVersion"] if self.session else None
        assert self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
        return response

    def call(self, message: dict[str, Any], answer: Answer = answer_anything) -> tuple[str, list[dict[str, Any]]]:
        """The response's content type and every message of it, the server's requests answered by POST (202)."""
        with self.client.stream("POST", self.url, content=json.dumps(message), headers=self.headers()) as response:
            kind = response.headers.get("content-type", "")
            if not kind.startswith("text/event-stream"):
                response.read()
                return kind, [response.json()]
            received = []
            for line in response.iter_lines():
                if line.startswith("data:"):
                    received.append(json.loads(line[5:]))
                    self._answer(received[-1], answer)
            return kind, received

    def _answer(self, message: dict[str, Any], answer: Answer) -> None:
        if "method" in message and "id" in message:
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": answer(message["method"], message.get("params", {}))}
            assert self.post(reply).status_code == 202

    def delete(self, session: str | None = None) -> httpx.Response:
        return self.client.delete(self.url, headers=self.headers(session))

    def close(self) -> None:
        self.client.close()


@lru_cache(maxsize=None)
def _definitions(version: str) -> dict[str, Any]:
    schema = json.loads((ROOT / "tests" / "spec" / version / "schema.json").read_text())
    return schema.get("$defs") or schema["definitions"]


def schema_problems(instance: Any, definition: str, version: str) -> list[str]:
    """Why `instance` is not a valid `definition` of that version's official schema (2025-06-18, 2025-11-25)."""
    definitions = _definitions(version)
    key = "$defs" if version == "2025-11-25" else "definitions"
    validator_class = jsonschema.Draft202012Validator if key == "$defs" else jsonschema.Draft7Validator
    validator = validator_class({"$ref": f"#/{key}/{definition}", key: definitions})
    return [error.message for error in validator.iter_errors(instance)]
