"""A real MCP server built with fastmcp (PyPI `fastmcp`, code in `fastmcp-slim`), for the tests.

fastmcp 4 speaks both eras. At 2026-07-28 a tool, prompt or resource asks by returning an
`InputRequiredResult` (its "guard pattern") and reads `ctx.input_responses` / `ctx.request_state` on
the retry; fastmcp seals every outgoing `requestState` (the SDK's request-state boundary, under a key
made when the process starts) and refuses an altered one before the tool runs. On an
initialize-handshake connection `ctx.elicit()` asks in flight instead (fastmcp raises on it at
2026-07-28). fastmcp has no sampling helper (server-initiated sampling is deprecated, SEP-2577): the
`summarize` tool puts a raw `sampling/createMessage` request in its `InputRequiredResult`, which
fastmcp passes through as it is.

    python fastmcp_server.py [stdio | http PORT]
"""

from __future__ import annotations

import json
import sys
from typing import Any

from fastmcp import Context, FastMCP
from fastmcp.server.elicitation import AcceptedElicitation
from fastmcp.tools import ToolResult
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult
from mcp_types.jsonrpc import MISSING_REQUIRED_CLIENT_CAPABILITY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

mcp = FastMCP("fastmcp-test-server")


def _require(ctx: Context, capability: str) -> None:
    """-32021 listing `capability` (form `elicitation`, or `sampling`) when the client did not declare it:
    fastmcp checks nothing itself, but carries this error to the wire as it is (not as an isError result)."""
    declared = ctx.session.client_capabilities
    given = getattr(declared, capability, None)
    if capability == "elicitation" and given is not None and given.form is None and given.url is not None:
        given = None  # URL mode alone: `elicitation: {}` (the form before modes existed) counts as form
    if given is None:
        needed = {"elicitation": {"form": {}}} if capability == "elicitation" else {capability: {}}
        raise MCPError(MISSING_REQUIRED_CLIENT_CAPABILITY, f"the client did not declare {capability}",
                       {"requiredCapabilities": needed})


def _form(message: str, properties: dict[str, Any], required: list[str]) -> ElicitRequest:
    schema = {"type": "object", "properties": properties, "required": required}
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


def _answer(ctx: Context, key: str, capability: str = "elicitation") -> dict[str, Any] | None:
    """The client's answer to question `key`, None before it is asked (after checking the client can be asked)."""
    _require(ctx, capability)
    response = (ctx.input_responses or {}).get(key)
    return response.model_dump(by_alias=True, exclude_none=True) if response is not None else None


@mcp.tool()
async def greet(greeting: str, ctx: Context) -> str | InputRequiredResult:
    """Greets whoever answers: input_required at 2026-07-28, ctx.elicit() in the older era."""
    if ctx.request_context is not None and ctx.request_context.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        asked = await ctx.elicit("What is your name?", str)
        return f"{greeting}, {asked.data}!" if isinstance(asked, AcceptedElicitation) else f"{greeting}, nobody."
    name = _answer(ctx, "name")
    if name is None or name.get("action") != "accept":
        return InputRequiredResult(input_requests={"name": _form("What is your name?", {"name": {"type": "string"}},
                                                                 ["name"])})
    return f"{greeting}, {name['content']['name']}!"


@mcp.tool()
def reserve(city: str, ctx: Context) -> ToolResult | InputRequiredResult:
    """Two rounds threaded through requestState: a date, then a party size."""
    state = json.loads(ctx.request_state) if ctx.request_state else {}
    date = _answer(ctx, "date")
    if date and date.get("action") == "accept" and "date" not in state:
        state["date"] = date["content"]["date"]
    if "date" not in state:
        return InputRequiredResult(input_requests={"date": _form(
            f"Which date in {city}?", {"date": {"type": "string", "format": "date"}}, ["date"])},
            request_state=json.dumps(state))
    party = _answer(ctx, "party")
    if party is None or party.get("action") != "accept":
        return InputRequiredResult(input_requests={"party": _form(
            "How many people?", {"size": {"type": "integer", "minimum": 1, "maximum": 12}}, ["size"])},
            request_state=json.dumps(state))
    booked = {"city": city, "date": state["date"], "size": party["content"]["size"]}
    return ToolResult(content=f"booked {city} on {booked['date']} for {booked['size']}", structured_content=booked)


@mcp.tool()
def summarize(text: str, ctx: Context) -> str | InputRequiredResult:
    """Asks the client's LLM to summarize (a raw sampling/createMessage input request)."""
    reply = _answer(ctx, "summary", "sampling")
    if reply is None:
        sample = {"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": f"Summarize: {text}"}}],
            "maxTokens": 50}}
        return InputRequiredResult(input_requests={"summary": sample})
    return f"summary from {reply['model']}: {reply['content']['text']}"


@mcp.prompt()
def haiku(topic: str, ctx: Context) -> Any:
    """A prompt that asks which style first."""
    style = _answer(ctx, "style")
    if style is None or style.get("action") != "accept":
        return InputRequiredResult(input_requests={"style": _form(
            f"Which style of haiku about {topic}?", {"style": {"type": "string"}}, ["style"])})
    return f"Write a {style['content']['style']} haiku about {topic}."


@mcp.resource("notes://{name}")
def note(name: str, ctx: Context) -> Any:
    """A resource template that asks for a passphrase."""
    word = _answer(ctx, "passphrase")
    if word is None or word.get("action") != "accept":
        return InputRequiredResult(input_requests={"passphrase": _form(
            f"Passphrase for note {name}?", {"word": {"type": "string"}}, ["word"])})
    return f"note {name}, unlocked with {word['content']['word']}"


def main(argv: list[str]) -> None:
    if len(argv) > 1 and argv[1] == "http":
        mcp.run("streamable-http", host="127.0.0.1", port=int(argv[2]), show_banner=False, log_level="warning")
    else:
        mcp.run("stdio", show_banner=False, log_level="warning")


if __name__ == "__main__":
    main(sys.argv)
