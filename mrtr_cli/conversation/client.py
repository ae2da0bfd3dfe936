"""One request at a time to one server: `_meta`, ids, timeouts, cancellation, versions, era.

The client sends a request, reads what arrives until the response with its id, and reports
everything it sees as events. It knows the protocol, not the terminal.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from collections.abc import Callable
from typing import Any, NamedTuple

from mrtr_cli.conversation import events
from mrtr_cli.errors import (LegacyServerError, NotAServer, ProtocolError, RequestTimeout, SilentToProbe,
                             UnreachableError, interruption)
from mrtr_cli.conversation.events import Observer
from mrtr_cli.conversation.eras import Era, ModernEra
from mrtr_cli.conversation.explain import explain, supported_versions, versions_text
from mrtr_cli.conversation.stopwatch import Stopwatch
from mrtr_cli.conversation.waiting import Waiting, progress_token, timed_out
from mrtr_cli.protocol import jsonrpc, meta
from mrtr_cli.protocol.headers import Mirrored
from mrtr_cli.protocol.jsonrpc import Response
from mrtr_cli.transport.base import Deadline, Exchange, Frame, Transport, TransportTimeout, listener

LEGACY_HINT = ("with --protocol-era auto (the default) or older mrtr speaks its initialize handshake; "
               "or pass --no-discover to send the 2026-07-28 request anyway")


@dataclass
class ClientSettings:
    """How the client fills `_meta` and how long it waits."""

    identity: meta.ClientIdentity
    capabilities: meta.Capabilities = field(default_factory=meta.Capabilities)
    version: str = meta.LATEST_VERSION
    version_fixed: bool = False
    log_level: str | None = None
    timeout: float = 60.0


@dataclass(frozen=True)
class Reply:
    """The response to one request, and how long it took (`status`: the HTTP status, HTTP only)."""

    id: int
    method: str
    result: Any
    error: dict[str, Any] | None
    elapsed_ms: float
    status: int | None = None


KeptLists = Callable[[str, str], tuple[dict[str, Any], int]]
"""A list (method, result key) as conversation/lists.py's `list_all` returns it: merged, and its page count."""


