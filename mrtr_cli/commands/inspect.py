"""`mrtr discover` and `mrtr list`: what a server offers, no conversation."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from mrtr_cli.render import json_report
from mrtr_cli.conversation.lists import list_all
from mrtr_cli.commands.common import Context, client_settings, connect, guarded
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.options import OutputOptions, TargetOptions
from mrtr_cli.protocol import meta
from mrtr_cli.protocol.headers import split_tools
from mrtr_cli.render import formatters as fmt
from mrtr_cli.render.table import Column, print_table
from mrtr_cli.target import resolve_target
from mrtr_cli.text import safe_line

LISTS = {
    "tools": ("tools/list", "tools"),
    "prompts": ("prompts/list", "prompts"),
    "resources": ("resources/list", "resources"),
    "templates": ("resources/templates/list", "resourceTemplates"),
}
"""`mrtr list KIND`: the method and the key its pages are merged under."""


def run_discover(target: TargetOptions, output: OutputOptions) -> int:
    def body(context: Context) -> ExitCode:
        with connect(context, resolve_target(target), target, client_settings(target), probe=False) as client:
            result = client.discover()
        if output.json:
            context.print_json(json_report.listing_document(result))
        else:
            _print_discovery(context, result)
        return ExitCode.OK

    return guarded(output, body)


def _print_discovery(context: Context, result: dict[str, Any]) -> None:
    out = context.consoles.out
    info = fmt.server_name(meta.server_info(result)) or "(no serverInfo)"
    out.print(Text.assemble(("server: ", "mrtr.dim"), (info, "mrtr.key")))
    versions = ", ".join(map(str, result.get("supportedVersions", [])))
    out.print(Text.assemble(("versions: ", "mrtr.dim"), safe_line(versions)))
    out.print(Text("capabilities:", "mrtr.dim"))
    out.print(fmt.pretty_json(result.get("capabilities", {})))
    if isinstance(result.get("instructions"), str):
        out.print(Text("instructions:", "mrtr.dim"))
        out.print(fmt.quoted(result["instructions"], indent="  ", limit=None))


def run_list(kind: str, target: TargetOptions, output: OutputOptions) -> int:
    method, key = LISTS[kind]

    def body(context: Context) -> ExitCode:
        resolved = resolve_target(target)
        with connect(context, resolved, target, client_settings(target)) as client:
            merged, _ = list_all(client, method, key)
        excluded = _exclude_invalid_tools(merged) if kind == "tools" and resolved.mirrors_headers else []
        for tool in excluded:
            context.consoles.err.print(Text(f"! excluded the tool {safe_line(tool['name'], 80)}: "
                                            f"{safe_line(tool['reason'], 200)}", "mrtr.warn"))
        if output.json:
            context.print_json(json_report.listing_document(merged, excluded if kind == "tools" else None))
        else:
            _print_table(context, kind, merged[key])
        return ExitCode.OK

    return guarded(output, body)


def _exclude_invalid_tools(merged: dict[str, Any]) -> list[dict[str, str]]:
    """Over HTTP, tools with invalid x-mcp-header annotations leave the list (spec MUST)."""
    merged["tools"], excluded = split_tools(merged["tools"])
    return excluded


COLUMNS = {
    "tools": ("name", "description", "arguments"),
    "prompts": ("name", "description", "arguments"),
    "resources": ("uri", "name", "mimeType"),
    "templates": ("uriTemplate", "name", "description"),
}
HOLDS = {"description": "text", "arguments": "names"}
"""What a column holds, when not one name or URI (render/table.py: only text is ever cut)."""


def _print_table(context: Context, kind: str, items: list[Any]) -> None:
    if not items:
        context.consoles.out.print(Text(f"no {kind}", "mrtr.dim"))
        return
    columns = [Column(name, HOLDS.get(name, "name")) for name in COLUMNS[kind]]
    rows = [[_cell(item, name) for name in COLUMNS[kind]] for item in items]
    print_table(context.consoles.out, columns, rows)


def _cell(item: Any, column: str) -> str:
    if not isinstance(item, dict):
        return safe_line(item, 80)
    if column == "arguments":
        return safe_line(", ".join(_argument_names(item)), 120)
    if column == "description":
        return safe_line(str(item.get("description") or "").split("\n")[0], 100)
    return safe_line(item.get(column, ""), 120)


def _argument_names(item: dict[str, Any]) -> list[str]:
    """Argument names, required ones marked `*`: from a tool's inputSchema or a prompt's arguments."""
    schema = item.get("inputSchema")
    if isinstance(schema, dict):
        required = schema.get("required") or []
        return [f"{n}{'*' if n in required else ''}" for n in (schema.get("properties") or {})]
    arguments = item.get("arguments") if isinstance(item.get("arguments"), list) else []
    return [f"{a.get('name')}{'*' if a.get('required') else ''}" for a in arguments if isinstance(a, dict)]
