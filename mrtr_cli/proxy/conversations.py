"""The watcher that follows every conversation crossing the proxy (tools/call, resources/read,
prompts/get) and tells each one, as the engine's events, to the observer opened for it.

A response is paired with its request by the channel it came on and its id; a retry with the
conversation it continues by its `requestState` (else by method and tool, prompt or resource); a
request the server sends while a call is in flight (older era) belongs to the call in flight on its
channel (else the latest one). What belongs to no conversation (the handshake, lists, pings) goes to
`note` as the raw wire, for `-v`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from mrtr_cli.conversation import events
from mrtr_cli.answering.questions import ROOTS
from mrtr_cli.protocol import meta, mrtr
from mrtr_cli.protocol.jsonrpc import Notification, Request, Response, same_id
from mrtr_cli.proxy.conversation import Conversation, ConversationStart, subject_of, without_meta
from mrtr_cli.proxy.judge import id_key, keep
from mrtr_cli.proxy.stdio_shim import CHANNEL as STDIO_CHANNEL
from mrtr_cli.proxy.watching import Crossed, crossed_at

MAX_OPEN = 256
"""The most conversations open at once (each may hold its transcript's file open): past it, the
oldest ends, aborted as abandoned (a client that never finishes must not grow them without end)."""
ABANDONED = f"abandoned: more than {MAX_OPEN} conversations were open at once, and this was the oldest"

OpenConversation = Callable[[ConversationStart], events.Observer]
"""Where the events of a conversation that starts go (the timeline, its own recorder)."""


class Pending(NamedTuple):
    """A request of the client waiting for its response."""

    method: str
    conversation: Conversation | None


@dataclass
class Context:
    """What the host and the server said of themselves outside conversations: the era and version
    (initialize, or a request's `_meta`), the client's capabilities, serverInfo, the tools listed."""

    era: events.Era = "modern"
    version: str = meta.LATEST_VERSION
    reason: str = "the host sent no initialize"
    capabilities: dict[str, Any] = field(default_factory=dict)
    server: dict[str, Any] | None = None
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)

    def request(self, message: Request) -> None:
        params = message.params
        if message.method == "initialize":
            self.era, self.version = "older", _text(params.get("protocolVersion"), self.version)
            self.reason = "the host began with the initialize handshake"
            self.capabilities = _object(params.get("capabilities"))
            return
        said = _object(params.get("_meta"))
        if isinstance(said.get(meta.PROTOCOL_VERSION), str):
            self.era, self.version = "modern", said[meta.PROTOCOL_VERSION]
            self.reason = "the host names the version in its requests' _meta"
            self.capabilities = _object(said.get(meta.CLIENT_CAPABILITIES))

    def response(self, method: str, result: Any) -> None:
        result = _object(result)
        if method == "initialize":
            self.version = _text(result.get("protocolVersion"), self.version)
            self.server = _object(result.get("serverInfo")) or self.server
        elif method == "tools/list" and isinstance(result.get("tools"), list):
            self.tools.update({tool["name"]: tool for tool in result["tools"]
                               if isinstance(tool, dict) and isinstance(tool.get("name"), str)})
        self.server = meta.server_info(result) or self.server

    def start(self, message: Request) -> ConversationStart:
        name = message.params.get("name")
        tool = self.tools.get(name) if message.method == "tools/call" and isinstance(name, str) else None
        return ConversationStart(message.method, without_meta(message.params), self.era, self.version,
                                 self.capabilities, self.server, tool)


class Conversations:
    """A Watcher (proxy/watching.py): every conversation that crosses, told as events."""

    def __init__(self, open_conversation: OpenConversation, note: events.Observer) -> None:
        self.open_conversation = open_conversation
        self.note = note
        self.context = Context()
        self.pending: dict[tuple[str, tuple[str, Any]], Pending] = {}
        self.server_requests: dict[tuple[str, Any], tuple[Conversation, str, str, bool]] = {}
        """Older era: the server's requests in flight, by id: their conversation, key and method."""
        self.open: list[Conversation] = []

    def crossed(self, frame: Crossed) -> None:
        to_server = frame.direction == "to_server"
        told = self._from_client(frame) if to_server else self._from_server(frame)
        if not told:
            self.note(events.WireNote("out" if to_server else "in", frame.text))

    def ended(self) -> None:
        """The connection ended: each conversation still open ends aborted."""
        for conversation in self.open:
            conversation.end(None)
        self.open = []

    def _opened(self, conversation: Conversation) -> None:
        self.open.append(conversation)
        while len(self.open) > MAX_OPEN:
            self.open.pop(0).end(None, ABANDONED)

    def _from_client(self, frame: Crossed) -> bool:
        message = frame.message
        if isinstance(message, Response):
            asked = self.server_requests.pop(id_key(message.id), None)
            if asked is not None and not asked[0].ended:
                asker, key, method, unprompted = asked
                asker.answered_in_flight(key, method, message, unprompted)
            return False
        if not isinstance(message, Request):
            return False
        self.context.request(message)
        conversation = self._conversation_of(message) if message.method in mrtr.MRTR_METHODS else None
        keep(self.pending, (frame.channel, id_key(message.id)), Pending(message.method, conversation))
        if conversation is not None:
            conversation.sent(message, frame.headers, conversation.awaiting_retry, crossed_at(frame))
        return conversation is not None

    def _conversation_of(self, message: Request) -> Conversation:
        """The conversation a retry continues, or a new one."""
        if mrtr.REQUEST_STATE in message.params or mrtr.INPUT_RESPONSES in message.params:
            waiting = self._continued_by(message)
            if waiting is not None:
                return waiting
        start = self.context.start(message)
        emit = self.open_conversation(start)
        emit(events.EraChosen(start.era, start.version, self.context.reason))
        if start.server:
            emit(events.ServerIdentified(start.server))
        conversation = Conversation(message.method, without_meta(message.params), emit)
        self._opened(conversation)
        return conversation

    def _continued_by(self, message: Request) -> Conversation | None:
        waiting = [c for c in self.open if c.awaiting_retry and c.method == message.method]
        state = message.params.get(mrtr.REQUEST_STATE)
        subject = subject_of(message.params)
        same_state = [c for c in waiting if c.state is not None and c.state == state]
        same_subject = [c for c in waiting if c.subject == subject]
        chosen = same_state or same_subject
        return chosen[-1] if chosen else None

    def _from_server(self, frame: Crossed) -> bool:
        message = frame.message
        if isinstance(message, Response):
            return self._response(frame, message)
        in_flight = self._in_flight(frame.channel)
        if in_flight is None:
            return False
        if isinstance(message, Request) and message.method in mrtr.INPUT_METHODS:
            # over stdio nothing ties a roots/list to the call (conversation/server_requests.py)
            unprompted = frame.channel == STDIO_CHANNEL and message.method == ROOTS
            key = in_flight.asked_in_flight(message, unprompted)
            keep(self.server_requests, id_key(message.id), (in_flight, key, message.method, unprompted))
        elif isinstance(message, Notification):
            in_flight.emit(events.NotificationReceived(message.method, message.params, in_flight.request_id))
        return False

    def _response(self, frame: Crossed, message: Response) -> bool:
        pending = self.pending.pop((frame.channel, id_key(message.id)), None)
        if pending is None:
            return False
        self.context.response(pending.method, message.result)
        conversation = pending.conversation
        if conversation is None or conversation.ended or not same_id(message.id, conversation.request_id):
            return False
        if conversation.received(message, frame.headers, crossed_at(frame)):
            self.open.remove(conversation)
        return True

    def _in_flight(self, channel: str) -> Conversation | None:
        """The conversation whose request is in flight on `channel`, else the latest in flight."""
        on_channel = [p.conversation for (where, _), p in self.pending.items()
                      if where == channel and p.conversation is not None and not p.conversation.ended]
        latest = [c for c in self.open if not c.awaiting_retry]
        chosen = on_channel or latest
        return chosen[-1] if chosen else None


def _text(value: Any, otherwise: str) -> str:
    return value if isinstance(value, str) else otherwise


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}

