"""A call's preparation: what mrtr must know of the tool before it sends a tools/call.

Two things may need the tool's definition from tools/list: typing `-a` values by its
inputSchema, and, over a target that mirrors headers (HTTP), its `x-mcp-header` annotations,
which say which arguments travel as `Mcp-Param-*` headers too. A tool whose annotations are
invalid is refused there (a client MUST exclude it). tools/list is sent only when one of the
two is needed; what it gives travels with the request (`mirrored`), nothing is learned aside.

Once the schema is read anyway, the required arguments the call leaves out are named before it
is sent (it is sent as given: a server's own validation is worth testing). After a failed call
(or prompts/get, resources/read), its list is read once more to tell whether the server lists the
tool (prompt, resource) at all, and which names are close to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.conversation.client import Client
from mrtr_cli.conversation.lists import list_all, unlisted_hint
from mrtr_cli.errors import ProtocolError, ServerError
from mrtr_cli.protocol.headers import Mirrored, header_params, split_tools
from mrtr_cli.protocol.older_task_rules import task_support

if TYPE_CHECKING:
    from mrtr_cli.conversation.session import Outcome


class CallTarget(Protocol):
    """What a call's preparation asks of its target (`target.Target` answers it; the engine
    does not import the command line's targets)."""

    @property
    def mirrors_headers(self) -> bool: ...


@dataclass(frozen=True)
class Preparation:
    """What a call knows of its tool before it is sent."""

    schema: Any = None
    """The tool's inputSchema: None when not asked for, or the tool is not listed."""
    mirrored: Mirrored = field(default_factory=dict)
    """The arguments sent as headers too (header name -> argument path); empty unless the target
    mirrors headers."""
    task_support: str | None = None
    """The tool's execution.taskSupport (older era, a server that takes tool tasks: required,
    optional or forbidden); None when not asked for, or the tool is not listed."""


def prepare_call(client: Client, target: CallTarget, method: str, name: str, *, needs_schema: bool) -> Preparation:
    """Read the definition of the tool `name` when the call needs it: to type arguments
    (`needs_schema`), because the target mirrors headers, or to learn whether it runs as a task
    (older era, a server that takes tool tasks). Requests other than tools/call need none."""
    tasks = client.era.takes_tool_tasks()
    if method != "tools/call" or not (needs_schema or target.mirrors_headers or tasks):
        return Preparation()
    try:
        tools = list_all(client, "tools/list", "tools")[0]["tools"]
    except ServerError:
        return Preparation()
    if target.mirrors_headers:
        tools = _usable_tools(tools, name)
    tool = next((t for t in tools if isinstance(t, dict) and t.get("name") == name), None)
    if tool is None:
        return Preparation()
    schema = tool.get("inputSchema")
    return Preparation(schema, header_params(schema) if target.mirrors_headers else {},
                       task_support(tool) if tasks else None)


def _usable_tools(tools: list[Any], name: str) -> list[dict[str, Any]]:
    """The tools whose `x-mcp-header` annotations are valid; the tool called must be one of them."""
    usable, excluded = split_tools(tools)
    refused = next((e for e in excluded if e["name"] == name), None)
    if refused:
        raise ProtocolError(f"the tool {name!r} has an invalid x-mcp-header annotation: {refused['reason']}",
                            "over HTTP a client must exclude such a tool; fix its inputSchema")
    return usable


def missing_arguments(schema: Any, arguments: Any) -> list[str]:
    """The arguments the tool's inputSchema requires that `arguments` does not give (none when
    the schema was not read)."""
    required = schema.get("required") if isinstance(schema, dict) else None
    if not isinstance(required, list):
        return []
    given = arguments if isinstance(arguments, dict) else {}
    return [name for name in required if isinstance(name, str) and name not in given]


def after_failure(client: Client, outcome: Outcome) -> list[str]:
    """When the server refused a tools/call, prompts/get or resources/read and does not list what
    it names: a hint naming the listed ones whose names are close. The list (tools/list,
    prompts/list, resources/list and its templates) is read only here, after such a failure."""
    if not _refused_by_the_server(outcome):
        return []
    hint = unlisted_hint(client, outcome.method, str(outcome.params.get("name", outcome.params.get("uri"))))
    return [hint] if hint else []


def _refused_by_the_server(outcome: Outcome) -> bool:
    """The server answered the call with an error, or the tool's result has isError (not a task's
    ending: a task the server made knows its tool)."""
    if outcome.rounds and outcome.rounds[0].result_type == "task":
        return False
    if outcome.error is not None:
        return isinstance(outcome.error, ServerError)
    return isinstance(outcome.result, dict) and outcome.result.get("isError") is True
