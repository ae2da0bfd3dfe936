"""The HTTP baseline: bare_client.py's loop over httpx, the library mrtr's HTTP transport uses.

    python bare_httpx_client.py URL TOOL N_OR_SIZE

One httpx.Client (one connection) for the whole call, no validation and no output: what mrtr's
HTTP call costs beyond this is mrtr's own. httpx is imported as mrtr imports it, without its command
line (`httpx._main`: click, rich and pygments, about 90 ms, which httpx imports whenever they are
installed, as they are beside mrtr), and, for an http:// URL, without loading the CA bundle
(`verify=False`: there is no TLS to verify; about 50 ms), as mrtr does: a baseline that paid for
either would flatter mrtr.
"""

import json
import sys

sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # as mrtr_cli/transport/http.py does
import httpx  # noqa: E402

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}


def main(url: str, tool: str, value: int) -> None:
    params, ids = {"name": tool, "arguments": {"n" if tool == "ask" else "size": value}}, iter(range(1, 10**6))
    with httpx.Client(timeout=120, verify=not url.startswith("http://")) as client:
        while True:
            body = json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": "tools/call",
                               "params": {**params, "_meta": META}}).encode()
            result = send(client, url, body)["result"]
            if result.get("resultType") != "input_required":
                break
            params = {"name": tool, "arguments": params["arguments"], "requestState": result["requestState"],
                      "inputResponses": {k: {"action": "accept", "content": {"ok": True}}
                                         for k in result["inputRequests"]}}


def send(client: httpx.Client, url: str, body: bytes) -> dict:
    data = client.post(url, content=body, headers=HEADERS).content
    return json.loads(data[data.index(b"{"):] if data.startswith(b"event") else data)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
