"""A client nobody here wrote: the PyPI `mcp` SDK's automatic MRTR loop completes every demo tool."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CreateMessageResult, ElicitResult, ListRootsResult, Root, TextContent

from conftest import PYTHON, ROOT
from helpers import fill_form
from mrtr_cli.server.demo import TOOLS

DEMO = StdioServerParameters(command=PYTHON, args=["-m", "mrtr_cli", "demo-server"], cwd=str(ROOT))


async def answer_form(context: Any, params: Any) -> ElicitResult:
    if getattr(params, "mode", "form") == "url":
        return ElicitResult(action="accept")
    return ElicitResult(action="accept", content=fill_form(params.requested_schema))


async def answer_sampling(context: Any, params: Any) -> CreateMessageResult:
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text="sdk summary"), model="sdk-llm")


async def answer_roots(context: Any) -> ListRootsResult:
    return ListRootsResult(roots=[Root(uri="file:///tmp/sdk", name="sdk")])


def with_sdk_client(body: Any) -> Any:
    async def run() -> Any:
        async with Client(DEMO, elicitation_callback=answer_form, sampling_callback=answer_sampling,
                          list_roots_callback=answer_roots) as client:
            return await body(client)

    return anyio.run(run)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_the_sdk_client_completes_every_demo_tool(name: str):
    result = with_sdk_client(lambda client: client.call_tool(name, {}))
    assert result.is_error is (name == "always_fails")
    received = result.structured_content["received"]
    expected = {"summarize": lambda r: r["content"]["text"] == "sdk summary" and r["model"] == "sdk-llm",
                "workspace_roots": lambda r: r == [{"uri": "file:///tmp/sdk", "name": "sdk"}],
                "connect_account": lambda r: r == {"connect": {"action": "accept"}},
                "poll_status": lambda r: r == {"polls": 3},
                "book_table": lambda r: r["party"] == {"size": 2} and r["confirm"] == {"confirm": True}}
    assert expected.get(name, bool)(received), received


def test_the_sdk_client_gets_the_prompt_and_reads_the_vault():
    async def both(client: Client) -> tuple[Any, Any]:
        return (await client.get_prompt("release_notes", {"version": "3.1"}),
                await client.read_resource("vault://sdk"))

    prompt, resource = with_sdk_client(both)
    assert prompt.messages[0].content.text.startswith("Write the release notes of version 3.1 for developers")
    assert resource.contents[0].text == "vault entry sdk: the demo secret is 'mrtr-sdk'."
