"""The mcpServers file of `--config FILE --server NAME` (mcp.json, claude_desktop_config.json):
read, the chosen entry checked against mcp_config.schema.json, `${VAR}` expanded.

target.py turns the entry into a target.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from mrtr_cli.fileio import files
from mrtr_cli.errors import UsageError

_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")
CONFIG_SCHEMA = Path(__file__).with_name("mcp_config.schema.json")
"""What mrtr expects of the chosen entry of an mcpServers file."""


def server_entry(path: str, name: str | None) -> dict[str, Any]:
    """The entry `name` of the mcpServers file at `path` (the one entry when `name` is None and the
    file has one), checked and expanded. Comments and trailing commas are read as hosts write them."""
    text = files.without_comments(files.read_text(path, "--config file"))
    document = files.parse_json(text, path, "--config file")
    servers = document.get("mcpServers", document.get("servers")) if isinstance(document, dict) else None
    if not isinstance(servers, dict):
        raise UsageError(f"{path}: the --config file has no mcpServers object", "use an mcp.json-style file")
    if not name and len(servers) == 1:
        name = next(iter(servers))
    if not name:
        raise UsageError(f"--config needs --server NAME: {path} has {len(servers)} servers",
                         f"servers in the file: {', '.join(servers) or 'none'}")
    if name not in servers:
        raise UsageError(f"no server {name!r} in {path}", f"servers in the file: {', '.join(servers) or 'none'}")
    _check_entry(text, path, document, name)
    _refuse_nul(text, path, ["mcpServers" if "mcpServers" in document else "servers", name], servers[name])
    entry: dict[str, Any] = expand(servers[name])
    return entry


def _check_entry(text: str, path: str, document: dict[str, Any], name: str) -> None:
    """The chosen server's entry against the mcpServers schema (other entries are not mrtr's business)."""
    from mrtr_cli.forms import validation

    key = "mcpServers" if "mcpServers" in document else "servers"
    validation.check_document({key: {name: document[key][name]}}, validation.packaged_schema(CONFIG_SCHEMA),
                              lambda where: files.place(path, text, files.json_offset(text, where)),
                              "fix the mcpServers entry")


def _refuse_nul(text: str, path: str, where: list[str | int], value: Any) -> None:
    """A NUL character anywhere in the entry: no command, argument, variable or header can hold one."""
    if (isinstance(value, str) and "\x00" in value) or (isinstance(value, dict) and any("\x00" in k for k in value)):
        place = files.place(path, text, files.json_offset(text, where))
        raise UsageError(f"{place}: the --config file's {files.spot(where[2:]) if where[2:] else 'entry'} of server "
                         f"{where[1]!r} holds a NUL character", "remove it: no command, argument, variable or "
                         "header can hold one")
    if isinstance(value, (list, dict)):
        for step, inner in enumerate(value) if isinstance(value, list) else value.items():
            _refuse_nul(text, path, [*where, step], inner)


def expand(value: Any) -> Any:
    """`${VAR}` (and `${env:VAR}`) replaced from the environment, in every string inside `value`."""
    if isinstance(value, str):
        return _VARIABLE.sub(_variable, value)
    if isinstance(value, list):
        return [expand(v) for v in value]
    if isinstance(value, dict):
        return {k: expand(v) for k, v in value.items()}
    return value


def _variable(match: re.Match[str]) -> str:
    name = match.group(1)
    if name not in os.environ:
        raise UsageError(f"the config uses ${{{name}}}, which is not set", f"export {name}=... first")
    return os.environ[name]
