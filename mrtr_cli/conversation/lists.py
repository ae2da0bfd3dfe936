"""Lists that span pages: every page of tools/list, prompts/list, ... merged."""

from __future__ import annotations

from typing import Any

from mrtr_cli.conversation.client import Client
from mrtr_cli.errors import ProtocolError
from mrtr_cli.protocol.mrtr import read_result

MAX_PAGES = 1000
"""A list longer than this many pages is taken for a server that loops."""


def list_all(client: Client, method: str, key: str) -> tuple[dict[str, Any], int]:
    """Every page of a list, merged under `key`, and how many pages there were."""
    items: list[Any] = []
    seen: set[str] = set()
    params: dict[str, Any] = {}
    for page in range(1, MAX_PAGES + 1):
        result = read_result(method, client.result_of(method, params, purpose="list")).result
        if not isinstance(result.get(key), list):
            raise ProtocolError(f"the result of {method} has no {key} list")
        items.extend(result[key])
        cursor = result.get("nextCursor")
        if cursor is None:
            return {**{k: v for k, v in result.items() if k != key}, key: items}, page
        if not isinstance(cursor, str) or cursor in seen:
            raise ProtocolError(f"{method} returned the nextCursor {cursor!r} again (or not a string)")
        seen.add(cursor)
        params = {"cursor": cursor}
    raise ProtocolError(f"{method} had more than {MAX_PAGES} pages", "the server's pagination may loop")
