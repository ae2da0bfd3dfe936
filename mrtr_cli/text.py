"""Safe text: every string a server sent passes through here before it reaches a terminal.

A hostile server can put terminal control sequences (ESC [ 2 J, OSC titles, ...), carriage
returns, C1 controls or bidirectional overrides in any string. `safe` turns each such
character into a visible escape (`\\x1b`, `\\r`, `\\u202e`), so the text is harmless and
still shows exactly what was sent. Rich markup needs no escaping here: renderers hand server
strings to rich as `Text` objects, which are never parsed as markup.

Standard library only.
"""

from __future__ import annotations

import re

_UNSAFE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 controls except tab and newline, DEL, C1 controls
    "\u061c\u180e\u200b-\u200f"  # Arabic letter mark, Mongolian vowel separator, zero-width, LRM/RLM
    "\u2028-\u202e"  # line/paragraph separators, bidi embeddings and overrides
    "\u2060-\u206f"  # word joiner, invisible operators, bidi isolates
    "\ufeff\ufff9-\ufffb"  # byte-order mark, interlinear annotations
    "\ud800-\udfff"  # lone surrogates
)
_UNSAFE_IN_TEXT = re.compile(f"[{_UNSAFE}]")
_UNSAFE_IN_LINE = re.compile(f"[{_UNSAFE}\n\t]")
_SAFE_ASCII = {_UNSAFE_IN_TEXT: bytes(range(0x20, 0x7F)) + b"\t\n", _UNSAFE_IN_LINE: bytes(range(0x20, 0x7F))}
_CHUNK = 1 << 20
_SHORT = 4096
_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: object, limit: int | None = None) -> str:
    """`text` as harmless multi-line text: control characters shown as escapes, newlines kept."""
    return _folded(str(text), limit, _UNSAFE_IN_TEXT)


def safe_line(text: object, limit: int | None = 200) -> str:
    """`text` as one harmless line: newlines and tabs are escaped too."""
    if type(text) is str and (limit is None or len(text) <= limit) and text.isprintable():
        return text  # the usual name or key: nothing to cut, and every unsafe character is unprintable
    return _folded(str(text), limit, _UNSAFE_IN_LINE)


def _folded(text: str, limit: int | None, unsafe: re.Pattern[str]) -> str:
    """Cut first, then escape: a huge string costs no more than its shown part. A rest no longer
    than the note that would stand for it is shown instead: cutting it would save nothing."""
    if limit is None or len(text) <= limit + _CUT_NOTE_WIDTH:
        return unsafe.sub(_escape, text) if _needs_escapes(text, unsafe) else text
    return f"{unsafe.sub(_escape, text[:limit])}{cut_note(len(text) - limit)}"


def cut_note(rest: int) -> str:
    """What stands for the `rest` characters cut from a text: `… [250 more characters]`."""
    return f"… [{rest} more character{'' if rest == 1 else 's'}]"


_CUT_NOTE_WIDTH = len(cut_note(999))  # a rest this short is shown whole


def _needs_escapes(text: str, unsafe: re.Pattern[str]) -> bool:
    """Whether `text` holds an unsafe character. ASCII text (most big results) is checked with
    bytes.translate a slice at a time: three times faster than the pattern, in little memory. A short
    text (a timeline line's parts) is quicker searched with the pattern at once."""
    if len(text) <= _SHORT or not text.isascii():
        return not text.isprintable() and unsafe.search(text) is not None  # every unsafe character is unprintable
    keep = _SAFE_ASCII[unsafe]
    return any(text[start:start + _CHUNK].encode("ascii").translate(None, keep)
               for start in range(0, len(text), _CHUNK))


_CUT_NOTE = re.compile(r"… \[\d+ more characters?\]")


def break_points(line: str) -> list[int]:
    """Where a line may be wrapped (each a position a new line may start at): after a space, and
    after a comma between JSON values; never inside a JSON string (a quoted string within braces or
    brackets), so a value reads whole. A cut note (`… [40 more characters]`) ends the JSON it cut."""
    points: list[int] = []
    depth, in_string, escaped = 0, False, False
    for index, char in enumerate(line):
        if char == "…" and _CUT_NOTE.match(line, index):
            depth, in_string, escaped = 0, False, False
        elif in_string:
            in_string = escaped or char != '"'
            escaped = in_string and not escaped and char == "\\"
        elif char == '"' and depth:
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth = max(depth - 1, 0)
        elif char == " " or (char == "," and depth):
            points.append(index + 1)
    return points


def json_escaped(json_text: str) -> str:
    """JSON text with every unsafe character inside its strings written as a `\\uXXXX` escape.

    The JSON value is unchanged (lone surrogates survive too), but the text can be printed
    on a terminal and encoded as UTF-8.
    """
    if json_text.isprintable():  # every unsafe character is unprintable: the usual frame has none
        return json_text
    return _UNSAFE_IN_TEXT.sub(lambda match: f"\\u{ord(match.group()):04x}", json_text)


def duration_in_words(seconds: int) -> str:
    """`40 seconds`, `12 minutes`, `3 hours`, `2 days`: how a paused conversation's wait and its
    state's age are said (whole units, the largest below 120 of it)."""
    for unit, size, below in (("second", 1, 120), ("minute", 60, 120 * 60), ("hour", 3600, 48 * 3600)):
        if seconds < below:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds // 86400} days"
