"""A real MCP 2026-07-28 server built with the official Python SDK (PyPI `mcp`), for the tests.

Both MRTR styles of the SDK's MCPServer are here: declarative tools (`Resolve` returning
`Elicit`, `Sample`, `ListRoots`: the SDK builds the input_required result and seals
requestState) and hand-built ones (`InputRequiredResult` returned by a tool, a prompt or a
resource template, reading `ctx.input_responses` / `ctx.request_state` on the retry).
Each result says what the server received, so tests can assert what reached it.

    python sdk_server.py [stdio | http PORT [json|sse]]    (SDK_START_DELAY=SECONDS: start that much later)

MCPServer seals `requestState` under a key made when the process starts, so a retry sent to another
process (a second instance, a restart) is refused: error -32602 "Invalid or expired requestState"
(issue 26). SDK_STATE_KEY=KEY (at least 32 characters) shares one key, as a server run as several
instances must: then any of them takes the retry.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
from typing import Annotated, Any

from pydantic import BaseModel, Field

from mcp.server.mcpserver import Context, MCPServer, RequestStateSecurity
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.types import (
    CallToolResult,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListRootsResult,
    SamplingMessage,
    TextContent,
)

STATE_KEY = os.environ.get("SDK_STATE_KEY")
mcp = MCPServer("sdk-test-server",
                request_state_security=RequestStateSecurity(keys=[STATE_KEY]) if STATE_KEY else None)
GREETING_QUESTION = os.environ.get("SDK_GREETING_QUESTION", "What is your name?")


class Name(BaseModel):
    name: str


class Party(BaseModel):
    size: int = Field(ge=1, le=12, description="How many people")


def ask_name() -> Elicit[Name]:
    return Elicit(GREETING_QUESTION, Name)


def ask_model(text: str) -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))],
                  max_tokens=50)


def ask_roots() -> ListRoots:
    return ListRoots()


@mcp.tool()
def greet(greeting: str, who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Greets whoever answers the question (declarative elicitation)."""
    return f"{greeting}, {who.name}!"


@mcp.tool()
def summarize(text: str, reply: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """Asks the client's LLM to summarize (declarative sampling)."""
    content = reply.content
    return f"summary from {reply.model}: {content.text if isinstance(content, TextContent) else content}"


@mcp.tool()
def workspace(roots: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    """Lists the client's roots (declarative roots)."""
    return "roots: " + ", ".join(str(root.uri) for root in roots.roots)


def _form(message: str, properties: dict[str, Any], required: list[str]) -> ElicitRequest:
    schema = {"type": "object", "properties": properties, "required": required}
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


def _pack(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode()


def _unpack(state: str | None) -> dict[str, Any]:
    return json.loads(base64.urlsafe_b64decode(state.encode())) if state else {}


def _answer(ctx: Context, key: str) -> dict[str, Any] | None:
    responses = ctx.input_responses or {}
    response = responses.get(key)
    return response.model_dump(by_alias=True, exclude_none=True) if response is not None else None


@mcp.tool()
async def booking(city: str, ctx: Context) -> CallToolResult | InputRequiredResult:
    """Two rounds threaded through requestState: a date, then a party size (with progress, so SSE)."""
    await ctx.report_progress(1, 2, "checking tables")
    state = _unpack(ctx.request_state)
    date = _answer(ctx, "date")
    if date and "date" not in state:
        state["date"] = date["content"]["date"]
    party = _answer(ctx, "party")
    if "date" not in state:
        return InputRequiredResult(input_requests={"date": _form(
            f"Which date in {city}?", {"date": {"type": "string", "format": "date"}}, ["date"])},
            request_state=_pack(state))
    if party is None:
        return InputRequiredResult(input_requests={"party": _form(
            "How many people?", {"size": {"type": "integer", "minimum": 1, "maximum": 12}}, ["size"])},
            request_state=_pack(state))
    text = f"booked {city} on {state['date']} for {party['content']['size']}"
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content={"city": city, "date": state["date"], "size": party["content"]["size"]})


@mcp.tool()
def two_at_once(ctx: Context) -> CallToolResult | InputRequiredResult:
    """Several questions in one round: a form and a sampling request."""
    color, words = _answer(ctx, "color"), _answer(ctx, "words")
    if color is None or words is None:
        sample = {"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Say three words"}}],
            "maxTokens": 10}}
        return InputRequiredResult(input_requests={
            "color": _form("Pick a color", {"color": {"type": "string", "enum": ["red", "green"]}}, ["color"]),
            "words": sample})
    received = {"color": color, "words": words}
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(received, sort_keys=True))],
                          structured_content=received)


