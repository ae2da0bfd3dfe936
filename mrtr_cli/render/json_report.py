"""The `--json` documents: one object on stdout, and the error line on stderr.

Their JSON Schemas are published in docs/json/. Plain data, no rich.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

from mrtr_cli.errors import HopRefused, MrtrError, ServerError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.text import json_escaped
from mrtr_cli.transcript.rounds import report_view

VERSION = 1


def conversation(outcome: Outcome, continued: list[Any] | None = None) -> dict[str, Any]:
    """The document of `call`, `read` and `prompt` (and `show`, with each continuation `mrtr answer` made)."""
    document: dict[str, Any] = {"version": VERSION, "outcome": outcome.status}
    if outcome.result is not None:
        document["result"] = outcome.result
    if outcome.error is not None:
        document["error"] = error_object(outcome.error)
    document["rounds"] = [report_view(r) for r in outcome.rounds]
    if outcome.task is not None:
        document["task"] = outcome.task.as_dict()
    document["server"] = outcome.server
    if outcome.era is not None:
        document["era"] = outcome.era
    document["findings"] = [asdict(f) for f in outcome.findings]
    if continued:
        document["continued"] = [event._asdict() for event in continued]
    return document


def error_object(error: MrtrError) -> dict[str, Any]:
    """A server's JSON-RPC error as received, or mrtr's own error, never mistakable for each other."""
    if isinstance(error, HopRefused):  # the server's error, and mrtr's words for where it was refused
        return {"type": "jsonrpc", **error.error, "hop": {"message": error.message, "hint": error.hint}}
    if isinstance(error, ServerError):
        return {"type": "jsonrpc", **error.error}
    return {"type": "local", "name": error.exit_code.label, "message": error.one_line()}


def listing_document(result: dict[str, Any], excluded: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """The document of `list` and `discover`: the result as received, pages merged."""
    document = {"version": VERSION, **result}
    if excluded is not None:
        document["excluded"] = excluded
    return document


def error_line(code: ExitCode, message: str) -> str:
    """The last line on stderr of a failed `--json` run."""
    return json_escaped(json.dumps({"error": {"code": code.label, "message": message}}, ensure_ascii=False))


def json_pieces(document: dict[str, Any]) -> Iterator[str]:
    """Readable JSON that is still safe on a terminal (see `text.json_escaped`), a piece at a
    time, so that writing a big result does not hold it twice over. Escaping works character by
    character, so escaping the pieces escapes the whole."""
    encoder = json.JSONEncoder(ensure_ascii=False, indent=2)
    return (json_escaped(piece) for piece in encoder.iterencode(document))