class Client:
    """Sends requests to one server over one transport."""

    def __init__(self, transport: Transport, settings: ClientSettings, emit: Observer) -> None:
        self.transport = transport
        self.settings = settings
        self.emit = emit if isinstance(emit, events.Broadcast) else events.Broadcast([emit])
        self.server_info: dict[str, Any] | None = None
        self.era: Era = ModernEra(settings.version)
        """The era spoken: conversation/era.py decides it, and `speak` is how the client takes it."""
        self._ids = jsonrpc.IdSequence()
        self.heard = False
        """Whether the server has sent a frame yet: until it has, a long wait is said on the timeline."""
        self._outstanding: tuple[int, str, float] | None = None
        """A request left waiting past its wait (the era probe): its id, method and when it was sent."""
        self.late_reply: Reply | None = None
        """The answer to that request, when it came while another was awaited."""
        self.kept_lists: KeptLists | None = None
        """Who keeps the server's lists for a connection that stays open (`mrtr shell`): conversation/lists.py's
        `list_all` asks it instead of the server; None: every list is fetched when it is wanted."""

    def speak(self, era: Era) -> None:
        """Speak `era` from now on: its version, its `_meta`, its headers, its handling of server
        requests; the server it names (the older era's initialize result does) is noted."""
        self.era, self.settings.version = era, era.version
        info = era.server_identity()
        if info is not None:
            self.server_info = info
            self.emit(events.ServerIdentified(info))

    def declare(self, capabilities: meta.Capabilities, log_level: str | None) -> None:
        """Declare `capabilities` and ask for `log_level` from the next request on: a session that stays
        open (`mrtr shell`) gives each call its own flags. 2026-07-28 declares them in each request's
        `_meta`; the older era declared them at initialize, where its caller leaves them."""
        self.settings.capabilities, self.settings.log_level = capabilities, log_level

    def keep_lists(self, keeper: KeptLists) -> None:
        """Let `keeper` answer for the server's lists from now on (`mrtr shell`, whose connection stays open)."""
        self.kept_lists = keeper

    def reconnect(self, transport: Transport) -> None:
        """The server exited while the era was chosen: speak to it on `transport`, a fresh start of it."""
        self.transport.close()
        self.transport = transport

    def hop(self, transport: Transport) -> None:
        """Send from now on over `transport`, another instance of the same server
        (conversation/instances.py); the one before is not closed: the instances' owner stops them."""
        self.transport = transport

    def request(self, method: str, params: dict[str, Any], *, round: int | None = None,
                purpose: events.Purpose = "request", mirrored: Mirrored | None = None,
                timeout: float | None = None, within: float | None = None, patient: bool = False,
                state_as_received: bool = True) -> Reply:
        """Send one request; on -32022 retry once with a version both sides speak. `mirrored`: the
        arguments a tools/call also sends as headers (see conversation/preparation.py). `timeout`:
        how long the response is waited for (None: --timeout), started again after each question of
        the server's answered; `within`: seconds from now no wait passes, whatever starts it again (a
        task's --task-timeout; None: none). In a conversation the events from its response on are
        held (`events.HeldEvents`). `patient`: on timeout the request is not cancelled but left
        outstanding, and its late answer, arriving while another request waits, is kept (`late_reply`).
        `state_as_received`: False when a retry's requestState is not the one the server sent (a probe's,
        `Session.resume`), as the timeline then says."""
        not_after = None if within is None else time.monotonic() + within
        sending = _Sending(method, params, round, purpose, mirrored, timeout, not_after, patient, state_as_received)
        reply = self._reissuing(sending)
        error = reply.error
        if error is None or error.get("code") != jsonrpc.UNSUPPORTED_PROTOCOL_VERSION or self.settings.version_fixed:
            return reply
        supported = supported_versions(error)
        new_version = meta.choose_version(supported)
        if new_version is None:
            return reply
        self._switch_version(new_version, supported)
        return self._reissuing(sending)

    def _reissuing(self, sending: _Sending) -> Reply:
        """A response stream that ends before the response lost the request: send it once more."""
        try:
            return self._exchange(sending)
        except _StreamEnded as ended:
            self.emit(events.Reissued(ended.request_id, sending.method))
        try:
            return self._exchange(sending._replace(purpose="reissue"))
        except _StreamEnded as ended:
            raise UnreachableError(f"the response stream of {sending.method} (id {ended.request_id}) ended before "
                                   "the response, twice", "check the server's logs") from None

    def result_of(self, method: str, params: dict[str, Any], purpose: events.Purpose = "request") -> Any:
        """The result of a request that must succeed; a JSON-RPC error raises `ServerError`."""
        reply = self.request(method, params, purpose=purpose)
        if reply.error is not None:
            raise explain(method, reply.error)
        return reply.result

    def discover(self, timeout: float | None = None, patient: bool = False) -> dict[str, Any]:
        """`server/discover`, which also tells a modern server from one of the handshake era;
        `timeout`: how long it is waited for (None: --timeout); `patient`: see `request`."""
        try:
            reply = self.request("server/discover", {}, purpose="era", timeout=timeout, patient=patient)
        except RequestTimeout as unanswered:
            raise SilentToProbe.seen(unanswered.message, LEGACY_HINT, other_cause="it hung") from None
        if reply.error is not None:
            raise _discover_error(reply.error)
        return self._check_discover_result(reply.result)

    def late_discover(self) -> dict[str, Any] | None:
        """The DiscoverResult that answered the era probe late (None: none came, or not that)."""
        late = self.late_reply
        if late is None or late.method != "server/discover" or late.error is not None:
            return None
        try:
            return self._check_discover_result(late.result)
        except ProtocolError:
            return None

    def _take_late(self, message: Response) -> bool:
        """Whether `message` answers the request left outstanding: then it is an answer, told as one."""
        if self._outstanding is None or not jsonrpc.same_id(message.id, self._outstanding[0]):
            return False
        request_id, method, started = self._outstanding
        self._outstanding = None
        elapsed = (time.monotonic() - started) * 1000
        self.late_reply = Reply(request_id, method, message.result, message.error, elapsed)
        self._note_server(message.result)
        self.emit(events.ResponseReceived(request_id, method, message.result, message.error, elapsed, None))
        return True

    def _check_discover_result(self, result: Any) -> dict[str, Any]:
        if not isinstance(result, dict) or not isinstance(result.get("supportedVersions"), list):
            raise LegacyServerError.seen(f"the server answered server/discover with {NOT_DISCOVER_RESULT}",
                                         LEGACY_HINT, subject="it")
        versions = result["supportedVersions"]
        if self.settings.version in versions:
            return result
        spoken = meta.choose_version(versions)
        if spoken is None or self.settings.version_fixed:
            raise ProtocolError(f"the server speaks {versions_text(versions)}, not {self.settings.version}",
                                f"mrtr speaks {versions_text(list(meta.SPOKEN_VERSIONS))}")
        self._switch_version(spoken, versions)
        return result

    def _switch_version(self, version: str, supported: list[str]) -> None:
        self.emit(events.VersionChanged(self.settings.version, version, supported))
        self.era, self.settings.version = replace(self.era, version=version), version

    def raw(self, method: str, params: dict[str, Any], headers_from: dict[str, Any] | None = None,
            mirrored: Mirrored | None = None, purpose: events.Purpose = "probe", timeout: float | None = None) -> Reply:
        """One request exactly as given: `params` carry their own `_meta`, or none. Over HTTP the
        headers are made from `headers_from` instead of the request. For `mrtr check`'s probes and
        the `initialize` handshake. `timeout`: how long it is waited for (None: --timeout)."""
        message = jsonrpc.request(self._ids.next(), method, params)
        try:
            return self._transmit(message, _Sending(method, params, None, purpose, mirrored, timeout),
                                  headers_from or message)
        except _StreamEnded as ended:  # sent once, exactly as given: not reissued
            raise ProtocolError(f"the response stream of {method} (id {ended.request_id}) ended before the "
                                "response", "check the server's logs") from None

    def open_stream(self, method: str, params: dict[str, Any]) -> tuple[int, Exchange]:
        """Send a request whose answer is a long-lived stream (subscriptions/listen) and return its id and
        exchange, unread: the caller reads it (in a thread of its own over HTTP) and closes it."""
        request_id = self._ids.next()
        message = jsonrpc.request(request_id, method, self._with_meta(params, progress_token(request_id)))
        text = jsonrpc.encode(message)
        self.emit(events.RequestSent(request_id, method, params, text, None, "task"))
        return request_id, self.transport.start(text, self.era.headers(message))

    def send(self, message: dict[str, Any], what: str) -> None:
        """One message that expects no response (a notification, or mrtr's response to a server
        request); `what` names it for the timeline."""
        text = jsonrpc.encode(message)
        self.emit(events.MessageSent(what, text))
        self.transport.send(text, self.era.notice_headers())

    def _exchange(self, sending: _Sending) -> Reply:
        request_id = self._ids.next()
        params = self._with_meta(sending.params, progress_token(request_id))
        message = jsonrpc.request(request_id, sending.method, params)
        return self._transmit(message, sending, message)

    def _transmit(self, message: dict[str, Any], sending: _Sending, headers_from: dict[str, Any]) -> Reply:
        request_id, method, round = message["id"], message["method"], sending.round
        text = jsonrpc.encode(message)
        self.emit(events.RequestSent(request_id, method, sending.params, text, round, sending.purpose,
                                     sending.state_as_received))
        stopwatch = Stopwatch()
        try:
            exchange = self.transport.start(text, self.era.headers(headers_from, sending.mirrored),
                                            before_waiting=self.emit.held.before_waiting)
        except UnreachableError as error:  # the process ended, or read no more, while the frame was written
            raise _during(error, f"while mrtr sent {method} (id {request_id})") from None
        try:
            response, waiting = self._await(exchange, request_id, method, sending, stopwatch)
        finally:
            exchange.close()
        elapsed = stopwatch.elapsed_ms()
        reply = Reply(request_id, method, response.result, response.error, elapsed, waiting.status)
        self._note_server(reply.result)
        self.emit(events.ResponseReceived(request_id, method, reply.result, reply.error, elapsed, round))
        return reply

    def _with_meta(self, params: dict[str, Any], token: str) -> dict[str, Any]:
        """The params with this era's `_meta` (`Era.request_params`)."""
        s = self.settings
        return self.era.request_params(params, token, s.capabilities, s.identity, s.log_level)

    def _await(self, exchange: Exchange, request_id: int, method: str,
               sending: _Sending, stopwatch: Stopwatch) -> tuple[Response, Waiting]:
        """The response; in a conversation, events are held from its frame on (`events.HeldEvents`)."""
        deadline = Deadline(self.settings.timeout if sending.timeout is None else sending.timeout, sending.not_after,
                            notices=not self.heard)  # a server silent so far: say what mrtr waits for
        waiting = Waiting(request_id, method, deadline, self.emit, self.era.server_requests, self.emit.held,
                          stopwatch, late=self._take_late)
        try:
            self.emit.held.before_waiting()  # what was held is shown while the server works on this request
            for incoming in exchange.frames(deadline):
                self.heard = self.heard or isinstance(incoming, Frame)
                response = waiting.take(incoming)
                if response is not None:
                    return response, waiting
        except TransportTimeout:
            if sending.patient:  # still listened for: a late answer is an answer
                self._outstanding = (request_id, method, time.monotonic() - deadline.elapsed())
                self.emit(events.ProbeUnanswered(request_id, method, deadline.seconds))
            else:
                self._cancel(exchange, request_id, "timed out")
            raise timed_out(f"{method} (id {request_id})", deadline) from None
        except KeyboardInterrupt as raised:
            stopped = interruption(raised, f"while waiting for {method} (id {request_id})")
            self._cancel(exchange, request_id, interruption(raised).message)
            raise stopped from None
        except NotAServer:
            raise  # it says all: no "while mrtr waited for ..."
        except UnreachableError as error:
            raise _during(error, f"while mrtr waited for {method} (id {request_id})") from None
        raise _StreamEnded(request_id)

    def await_server_requests(self, arrived: Callable[[], bool]) -> bool:
        """Read what the server sends with no request in flight (stdio; HTTP's GET stream), answering its requests, until
        `arrived()` says what was awaited came, or --timeout passes: a replay waits so for the
        requests the recording saw the server send of its own accord, which come when the server
        chooses. Whether it came; False at once where nothing can be read outside a request."""
        exchange = listener(self.transport)
        if arrived() or exchange is None or self.era.server_requests is None:
            return arrived()
        deadline = Deadline(self.settings.timeout)
        waiting = Waiting(0, "(no request)", deadline, self.emit, self.era.server_requests)
        try:
            for incoming in exchange.frames(deadline):
                waiting.take(incoming)
                if arrived():
                    break
        except (TransportTimeout, UnreachableError):
            pass  # what did not come is a difference the replay names
        finally:
            exchange.close()
        return arrived()

    def _cancel(self, exchange: Exchange, request_id: int, reason: str) -> None:
        frame = jsonrpc.notification("notifications/cancelled", {"requestId": request_id, "reason": reason})
        text = jsonrpc.encode(frame)
        exchange.cancel(text)
        self.emit(events.CancelSent(request_id, reason, text))

    def who_asks(self) -> str:
        """Who asks a question, as the prompt names it: the server's name and version, else the transport."""
        info = self.server_info
        if info and info.get("name"):
            return f"{info.get('name')} {info.get('version', '')}".strip()
        return self.transport.describe()

    def _note_server(self, result: Any) -> None:
        info = meta.server_info(result)
        if info is not None and info != self.server_info:
            self.server_info = info
            self.emit(events.ServerIdentified(info))


