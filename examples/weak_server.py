"""examples/my_server.py with one mistake a server author makes: a tool that charges what its
requestState says, and the state is only base64 JSON. `mrtr check` finds it:

    mrtr check --tool buy_tickets -a event=opera --answer seats.seats=2 -- python examples/weak_server.py

`buy_tickets` asks how many seats; its state carries the event, the price and the booking fee, and
the retry charges seats × price + fee straight from the state. The MRTR page: "If `requestState`
influences authorization, resource access, or business logic, servers MUST protect its integrity
(e.g. HMAC or AEAD) and MUST reject state that fails verification." Anyone can decode this state,
set the fee to 1 and encode it again: `state-forged-field` fails. (It does check the event against
the arguments, so a state sent with other arguments is refused.) Sealing the state as the demo does
(mrtr_cli/server/state.py: an HMAC over the payload, verified on the retry) fixes it.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from my_server import INFO, Refused, asks_forms, complete, main

PRICES = {"opera": 4000, "jazz": 2500}
"""Cents a seat."""
BOOKING_FEE = 250
BUY = {"name": "buy_tickets", "description": "Buys tickets for an event, asking how many seats first.",
       "inputSchema": {"type": "object", "properties": {"event": {"type": "string", "enum": sorted(PRICES)}},
                       "required": ["event"]}}
ASK_SEATS = {"method": "elicitation/create", "params": {
    "mode": "form", "message": "How many seats?",
    "requestedSchema": {"type": "object", "properties": {"seats": {"type": "integer", "minimum": 1, "maximum": 8}},
                        "required": ["seats"]}}}


def buy_tickets(params: dict[str, Any], capabilities: dict[str, Any]) -> dict[str, Any]:
    event = str(params["arguments"]["event"])
    answer = (params.get("inputResponses") or {}).get("seats")
    if answer is None:
        if not asks_forms(capabilities):
            raise Refused(-32021, "Missing required client capability: elicitation.form",
                          {"requiredCapabilities": {"elicitation": {"form": {}}}})
        state = {"event": event, "fee": BOOKING_FEE, "price": PRICES.get(event, 1000)}
        return {"resultType": "input_required", "inputRequests": {"seats": ASK_SEATS},
                "requestState": base64.urlsafe_b64encode(json.dumps(state).encode()).decode(), "_meta": INFO}
    state = opened(params.get("requestState"))
    if state.get("event") != event:
        raise Refused(-32602, "Invalid or expired requestState")
    if answer["action"] != "accept":
        return complete({"content": [{"type": "text", "text": "No tickets bought."}], "isError": True})
    seats = int(answer["content"]["seats"])
    charged = seats * int(state["price"]) + int(state["fee"])  # the mistake: the price and fee come from the client
    return complete({"content": [{"type": "text", "text": f"Charged {charged} cents for {seats} seats at {event}."}],
                     "structuredContent": {"charged": charged, "seats": seats}})


def opened(state: Any) -> dict[str, Any]:
    try:
        decoded = json.loads(base64.urlsafe_b64decode(state))
    except (ValueError, TypeError):
        raise Refused(-32602, "Invalid or expired requestState") from None
    if not isinstance(decoded, dict):
        raise Refused(-32602, "Invalid or expired requestState")
    return decoded


if __name__ == "__main__":
    main({"buy_tickets": (BUY, buy_tickets)})
