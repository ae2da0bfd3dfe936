"""Which server to talk to: resolved from the command line, an mcpServers file, `--demo`, or the
`target` entry of a transcript.

A target is a description of one kind (target_kinds.py: `StdioTarget`, `DemoTarget`, `HttpTarget`).
Every kind has the same small interface, `Target`. Only this module and target_kinds.py tell the
kinds apart; everything else asks the target.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path
from typing import Any, ClassVar, Protocol

from mrtr_cli.errors import UsageError
from mrtr_cli.definition.options import TargetOptions, command_words
from mrtr_cli.protocol.headers import TOKEN
from mrtr_cli.targets.target_kinds import KINDS, DemoTarget, HttpTarget, StdioTarget, check_url, shell_slip
from mrtr_cli.transport.base import Transport

_RESERVED_HEADERS = re.compile(r"(?i)mcp-.*")


class Target(Protocol):
    """What every kind of target offers."""

    kind: ClassVar[str]
    """The kind's name, as a transcript's `target.transport` keeps it: stdio, demo or http."""
    mirrors_headers: ClassVar[bool]
    """HTTP headers mirror the body (Mcp-Method, Mcp-Name, Mcp-Param-* from `x-mcp-header`), so a tool
    with invalid annotations is excluded, and HTTP statuses can be checked."""
    may_want_oauth: ClassVar[bool]
    """Whether the server may be behind OAuth (HTTP only: the spec's authorization is for HTTP)."""
    probes_era: ClassVar[bool]
    """`server/discover` goes first, to tell the server's era (unless --no-discover)."""
    takes_headers: ClassVar[bool]
    """The server takes credentials as HTTP headers (-H)."""
    restartable: ClassVar[bool]
    """mrtr starts the server as a process, so `--restart-between-rounds` may stop and start it
    again between rounds (stdio, demo); a server over HTTP is not mrtr's to restart."""

    def open(self, options: TargetOptions, verbose: bool = False, show_secrets: bool = False) -> Transport:
        """A live transport; `verbose` forwards a server process's stderr, `show_secrets` shows
        secret header values with -v."""

    def replica(self, url: str) -> Target:
        """The same server at `url`, another instance of it (`--replica`, checked as an http(s)
        URL); a usage error for a server that has no URL."""

    def as_principal(self, headers: dict[str, str]) -> Target:
        """The same server as another identity (`mrtr check --other-principal`): `headers` replace the
        ones of their names; a usage error for a server that takes no headers."""

    def address(self) -> str:
        """Which server this is, in a few words: `host:port` of an HTTP server's URL (how the timeline
        names each instance of `--replica`), a process's command."""

    def transcript_entry(self) -> dict[str, Any]:
        """How a transcript names this server (environment values and headers are never kept: they
        may be secrets)."""


@dataclasses.dataclass(frozen=True)
class Endpoint:
    """A target with the settings it is opened with, as `httpx.Client(timeout=...)` carries its own:
    `open()` asks for nothing more, so whoever opens it again (the era's second start of a stdio
    server, a hop to a replica or a restart) needs no command's options."""

    target: Target
    options: TargetOptions
    verbose: bool = False
    show_secrets: bool = False

    def open(self) -> Transport:
        return self.target.open(self.options, self.verbose, self.show_secrets)

    def address(self) -> str:
        return self.target.address()

    def replica(self, url: str) -> Endpoint:
        """The same server at `url`, opened with the same settings (`--replica`)."""
        return dataclasses.replace(self, target=self.target.replica(url))

    def as_principal(self, headers: dict[str, str]) -> Endpoint:
        """The same server as another identity: its headers, no kept token, nothing shown (`--other-principal`)."""
        return Endpoint(self.target.as_principal(headers), self.options._replace(no_auth=True))

    def changed(self, **options: Any) -> Endpoint:
        """The same server with some of its settings changed (e.g. `no_auth=True`)."""
        return dataclasses.replace(self, options=self.options._replace(**options))


def login_authorizer(target: Target, options: TargetOptions, show_secrets: bool, transport: Any) -> Any:
    """The authorization flow `mrtr auth login` runs for an HTTP target (a usage error for another kind)."""
    if not isinstance(target, HttpTarget):
        raise UsageError("mrtr auth login is for a server over HTTP", "give --url URL, or a --config entry with a url")
    return target.login(options, show_secrets).flow(transport.fetch)


def logs_in_as_machine(target: Target, options: TargetOptions) -> bool:
    """Whether a 401 from `target` is answered with client credentials (--client-credentials, or
    the mcpServers entry's `clientCredentials: true`)."""
    return isinstance(target, HttpTarget) and target.logs_in(options) \
        and (options.client_credentials or target.oauth.get("clientCredentials") is True)


def _refuse_machine_flags(target: Target, options: TargetOptions) -> None:
    """--client-credentials and its key and secret flags where they cannot apply: exit 1, not ignored."""
    given = [flag for flag, value in (("--client-credentials", options.client_credentials),
                                      ("--client-secret-file", options.client_secret_file),
                                      ("--client-assertion-key", options.client_assertion_key),
                                      ("--client-assertion-alg", options.client_assertion_alg)) if value]
    if not given:
        return
    if not isinstance(target, HttpTarget):
        raise UsageError(f"{given[0]} logs in to a server over HTTP, and this one is a stdio process",
                         f"leave {given[0]} out")
    if options.no_auth:
        raise UsageError(f"{given[0]} logs in, and --no-auth says not to", "leave one of them out")
    if not target.logs_in(options):
        raise UsageError(f"{given[0]} logs in, and an Authorization header (-H, or the entry's headers) already "
                         "sends a token", "leave one of them out")


def sharing_server(target: Target, pool: Any) -> Target:
    """`target`, its server process taken from `pool` (transport/shared.py) when one process may
    serve many conversations in turn: the demo's, which keeps no state between 2026-07-28 requests."""
    return dataclasses.replace(target, pool=pool) if isinstance(target, DemoTarget) else target


def recorded_command(entry: dict[str, Any]) -> str | None:
    """The command a transcript's `target` entry would run (None when it runs none of the transcript's)."""
    return _kind_of(entry).recorded_command(entry)


def options_from_entry(entry: dict[str, Any], options: TargetOptions) -> TargetOptions:
    """The command line's server options (-e, --cwd, -H, ...), naming the server a transcript's
    `target` entry names; `resolve_target` then checks them as it checks any."""
    return _kind_of(entry).options_from_entry(entry, options)


def _kind_of(entry: dict[str, Any]) -> type[StdioTarget] | type[HttpTarget]:
    kind = KINDS.get(entry.get("transport"))  # type: ignore[arg-type]
    if kind is None:
        raise UsageError(f"the transcript's target has the transport {entry.get('transport')!r}, which mrtr "
                         f"does not know ({', '.join(KINDS)})", "name the server: --stdio, --url or --demo")
    return kind


def demo_command() -> tuple[str, ...]:
    """How `--demo` starts the built-in demo server: this interpreter, over stdio."""
    return (sys.executable, "-m", "mrtr_cli", "demo-server")


def http_url(target: Target) -> str | None:
    """The URL of a server over HTTP; None for a server process mrtr starts (stdio, the demo)."""
    return target.url if isinstance(target, HttpTarget) else None


def names_a_server(options: TargetOptions) -> bool:
    """Whether the options name a server (for replay, they then override the recorded one)."""
    return any(_sources(options).values())


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
    if options.headers and not target.takes_headers:
        parse_headers(options.headers)
        raise UsageError("-H sets HTTP headers, and this server is a stdio process", "leave -H out, or use -e")
    _refuse_machine_flags(target, options)
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
        return DemoTarget(demo_command(), _environment(options, {}), _cwd(options.cwd))
    if source == "--stdio":
        command = tuple(command_words(str(options.stdio), "--stdio"))
    else:
        command = options.command
    if not command:
        raise UsageError("the server command is empty", "give a command to run")
    shell_slip(command, operators=source == "--stdio")
    return StdioTarget(command, _environment(options, {}), _cwd(options.cwd))


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


def parse_headers(headers: tuple[str, ...], flag: str = "-H") -> dict[str, str]:
    """`-H "Name: value"` as a dict; MCP's own headers and malformed ones are usage errors. `flag`:
    the flag the headers came from (--other-principal's too), for the messages; a malformed one is
    not repeated there (it may hold a secret)."""
    parsed: dict[str, str] = {}
    for item in headers:
        name, sep, value = item.partition(":")
        name, value = name.strip(), value.strip()
        if not sep or not TOKEN.fullmatch(name):
            given = repr(item) if flag == "-H" else "value"
            raise UsageError(f"{flag} {given} is not 'Name: value'", f"write {flag} 'Authorization: Bearer ...'")
        if _RESERVED_HEADERS.fullmatch(name):
            raise UsageError(f"{flag} {name!r}: mrtr sets MCP-Protocol-Version and Mcp-* headers itself",
                             "leave them out")
        if any(ord(ch) < 0x20 and ch != "\t" or ord(ch) == 0x7F for ch in value):
            raise UsageError(f"{flag} {name!r} has a control character in its value", "remove it")
        parsed[name] = value
    return parsed


def _from_config(options: TargetOptions) -> Target:
    from mrtr_cli.targets.mcp_config import server_entry

    entry = server_entry(str(options.config), options.server)
    if "url" in entry:
        headers = tuple(f"{k}: {v}" for k, v in (entry.get("headers") or {}).items()) + options.headers
        oauth = entry.get("oauth")
        oauth = oauth if isinstance(oauth, dict) else {}
        return HttpTarget(check_url(str(entry["url"])), parse_headers(headers), oauth)
    return _config_stdio(entry, options)


def _config_stdio(entry: dict[str, Any], options: TargetOptions) -> StdioTarget:
    command = entry.get("command")
    if not isinstance(command, str):
        raise UsageError(f"server {options.server!r} has no command (or url)", "fix the mcpServers entry")
    args = entry.get("args") or []
    env = {str(k): str(v) for k, v in (entry.get("env") or {}).items()}
    cwd = options.cwd or entry.get("cwd")
    return StdioTarget((command, *map(str, args)), _environment(options, env), _cwd(cwd))
