"""`mrtr check`'s probe of `subscriptions/listen`: the stream a server opens starts with
`notifications/subscriptions/acknowledged`, which carries the subscription's id (the listen
request's id) in `_meta`. mrtr reads the stream only until its first message, then cancels it
(stdio: notifications/cancelled; HTTP: the stream is closed). It asks for tools/list_changed only
and makes the server change nothing, so the acknowledgement is the one notification it judges.

A server that declares no listChanged or subscribe capability and answers -32601 is not judged.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.check.verdicts import Check, Probe, ProbeFailed, short, verdict
from mrtr_cli.errors import ProtocolError
from mrtr_cli.protocol import jsonrpc
from mrtr_cli.protocol.meta import SUBSCRIPTION_ACKNOWLEDGED as ACKNOWLEDGED
from mrtr_cli.protocol.meta import SUBSCRIPTION_ID
from mrtr_cli.transport.base import Deadline, Frame, TransportTimeout

LISTEN_ID = 900002
"""The id of the listen request: the subscription id its notifications must carry."""
WAIT_DECLARED, WAIT_UNDECLARED = 5.0, 1.0
"""Seconds to wait for the stream's first message, when the server declares a capability that
uses it and when it does not (a server may then keep silent)."""
PAGE = "basic/utilities/subscriptions"


def listen_checks(prober: Any) -> list[Check]:
    """The two listen probes, judged on the first message of one subscriptions/listen stream."""
    declared = _uses_subscriptions(prober.declared)
    first = _first_message(prober, min(prober.client.settings.timeout, WAIT_DECLARED if declared else WAIT_UNDECLARED))
    if isinstance(first, jsonrpc.Response) and (first.error or {}).get("code") == jsonrpc.METHOD_NOT_FOUND:
        if not declared:
            why = "-32601, and the server declares no listChanged or subscribe capability: not offered"
            return [verdict(*probe, None, why) for probe in LISTEN_PROBES]
        return _both(False, "declares listChanged or subscribe, yet answers subscriptions/listen with -32601")
    if first is None:
        why = "nothing came on the stream"
        return _both(False, why) if declared else [verdict(*probe, None, f"{why}; no capability uses it")
                                                   for probe in LISTEN_PROBES]
    if not isinstance(first, jsonrpc.Notification):
        return _both(False, f"the first message is not a notification: {short(first.raw[:200])}")
    meta = first.params.get("_meta")
    tag = meta.get(SUBSCRIPTION_ID) if isinstance(meta, dict) else None
    return [verdict(*SUBSCRIPTION_ACK, first.method == ACKNOWLEDGED, f"the first message is {first.method}"),
            verdict(*SUBSCRIPTION_ID_TAGGED, tag == LISTEN_ID, f"{first.method}: {SUBSCRIPTION_ID} {short(tag)} "
                                                              f"(the listen request's id is {LISTEN_ID})")]


def _both(ok: bool, seen: str) -> list[Check]:
    return [verdict(*probe, ok, seen) for probe in LISTEN_PROBES]


def _uses_subscriptions(declared: dict[str, Any] | None) -> bool:
    """Whether the declared capabilities promise something a listen stream delivers."""
    found = [value for value in (declared or {}).values() if isinstance(value, dict)]
    return any(value.get("listChanged") or value.get("subscribe") for value in found)


def _first_message(prober: Any, seconds: float) -> Any:
    """The first JSON-RPC message on the listen stream, or None when none came in `seconds`."""
    client = prober.client
    params = {"notifications": {"toolsListChanged": True}, "_meta": prober.meta_for()}
    message = jsonrpc.request(LISTEN_ID, "subscriptions/listen", params)
    text = jsonrpc.encode(message)
    client.emit(events.RequestSent(LISTEN_ID, "subscriptions/listen", params, text, None, "probe"))
    exchange = client.transport.start(text, client.era.headers(message))
    try:
        for incoming in exchange.frames(Deadline(seconds)):
            if isinstance(incoming, Frame):
                decoded = jsonrpc.decode(incoming.data)
                client.emit(events.FrameReceived(decoded))
                if isinstance(decoded, jsonrpc.Response) and not jsonrpc.same_id(decoded.id, LISTEN_ID):
                    continue  # a late answer to an earlier request (stdio shares one channel)
                if isinstance(decoded, (jsonrpc.Notification, jsonrpc.Response, jsonrpc.Request)):
                    return decoded
    except TransportTimeout:
        pass
    except ProtocolError as error:  # what came could not be read (a body that does not decode)
        raise ProbeFailed(f"subscriptions/listen: {error.message}") from None
    finally:
        exchange.cancel(jsonrpc.encode(jsonrpc.notification("notifications/cancelled", {"requestId": LISTEN_ID})))
        exchange.close()
    return None


SUBSCRIPTION_ACK: Probe = ("subscription-ack",
                           "subscriptions/listen starts with notifications/subscriptions/acknowledged", "MUST", PAGE)
SUBSCRIPTION_ID_TAGGED: Probe = ("subscription-id-tagged",
                                 "the listen stream's notifications carry its subscription id in _meta", "MUST", PAGE)
LISTEN_PROBES: list[Probe] = [SUBSCRIPTION_ACK, SUBSCRIPTION_ID_TAGGED]
"""The probes judged on the listen stream's first message, in the order shown."""
