"""The baseline: a bare stdlib MRTR client doing mrtr's loop with no validation or output.

    python bare_client.py stdio|URL TOOL N_OR_SIZE
"""

import json
import subprocess
import sys
import urllib.request

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}


def main(target: str, tool: str, value: int) -> None:
    server = None if target.startswith("http") else subprocess.Popen(
        [sys.executable, sys.argv[0].replace("bare_client.py", "server.py")], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE)
    params, ids = {"name": tool, "arguments": {"n" if tool == "ask" else "size": value}}, iter(range(1, 10**6))
    while True:
        body = json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": "tools/call",
                           "params": {**params, "_meta": META}}).encode()
        result = send(server, target, body)["result"]
        if result.get("resultType") != "input_required":
            break
        params = {"name": tool, "arguments": params["arguments"], "requestState": result["requestState"],
                  "inputResponses": {k: {"action": "accept", "content": {"ok": True}} for k in result["inputRequests"]}}
    if server:
        server.stdin.close()
        server.wait()


def send(server, target: str, body: bytes) -> dict:
    if server is None:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
        with urllib.request.urlopen(urllib.request.Request(target, body, headers)) as response:
            data = response.read()
        return json.loads(data[data.index(b"{"):] if data.startswith(b"event") else data)
    server.stdin.write(body + b"\n")
    server.stdin.flush()
    return json.loads(server.stdout.readline())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
