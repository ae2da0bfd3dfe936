"""Which era mrtr speaks with a server, decided before the first request of a command.

`--protocol-era modern` speaks 2026-07-28 (stdio probes with `server/discover` unless
`--no-discover`); `older` opens a session with the `initialize` handshake; `auto` (the default)
probes and falls back to the handshake at once when `server/discover` gets an error, after
`--era-probe-wait` seconds of silence, or when a stdio server that had written something exits
after the probe (it is started once more; one that wrote nothing died at start-up: exit 4). Over HTTP the same probe
decides: anything but a DiscoverResult, or an error only a 2026-07-28 server gives, means the older era. `--protocol-version V` implies V's era.
A command that is no MCP server is said at once (exit 4): mrtr's own request echoed back (`cat`), or only
text that is not JSON-RPC on stdout and no answer to server/discover nor to initialize, each waited for
`--era-probe-wait`. Total silence still waits --timeout for initialize: a cold server may say nothing for long.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from mrtr_cli import events
from mrtr_cli.answering.questions import Chain
from mrtr_cli.conversation.client import NOT_DISCOVER_RESULT, Client
from mrtr_cli.conversation.explain import explain
from mrtr_cli.conversation.waiting import NotAServer
from mrtr_cli.errors import (EndpointMissing, LegacyServerError, MrtrError, ProtocolError, RequestTimeout, ServerError,
                             UnreachableError, UsageError)
from mrtr_cli.protocol import handshake, jsonrpc, meta
from mrtr_cli.transport.base import Transport


class EraFlags(NamedTuple):
    """What the command line asks of the era, as plain values (the command builds them from its flags)."""

    protocol_era: str
    """--protocol-era: auto, modern or older."""
    protocol_version: str | None
    """--protocol-version: a version to send as given (it implies its era)."""
    no_discover: bool
    """--no-discover: no server/discover probe; the modern era."""
    era_probe_wait: float
    """--era-probe-wait: how long the probe waits, in seconds."""


def requested_era(options: EraFlags) -> str:
    """The era the flags ask for: `--protocol-version` implies one; contradicting it is a usage error."""
    era, pinned = options.protocol_era, options.protocol_version
    if era not in handshake.ERAS:
        raise UsageError(f"--protocol-era {era!r} is not one of {', '.join(handshake.ERAS)}", "pick one of them")
    if pinned is None:
        return era
    implied = handshake.era_of(pinned)
    if era not in ("auto", implied):
        raise UsageError(f"--protocol-version {pinned} is of the {implied} era, and --protocol-era says {era}",
                         "leave one of them out")
    return implied


def open_era(client: Client, options: EraFlags, reopen: Callable[[], Transport], chain: Chain, *,
             probes: bool, discovers: bool = True) -> None:
    """Decide the era and, for the older one, run the handshake. `probes`: the target takes a
    server/discover probe in the modern era too (stdio); `discovers`: auto may send server/discover
    (the `discover` command sends it itself); `reopen` starts a stdio server once more."""
    era = requested_era(options)
    if era == "older":
        return initialize(client, chain, f"asked for by {_asking_flag(options, era)}")
    if era == "modern" or options.no_discover:
        why = "--no-discover" if options.no_discover else _asking_flag(options, era)
        client.emit(events.EraChosen("modern", client.settings.version, f"asked for by {why}"))
        if probes and discovers and not options.no_discover:
            client.discovered = client.discover()
        return None
    if not discovers:
        client.fallback = lambda: _fall_back(client, chain)
        return None
    return _probe(client, options, reopen, chain)


def _asking_flag(options: EraFlags, era: str) -> str:
    """The flag that asked for `era`: `--protocol-version V` when given (it implies its era)."""
    return f"--protocol-version {options.protocol_version}" if options.protocol_version else f"--protocol-era {era}"


def _fall_back(client: Client, chain: Chain) -> None:
    """auto in the `discover` command: its server/discover was refused as an older-era server refuses it."""
    client.speaks_modern = False
    initialize(client, chain, "the first request was refused the way an older-era server refuses a 2026-07-28 "
               "request")


def _probe(client: Client, options: EraFlags, reopen: Callable[[], Transport], chain: Chain) -> None:
    """auto: server/discover, with a short wait; anything but a DiscoverResult or an error only a
    2026-07-28 server gives means the handshake (over HTTP too: a lenient older-era server may
    answer a modern request without a session, so the request itself proves nothing)."""
    heard = _Heard()
    client.emit.subscribe(heard)
    try:
        with _waiting(client, options.era_probe_wait):
            client.discovered = client.discover()
        client.speaks_modern = True
        client.emit(events.EraChosen("modern", client.settings.version, "the server answered server/discover"))
        return
    except LegacyServerError as sign:
        client.speaks_modern, reason = False, _reason(sign)
    except UnreachableError as error:
        if not heard.anything or isinstance(error, NotAServer):
            raise  # dead at start-up (a missing file, a crash), or no server at all: not an era question
        client.transport.close()  # it wrote something, then exited at the probe: start it once more
        client.transport = reopen()
        client.speaks_modern = False
        reason = "the server exited after server/discover; mrtr started it once more for the handshake"
    if reason == SILENT and heard.text_only is not None:
        return _handshake_after_text(client, chain, heard.text_only, options.era_probe_wait)
    try:
        initialize(client, chain, reason)
    except ServerError:
        if reason != SILENT or not _slow_to_start(client):
            raise


@contextmanager
def _waiting(client: Client, seconds: float) -> Iterator[None]:
    """Within the block, a request waits `seconds` for its response instead of --timeout."""
    timeout, client.settings.timeout = client.settings.timeout, seconds
    try:
        yield
    finally:
        client.settings.timeout = timeout


def _handshake_after_text(client: Client, chain: Chain, text: str, wait: float) -> None:
    """Silent to the probe, the server had written only text that is not JSON-RPC on stdout (a
    program's output, a REPL's banner): initialize too is waited for --era-probe-wait, not --timeout."""
    try:
        initialize(client, chain, SILENT, wait=wait)
    except RequestTimeout:
        if client.initialized is not None:
            raise  # the handshake was answered: a later request timed out
        raise NotAServer(f"the server wrote only text that is not JSON-RPC on stdout ({text!r}) and answered "
                         f"neither server/discover nor initialize within {wait:g} s each: it does not look like an "
                         "MCP server", "is it the right command? e.g. -- python server.py; if it is an MCP server "
                         "slow to start, raise --era-probe-wait") from None


SILENT = "no answer to server/discover within --era-probe-wait"


class _Heard:
    """Whether the server wrote anything on the wire (a frame, garbage included), and, while it
    wrote only text that is not JSON-RPC, the first line of it."""

    TEXT_SHOWN = 80
    """How much of that first line a message quotes."""

    def __init__(self) -> None:
        self.anything = False
        self.text_only: str | None = None
        self._json_rpc = False

    def __call__(self, event: object) -> None:
        if not isinstance(event, events.FrameReceived):
            return
        self.anything = True
        if not isinstance(event.message, jsonrpc.Malformed):
            self._json_rpc, self.text_only = True, None
        elif not self._json_rpc and self.text_only is None:
            self.text_only = event.message.raw[:self.TEXT_SHOWN]


def _reason(sign: LegacyServerError) -> str:
    if "hung" in sign.message or "no response" in sign.message:
        return SILENT
    if sign.status:
        return f"server/discover got {sign.status}"
    if NOT_DISCOVER_RESULT in sign.message:
        return f"the server answered server/discover with {NOT_DISCOVER_RESULT}"
    return "the server answered server/discover with an error"


def _slow_to_start(client: Client) -> bool:
    """A server silent at the probe that refuses `initialize` may only have been slow to start (a
    cold `uv run`, a loaded machine): ask server/discover once more, waiting the whole --timeout."""
    try:
        client.discovered = client.discover()
    except MrtrError:
        return False
    client.speaks_modern = True
    client.emit(events.EraChosen("modern", client.settings.version, "the server refused initialize and answered "
                                 "server/discover when asked again (it was slow to start)"))
    return True


def initialize(client: Client, chain: Chain, reason: str, wait: float | None = None) -> None:
    """The handshake: initialize, the version chosen, notifications/initialized, logging/setLevel.
    `wait`: how long initialize is waited for (None: --timeout)."""
    settings = client.settings
    version = settings.version if handshake.era_of(settings.version) == "older" else handshake.LATEST_OLDER
    params = handshake.initialize_params(version, settings.capabilities, settings.identity)
    client.emit(events.EraChosen("older", version, reason))
    try:
        with _waiting(client, settings.timeout if wait is None else wait):
            reply = client.raw("initialize", params, purpose="handshake")
    except RequestTimeout as timeout:
        raise RequestTimeout(f"{timeout.message} (the initialize handshake)", "the server answers neither "
                             "server/discover nor initialize: check its command and logs") from None
    except EndpointMissing as missing:
        raise UnreachableError(f"{missing.status}, to server/discover and to initialize: no MCP endpoint at "
                               "this URL (or only the deprecated HTTP+SSE transport of 2024-11-05, a GET stream "
                               "often at /sse, which mrtr does not speak)",
                               "check --url (the path too: often /mcp)") from None
    except LegacyServerError as refused:
        raise ProtocolError(f"{refused.message}; it refused initialize too: if it offers only the deprecated "
                            "HTTP+SSE transport of 2024-11-05, mrtr does not speak it",
                            "use its Streamable HTTP endpoint, or check --url") from None
    if reply.error is not None:
        raise explain("initialize", reply.error)
    chosen = _chosen_version(reply.result, version, settings.version_fixed)
    _settle(client, reply.result, chosen, chain)
    if chosen != version:
        client.emit(events.EraChosen("older", chosen, f"the server chose {chosen} in its initialize result"))
    client.send(jsonrpc.notification("notifications/initialized", {}), "notifications/initialized")
    if settings.log_level is not None:
        client.result_of("logging/setLevel", {"level": settings.log_level})


def _chosen_version(result: Any, offered: str, fixed: bool) -> str:
    chosen = handshake.accepted_version(result)
    said = result.get("protocolVersion") if isinstance(result, dict) else None
    if chosen is None:
        raise ProtocolError(f"the server answered initialize with version {said!r}, which mrtr does not speak",
                            f"mrtr speaks {', '.join(handshake.OLDER_VERSIONS)} and {meta.LATEST_VERSION}")
    if fixed and chosen != offered:
        raise ProtocolError(f"the server answered initialize with version {chosen}, not {offered} "
                            "(--protocol-version)", "leave --protocol-version out to take the server's choice")
    return chosen


def _settle(client: Client, result: dict[str, Any], version: str, chain: Chain) -> None:
    """The client speaks the older era from now on, in `version`, answering through `chain`."""
    from mrtr_cli.conversation.server_requests import ServerRequests

    client.era, client.settings.version, client.initialized = "older", version, result
    client.transport.negotiated(version)
    client.server_requests = ServerRequests(client, chain, version)
    info = result.get("serverInfo")
    if isinstance(info, dict):
        client.server_info = info
        client.emit(events.ServerIdentified(info))


def what_server_said(client: Client) -> dict[str, Any]:
    """For `mrtr discover`: the server/discover result (modern), or what initialize returned (older)."""
    if client.era == "older" and client.initialized is not None:
        return client.initialized
    if client.discovered is not None:
        return client.discovered
    fallback, client.fallback = client.fallback, None
    try:
        return client.discover()
    except LegacyServerError:
        if fallback is None:
            raise
    fallback()
    assert client.initialized is not None
    return client.initialized


def settle_era(client: Client) -> None:
    """For `mrtr check`: over HTTP in auto, the first request decides the era; send it now."""
    if client.fallback is None:
        return
    what_server_said(client)
    if client.era == "modern":
        client.speaks_modern = True
