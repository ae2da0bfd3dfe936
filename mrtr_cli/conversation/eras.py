"""The two eras mrtr speaks, as one strategy: what differs between 2026-07-28 (`ModernEra`) and the
era of the initialize handshake, 2025-11-25 and before (`OlderEra`).

conversation/era.py chooses one; the client speaks it (`Client.speak`) and asks it what differs:
the `_meta` a request carries, the headers HTTP sends with each message (`base.Headers`), how the
server's questions arrive (input_required rounds, or its own requests in flight, answered by
`server_requests`), whether mrtr asks for a task and polls it. Nothing else tells the eras apart
by name: what a transcript or an outcome names as its era is asked the same way (`era_named`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from mrtr_cli.conversation import events
from mrtr_cli.protocol import meta, older_task_rules
from mrtr_cli.protocol.handshake import INITIALIZE, request_params as handshake_params
from mrtr_cli.protocol.headers import PROTOCOL_VERSION_HEADER, Mirrored, mirroring_headers
from mrtr_cli.transport.base import Headers

if TYPE_CHECKING:
    from mrtr_cli.conversation.waiting import ServerRequestHandler


@dataclass(frozen=True)
class Era(ABC):
    """What choosing the era decided (conversation/era.py): made once, handed to the client
    (`Client.speak`), never changed. A new decision is a new value."""

    version: str
    """The protocol version spoken."""
    said: dict[str, Any] | None = None
    """What the server/discover probe (modern) or initialize (older) returned; None: not asked."""
    server_requests: ServerRequestHandler | None = None
    """In the older era: what answers the server's own requests (conversation/server_requests.py)."""
    speaks_modern: bool | None = None
    """Whether the server answered `server/discover` while mrtr chose the era (None: not asked)."""
    on_refusal: Callable[[], Era] | None = None
    """auto, the era not yet decided (the `discover` command sends server/discover itself; replay
    speaks a transcript's era unprobed): what to run when the server refuses it as an older-era
    server does (the handshake; replay's probe); it returns the era then spoken."""

    name: ClassVar[events.Era]
    """`modern` (2026-07-28) or `older` (the initialize handshake): what events, outcomes and
    transcripts name it by."""
    handshake: ClassVar[bool]
    """Whether the era opens a session with the initialize handshake: the client's capabilities are
    declared once, there; the session lives on one instance of the server and ends with the mrtr
    that opened it (nothing of it can be continued from a file); the server's questions come as
    its own requests, in flight."""
    asks_for_tasks: ClassVar[bool]
    """Whether mrtr asks for a tool call to run as a task (`--task`) and polls it: the older era's
    tasks (2025-11-25); since 2026-07-28 the server decides, and mrtr follows a task it makes."""

    @staticmethod
    @abstractmethod
    def describe(version: str) -> str:
        """The era in words, for the timeline: `2026-07-28`, `the initialize handshake, 2025-11-25`."""

    @abstractmethod
    def request_params(self, params: dict[str, Any], token: str, capabilities: meta.Capabilities,
                       identity: meta.ClientIdentity, log_level: str | None) -> dict[str, Any]:
        """A request's params with this era's `_meta` (`token`: its progressToken)."""

    @abstractmethod
    def headers(self, message: dict[str, Any], mirrored: Mirrored | None = None) -> Headers:
        """The headers HTTP sends with the request `message` (`mirrored`: the arguments a tools/call
        also sends as headers)."""

    @abstractmethod
    def notice_headers(self) -> Headers:
        """The headers of a message that expects no response (a notification, mrtr's response to a
        server request)."""

    def server_identity(self) -> dict[str, Any] | None:
        """The server's serverInfo as choosing the era learnt it (None: each result tells it)."""
        return None

    def takes_tool_tasks(self) -> bool:
        """Whether mrtr may ask for a tool call to run as a task (the server declared it can)."""
        return False

    def declares_roots(self, capabilities: meta.Capabilities) -> bool:
        """Whether `capabilities` declare roots to the server in this era."""
        return capabilities.roots


@dataclass(frozen=True)
class ModernEra(Era):
    """2026-07-28: each request carries the whole `_meta` envelope and mirrors its body in its
    headers; the server's questions come as input_required results; the server makes tasks."""

    name: ClassVar[events.Era] = "modern"
    handshake: ClassVar[bool] = False
    asks_for_tasks: ClassVar[bool] = False

    @staticmethod
    def describe(version: str) -> str:
        return "2026-07-28"

    def request_params(self, params: dict[str, Any], token: str, capabilities: meta.Capabilities,
                       identity: meta.ClientIdentity, log_level: str | None) -> dict[str, Any]:
        return {**params, "_meta": meta.request_meta(self.version, capabilities, identity, token, log_level)}

    def headers(self, message: dict[str, Any], mirrored: Mirrored | None = None) -> Headers:
        if message.get("method") == INITIALIZE:  # the handshake opens the session it belongs to
            return Headers({}, {})
        return Headers(mirroring_headers(message, mirrored))

    def notice_headers(self) -> Headers:
        return Headers({}, {})  # the session's id, should a server have given one


@dataclass(frozen=True)
class OlderEra(Era):
    """The initialize handshake's era: requests carry only their progressToken in `_meta`, and
    every message names the version the handshake chose and the session the server gave."""

    name: ClassVar[events.Era] = "older"
    handshake: ClassVar[bool] = True
    asks_for_tasks: ClassVar[bool] = True

    @staticmethod
    def describe(version: str) -> str:
        return f"the initialize handshake, {version}"

    def request_params(self, params: dict[str, Any], token: str, capabilities: meta.Capabilities,
                       identity: meta.ClientIdentity, log_level: str | None) -> dict[str, Any]:
        return handshake_params(params, token)  # the capabilities went in initialize

    def headers(self, message: dict[str, Any], mirrored: Mirrored | None = None) -> Headers:
        return self.notice_headers()

    def notice_headers(self) -> Headers:
        return Headers({}, {PROTOCOL_VERSION_HEADER: self.version})

    def server_identity(self) -> dict[str, Any] | None:
        info = (self.said or {}).get("serverInfo")
        return info if isinstance(info, dict) else None

    def takes_tool_tasks(self) -> bool:
        return older_task_rules.takes_tool_tasks(self.said)

    def declares_roots(self, capabilities: meta.Capabilities) -> bool:
        return capabilities.roots and capabilities.roots_answerable  # see protocol/handshake.py


ERAS: dict[str, type[Era]] = {era.name: era for era in (ModernEra, OlderEra)}
"""Each era by the name events, outcomes and transcripts give it."""


def era_named(name: str | None) -> type[Era]:
    """The era a transcript, an outcome or an event names (`modern` when it names none: a format 1
    transcript knew only 2026-07-28)."""
    return ERAS.get(name or ModernEra.name, ModernEra)
