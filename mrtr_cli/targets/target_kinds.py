"""The kinds of target, one class each: `StdioTarget` (a server process), `DemoTarget` (the
built-in demo, a stdio server) and `HttpTarget` (a Streamable HTTP endpoint).

Every kind has the small interface target.py's `Target` names: `kind` (its name in a
transcript's `target.transport`), what it supports (`mirrors_headers`, `may_want_oauth`,
`probes_era`, `takes_headers`, `restartable`), `open` (a live transport), `transcript_entry` (how a
transcript names it), and for `--replica` its `replica` at another URL and its `address`. Only this
module and target.py (which resolves a target from the command line, an mcpServers file or a
transcript) tell the kinds apart; everything else asks the target.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from mrtr_cli.errors import UsageError
from mrtr_cli.definition.options import TargetOptions
from mrtr_cli.transport.base import Transport

if TYPE_CHECKING:
    from mrtr_cli.auth.kept import ServerLogin

_INTERPRETERS = re.compile(r"(?i)(python[0-9.]*|node|nodejs|bun|deno|ruby|perl|php)(\.exe)?")
"""Programs that, started with no script, wait for one on stdin: as a server they never answer."""


@dataclass(frozen=True)
class StdioTarget:
    """A server process: argv, extra environment, working directory."""

    kind: ClassVar[str] = "stdio"
    mirrors_headers: ClassVar[bool] = False
    may_want_oauth: ClassVar[bool] = False
    probes_era: ClassVar[bool] = True
    takes_headers: ClassVar[bool] = False
    restartable: ClassVar[bool] = True

    command: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None

    def open(self, options: TargetOptions, verbose: bool = False, show_secrets: bool = False) -> Transport:
        from mrtr_cli.transport.stdio import StdioTransport

        started = scriptless(self.command)
        if started is not None:  # `--stdio python server.py`: the quotes forgotten, server.py taken for the tool
            raise UsageError(f"`{started}` has no script to run: started so, it waits for one on stdin and never "
                             "answers", f'quote the whole command, --stdio "{started} server.py", or give it last, '
                             f"-- {started} server.py")
        env = {**os.environ, **self.env}
        return StdioTransport(list(self.command), env, self.cwd, verbose, max_message_size=options.max_message_size,
                              write_timeout=options.timeout)

    def replica(self, url: str) -> HttpTarget:
        """A process has no URL: `--replica` is a usage error."""
        raise UsageError("--replica needs a server over HTTP (--url, or a --config entry with a url), and this one is "
                         "a stdio process", "for a stdio server, give --restart-between-rounds instead")

    def as_principal(self, headers: dict[str, str]) -> HttpTarget:
        """A process has no HTTP headers: `--other-principal` is a usage error."""
        raise UsageError("--other-principal sends the HTTP headers of a second identity, and this server is a stdio "
                         "process", "leave --other-principal out, or check the server over HTTP (--url)")

    def address(self) -> str:
        """The command, as a shell would read it."""
        return shlex.join(self.command)

    def transcript_entry(self) -> dict[str, Any]:
        """The command with the absolute directory it ran in, so a replay from elsewhere runs it the same."""
        cwd = Path(self.cwd or os.getcwd()).resolve()
        return {"transport": self.kind, "command": list(self.command), "cwd": str(cwd)}

    @staticmethod
    def recorded_command(entry: dict[str, Any]) -> str | None:
        """The command a transcript's entry of this kind runs, which replay runs only with consent."""
        return shlex.join(entry["command"])

    @staticmethod
    def options_from_entry(entry: dict[str, Any], options: TargetOptions) -> TargetOptions:
        """`options` naming the server of a transcript's entry of this kind."""
        return options._replace(command=tuple(entry["command"]), cwd=options.cwd or entry.get("cwd"))


@dataclass(frozen=True)
class DemoTarget(StdioTarget):
    """The built-in demo server, spawned over stdio; a transcript names it by kind alone."""

    kind: ClassVar[str] = "demo"

    pool: Any = field(default=None, compare=False)
    """A `transport.shared.ServerPool` to take the process from (replay, modern era), or None."""

    def open(self, options: TargetOptions, verbose: bool = False, show_secrets: bool = False) -> Transport:
        from mrtr_cli.transport import memory

        in_memory = memory.demo_transport()  # a run whose Environment serves the demo in this process
        if in_memory is not None:
            return in_memory  # type: ignore[no-any-return]
        start = functools.partial(StdioTarget.open, self, options, verbose, show_secrets)
        if self.pool is None:
            return start()
        key = (self.command, tuple(sorted(self.env.items())), self.cwd, verbose, options.max_message_size)
        transport: Transport = self.pool.open(key, start)
        return transport

    def transcript_entry(self) -> dict[str, Any]:
        return {"transport": self.kind}

    @staticmethod
    def recorded_command(entry: dict[str, Any]) -> str | None:
        return None

    @staticmethod
    def options_from_entry(entry: dict[str, Any], options: TargetOptions) -> TargetOptions:
        return options._replace(demo=True)


