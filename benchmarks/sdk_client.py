"""The alternative: the PyPI `mcp` SDK client's automatic MRTR loop.

    python sdk_client.py stdio|URL TOOL N_OR_SIZE
"""

import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import ElicitResult


async def answer(context, params):
    return ElicitResult(action="accept", content={"ok": True})


async def main(target: str, tool: str, value: int) -> None:
    server = target if target.startswith("http") else StdioServerParameters(
        command=sys.executable, args=[str(Path(__file__).with_name("server.py"))])
    async with Client(server, elicitation_callback=answer, input_required_max_rounds=10_000) as client:
        await client.call_tool(tool, {"n" if tool == "ask" else "size": value})


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2], int(sys.argv[3]))
