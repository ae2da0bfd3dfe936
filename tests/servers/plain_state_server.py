"""A real MCP 2026-07-28 server built on the official Python SDK's low-level `Server` (PyPI `mcp`),
whose `requestState` is plain JSON: no key seals it, so any process can take the retry (issue 26).

The low-level tier installs no `RequestStateBoundary` (MCPServer does, under a key made per
process): what the tool hands out is what comes back. One tool, `greet`, asks one elicitation
question (a name) and completes on the retry, from the retry alone: the greeting travels in the
state, the name in the answer. Its result names the process that completed it (`pid`), so a test
sees that another one did.

    python plain_state_server.py [stdio | http PORT]
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio

from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

GREET = Tool(name="greet", description="Greets whoever answers (state in plain JSON).",
             input_schema={"type": "object", "properties": {"greeting": {"type": "string"}}, "required": ["greeting"]})
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


async def list_tools(ctx: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(tools=[GREET])


async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult | InputRequiredResult:
    if params.name != "greet":
        return CallToolResult(content=[TextContent(type="text", text=f"no tool {params.name}")], is_error=True)
    answer = (params.input_responses or {}).get("name")
    if params.request_state is None or answer is None:
        state = json.dumps({"greeting": (params.arguments or {}).get("greeting", "Hello")})
        question = ElicitRequest(params=ElicitRequestFormParams(message="What is your name?",
                                                                requested_schema=NAME_SCHEMA))
        return InputRequiredResult(input_requests={"name": question}, request_state=state)
    greeting = json.loads(params.request_state)["greeting"]
    name = answer.model_dump(by_alias=True, exclude_none=True).get("content", {}).get("name")
    text = f"{greeting}, {name}!"
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content={"text": text, "pid": os.getpid()})


server = Server("plain-state-server", version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(port: int) -> None:
    import uvicorn

    app = server.streamable_http_app(json_response=True)
    await uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")).serve()


def main(argv: list[str]) -> None:
    if len(argv) > 2 and argv[1] == "http":
        anyio.run(serve_http, int(argv[2]))
    else:
        anyio.run(serve_stdio)


if __name__ == "__main__":
    main(sys.argv)
