"""A 2026-07-28 server (stdio, standard library only) whose one tool pays an invoice over two rounds,
carrying what it decided in its requestState: each MODE handles that state one way, as a server
developer might, read against the MRTR page's rules for it (basic/patterns/mrtr):

    python state_server.py MODE

`pay_invoice` (argument `invoice`) asks the payment method (round 1), then asks to confirm the amount
and the fee that method costs (round 2); the retry charges them. Its state holds the step, the
invoice, the amount (and the invoice's lines, `INV-9`'s) and, from round 2 on, the method and the fee. The resource `invoice://INV-7`
asks the format to show it in; its state holds the invoice and the amount it shows.

- `plain`: "Servers are free to encode the state in any format (e.g. base64-encoded JSON ...)": the
  state is base64 JSON, and the server charges what it says. The bug: "If `requestState` influences
  authorization, resource access, or business logic, servers MUST protect its integrity".
- `mac-unchecked`: base64url JSON, `.`, an HMAC-SHA256 of it the server computes and never compares.
  The bug: servers "MUST reject state that fails verification".
- `mac-checked`: the same HMAC, verified, and the state bound to its invoice and its step: nothing
  to find.
- `tag-optional`: the JSON as hex, `:`, a hex HMAC the server checks only when one is there. The bug:
  a state without its tag fails verification too.
- `step-unbound`: the HMAC verified, but the state names no step: the server takes the step from the
  answers that came. The bug: servers SHOULD bind the state to "an identifier for the originating
  request ..., rejecting state presented on a request that does not match".
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import sys
from typing import Any

import stdlib_mcp
from stdlib_mcp import CACHE, Refused

INFO = {"name": "state-server", "version": "1.0"}
INVOICES = {"INV-7": 4200, "INV-9": 1200}
LINES = {"INV-9": [{"item": f"part-{number}", "cents": 100} for number in range(12)]}
"""The lines of an invoice that has them: its state carries them too (a long state)."""
FEES = {"card": 250, "bank": 0}
"""What each payment method costs, in cents."""
PAY = {"name": "pay_invoice", "description": "Pays an invoice: asks the payment method, then to confirm.",
       "inputSchema": {"type": "object", "properties": {"invoice": {"type": "string"}}, "required": ["invoice"]}}
INVOICE_URI = "invoice://INV-7"
KEY = secrets.token_bytes(32)
MODES = ("plain", "mac-unchecked", "mac-checked", "tag-optional", "step-unbound")


def form(message: str, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": {
        "type": "object", "properties": {name: schema}, "required": [name]}}}


def asking(key: str, question: dict[str, Any], state: dict[str, Any], mode: str) -> dict[str, Any]:
    if mode == "step-unbound":  # the careless part: nothing in the state says which round it belongs to
        state = {key: value for key, value in state.items() if key != "step"}
    return {"resultType": "input_required", "inputRequests": {key: question}, "requestState": sealed(state, mode),
            "_meta": {stdlib_mcp.SERVER_INFO: INFO}}


def mac(body: bytes) -> bytes:
    return hmac.new(KEY, body, hashlib.sha256).digest()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sealed(state: dict[str, Any], mode: str) -> str:
    body = json.dumps(state).encode()
    if mode == "plain":
        return base64.b64encode(body).decode()
    if mode == "tag-optional":
        return f"{body.hex()}:{mac(body).hex()}"
    return f"{b64url(body)}.{b64url(mac(body))}"


def opened(token: Any, mode: str) -> dict[str, Any]:
    """The state a retry brought back; `Refused` when it cannot be read (or, as the mode has it, verified)."""
    try:
        if mode == "plain":
            body = base64.b64decode(token)
        elif mode == "tag-optional":
            payload, _, tag = token.partition(":")
            body = bytes.fromhex(payload)
            if tag and not hmac.compare_digest(bytes.fromhex(tag), mac(body)):
                raise Refused(-32602, "Invalid requestState: its tag does not match")
        else:
            payload, _, tag = token.partition(".")
            body = unb64url(payload)
            if mode != "mac-unchecked" and not hmac.compare_digest(unb64url(tag), mac(body)):
                raise Refused(-32602, "Invalid requestState: its signature does not match")
        state = json.loads(body)
    except (ValueError, TypeError, AttributeError):
        raise Refused(-32602, "Invalid requestState") from None
    if not isinstance(state, dict):
        raise Refused(-32602, "Invalid requestState")
    return state


def answer(responses: Any, key: str) -> Any:
    """The accepted content of answer `key`, None when it is missing; a malformed one is refused."""
    if not isinstance(responses, dict):
        raise Refused(-32602, "Invalid params: inputResponses must be an object")
    given = responses.get(key)
    if given is None:
        return None
    if not isinstance(given, dict) or given.get("action") not in ("accept", "decline", "cancel"):
        raise Refused(-32602, f"Invalid params: inputResponses[{key!r}] is not an ElicitResult")
    if given["action"] != "accept":
        return False
    content = given.get("content")
    if not isinstance(content, dict) or key not in content:
        raise Refused(-32602, f"Invalid params: inputResponses[{key!r}] has no {key}")
    return content[key]


def pay_invoice(params: dict[str, Any], capabilities: dict[str, Any], mode: str) -> dict[str, Any]:
    invoice = str((params.get("arguments") or {}).get("invoice"))
    responses = params["inputResponses"] if "inputResponses" in params else {}
    if "requestState" in params:
        state = opened(params["requestState"], mode)
        if mode != "plain" and state.get("invoice") != invoice:
            raise Refused(-32602, "Invalid requestState: it was issued for another invoice")
    else:
        state = {"step": "method", "invoice": invoice, "amount": INVOICES.get(invoice, 1000),
                 **({"lines": LINES[invoice]} if invoice in LINES else {})}
    step = state.get("step") if mode != "step-unbound" else ("confirm" if "confirm" in (responses or {}) else "method")
    if step == "method":
        return method_round(state, responses, capabilities, mode)
    return confirm_round(state, responses, mode)


def method_round(state: dict[str, Any], responses: Any, capabilities: dict[str, Any], mode: str) -> dict[str, Any]:
    method = answer(responses, "method")
    if method is None or method is False:
        if "elicitation" not in capabilities:
            raise Refused(-32021, "Missing required client capability: elicitation",
                          {"requiredCapabilities": {"elicitation": {}}})
        return asking("method", form(f"How do you want to pay {state['invoice']}?", "method",
                                     {"type": "string", "enum": sorted(FEES)}), state, mode)
    if method not in FEES:
        raise Refused(-32602, f"Invalid params: no payment method {method!r}")
    state = {**state, "step": "confirm", "method": method, "fee": FEES[method]}
    return confirm_question(state, mode)


def confirm_question(state: dict[str, Any], mode: str) -> dict[str, Any]:
    message = f"Pay {state['amount']} cents and a fee of {state.get('fee', 0)} cents for {state['invoice']}?"
    return asking("confirm", form(message, "confirm", {"type": "boolean"}), state, mode)


def confirm_round(state: dict[str, Any], responses: Any, mode: str) -> dict[str, Any]:
    confirmed = answer(responses, "confirm")
    if confirmed is None:
        return confirm_question(state, mode)
    if confirmed is not True:
        return complete({"content": [{"type": "text", "text": "Nothing was paid."}]})
    amount, fee = int(state["amount"]), int(state.get("fee", 0))
    text = f"Paid {state['invoice']}: {amount + fee} cents charged ({amount} and a fee of {fee})."
    return complete({"content": [{"type": "text", "text": text}],
                     "structuredContent": {"invoice": state["invoice"], "charged": amount + fee, "fee": fee}})


def read_invoice(params: dict[str, Any], mode: str) -> dict[str, Any]:
    """The invoice, in the format the reader chooses; the amount shown comes from the state."""
    if "requestState" not in params:
        state = {"invoice": "INV-7", "amount": INVOICES["INV-7"]}
        return asking("format", form("Show the invoice as?", "format", {"type": "string", "enum": ["csv", "text"]}),
                      state, mode)
    state = opened(params["requestState"], mode)
    chosen = answer(params.get("inputResponses", {}), "format")
    if chosen not in ("csv", "text"):
        return asking("format", form("Show the invoice as?", "format", {"type": "string", "enum": ["csv", "text"]}),
                      state, mode)
    text = f"invoice,amount\n{state['invoice']},{state['amount']}" if chosen == "csv" else \
        f"{state['invoice']}: {state['amount']} cents"
    return complete({"contents": [{"uri": INVOICE_URI, "mimeType": "text/plain", "text": text}], **CACHE})


def complete(result: dict[str, Any]) -> dict[str, Any]:
    return stdlib_mcp.complete(INFO, result)


def result_of(method: str, params: dict[str, Any], mode: str) -> dict[str, Any]:
    capabilities = stdlib_mcp.declared(params)
    if method == "server/discover":
        return stdlib_mcp.discover(INFO, {"tools": {}, "resources": {}})
    if method == "tools/list":
        return complete({"tools": [PAY], **CACHE})
    if method == "resources/list":
        return complete({"resources": [{"uri": INVOICE_URI, "name": "INV-7"}], **CACHE})
    if method == "resources/templates/list":
        return complete({"resourceTemplates": [], **CACHE})
    if method == "resources/read" and params.get("uri") == INVOICE_URI:
        return read_invoice(params, mode)
    if method == "resources/read":
        raise Refused(-32602, f"Unknown resource: {params.get('uri')}")
    if method == "tools/call" and params.get("name") == "pay_invoice":
        return pay_invoice(params, capabilities, mode)
    if method == "tools/call":
        raise Refused(-32602, f"Unknown tool: {params.get('name')}")
    raise Refused(-32601, f"Method not found: {method}")


def main(mode: str) -> None:
    stdlib_mcp.serve_stdio(lambda message, caller: result_of(message["method"], message["params"], mode))


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        sys.exit(f"usage: state_server.py {{{','.join(MODES)}}}")
    main(sys.argv[1])
