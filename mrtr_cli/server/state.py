"""Sealed requestState: what a server hands out is tamper-evident and bound to one request.

The token is `base64url(payload).base64url(HMAC-SHA256(key, payload))`. The payload holds
the handler's state, the method, the name or URI, a digest of the arguments and an expiry,
so a token is refused when altered, when presented on another request, or when stale
(spec, `basic/patterns/mrtr`: servers MUST protect the integrity of state that matters and
SHOULD bind it to the originating request with a short expiry). The key is made at start,
unless one is shared (`key_from_text`: `mrtr demo-server --state-key KEY`): then every instance
sealing under it, and every restart, accepts the others' tokens.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from typing import Any

DEFAULT_TTL_SECONDS = 600.0


class StateRejected(Exception):
    """A requestState that fails verification; the message says why."""


class Sealer:
    """Seals and opens requestState tokens with one secret key."""

    def __init__(self, key: bytes | None = None, ttl: float = DEFAULT_TTL_SECONDS) -> None:
        self._key = key or secrets.token_bytes(32)
        self.ttl = ttl

    def seal(self, state: Any, request: dict[str, Any]) -> str:
        """A token carrying `state`, valid for this request only, until the TTL runs out."""
        payload = {"state": state, "request": request_digest(request), "expires": time.time() + self.ttl}
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        return f"{_b64(body)}.{_b64(self._mac(body))}"

    def open(self, token: str, request: dict[str, Any]) -> Any:
        """The state inside `token`; `StateRejected` when it was altered, moved or expired."""
        body = self._verified_body(token)
        payload = json.loads(body)
        if payload.get("request") != request_digest(request):
            raise StateRejected("requestState was issued for another request (method, name or arguments differ)")
        if time.time() > float(payload.get("expires", 0)):
            raise StateRejected("requestState has expired; start the request again without it")
        return payload.get("state")

    def _verified_body(self, token: str) -> bytes:
        encoded_body, dot, encoded_mac = token.partition(".")
        try:
            body, mac = _unb64(encoded_body), _unb64(encoded_mac)
        except ValueError:
            raise StateRejected("requestState is not a token this server issued") from None
        if not dot or not hmac.compare_digest(mac, self._mac(body)):
            raise StateRejected("requestState failed verification: it was altered or not issued by this server")
        return body

    def _mac(self, body: bytes) -> bytes:
        return hmac.new(self._key, body, hashlib.sha256).digest()


def key_from_text(text: str) -> bytes:
    """The sealing key a shared secret names: SHA-256 of its UTF-8 (bytes that are no UTF-8, from
    the command line or the environment, as they came)."""
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).digest()


def request_digest(request: dict[str, Any]) -> str:
    """What binds a token to a request: method, name or URI, and the arguments."""
    salient = json.dumps(request, separators=(",", ":"), sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(salient.encode()).hexdigest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as error:
        raise ValueError(str(error)) from None
