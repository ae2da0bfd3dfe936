"""The older era's baseline: a bare stdlib client of the initialize handshake, no validation, no output.

    python bare_older_client.py TOOL NAME -- SERVER_COMMAND...

It starts the server, sends initialize and notifications/initialized, calls TOOL, answers every
elicitation/create with {"name": NAME} and every other server request with an empty result,
and shuts the server down as mrtr does once the call's response arrived: the exchange
`mrtr call TOOL --answer elicitation#1.name=NAME --protocol-era older` makes.
"""

import json
import subprocess
import sys

CAPABILITIES = {"elicitation": {"form": {}}, "sampling": {}, "roots": {}}


def main(tool: str, name: str, command: list[str]) -> None:
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    ask(server, 1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": CAPABILITIES,
                                  "clientInfo": {"name": "bare", "version": "0"}}, name)
    write(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    ask(server, 2, "tools/call", {"name": tool, "arguments": {}}, name)
    shut_down(server)


def shut_down(server: subprocess.Popen) -> None:
    """The spec's stdio shutdown, with mrtr's 2-second waits: close stdin, then SIGTERM, then SIGKILL
    (server-everything keeps running after stdin closes, so every client of it waits the first 2 s)."""
    server.stdin.close()
    for stop in (None, server.terminate, server.kill):
        if stop is not None:
            stop()
        try:
            server.wait(timeout=2.0)
            return
        except subprocess.TimeoutExpired:
            continue


def ask(server: subprocess.Popen, request_id: int, method: str, params: dict, name: str) -> dict:
    """Send a request; answer the server's own requests until its response arrives."""
    write(server, {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    while True:
        message = json.loads(server.stdout.readline())
        if message.get("id") == request_id and "method" not in message:
            return message
        if "method" in message and "id" in message:
            result = {"action": "accept", "content": {"name": name}} \
                if message["method"] == "elicitation/create" else {}
            write(server, {"jsonrpc": "2.0", "id": message["id"], "result": result})


def write(server: subprocess.Popen, message: dict) -> None:
    server.stdin.write(json.dumps(message).encode() + b"\n")
    server.stdin.flush()


if __name__ == "__main__":
    split = sys.argv.index("--")
    main(sys.argv[1], sys.argv[2], sys.argv[split + 1:])