@mcp.tool()
def echo_state(state: str, ctx: Context) -> CallToolResult | InputRequiredResult:
    """Round 1 hands out `state` as requestState; round 2 returns the requestState it received."""
    if ctx.request_state is None:
        return InputRequiredResult(input_requests={"ok": _form("Continue?", {"ok": {"type": "boolean"}}, [])},
                                   request_state=state)
    received = {"requestState": ctx.request_state, "inputResponses": _answer(ctx, "ok")}
    return CallToolResult(content=[TextContent(type="text", text="echoed")], structured_content=received)


FOLDERS: dict[str, list[str]] = {}
"""The files left in each folder `delete_folder` was called for (each starts with two)."""


@mcp.tool()
def delete_folder(folder: str, ctx: Context) -> CallToolResult | InputRequiredResult:
    """A tool with a side effect: it asks to confirm while the folder has files, then deletes them;
    called again, it has nothing to ask."""
    files = FOLDERS.setdefault(folder, ["a.txt", "b.txt"])
    if not files:
        return CallToolResult(content=[TextContent(type="text", text=f"{folder} is empty: nothing to delete")])
    answer = _answer(ctx, "confirm") or {}
    if answer.get("action") != "accept" or (answer.get("content") or {}).get("confirm") is not True:
        return InputRequiredResult(input_requests={"confirm": _form(
            f"Delete the {len(files)} files in {folder}?", {"confirm": {"type": "boolean"}}, ["confirm"])},
            request_state=_pack({"folder": folder}))
    FOLDERS[folder] = []
    return CallToolResult(content=[TextContent(type="text", text=f"deleted {len(files)} files in {folder}")])


@mcp.tool()
def stamped(who: Annotated[Name, Resolve(ask_name)]) -> dict[str, Any]:
    """Greets after asking the name (in either era), and says when: a result that differs on every run."""
    return {"greeting": f"Hello, {who.name}!", "at": time.time_ns()}


@mcp.tool()
def fails() -> str:
    """Always ends with isError."""
    raise ToolError("this tool always fails")


@mcp.prompt()
def haiku(topic: str, ctx: Context) -> Any:
    """A prompt that asks which style first (hand-built input_required on prompts/get)."""
    style = _answer(ctx, "style")
    if style is None:
        return InputRequiredResult(input_requests={"style": _form(
            f"Which style of haiku about {topic}?", {"style": {"type": "string"}}, ["style"])})
    return f"Write a {style['content']['style']} haiku about {topic}."


@mcp.resource("notes://{name}")
def note(name: str, ctx: Context) -> Any:
    """A resource template that asks for a passphrase (hand-built input_required on resources/read)."""
    word = _answer(ctx, "passphrase")
    if word is None:
        return InputRequiredResult(input_requests={"passphrase": _form(
            f"Passphrase for note {name}?", {"word": {"type": "string"}}, ["word"])})
    return f"note {name}, unlocked with {word['content']['word']}"


def main(argv: list[str]) -> None:
    time.sleep(float(os.environ.get("SDK_START_DELAY", "0")))  # a server slow to start (a cold `uv run`)
    if len(argv) > 1 and argv[1] == "http":
        mode = argv[3] if len(argv) > 3 else "json"
        mcp.run("streamable-http", host="127.0.0.1", port=int(argv[2]), json_response=mode == "json")
    else:
        mcp.run("stdio")


if __name__ == "__main__":
    main(sys.argv)
