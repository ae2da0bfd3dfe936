"""A minimal server of the initialize-handshake era for the benchmarks (standard library only), stdio.

`server/discover` gets -32601, as every older-era server answers it. Tool `ask` asks N elicitations
(argument `n`) in flight, one after another, then completes.
"""

from __future__ import annotations

import json
import sys

QUESTION = {"mode": "form", "message": "Go on?", "requestedSchema": {
    "type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}}
INITIALIZED = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
               "serverInfo": {"name": "bench-older", "version": "1"}}
TOOLS = [{"name": "ask", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}]


def write(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def ask_in_flight(count: int) -> None:
    for number in range(1, count + 1):
        write({"jsonrpc": "2.0", "id": f"q{number}", "method": "elicitation/create", "params": QUESTION})
        sys.stdin.readline()  # the client's answer


def answer(message: dict) -> dict:
    method = message["method"]
    if method == "initialize":
        return {"result": INITIALIZED}
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "tools/call":
        count = int((message["params"].get("arguments") or {}).get("n", 1))
        ask_in_flight(count)
        return {"result": {"content": [{"type": "text", "text": f"asked {count}"}]}}
    return {"error": {"code": -32601, "message": "Method not found"}}


if __name__ == "__main__":
    for line in sys.stdin:
        message = json.loads(line)
        if "id" in message and "method" in message:
            write({"jsonrpc": "2.0", "id": message["id"], **answer(message)})