@dataclass(frozen=True)
class HttpTarget:
    """A Streamable HTTP endpoint and the extra headers to send."""

    kind: ClassVar[str] = "http"
    mirrors_headers: ClassVar[bool] = True
    may_want_oauth: ClassVar[bool] = True
    probes_era: ClassVar[bool] = False
    takes_headers: ClassVar[bool] = True
    restartable: ClassVar[bool] = False

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    oauth: dict[str, Any] = field(default_factory=dict)
    """The mcpServers entry's `oauth` (clientId, clientSecret, clientMetadataUrl, scopes); flags win."""

    def open(self, options: TargetOptions, verbose: bool = False, show_secrets: bool = False) -> Transport:
        from mrtr_cli.transport.http.streamable_http import HttpTransport

        authorizer = self.login(options, show_secrets).kept_token_first if self.logs_in(options) else None
        return HttpTransport(self.url, self.headers, options.cacert, options.insecure, show_secrets,
                             max_message_size=options.max_message_size, authorizer=authorizer)

    def logs_in(self, options: TargetOptions) -> bool:
        """Whether a 401 starts the authorization flow: not with --no-auth, nor when an -H
        Authorization header was given (it wins, and no kept token is sent either)."""
        return not options.no_auth and not any(name.lower() == "authorization" for name in self.headers)

    def login(self, options: TargetOptions, show_secrets: bool) -> ServerLogin:
        """The server and what mrtr may log in to it with (auth/kept.py): the kept token, then the flow."""
        from mrtr_cli.auth.kept import ServerLogin, machine_login

        return ServerLogin(self.url, options, self.oauth, show_secrets, machine_login(options, self.oauth))

    def replica(self, url: str) -> HttpTarget:
        """The same server at `url`, another instance (`--replica`): the same headers and mcpServers
        `oauth`; its own kept token or login, as for any server (auth is per URL)."""
        return replace(self, url=check_url(url, "--replica"))

    def as_principal(self, headers: dict[str, str]) -> HttpTarget:
        """The same server as a second identity (`mrtr check --other-principal`): each header named in
        `headers` replaces the one of that name (in any case), the others are kept; no mcpServers
        `oauth` (the caller opens it with no kept token)."""
        names = {name.lower() for name in headers}
        kept = {name: value for name, value in self.headers.items() if name.lower() not in names}
        return replace(self, headers={**kept, **headers}, oauth={})

    def address(self) -> str:
        """`host:port` of the URL (the scheme's port when it names none)."""
        parts = urlsplit(self.url)
        host = parts.netloc.rpartition("@")[2]
        return host if parts.port is not None else f"{host}:{443 if parts.scheme == 'https' else 80}"

    def transcript_entry(self) -> dict[str, Any]:
        return {"transport": self.kind, "url": self.url}

    @staticmethod
    def recorded_command(entry: dict[str, Any]) -> str | None:
        return None

    @staticmethod
    def options_from_entry(entry: dict[str, Any], options: TargetOptions) -> TargetOptions:
        return options._replace(url=entry["url"])


def check_url(url: str, flag: str = "--url") -> str:
    """An http(s) URL with a host, or a usage error naming `flag` (--url, --replica)."""
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 - a port out of range or not a number raises here, not mid-conversation
    except ValueError:
        raise UsageError(f"{flag} {url!r} has no valid port (1 to 65535)",
                         f"e.g. {flag} http://127.0.0.1:8080/mcp") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{flag} {url!r} is not an http(s) URL", _url_example(url, flag))
    return url


def _url_example(url: str, flag: str) -> str:
    """The fix for a URL that is not http(s): the scheme it likely lacks (`127.0.0.1:8000/mcp`)."""
    with_scheme = urlsplit(f"http://{url}")
    if "://" not in url and with_scheme.hostname and not url.startswith("/"):
        return f"give the scheme: {flag} http://{url}"
    return f"e.g. {flag} http://127.0.0.1:8080/mcp"


KINDS = {kind.kind: kind for kind in (StdioTarget, DemoTarget, HttpTarget)}
"""Every kind of target, by the name a transcript keeps."""


def scriptless(command: tuple[str, ...]) -> str | None:
    """The command, when it starts an interpreter (or `uv run`) with nothing to run; else None."""
    words = command[2:] if command[:2] == ("uv", "run") else command
    if not words or (len(words) == 1 and _INTERPRETERS.fullmatch(Path(words[0]).name)):
        return shlex.join(command)
    return None


_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.DOTALL)
_SHELL_OPERATORS = {"&&", "||", "|", ";", ">", ">>", "<", "&"}


def shell_slip(command: tuple[str, ...], operators: bool) -> None:
    """A usage error for a command written for a shell (mrtr runs none): `FOO=1 cmd` would run
    `FOO=1` as the program; with `operators` (a --stdio string, which no shell read), `cd dir && cmd`
    would hand `&&` to cd as an argument. After `--` a shell has read the words: an operator there was
    quoted on purpose."""
    if _ASSIGNMENT.fullmatch(command[0]):
        settings = _leading(command)
        rest = shlex.join(command[len(settings):]) or "CMD"
        flags = " ".join(f"-e {shlex.quote(word)}" for word in settings)
        raise UsageError(f"{command[0]!r} would be run as the server's command: mrtr runs no shell, so "
                         "NAME=value before a command sets nothing", f'give the environment with -e: {flags} --stdio '
                         f'"{rest}"')
    operator = next((word for word in command if word in _SHELL_OPERATORS), None) if operators else None
    if operator is None:
        return
    if command[0] == "cd" and len(command) > 3 and command[2] == "&&":
        raise UsageError(f"`cd {command[1]} &&` needs a shell, and mrtr runs none",
                         f'give the directory with --cwd: --cwd {shlex.quote(command[1])} --stdio '
                         f'"{shlex.join(command[3:])}"')
    raise UsageError(f"{operator!r} in the server's command needs a shell, and mrtr runs none",
                     f"""run it through one: --stdio "sh -c '...'", or set the environment with -e and the """
                     "directory with --cwd")


def _leading(command: tuple[str, ...]) -> list[str]:
    """The NAME=value words before the program."""
    words = []
    for word in command:
        if not _ASSIGNMENT.fullmatch(word):
            break
        words.append(word)
    return words