class _Sending(NamedTuple):
    """One request as the caller gave it: sent again as it is when its stream breaks or the
    version changes, each time under a new id."""

    method: str
    params: dict[str, Any]
    round: int | None
    purpose: events.Purpose
    mirrored: Mirrored | None
    timeout: float | None
    not_after: float | None = None
    """A time.monotonic() time no wait for the response passes (None: none)."""
    patient: bool = False
    """On timeout, left outstanding instead of cancelled (`Client.request`)."""
    state_as_received: bool = True
    """Whether its requestState is the one the server sent (`events.RequestSent`)."""


NOT_DISCOVER_RESULT = "a result that is no DiscoverResult (no supportedVersions list)"
"""What a lenient older-era server may answer server/discover with: any result but the modern one."""

class _StreamEnded(Exception):
    """The exchange ended without the response (an HTTP stream that broke)."""

    def __init__(self, request_id: int) -> None:
        super().__init__(request_id)
        self.request_id = request_id


def _during(error: UnreachableError, when: str) -> UnreachableError:
    """`error` with when it happened: `... while mrtr sent tools/call (id 3)`."""
    return UnreachableError(f"{error.message} {when}", error.hint, error.details)


def _discover_error(error: dict[str, Any]) -> ProtocolError:
    code = error.get("code")
    if code in (jsonrpc.UNSUPPORTED_PROTOCOL_VERSION, jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY,
                jsonrpc.HEADER_MISMATCH):
        return explain("server/discover", error)
    return LegacyServerError.seen(f"the server answered server/discover with error {code} ({error.get('message')})",
                                  LEGACY_HINT, subject="it")
