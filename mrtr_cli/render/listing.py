"""What a server offers, as `mrtr discover` and `mrtr list` show it: its discovery, a table of
its tools, prompts, resources or templates, and a line for each tool left out."""

from __future__ import annotations

from typing import Any

from mrtr_cli.render.console import AnyConsole
from rich.text import Text

from mrtr_cli.protocol import meta
from mrtr_cli.render.diagnostics import warning_line
from mrtr_cli.render.server_text import pretty_json, quoted, server_name
from mrtr_cli.render.styled_line import StyledLine
from mrtr_cli.render.table import Column, print_table
from mrtr_cli.text import safe_line

COLUMNS = {
    "tools": ("name", "description", "arguments"),
    "prompts": ("name", "description", "arguments"),
    "resources": ("uri", "name", "mimeType"),
    "templates": ("uriTemplate", "name", "description"),
}
"""The columns of each list's table: item fields, or `arguments` (their names)."""
HOLDS = {"description": "text", "arguments": "names"}
"""What a column holds, when not one name or URI (render/table.py: only text is ever cut)."""


def discovery_lines(result: dict[str, Any]) -> list[Text]:
    """Who the server is, the versions it speaks, its capabilities and instructions."""
    given = result.get("serverInfo")  # initialize's
    given = given if isinstance(given, dict) else None
    info = server_name(meta.server_info(result) or given) or "(no serverInfo)"
    versions = ", ".join(map(str, result.get("supportedVersions", [result.get("protocolVersion", "")])))
    lines = [Text.assemble(("server: ", "mrtr.dim"), (info, "mrtr.key")),
             Text.assemble(("versions: ", "mrtr.dim"), safe_line(versions)),
             Text("capabilities:", "mrtr.dim"),
             pretty_json(result.get("capabilities", {}))]
    if isinstance(result.get("instructions"), str):
        lines += [Text("instructions:", "mrtr.dim"), quoted(result["instructions"], indent="  ", limit=None)]
    return lines


def excluded_tool_line(tool: dict[str, str]) -> StyledLine:
    """A tool left out of the list, and why."""
    return warning_line(f"! excluded the tool {safe_line(tool['name'], 80)}: {safe_line(tool['reason'], 200)}")


def print_listing(console: AnyConsole, kind: str, items: list[Any]) -> None:
    """The items of one list as a table (`no tools` when there are none)."""
    if not items:
        console.print(Text(f"no {kind}", "mrtr.dim"))
        return
    columns = [Column(name, HOLDS.get(name, "name")) for name in COLUMNS[kind]]
    rows = [[_cell(item, name) for name in COLUMNS[kind]] for item in items]
    print_table(console, columns, rows)


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
    arguments = item.get("arguments")
    arguments = arguments if isinstance(arguments, list) else []
    return [f"{a.get('name')}{'*' if a.get('required') else ''}" for a in arguments if isinstance(a, dict)]
