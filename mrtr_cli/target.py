"""Which server to talk to: resolved from the command line, an mcpServers file, or `--demo`.

A target is a description; `open_transport` turns it into a live transport.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union
from urllib.parse import urlsplit

from mrtr_cli import files
from mrtr_cli.errors import UsageError
from mrtr_cli.options import TargetOptions
from mrtr_cli.protocol.headers import TOKEN
from mrtr_cli.transport.base import Transport

_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")
_RESERVED_HEADERS = re.compile(r"(?i)mcp-.*")
CONFIG_SCHEMA = Path(__file__).with_name("mcp_config.schema.json")
"""What mrtr expects of the chosen entry of an mcpServers file."""


@dataclass(frozen=True)
class StdioTarget:
    """A server process: argv, extra environment, working directory."""

    command: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None


@dataclass(frozen=True)
class HttpTarget:
    """A Streamable HTTP endpoint and the extra headers to send."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)


Target = Union[StdioTarget, HttpTarget]


def demo_command() -> tuple[str, ...]:
    """How `--demo` starts the built-in demo server: this interpreter, over stdio."""
    return (sys.executable, "-m", "mrtr_cli", "demo-server")


def resolve_target(options: TargetOptions) -> Target:
    """The one target the options name; none or several is a usage error."""
    given = [name for name, present in _sources(options).items() if present]
    if not given:
        raise UsageError("no server given", "use --stdio CMD, -- CMD ARGS, --url URL, "
                         "--config FILE --server NAME, or --demo")
    if len(given) > 1:
        raise UsageError(f"several servers given ({', '.join(given)})", "name exactly one")
    if options.server and not options.config:
        raise UsageError("--server needs --config FILE", "name the mcpServers file too")
    target = _build(given[0], options)
    if options.headers and isinstance(target, StdioTarget):
        parse_headers(options.headers)
        raise UsageError("-H sets HTTP headers, and this server is a stdio process", "leave -H out, or use -e")
    return target


def _sources(options: TargetOptions) -> dict[str, bool]:
    return {
        "--url": bool(options.url),
        "--stdio": bool(options.stdio),
        "-- CMD": bool(options.command),
        "--config": bool(options.config),
        "--demo": options.demo,
    }


def _build(source: str, options: TargetOptions) -> Target:
    if source == "--url":
        return HttpTarget(check_url(str(options.url)), parse_headers(options.headers))
    if source == "--config":
        return _from_config(options)
    if source == "--demo":
        command = demo_command()
    elif source == "--stdio":
        command = tuple(shlex.split(str(options.stdio)))
    else:
        command = options.command
    if not command:
        raise UsageError("the server command is empty", "give a command to run")
    return StdioTarget(command, _environment(options, {}), _cwd(options.cwd))


def check_url(url: str) -> str:
    """An http(s) URL with a host, or a usage error."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--url {url!r} is not an http(s) URL", "e.g. --url http://127.0.0.1:8080/mcp")
    return url


def _environment(options: TargetOptions, base: dict[str, str]) -> dict[str, str]:
    env = dict(base)
    if options.env_file:
        env.update(read_env_file(options.env_file))
    for item in options.env:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"-e {item!r} is not KEY=VALUE", "write -e NAME=value")
        env[name] = value
    return env


def _cwd(cwd: str | None) -> str | None:
    if cwd is not None and not Path(cwd).is_dir():
        raise UsageError(f"--cwd {cwd!r} is not a directory", "give an existing directory")
    return cwd


def read_env_file(path: str) -> dict[str, str]:
    """KEY=VALUE lines; `#` comments, blank lines, `export ` and quotes allowed."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise UsageError(f"cannot read --env-file {path!r}: {error.strerror}", "check the path") from None
    env = {}
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        name, sep, value = stripped.removeprefix("export ").partition("=")
        if not sep or not name.strip():
            raise UsageError(f"{path}:{number} is not KEY=VALUE", "fix the line or comment it out")
        env[name.strip()] = _unquote(value.strip())
    return env


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse_headers(headers: tuple[str, ...]) -> dict[str, str]:
    """`-H "Name: value"` as a dict; MCP's own headers and malformed ones are usage errors."""
    parsed: dict[str, str] = {}
    for item in headers:
        name, sep, value = item.partition(":")
        name, value = name.strip(), value.strip()
        if not sep or not TOKEN.fullmatch(name):
            raise UsageError(f"-H {item!r} is not 'Name: value'", "write -H 'Authorization: Bearer ...'")
        if _RESERVED_HEADERS.fullmatch(name):
            raise UsageError(f"-H {name!r}: mrtr sets MCP-Protocol-Version and Mcp-* headers itself",
                             "leave them out")
        if any(ord(ch) < 0x20 and ch != "\t" or ord(ch) == 0x7F for ch in value):
            raise UsageError(f"-H {name!r} has a control character in its value", "remove it")
        parsed[name] = value
    return parsed


def _from_config(options: TargetOptions) -> Target:
    path = str(options.config)
    text = files.read_text(path, "--config file")
    document = files.parse_json(text, path, "--config file")
    servers = document.get("mcpServers", document.get("servers")) if isinstance(document, dict) else None
    if not isinstance(servers, dict):
        raise UsageError(f"{path}: the --config file has no mcpServers object", "use an mcp.json-style file")
    if not options.server:
        raise UsageError("--config needs --server NAME", f"servers in the file: {', '.join(servers) or 'none'}")
    if options.server not in servers:
        raise UsageError(f"no server {options.server!r} in {options.config}",
                         f"servers in the file: {', '.join(servers) or 'none'}")
    _check_entry(text, path, document, options.server)
    entry = expand(servers[options.server])
    if "url" in entry:
        headers = tuple(f"{k}: {v}" for k, v in (entry.get("headers") or {}).items()) + options.headers
        return HttpTarget(check_url(str(entry["url"])), parse_headers(headers))
    return _config_stdio(entry, options)


def _check_entry(text: str, path: str, document: dict[str, Any], name: str) -> None:
    """The chosen server's entry against the mcpServers schema (other entries are not mrtr's business)."""
    from mrtr_cli import validation

    key = "mcpServers" if "mcpServers" in document else "servers"
    validation.check_document({key: {name: document[key][name]}}, validation.packaged_schema(CONFIG_SCHEMA),
                              lambda where: files.place(path, text, files.json_offset(text, where)),
                              "fix the mcpServers entry")


def _config_stdio(entry: dict[str, Any], options: TargetOptions) -> StdioTarget:
    command = entry.get("command")
    if not isinstance(command, str):
        raise UsageError(f"server {options.server!r} has no command (or url)", "fix the mcpServers entry")
    args = entry.get("args") or []
    env = {str(k): str(v) for k, v in (entry.get("env") or {}).items()}
    cwd = options.cwd or entry.get("cwd")
    return StdioTarget((command, *map(str, args)), _environment(options, env), _cwd(cwd))


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


def open_transport(target: Target, options: TargetOptions, verbose: bool = False,
                   show_secrets: bool = False) -> Transport:
    """A live transport for `target`; `verbose` forwards a stdio server's stderr."""
    if isinstance(target, HttpTarget):
        from mrtr_cli.transport.http import HttpTransport

        return HttpTransport(target.url, target.headers, options.cacert, options.insecure, show_secrets,
                             max_message_size=options.max_message_size)
    from mrtr_cli.transport.stdio import StdioTransport

    env = {**os.environ, **target.env}
    return StdioTransport(list(target.command), env, target.cwd, verbose, max_message_size=options.max_message_size)
