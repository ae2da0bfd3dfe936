"""`--har FILE`: the HTTP exchanges of conversations as a HAR 1.2 log, which browsers' developer
tools and HTTP debuggers open.

Built from transcript documents (what `--record` keeps), one entry a round: the POST with the
headers as sent (redacted as in transcripts: Authorization and the like never kept, unless
`--show-secrets` gives the documents their secret headers back: TranscriptBuilder.document_with_credentials)
and the JSON-RPC request as its body; the status, the content type and the body's messages as the
response, an event stream's messages as SSE events (`event: message` / `data: ...`) in its text.
The authorization flow's requests are not rounds, so no OAuth exchange is in the log. What a
transcript does not keep is not here either: the response's other headers (the log says so in
its `comment`), and its exact bytes.

Pure functions over plain dicts, and one writer; standard library only.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mrtr_cli import __version__
from mrtr_cli.errors import UsageError

COMMENT = ("built by mrtr from its transcripts: request headers as sent (secrets redacted), the response's "
           "status, content type and messages; its other headers are not kept")
"""The log's comment: what a reader should know it does not hold."""
SHOWN_COMMENT = COMMENT.replace("(secrets redacted)", "(secrets shown: --show-secrets)")
"""The comment of a log written with --show-secrets: its requests' credentials are as sent."""


def is_http(document: dict[str, Any]) -> bool:
    """Whether a transcript's conversation went over HTTP (only those have exchanges to show)."""
    return bool((document.get("target") or {}).get("url"))


def har_log(documents: Sequence[dict[str, Any]], secrets_shown: bool = False) -> dict[str, Any]:
    """The log of every round of `documents` that went over HTTP, in order; `secrets_shown`: the
    documents hold their secret headers (--show-secrets), and the comment says so."""
    entries = [entry for document in documents if is_http(document) for entry in _entries(document)]
    return {"log": {"version": "1.2", "creator": {"name": "mrtr", "version": __version__}, "entries": entries,
                    "comment": SHOWN_COMMENT if secrets_shown else COMMENT}}


def write_log(path: str, log: dict[str, Any]) -> None:
    """Write the log to `path` as UTF-8 JSON; an unwritable path is exit 1."""
    try:
        Path(path).write_text(json.dumps(log, indent=2, ensure_ascii=False) + "\n", encoding="utf-8",
                              errors="surrogateescape")
    except OSError as error:
        raise UsageError(f"cannot write the HAR log {path}: {error.strerror or error}",
                         "check that its directory exists and is writable") from None


def _entries(document: dict[str, Any]) -> list[dict[str, Any]]:
    url = document["target"]["url"]
    method = (document.get("request") or {}).get("method", "")
    started = _started(document)
    entries = []
    for entry in document.get("rounds") or []:
        elapsed = float(entry.get("elapsed_ms") or 0.0)
        entries.append({"startedDateTime": started.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                        "time": elapsed, "request": _request(url, method, entry), "response": _response(entry),
                        "cache": {}, "timings": {"send": 0, "wait": elapsed, "receive": 0}})
        started += datetime.timedelta(milliseconds=elapsed)
    return entries


def _request(url: str, method: str, entry: dict[str, Any]) -> dict[str, Any]:
    sent = entry.get("sent") or {}
    body = json.dumps({"jsonrpc": "2.0", "id": entry.get("id"), "method": method, "params": sent.get("params", {})},
                      ensure_ascii=False)
    headers = [{"name": str(name), "value": str(value)} for name, value in (sent.get("headers") or {}).items()]
    return {"method": "POST", "url": url, "httpVersion": "HTTP/1.1", "cookies": [], "headers": headers,
            "queryString": [], "postData": {"mimeType": "application/json", "text": body},
            "headersSize": -1, "bodySize": len(body.encode("utf-8", "surrogatepass"))}


def _response(entry: dict[str, Any]) -> dict[str, Any]:
    received = entry.get("received") or {}
    content_type = str(received.get("content_type") or "application/json")
    answer: dict[str, Any] = {"jsonrpc": "2.0", "id": entry.get("id")}
    answer.update({"error": received["error"]} if "error" in received else {"result": received.get("result", {})})
    if "event-stream" in content_type:
        messages = [*({"jsonrpc": "2.0", **note} for note in received.get("notifications") or []), answer]
        text = "".join(f"event: message\ndata: {json.dumps(message, ensure_ascii=False)}\n\n" for message in messages)
    else:
        text = json.dumps(answer, ensure_ascii=False)
    return {"status": int(received.get("status") or 200), "statusText": "", "httpVersion": "HTTP/1.1",
            "cookies": [], "headers": [{"name": "Content-Type", "value": content_type}],
            "content": {"size": len(text.encode("utf-8", "surrogatepass")), "mimeType": content_type, "text": text},
            "redirectURL": "", "headersSize": -1, "bodySize": -1}


def _started(document: dict[str, Any]) -> datetime.datetime:
    """When the conversation was recorded (now, for one not yet written)."""
    at = (document.get("recorded") or {}).get("at")
    try:
        return datetime.datetime.fromisoformat(str(at).replace("Z", "+00:00"))
    except ValueError:
        return datetime.datetime.now(datetime.timezone.utc)
