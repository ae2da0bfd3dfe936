"""`mrtr check` against a server of the initialize-handshake era: the probes of 2026-07-28 are
skipped with the reason, the handshake's result is checked, and with `--tool` the tool's call must
complete with its questions answered in flight. One line tells whether the server also speaks
2026-07-28 (whether it answered `server/discover`, while mrtr chose the era or, under
`--protocol-era older`, on a connection of its own).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.answering.questions import Chain
from mrtr_cli.conversation.client import Client
from mrtr_cli.conversation.eras import Era, era_named
from mrtr_cli.conversation.session import Sessions
from mrtr_cli.check.calls import Calls
from mrtr_cli.check.probes import (DISCOVER_PROBES, EXACT_HEADER_PROBES, GENERIC_PROBES, HEADER_PROBE, META_PROBE,
                                   VERSION_PROBE)
from mrtr_cli.check.stream import STREAM_PROBES
from mrtr_cli.check.tool_probes import ALL_TOOL_PROBES
from mrtr_cli.check.subscriptions import LISTEN_PROBES
from mrtr_cli.check.verdicts import SPEC, Check, Probe, short, timed, verdict
from mrtr_cli.protocol.headers import Mirrored
from mrtr_cli.text import safe_line

MODERN_PROBES: list[Probe] = [*DISCOVER_PROBES, META_PROBE, VERSION_PROBE, HEADER_PROBE, *GENERIC_PROBES,
                              *EXACT_HEADER_PROBES, *LISTEN_PROBES, *STREAM_PROBES]
"""The safe probes that apply to 2026-07-28 only."""
INITIALIZE_PROBE: Probe = ("initialize-result", "the initialize result has protocolVersion, capabilities and "
                           "serverInfo", "MUST", "basic/lifecycle#initialization")
TOOL_CALL_PROBE: Probe = ("tool-call-completes", "the tool's call completes, its questions answered in flight",
                          "MUST", "server/tools#calling-tools")
TOOL_CALLS = Calls(conversations=1)
"""The most calls of the named tool in this era (check/calls.py): its one call, answered in flight."""
INITIALIZE_KEYS = ("protocolVersion", "capabilities", "serverInfo")
OLDER_SPEC = "https://modelcontextprotocol.io/specification/2025-11-25/"
"""Where the rules of the handshake era are stated."""


def older_verdict(probe: Probe, ok: bool | None, seen: str) -> Check:
    """A verdict on a rule of the handshake era, pointing at that era's spec."""
    check = verdict(*probe, ok, seen)
    return Check(check.id, check.title, check.level, check.status, seen, OLDER_SPEC + check.page.removeprefix(SPEC))


def skipped(probes: list[Probe], version: str) -> list[Check]:
    """The 2026-07-28 probes, each skipped with the reason; one group in the human checklist."""
    era = f"the server speaks the initialize-handshake era ({version})"
    why, group = f"{era}: this rule is 2026-07-28's", f"rules of 2026-07-28 not probed: {era}"
    return [replace(verdict(*probe, None, why), group=group) for probe in probes]


def safe_checks(client: Client) -> list[Check]:
    """The handshake's result checked; the 2026-07-28 probes skipped."""
    result: Any = client.era.said or {}
    missing = [key for key in INITIALIZE_KEYS if not isinstance(result.get(key), str if key == "protocolVersion"
                                                                     else dict)]
    seen = f"{', '.join(missing)} missing or of the wrong type" if missing else \
        f"protocolVersion {result['protocolVersion']}, serverInfo {short(result['serverInfo'])}"
    return [older_verdict(INITIALIZE_PROBE, not missing, seen), *skipped(MODERN_PROBES, client.settings.version)]


def tool_checks(client: Client, sessions: Sessions, chain: Chain, name: str, arguments: dict[str, Any],
                mirrored: Mirrored | None = None) -> list[Check]:
    """The tool's call, its questions answered in flight; the MRTR probes skipped."""
    started = time.perf_counter()
    outcome = sessions(chain, hopping=False).run("tools/call", {"name": name, "arguments": arguments}, mirrored)
    elapsed = time.perf_counter() - started
    asked = sum(len(r.requests) for r in outcome.rounds)
    if outcome.status == "complete":
        ok: bool | None = True
        seen = f"complete after {asked} question{'s' if asked != 1 else ''} asked in flight"
    elif outcome.status == "incomplete":
        ok, seen = None, f"not judged: {outcome.error.message if outcome.error else 'incomplete'}"
    else:
        ok, seen = False, f"{outcome.status}: {outcome.error.message if outcome.error else 'no result'}"
    checks = [older_verdict(TOOL_CALL_PROBE, ok, seen), *skipped(ALL_TOOL_PROBES, client.settings.version)]
    return timed(checks, elapsed)


class DiscoverSeen:
    """Observes what came of `server/discover` while the era was chosen, for the era line: the
    error it got, or else why mrtr spoke the handshake."""

    def __init__(self) -> None:
        self.error: dict[str, Any] | None = None
        self.reason: str | None = None
        self._asked = False

    def __call__(self, event: Any) -> None:
        if isinstance(event, events.RequestSent) and event.method == "server/discover":
            self._asked = True
        elif isinstance(event, events.ResponseReceived) and event.method == "server/discover" and event.error:
            self.error = self.error or event.error
        elif isinstance(event, events.EraChosen) and self.reason is None \
                and (self._asked or not era_named(event.era).handshake):
            self.reason = event.reason

    def why_not(self) -> str:
        """Why the server does not speak 2026-07-28, as far as mrtr saw."""
        if self.error is not None:
            return (f"it answered server/discover with error {short(self.error.get('code'))} "
                    f"({safe_line(self.error.get('message'), 120)})")
        return self.reason if self._asked and self.reason else "server/discover got no answer"


def era_line(era: Era, seen: DiscoverSeen, speaks_modern: bool | None) -> str:
    """Whether the server also speaks 2026-07-28, in one line."""
    if not era.handshake:
        return f"era: 2026-07-28 ({seen.reason or 'the server answered server/discover'})"
    head = f"era: the initialize handshake ({era.version}); also speaks 2026-07-28: "
    return head + ("yes, it answered server/discover" if speaks_modern else f"no, {seen.why_not()}")
