"""Which era mrtr speaks with a server, decided before the first request of a command.

`--protocol-era modern` speaks 2026-07-28 (stdio probes with `server/discover` unless
`--no-discover`); `older` opens a session with the `initialize` handshake; `auto` (the default)
probes and falls back to the handshake at once when `server/discover` gets an error, after
`--era-probe-wait` seconds of silence (the probe is still listened for: a DiscoverResult that comes while
initialize is awaited is an answer, only late), or when a stdio server that had written something exits
after the probe (it is started once more; one that wrote nothing died at start-up: exit 4). Over HTTP the same probe
decides: anything but a DiscoverResult, or an error only a 2026-07-28 server gives, means the older era. `--protocol-version V` implies V's era.
A command that is no MCP server is said at once (exit 4): mrtr's own request echoed back (`cat`), or only
text that is not JSON-RPC on stdout and no answer to server/discover nor to initialize, each waited for
`--era-probe-wait`. Total silence still waits --timeout for initialize: a cold server may say nothing for long.
Replay of a 2026-07-28 transcript speaks its era unprobed, and probes once only when the server refuses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from mrtr_cli.conversation import events
from mrtr_cli.answering.questions import Chain
from mrtr_cli.conversation.client import NOT_DISCOVER_RESULT, Client
from mrtr_cli.conversation.eras import Era, ModernEra, OlderEra
from mrtr_cli.conversation.explain import explain
from mrtr_cli.errors import (EndpointMissing, LegacyServerError, MrtrError, NotAServer, ProtocolError, RequestTimeout,
                             ServerError, SilentToProbe, UnreachableError, UsageError)
from mrtr_cli.protocol import handshake, jsonrpc, meta
from mrtr_cli.transport.base import Transport, ties_requests


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


def asks_for_handshake(flags: EraFlags) -> bool:
    """Whether the flags ask for the older era, its initialize handshake, whatever the server speaks."""
    return requested_era(flags) == "older"


def leaves_spoken(flags: EraFlags, era: str) -> bool:
    """Whether the flags leave the era named `era` (a transcript's) to be spoken: they ask for it, or for auto."""
    return requested_era(flags) in ("auto", era)


def choose_era(client: Client, flags: EraFlags, reopen: Callable[[], Transport], chain: Chain, *,
               probes: bool, discovers: bool = True, recorded: bool = False) -> Era:
    """Decide the era and, for the older one, run the handshake; the client speaks the era
    returned (`Client.speak`). `probes`: the target takes a server/discover probe in the modern era
    too (stdio); `discovers`: auto may send server/discover (the `discover` command sends it
    itself); `recorded`: replay of a 2026-07-28 transcript, whose era auto speaks unprobed
    (`_speak_recorded`); `reopen` starts a stdio server once more."""
    era = requested_era(flags)
    if recorded and era == "auto":
        return _speak_recorded(client, flags, reopen, chain)
    if era == "older":
        return initialize(client, chain, f"asked for by {_asking_flag(flags, era)}")
    if era == "modern" or flags.no_discover:
        why = "--no-discover" if flags.no_discover else _asking_flag(flags, era)
        client.emit(events.EraChosen("modern", client.settings.version, f"asked for by {why}"))
        said = client.discover() if probes and discovers and not flags.no_discover else None
        return _speak(client, ModernEra(client.settings.version, said))
    if not discovers:
        return _speak(client, ModernEra(client.settings.version, on_refusal=lambda: _fall_back(client, chain)))
    return _probe(client, flags, reopen, chain)


def _speak_recorded(client: Client, flags: EraFlags, reopen: Callable[[], Transport], chain: Chain) -> Era:
    """Replay: the era the transcript was recorded in, spoken with no probe (basic/versioning lets a
    client keep what it learnt of a server, "re-probing if the cached assumption later fails"); the
    era's `on_refusal` probes once, for a server that refuses it."""
    version = client.settings.version
    client.emit(events.EraChosen("modern", version, "the era the transcript was recorded in (no probe)"))
    return _speak(client, ModernEra(version, on_refusal=lambda: _probe(client, flags, reopen, chain)))


def _speak(client: Client, era: Era) -> Era:
    client.speak(era)
    return era


def _asking_flag(flags: EraFlags, era: str) -> str:
    """The flag that asked for `era`: `--protocol-version V` when given (it implies its era)."""
    return f"--protocol-version {flags.protocol_version}" if flags.protocol_version else f"--protocol-era {era}"


def _fall_back(client: Client, chain: Chain) -> Era:
    """auto in the `discover` command: its server/discover was refused as an older-era server refuses it."""
    return initialize(client, chain, "the first request was refused the way an older-era server refuses a "
                      "2026-07-28 request", speaks_modern=False)


def _probe(client: Client, flags: EraFlags, reopen: Callable[[], Transport], chain: Chain) -> Era:
    """auto: server/discover, waited for --era-probe-wait; anything but a DiscoverResult or an error
    only a 2026-07-28 server gives means the handshake (over HTTP too: a lenient older-era server
    may answer a modern request without a session, so the request itself proves nothing)."""
    heard = _Heard()
    client.emit.subscribe(heard)
    try:
        said = client.discover(timeout=flags.era_probe_wait, patient=True)
    except LegacyServerError as sign:
        reason = _reason(sign)
    except UnreachableError as error:
        if not heard.anything or isinstance(error, NotAServer):
            raise  # dead at start-up (a missing file, a crash), or no server at all: not an era question
        client.reconnect(reopen())  # it wrote something, then exited at the probe: start it once more
        reason = "the server exited after server/discover; mrtr started it once more for the handshake"
    else:
        era = _speak(client, ModernEra(client.settings.version, said, speaks_modern=True))
        client.emit(events.EraChosen("modern", era.version, "the server answered server/discover"))
        return era
    finally:
        client.emit.unsubscribe(heard)
    if reason == SILENT and heard.text_only is not None:
        return _handshake_after_text(client, chain, heard.text_only, flags.era_probe_wait)
    return _handshake_after_probe(client, chain, reason)


def _handshake_after_probe(client: Client, chain: Chain, reason: str) -> Era:
    """The handshake, `reason` why; a server silent at the probe that refuses it may be a modern
    one slow to start: its late answer to the probe decides (`_answered_late`), else it is asked
    once more (`_slow_to_start`). After silence the era is told once it is known, not before."""
    silent = reason == SILENT
    try:
        return initialize(client, chain, reason, speaks_modern=False, told_first=not silent)
    except ServerError:
        if not silent or client.era.handshake:
            raise
        era = _answered_late(client) or _slow_to_start(client)
        if era is None:
            raise
        return era


def _answered_late(client: Client) -> Era | None:
    """The era of a server whose DiscoverResult came after --era-probe-wait (while initialize was
    awaited): an answer, only late; None when none came."""
    said = client.late_discover()
    late = client.late_reply
    if said is None or late is None:
        return None
    era = _speak(client, ModernEra(client.settings.version, said, speaks_modern=True))
    client.emit(events.EraChosen("modern", era.version, f"the server answered server/discover late, after "
                                 f"{late.elapsed_ms / 1000:.1f} s (it was slow to start), and refused initialize"))
    return era


def _handshake_after_text(client: Client, chain: Chain, text: str, wait: float) -> Era:
    """Silent to the probe, the server had written only text that is not JSON-RPC on stdout (a
    program's output, a REPL's banner): initialize too is waited for --era-probe-wait, not --timeout."""
    try:
        return initialize(client, chain, SILENT, wait=wait, speaks_modern=False)
    except RequestTimeout:
        if client.era.handshake:
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
    if isinstance(sign, SilentToProbe):
        return SILENT
    if sign.status:
        return f"server/discover got {sign.status}"
    if NOT_DISCOVER_RESULT in sign.message:
        return f"the server answered server/discover with {NOT_DISCOVER_RESULT}"
    return "the server answered server/discover with an error"


def _slow_to_start(client: Client) -> Era | None:
    """A server silent at the probe that refuses `initialize` may only have been slow to start (a
    cold `uv run`, a loaded machine): ask server/discover once more, waiting the whole --timeout."""
    try:
        said = client.discover()
    except MrtrError:
        return None
    era = _speak(client, ModernEra(client.settings.version, said, speaks_modern=True))
    client.emit(events.EraChosen("modern", era.version, "the server refused initialize and answered "
                                 "server/discover when asked again (it was slow to start)"))
    return era


def initialize(client: Client, chain: Chain, reason: str, wait: float | None = None,
               speaks_modern: bool | None = None, told_first: bool = True) -> Era:
    """The handshake: initialize, the version chosen (the client speaks the older era from then
    on, answering the server's requests through `chain`), notifications/initialized,
    logging/setLevel. `wait`: how long initialize is waited for (None: --timeout);
    `speaks_modern`: what the probe learnt, kept in the era; `told_first`: the era is told before
    initialize is sent (else once it is answered: a probe still awaited may yet say modern)."""
    from mrtr_cli.conversation.server_requests import ServerRequests

    settings = client.settings
    version = settings.version if handshake.era_of(settings.version) == "older" else handshake.LATEST_OLDER
    params = handshake.initialize_params(version, settings.capabilities, settings.identity)
    if told_first:
        client.emit(events.EraChosen("older", version, reason))
    try:
        reply = client.raw(handshake.INITIALIZE, params, purpose="handshake", timeout=wait)
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
        raise explain(handshake.INITIALIZE, reply.error)
    chosen = _chosen_version(reply.result, version, settings.version_fixed)
    answering = ServerRequests(chain, chosen, settings.capabilities, emit=client.emit, send=client.send,
                               who_asks=client.who_asks, tied=ties_requests(client.transport))
    answered_late = client.late_discover() is not None  # a dual-era server: the probe's answer came meanwhile
    era = _speak(client, OlderEra(chosen, reply.result, answering, True if answered_late else speaks_modern))
    if not told_first:
        client.emit(events.EraChosen("older", chosen, reason))
    elif chosen != version:
        client.emit(events.EraChosen("older", chosen, f"the server chose {chosen} in its initialize result"))
    client.send(jsonrpc.notification("notifications/initialized", {}), "notifications/initialized")
    if settings.log_level is not None:
        client.result_of("logging/setLevel", {"level": settings.log_level})
    return era


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


def what_server_said(client: Client) -> dict[str, Any]:
    """For `mrtr discover`: the server/discover result (modern), or what initialize returned (older).
    Undecided (auto), the command's own server/discover decides: refused as an older-era server
    refuses it, the era's `on_refusal` runs the handshake."""
    era = client.era
    if era.said is not None:
        return era.said
    try:
        return client.discover()
    except LegacyServerError:
        if era.on_refusal is None:
            raise
    said = era.on_refusal().said
    assert said is not None
    return said
