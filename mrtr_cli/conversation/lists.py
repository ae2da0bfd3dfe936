"""Lists that span pages: every page of tools/list, prompts/list, ... merged; and whether a list
names the tool, prompt or resource a user named."""

from __future__ import annotations

import re
from typing import Any

from mrtr_cli.conversation.client import Client
from mrtr_cli.conversation.explain import unlisted_hint_text
from mrtr_cli.errors import MrtrError, ProtocolError
from mrtr_cli.protocol.mrtr import Complete, read_result

MAX_PAGES = 1000
"""A list longer than this many pages is taken for a server that loops."""


def list_all(client: Client, method: str, key: str) -> tuple[dict[str, Any], int]:
    """Every page of a list, merged under `key`, and how many pages there were: as the client's keeper of lists
    has it (`Client.kept_lists`, `mrtr shell`), else fetched."""
    if client.kept_lists is not None:
        return client.kept_lists(method, key)
    return fetch_all(client, method, key)


def fetch_all(client: Client, method: str, key: str) -> tuple[dict[str, Any], int]:
    """Every page of a list fetched from the server now, merged under `key`, and how many pages there were."""
    items: list[Any] = []
    seen: set[str] = set()
    params: dict[str, Any] = {}
    for page in range(1, MAX_PAGES + 1):
        read = read_result(method, client.result_of(method, params, purpose="list"))
        assert isinstance(read, Complete), "read_result refuses input_required outside MRTR_METHODS"
        result = read.result
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


LISTED_IN = {"tools/call": ("tool", "tools/list", "tools", "name"),
             "prompts/get": ("prompt", "prompts/list", "prompts", "name"),
             "resources/read": ("resource", "resources/list", "resources", "uri")}
"""For each request naming something: what it names, and the list (method, key, field) that names them."""
MAX_NAME = 200
"""The longest listed name offered as a likely one (comparing names costs their length squared)."""


def unlisted_hint(client: Client, method: str, subject: str) -> str | None:
    """`no tool 'book_tabel'; did you mean 'book_table'? (mrtr list tools)` when the server does not
    list the tool, prompt or resource `subject` (a URI that a resource template matches counts as
    listed); None when it lists it, when its list cannot be read, or for another method."""
    if method not in LISTED_IN:
        return None
    kind, list_method, key, field = LISTED_IN[method]
    try:
        names = _names(list_all(client, list_method, key)[0][key], field)
    except MrtrError:
        return None
    if subject in names:
        return None
    likely_uris: list[str] = []
    if method == "resources/read":
        templates = _templates(client)
        if any(_matches_template(subject, template) for template in templates):
            return None
        likely_uris = [uri for template in templates if (uri := _template_fix(subject, template))]
    if _undeclared_roots(client, subject):
        return (f"the server lists no {kind} {subject!r} to mrtr, which declared no roots (nothing could answer "
                "them, or --no-roots); a server may list such a tool only to a client that does: give --root DIR")
    likely = [name for name in names if len(name) <= MAX_NAME]  # the spec's names are 1 to 128 characters
    return unlisted_hint_text(subject, (likely_uris + _close_names(subject, likely))[:3], kind)


def _close_names(subject: str, names: list[str]) -> list[str]:
    """The names `subject` is a typo of, case aside (`BOOK_TABLE` for `book_table`)."""
    import difflib  # only for a name the server does not list

    by_lower = {name.lower(): name for name in reversed(names)}  # the first of names equal but for case
    return [by_lower[close] for close in difflib.get_close_matches(subject.lower(), list(by_lower), n=3)]


def _template_fix(uri: str, template: str) -> str | None:
    """`uri` with its start made the template's (`vault://recipes` for `vaul://recipes` and
    `vault://{name}`), when that start is a typo of the template's text before its first expression
    and the rest then fits the template; else None."""
    import difflib  # only for a URI the server does not list

    start = re.split(r"\{[^{}]*\}", template)[0]
    if len(start) < 3 or len(uri) > MAX_NAME or start == template:
        return None
    likeness = {length: difflib.SequenceMatcher(None, uri[:length].lower(), start.lower()).ratio()
                for length in (len(start), len(start) - 1, len(start) + 1)}  # one character kept, lost or added
    length = max(likeness, key=likeness.__getitem__)
    fixed = start + uri[length:]
    return fixed if likeness[length] >= 0.8 and _matches_template(fixed, template) else None


def _undeclared_roots(client: Client, subject: str) -> bool:
    """A roots tool asked for while mrtr declared no roots: a server may list one only to a client
    that declares them (the npm server-everything's get-roots-list), so a did-you-mean would mislead."""
    capabilities = client.settings.capabilities
    declared = client.era.declares_roots(capabilities)
    return "root" in subject.lower() and not declared


def _names(items: list[Any], field: str) -> list[str]:
    return [item[field] for item in items if isinstance(item, dict) and isinstance(item.get(field), str)]


def _templates(client: Client) -> list[str]:
    """The server's resource templates; none when it has no such list."""
    try:
        return _names(list_all(client, "resources/templates/list", "resourceTemplates")[0]["resourceTemplates"],
                      "uriTemplate")
    except MrtrError:
        return []


def _matches_template(uri: str, template: str) -> bool:
    """Whether `uri` may be an expansion of the RFC 6570 `template`, leniently: each `{expression}`
    stands for any text. Matched piece by piece with str.find, so a hostile template costs no
    backtracking."""
    first, *pieces = re.split(r"\{[^{}]*\}", template)
    if not pieces:
        return uri == template
    *middle, last = pieces
    end = len(uri) - len(last)
    if not uri.startswith(first) or not uri.endswith(last) or end < len(first):
        return False
    position = len(first)
    for piece in middle:
        found = uri.find(piece, position, end)
        if found < 0:
            return False
        position = found + len(piece)
    return True
