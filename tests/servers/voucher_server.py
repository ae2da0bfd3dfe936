"""A small MCP 2026-07-28 server (stdio, standard library only) whose one tool redeems a voucher
after asking the user to confirm: a one-time redemption, the MRTR page's own example of state that
"must be consumed at most once". Each flag picks how it keeps the page's rules:

    python voucher_server.py [--state plain|sealed] [--expiry SECONDS] [--redeem again|once|same]
                             [--decline heard|as-accept]

- `--state plain` (the bug): the requestState is base64 JSON of the voucher alone, the same bytes on
  every run, so it carries no expiry and no nonce ("To prevent replay, servers SHOULD include ... a
  short expiry (TTL), rejecting state presented after it lapses"). `sealed` (the default): the
  voucher, the time it was issued and a nonce, under an HMAC.
- `--expiry SECONDS` (sealed only): a state older than this is refused ("rejecting state presented
  after it lapses"); without it a sealed state is taken at any age (the bug). The age is measured
  on time.monotonic, the clock a client on the same machine measures its hold with.
- `--redeem again` (the bug): every completing retry redeems, and the result counts the
  redemptions ("Servers for which a given requestState must be consumed at most once ... MUST
  enforce that invariant server-side"). `once`: a state redeems once, then is refused. `same`: every
  retry answers the same result (deduplicated, or not: a client cannot tell).
- `--decline as-accept` (the bug): a declined or cancelled confirmation is taken as the form's
  default, yes ("Servers should handle each state appropriately": decline and cancel are not
  accept). `heard` (the default): nothing is redeemed.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import secrets
import time
from typing import Any

import stdlib_mcp
from stdlib_mcp import CACHE, Refused

INFO = {"name": "voucher-server", "version": "1.0"}
REDEEM = {"name": "redeem", "description": "Redeems a voucher, once, after the user confirms.",
          "inputSchema": {"type": "object", "properties": {"voucher": {"type": "string"}}, "required": ["voucher"]}}
CONFIRM = {"method": "elicitation/create", "params": {
    "mode": "form", "message": "Redeem this voucher now?",
    "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean", "default": True}},
                        "required": ["confirm"]}}}
KEY = secrets.token_bytes(32)


class Vouchers:
    """The server's rules, as the flags chose them, and what it has redeemed."""

    def __init__(self, flags: argparse.Namespace) -> None:
        self.flags = flags
        self.redemptions = 0
        self.consumed: set[str] = set()

    def seal(self, voucher: str) -> str:
        if self.flags.state == "plain":
            return base64.b64encode(json.dumps({"voucher": voucher}).encode()).decode()
        body = json.dumps({"voucher": voucher, "issued": time.monotonic(), "nonce": secrets.token_hex(8)}).encode()
        mac = hmac.new(KEY, body, hashlib.sha256).hexdigest()
        return base64.urlsafe_b64encode(body).decode() + "." + mac

    def opened(self, state: Any, voucher: str) -> None:
        """Refuses a state that is not this voucher's, is altered, or has lapsed."""
        try:
            if self.flags.state == "plain":
                payload = json.loads(base64.b64decode(state))
            else:
                encoded, _, mac = str(state).partition(".")
                body = base64.urlsafe_b64decode(encoded)
                if not hmac.compare_digest(mac, hmac.new(KEY, body, hashlib.sha256).hexdigest()):
                    raise ValueError("altered")
                payload = json.loads(body)
        except (ValueError, TypeError):
            raise Refused(-32602, "Invalid requestState") from None
        if payload.get("voucher") != voucher:
            raise Refused(-32602, "requestState is for another voucher")
        expiry = self.flags.expiry
        if expiry is not None and time.monotonic() - float(payload["issued"]) >= expiry:
            raise Refused(-32602, "requestState has expired; start again")

    def redeem(self, params: dict[str, Any]) -> dict[str, Any]:
        voucher = str(params["arguments"]["voucher"])
        answer = (params.get("inputResponses") or {}).get("confirm")
        if answer is None:
            return {"resultType": "input_required", "inputRequests": {"confirm": CONFIRM},
                    "requestState": self.seal(voucher), "_meta": {stdlib_mcp.SERVER_INFO: INFO}}
        state = params.get("requestState")
        self.opened(state, voucher)
        action = answer.get("action")
        confirmed = (answer.get("content") or {}).get("confirm", True) if action == "accept" else \
            self.flags.decline == "as-accept"
        if not confirmed:
            return complete(f"Not redeemed: you chose {action}.", {"voucher": voucher, "redeemed": False})
        if self.flags.redeem == "once":
            if state in self.consumed:
                raise Refused(-32602, "requestState was already used")
            self.consumed.add(str(state))
        if self.flags.redeem == "same":
            return complete(f"Redeemed voucher {voucher}.", {"voucher": voucher, "redeemed": True})
        self.redemptions += 1
        return complete(f"Redeemed voucher {voucher} (redemption {self.redemptions}).",
                        {"voucher": voucher, "redeemed": True, "redemption": self.redemptions})


def complete(text: str, structured: dict[str, Any]) -> dict[str, Any]:
    return stdlib_mcp.complete(INFO, {"content": [{"type": "text", "text": text}], "structuredContent": structured})


def result_of(vouchers: Vouchers, method: str, params: dict[str, Any]) -> dict[str, Any]:
    declared = stdlib_mcp.declared(params)
    if method == "server/discover":
        return stdlib_mcp.discover(INFO, {"tools": {}})
    if method == "tools/list":
        return stdlib_mcp.complete(INFO, {"tools": [REDEEM], **CACHE})
    if method == "tools/call" and params.get("name") == "redeem":
        if "elicitation" not in declared:
            raise Refused(-32021, "Missing required client capability: elicitation",
                          {"requiredCapabilities": {"elicitation": {}}})
        return vouchers.redeem(params)
    if method == "tools/call":
        raise Refused(-32602, f"Unknown tool: {params.get('name')}")
    raise Refused(-32601, f"Method not found: {method}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", choices=["plain", "sealed"], default="sealed")
    parser.add_argument("--expiry", type=float, default=None)
    parser.add_argument("--redeem", choices=["again", "once", "same"], default="once")
    parser.add_argument("--decline", choices=["heard", "as-accept"], default="heard")
    vouchers = Vouchers(parser.parse_args())
    stdlib_mcp.serve_stdio(lambda message, caller: result_of(vouchers, message["method"], message.get("params") or {}))


if __name__ == "__main__":
    main()
