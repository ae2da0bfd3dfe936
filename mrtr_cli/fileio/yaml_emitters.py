"""Which texts PyYAML's two emitters, libyaml's and the pure-Python one, write alike (standard
library only; yaml_dumper.py decides with these which emitter writes a document, and which long
texts it sets aside while dumping).

Each check is a C-speed pass over the text (`isascii`, `bytes.translate` a slice at a time, a
pattern for the rest), never a Python loop over its characters or lines: results of 20 MB pass
through here.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + b"\n"
"""The ASCII characters both emitters write alike in any text."""
MAX_SIMPLE_KEY = 40
"""Keys up to this many characters are written the same way by both emitters (`key: value`)."""
_AS_IS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=._-"
"""The characters of a text both emitters write as it is (after a letter), wherever it stands."""
_SLICE = 65_536
"""How much of a text is encoded at a time to be checked."""


def emitters_agree(data: Any) -> bool:
    """Whether libyaml's emitter writes `data` byte for byte as the pure-Python one does: a
    mapping or a list whose text needs no double quotes (no tabs, control characters, characters
    beyond U+FFFF, multi-line text that cannot be a literal block), and no key that is empty or
    long (libyaml measures a key's length in bytes, PyYAML in characters)."""
    if not isinstance(data, (dict, list)):
        return False  # a lone scalar: libyaml ends the document with `...`
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if any(not key or len(key) > MAX_SIMPLE_KEY for key in value if isinstance(key, str)):
                return False
            stack.extend(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and not same_in_both(value):
            return False
    return True


def same_in_both(text: str) -> bool:
    """Whether both emitters write `text` alike (as a value or a key up to MAX_SIMPLE_KEY)."""
    if text.isascii():  # the common case, checked about ten times faster than by the pattern
        if not _only(text, _PRINTABLE_ASCII):
            return False
    elif _emitters_differ().search(text):
        return False
    return "\n" not in text or literal_safe(text)


@lru_cache(maxsize=1)
def _emitters_differ() -> re.Pattern[str]:
    """Characters libyaml's emitter writes otherwise than PyYAML's (it escapes characters beyond
    U+FFFF, breaks long double-quoted lines elsewhere, and treats U+0085, U+2028 and U+2029 its own
    way). Compiled when first needed: the set costs milliseconds."""
    return re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]")


def written_as_is(text: str) -> bool:
    """Whether both emitters write `text` exactly as it is, on one line, wherever it stands as
    a value: a letter, then letters, digits and `+/=._-` only (base64, a long word), and longer
    than the words YAML reads as something else than text (`false`, `null`)."""
    return len(text) > 5 and text[:1].isalpha() and text.isascii() and _only(text, _AS_IS)


def _only(text: str, allowed: bytes) -> bool:
    """Whether ASCII `text` holds only `allowed` characters: bytes.translate a slice at a time
    (one C pass in little memory)."""
    return not any(text[start:start + _SLICE].encode("ascii").translate(None, allowed)
                   for start in range(0, len(text), _SLICE))


def style_of(text: str) -> str | None:
    """How a text is written: a literal block (`|`) for multi-line text that one can hold; double
    quotes for text holding U+0085 (NEL, a line break to YAML 1.1), which both emitters would
    otherwise write inside single quotes, where a parser reads it as a space; else the emitter's
    choice (None)."""
    if "\n" in text and literal_safe(text):
        return "|"
    return '"' if not text.isascii() and "\x85" in text else None


def literal_safe(value: str) -> bool:
    """Literal blocks cannot hold trailing spaces on lines or most control characters exactly."""
    if " \n" in value or value.endswith(" "):
        return False
    return _only(value, _PRINTABLE_ASCII) if value.isascii() else value.replace("\n", "").isprintable()
