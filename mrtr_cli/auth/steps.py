"""The record of one login: the steps the timeline shows, and the HTTP of each step for -v.

Every request of the authorization flow goes through `Recorder.fetch`, which notes it for -v with
secrets hidden (Authorization, and the body fields that carry codes, tokens, secrets and the PKCE
verifier) unless --show-secrets. Each step goes at once to `live` (the login's thread hands it to the
timeline; check's probes show none). No httpx here: the transport's `fetch` does the HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

from mrtr_cli.errors import AuthError, MrtrError, ProtocolError, UnreachableError
from mrtr_cli.text import safe_line
from mrtr_cli.transport import http_headers
from mrtr_cli.transport.base import AuthNote, Fetch, Incoming, PlainReply, WireInfo

SECRET_FIELDS = frozenset({"code", "code_verifier", "client_secret", "access_token", "refresh_token", "id_token",
                           "assertion", "client_assertion", "registration_access_token"})
"""Form and JSON fields that carry a secret: hidden in -v unless --show-secrets, never elsewhere."""


class Recorder:
    """Fetches for the flow and keeps what happened, in order."""

    def __init__(self, fetch: Fetch, show_secrets: bool = False,
                 live: Callable[[Incoming], None] | None = None) -> None:
        self._fetch = fetch
        self.show_secrets = show_secrets
        self.live = live

    def note(self, step: str, text: str, **fields: Any) -> None:
        """A step for the timeline; `fields` (never a secret) for the transcript."""
        self._add(AuthNote(step, text, {"step": step, **fields}))

    def failed(self, reason: str) -> None:
        self.note("failed", reason)

    def get_json(self, url: str) -> tuple[int | str, Any]:
        """GET a JSON document: the HTTP status (or why there was none), and the document (None when
        there is no JSON body)."""
        try:
            reply = self.fetch("GET", url, {"Accept": "application/json"})
        except (UnreachableError, ProtocolError) as error:
            return error.message, None
        return reply.status, parse_json(reply.body)

    def fetch(self, method: str, url: str, headers: dict[str, str], body: bytes | None = None) -> PlainReply:
        """One request, noted for -v before it goes and when its answer arrives."""
        self._add(WireInfo("out", self._describe_request(method, url, headers, body)))
        reply = self._fetch(method, url, headers, body)
        self._add(WireInfo("in", self._describe_reply(reply)))
        return reply

    def _add(self, item: Incoming) -> None:
        if self.live is not None:
            self.live(item)

    def _describe_request(self, method: str, url: str, headers: dict[str, str], body: bytes | None) -> str:
        first = f"{method} {safe_line(url, 500)}"
        text = http_headers.describe(first, headers.items(), self.show_secrets)
        return text if not body else f"{text}\n\n{self.masked_body(body, headers.get('Content-Type', ''))}"

    def _describe_reply(self, reply: PlainReply) -> str:
        text = http_headers.describe(f"HTTP {reply.status}", reply.headers.items(), self.show_secrets)
        if not reply.body:
            return text
        return f"{text}\n\n{self.masked_body(reply.body, reply.headers.get('content-type', ''))}"

    def masked_body(self, body: bytes, kind: str) -> str:
        """A body for -v, its secret fields hidden unless --show-secrets."""
        text = body.decode("utf-8", "replace")
        if "x-www-form-urlencoded" in kind:
            pairs = [(name, self._shown(name, value)) for name, value in parse_qsl(text, keep_blank_values=True)]
            return safe_line(urlencode(pairs, safe="[]/:, ", quote_via=quote), 2000)
        document = parse_json(body)
        if isinstance(document, dict):
            shown = {name: self._shown(name, value) for name, value in document.items()}
            return safe_line(json.dumps(shown), 2000)
        return safe_line(text, 500)

    def _shown(self, name: str, value: Any) -> Any:
        if name in SECRET_FIELDS and not self.show_secrets and isinstance(value, str):
            return f"[hidden, {len(value)} characters]"
        return value


def parse_json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def refuse(recorder: Recorder, reason: str, hint: str, error: type[MrtrError] = AuthError) -> MrtrError:
    """The error that ends a login (exit 3, or `error`'s), noted as the step that failed."""
    recorder.failed(reason)
    return error(reason, hint)
