"""Lone surrogates, which no YAML file can hold, replaced by U+FFFD before a transcript keeps them.

A JSON text may escape half of a UTF-16 pair alone (`"\\ud800"`), and Python reads it as a
string holding a lone surrogate (U+D800 to U+DFFF). YAML allows no such character, not even
escaped, and UTF-8 cannot encode one. The transcript builder keeps U+FFFD in its place and a
finding that names each place, as a JSON path (`$.rounds[0].received.result.content[0].text`).

The check is a C-speed pass over each text that is not ASCII (an ASCII text cannot hold one):
results of 20 MB pass through here.
"""

from __future__ import annotations

import re
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.text import safe_line
from mrtr_cli.transcript.paths import JsonPath, show_path

REPLACEMENT = "\ufffd"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
RULE = "lone-surrogate"
PAGE = "https://www.rfc-editor.org/rfc/rfc8259#section-8.2"
"""RFC 8259 on JSON strings that hold lone surrogates: what a receiver does with them is unpredictable."""
_SLICE = 65_536
"""How much of a text is encoded at a time to be checked."""
_NAMED = 3
"""How many places a finding names."""
_PATH_SHOWN = 200
"""How much of a place's path a finding shows (a key may be a long text)."""


def writable(part: dict[str, Any], where: JsonPath, number: int | None) -> tuple[dict[str, Any], events.Finding | None]:
    """`part` (the header, a round, the ending; at `where` in the document) as it can be written:
    unchanged when it holds no lone surrogate (the usual case, nothing copied), else a copy with
    U+FFFD in place of each, and the finding that says where (of round `number`)."""
    if not holds_lone_surrogate(part):
        return part, None
    places: list[JsonPath] = []
    return _replaced(part, list(where), places), finding(places, number)


def holds_lone_surrogate(value: Any) -> bool:
    """Whether a text of `value` (a key or a value, at any depth) holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and not _encodable(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _encodable(text: str) -> bool:
    """Whether UTF-8 can encode `text` (it cannot encode a lone surrogate), a slice at a time."""
    try:
        for start in range(0, len(text), _SLICE):
            text[start:start + _SLICE].encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _replaced(value: Any, path: JsonPath, places: list[JsonPath]) -> Any:
    """A copy of `value` with U+FFFD for each lone surrogate; where each text was goes to `places`
    (for a key, the path through the key as it is written)."""
    if isinstance(value, str):
        fixed = _fixed(value)
        if fixed is not value:
            places.append(path)
        return fixed
    if isinstance(value, dict):
        copied = {}
        for key, item in value.items():
            name = _fixed(key) if isinstance(key, str) else key
            if name is not key:
                places.append([*path, name])
            copied[name] = _replaced(item, [*path, name], places)
        return copied
    if isinstance(value, list):
        return [_replaced(item, [*path, index], places) for index, item in enumerate(value)]
    return value


def _fixed(text: str) -> str:
    """`text` itself when UTF-8 can encode it, else a copy with U+FFFD for each lone surrogate."""
    if text.isascii() or _encodable(text):
        return text
    return _LONE_SURROGATE.sub(REPLACEMENT, text)


def finding(places: list[JsonPath], number: int | None) -> events.Finding:
    """The warning that the transcript holds U+FFFD where lone surrogates were."""
    named = ", ".join(safe_line(show_path(place), _PATH_SHOWN) for place in places[:_NAMED])
    more = f" and {len(places) - _NAMED} more" if len(places) > _NAMED else ""
    if len(places) == 1:
        said = "holds a lone surrogate, which YAML cannot write: the transcript has U+FFFD in its place"
    else:
        said = "hold lone surrogates, which YAML cannot write: the transcript has U+FFFD in place of each"
    return events.Finding("warning", RULE, f"{named}{more} {said}", PAGE, number)
