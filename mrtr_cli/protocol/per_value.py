"""Work done once per distinct JSON value: a long conversation asks the same question every round,
and reading, checking and showing it again costs more than the rest of the round.

A value's JSON text is its key. Equal texts are equal values, types included (`1`, `1.0` and
`true` differ here as they do to a check; `==` would take them for one) and key order too (a form's
fields show in the server's order). A value too large to keep (`MAX_KEY` characters of JSON), nested
too deeply to encode, or not JSON at all is never cached: the work is done as it always was. A cached
result is shared by every call that finds it, so it must never be changed (tuples, frozen objects,
lines that are only printed). Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any, Generic, TypeVar

from mrtr_cli.protocol.jsonrpc import encoder

MAX_KEY = 16 * 1024
"""The longest JSON text kept as a key: the usual question is a few hundred characters."""
MAX_ENTRIES = 64
"""Distinct values kept; past it the cache starts empty again (memory stays bounded)."""

Result = TypeVar("Result")


class _Missing(Enum):
    """Not computed yet (None may be a result)."""

    MISSING = 0


_MISSING = _Missing.MISSING


class PerValue(Generic[Result]):
    """`compute(value, *extra)`, remembered by the JSON text of `value` and the (hashable) `extra`."""

    def __init__(self, compute: Callable[..., Result]) -> None:
        self.compute = compute
        self._known: dict[tuple[Any, ...], Result] = {}

    def __call__(self, value: Any, *extra: Any) -> Result:
        text = _text_of(value)
        if text is None:
            return self.compute(value, *extra)
        key = (text, *extra)
        known: Result | _Missing = self._known.get(key, _MISSING)
        if known is _MISSING:
            if len(self._known) >= MAX_ENTRIES:
                self._known.clear()
            known = self._known[key] = self.compute(value, *extra)
        return known


_key_of = encoder()
"""`json.dumps`, made once (jsonrpc.encoder)."""
_last: tuple[Any, str] = (_MISSING, "")
"""The value last encoded and its text: the timeline, the linter and the answerer each key the
same question of a round, the very object decoded from the frame, which mrtr never changes. One
tuple, replaced whole, so that a thread never reads one value's text for another."""


def _text_of(value: Any) -> str | None:
    """The JSON text of `value`; None when it is too large to keep, or cannot be encoded."""
    global _last
    seen, text = _last
    if value is seen:
        return text
    try:
        text = _key_of(value)
    except (RecursionError, ValueError, TypeError):
        return None
    if len(text) > MAX_KEY:
        return None
    _last = (value, text)
    return text
