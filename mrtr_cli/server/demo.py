"""The built-in demo server (`mrtr demo-server`, `--demo`): fixed names the manual, the tests,
recordings/ and users' habits depend on (docs/getting-started.md, "The demo server").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mrtr_cli import __version__
from mrtr_cli.forms import validation
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.server import demo_tools
from mrtr_cli.server.app import Call, NeedInput, RpcError
from mrtr_cli.server.listen_streams import Subscriptions
from mrtr_cli.server.task_plans import task_tool

Handler = Callable[[Call], "dict[str, Any] | NeedInput"]
Entry = tuple[dict[str, Any], Handler]
"""A tool's or prompt's definition (as listed) and the function that answers it."""

NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}


def _tool(name: str, description: str, handler: Handler, schema: dict[str, Any] | None = None) -> Entry:
    return {"name": name, "description": description, "inputSchema": schema or NO_ARGUMENTS}, handler


TOOLS = dict((definition["name"], (definition, handler)) for definition, handler in [
    _tool("all_fields", "One form with every field type of the elicitation spec.", demo_tools.all_fields),
    _tool("always_fails", "Asks why, then fails with isError.", demo_tools.always_fails),
    _tool("book_table", "Books a restaurant table in three rounds: date, party, confirmation.",
          demo_tools.book_table, {"type": "object", "properties": {
              "city": {"type": "string", "description": "Where to eat", "default": "Lisbon", "x-mcp-header": "City"}}}),
    _tool("connect_account", "Connects a third-party account through a URL (URL-mode elicitation).",
          demo_tools.connect_account, {"type": "object", "properties": {
              "service": {"type": "string", "enum": ["github", "gitlab"], "default": "github"}}}),
    _tool("poll_status", "Polls a job: rounds that carry only requestState, with progress.",
          demo_tools.poll_status, {"type": "object", "properties": {"job": {"type": "string"}}}),
    _tool("summarize", "Summarizes text with the client's LLM (sampling).", demo_tools.summarize,
          {"type": "object", "properties": {"text": {"type": "string"}}}),
    _tool("two_questions", "Asks two questions in one round.", demo_tools.two_questions),
    _tool("workspace_roots", "Lists the client's roots.", demo_tools.workspace_roots),
    _tool("deploy_service", "Deploys a service as a task: works three seconds, asks for approval, then completes.",
          task_tool(demo_tools.deploy_plan), {"type": "object", "properties": {
              "service": {"type": "string", "description": "What to deploy", "default": "checkout"}}}),
])


def _release_notes(call: Call) -> dict[str, Any] | NeedInput:
    if not isinstance(call.arguments.get("version"), str):
        raise RpcError(jsonrpc.INVALID_PARAMS, "release_notes needs the argument version")
    return demo_tools.release_notes(call)


PROMPTS: dict[str, Entry] = {
    "release_notes": ({"name": "release_notes", "description": "Release notes for an audience it asks about.",
                       "arguments": [{"name": "version", "description": "The version", "required": True}]},
                      _release_notes)}
README = {"uri": "demo://readme", "name": "readme", "mimeType": "text/plain",
          "description": "What this demo server offers."}
TEMPLATES = [{"uriTemplate": "vault://{name}", "name": "vault", "mimeType": "text/plain",
              "description": "A vault entry; reading one asks for confirmation first."}]
README_TEXT = ("The mrtr demo server. Every tool asks for input through Multi Round-Trip Requests: "
               + ", ".join(sorted(TOOLS)) + ". Prompt: release_notes. Resource template: vault://{name}.")


class DemoApp:
    """Serves the demo tools, prompt and resources (and more tools and prompts when given:
    `mrtr demo-server --conformance-fixtures`, conformance_fixtures.py); with `subscriptions`,
    it declares listChanged and serves subscriptions/listen."""

    info = {"name": "mrtr-demo", "version": __version__}
    instructions = "A demo of MCP Multi Round-Trip Requests: every tool asks the client for input."

    def __init__(self, tools: dict[str, Entry] = TOOLS, prompts: dict[str, Entry] = PROMPTS,
                 subscriptions: Subscriptions | None = None) -> None:
        self.tools = tools
        self.prompts = prompts
        self.subscriptions = subscriptions
        self._tool_list = [definition for definition, _ in tools.values()]
        self._prompt_list = [definition for definition, _ in prompts.values()]

    def capabilities(self) -> dict[str, Any]:
        changing = {"listChanged": True} if self.subscriptions is not None else {}
        return {"tools": dict(changing), "prompts": dict(changing), "resources": {}, "logging": {}}

    def listing(self, key: str) -> list[dict[str, Any]]:
        if key == "tools":
            return self._tool_list
        return {"prompts": self._prompt_list, "resources": [README], "resourceTemplates": TEMPLATES}[key]

    def tool(self, name: str) -> dict[str, Any] | None:
        return self.tools[name][0] if name in self.tools else None

    def handle(self, call: Call) -> dict[str, Any] | NeedInput:
        if call.method == "tools/call":
            return self._tool(call)
        if call.method == "prompts/get":
            return self._prompt(call)
        return self._resource(call)

    def _tool(self, call: Call) -> dict[str, Any] | NeedInput:
        if call.subject not in self.tools:
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Unknown tool: {call.subject}")
        definition, handler = self.tools[call.subject]
        problems = validation.problems(call.arguments, definition["inputSchema"])
        if problems:
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Invalid arguments for {call.subject}: {'; '.join(problems)}")
        return handler(call)

    def _prompt(self, call: Call) -> dict[str, Any] | NeedInput:
        if call.subject not in self.prompts:
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Unknown prompt: {call.subject}")
        return self.prompts[call.subject][1](call)

    def _resource(self, call: Call) -> dict[str, Any] | NeedInput:
        if call.subject == README["uri"]:
            return {"contents": [{"uri": README["uri"], "mimeType": "text/plain", "text": README_TEXT}]}
        name = call.subject.removeprefix("vault://")
        if call.subject.startswith("vault://") and name and "/" not in name:
            return demo_tools.read_vault(call, name)
        raise RpcError(jsonrpc.INVALID_PARAMS, f"Resource not found: {call.subject}", {"uri": call.subject})
