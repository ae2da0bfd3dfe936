"""What a requestState reveals, and the altered copies `mrtr check` sends to see whether a server
protects it (check/state_probes.py sends them).

The MRTR page lets a server encode its state "in any format (e.g. base64-encoded JSON, encrypted
JWT, serialized binary)" and has it "treat `requestState` as an attacker-controlled input": what a
client can read, it can edit. `read` finds the JSON inside a state: the whole state as JSON, or as
base64 or base64url of its UTF-8 (padded or not); JSON followed by a separator and a tag; segments
split by one separator (a JWT-like header.payload.signature, base64url(payload).tag, an opaque
prefix and a payload). `ReadableState.forged` changes one scalar and encodes the state back exactly
as it came: the same alphabet, padding and separator, every other segment (a signature among them)
as it was, and every other character of the JSON too. A state is read only when encoding what was
read gives it back byte for byte, so a forgery differs from the original in the one value alone.

A state that does not read is altered where a tag usually sits (`tag_tamperings`) and cut short
(`truncations`). Standard library only; the Session never uses this: it echoes state unread.
"""

from __future__ import annotations

import base64
import binascii
import json
import string
from collections.abc import Iterator
from typing import Any, Literal, NamedTuple

from mrtr_cli.fileio.jsonc_spans import JsoncError, Node, parse

Alphabet = Literal["json", "base64", "base64url"]
"""How a JSON document sits in a state: as it is, or as base64 (or base64url) of its UTF-8."""
SEPARATORS = ".:~|"
"""What may split a state into segments: none of them is in either base64 alphabet."""
_BASE64 = frozenset(string.ascii_letters + string.digits + "+/-_")
_SHOWN_KEYS = 8


class Encoding(NamedTuple):
    """How one JSON document is written in the state."""

    alphabet: Alphabet
    padded: bool
    """base64 only: whether `=` padding is written (a length needing none says nothing either way)."""

    def encode(self, text: str) -> str:
        if self.alphabet == "json":
            return text
        encoder = base64.urlsafe_b64encode if self.alphabet == "base64url" else base64.b64encode
        encoded = encoder(text.encode("utf-8")).decode("ascii")
        return encoded if self.padded else encoded.rstrip("=")

    def words(self) -> str:
        return "JSON" if self.alphabet == "json" else f"{self.alphabet} JSON"


class Document(NamedTuple):
    """One JSON document found in a state: where its encoded text sits, and the JSON text itself."""

    start: int
    end: int
    encoding: Encoding
    text: str


class Scalar(NamedTuple):
    """One number, boolean or string of a document, and where its JSON text sits in the document."""

    document: int
    path: str
    start: int
    end: int
    value: Any


class ReadableState(NamedTuple):
    """A state whose JSON mrtr can read, and everything around it kept as it came."""

    text: str
    documents: tuple[Document, ...]
    separator: str
    """What splits its segments ('' when it is one)."""
    tag: str | None
    """The last segment when it holds no JSON: a signature or tag, never decoded nor changed."""

    def encode(self, texts: tuple[str, ...] | None = None) -> str:
        """The state written from its parts, each document's JSON text from `texts` (default: as read)."""
        pieces, position = [], 0
        for document, text in zip(self.documents, texts or tuple(d.text for d in self.documents)):
            pieces += [self.text[position:document.start], document.encoding.encode(text)]
            position = document.end
        return "".join(pieces) + self.text[position:]

    def scalars(self) -> Iterator[Scalar]:
        """Every scalar of every document, in the order written (null is none: nothing to change it to)."""
        for index, document in enumerate(self.documents):
            prefix = self._prefix(index)
            yield from _scalars(index, document.text, parse(document.text), prefix)

    def forged(self, scalar: Scalar, value: Any) -> str:
        """The state with `scalar` changed to `value`, encoded exactly as it came."""
        texts = [document.text for document in self.documents]
        text = texts[scalar.document]
        texts[scalar.document] = text[:scalar.start] + json.dumps(value, ensure_ascii=text.isascii()) + \
            text[scalar.end:]
        return self.encode(tuple(texts))

    @property
    def tag_start(self) -> int | None:
        """Where its tag starts in the text (None: it carries none)."""
        return len(self.text) - len(self.tag) if self.tag is not None else None

    def describe(self) -> str:
        """What it reveals, in a few words: "base64url JSON with keys `step`, `fee` and no signature"."""
        first = self.documents[0]
        if self._jwt_like():
            header, payload = self.documents[:2]
            return (f"a JWT-like header.payload.signature: header {header.encoding.words()} with "
                    f"{_contents(header.text)}, payload with {_contents(payload.text)}, a "
                    f"{len(self.tag or '')}-character signature")
        if len(self.documents) == 1 and first.start == 0:
            tail = f"then `{self.separator}` and a {len(self.tag)}-character tag" if self.tag is not None \
                else "no signature"
            shown = f"{first.encoding.words()} with {_contents(first.text)}"
            return f"{shown}, {tail}" if self.tag is not None else f"{shown} and {tail}"
        parts = [f"segment {self.text[:d.start].count(self.separator) + 1} is {d.encoding.words()} with "
                 f"{_contents(d.text)}" for d in self.documents]
        tail = f", the last a {len(self.tag)}-character tag" if self.tag is not None else ", no signature"
        return f"segments split by `{self.separator}`: " + "; ".join(parts) + tail

    def _jwt_like(self) -> bool:
        return (self.separator == "." and self.tag is not None and len(self.documents) == 2
                and self.text.count(".") == 2 and self.documents[0].start == 0)

    def _prefix(self, index: int) -> str:
        if len(self.documents) == 1:
            return ""
        if self._jwt_like():
            return ("header", "payload")[index]
        return f"segment{self.text[:self.documents[index].start].count(self.separator) + 1}"


class Alteration(NamedTuple):
    """A copy of a state altered on purpose, and what was done to it ("without its last segment")."""

    what: str
    state: str


def read(state: str) -> ReadableState | None:
    """The JSON a state holds, kept so it encodes back byte for byte; None when mrtr cannot read it."""
    for candidate in (_whole_json, _json_then_tag, _segments):
        found = candidate(state)
        if found is not None and found.encode() == state:
            return found
    return None


def other_value(value: Any) -> Any:
    """Another value of the same kind: a number another number, a boolean flipped, a string another string."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return type(value)(1) if value != 1 else type(value)(2)
    if value.isascii() and value.isdigit():
        return "1" if value != "1" else "2"
    return f"{value}-forged"


def tag_tamperings(state: str, tag_start: int | None) -> list[Alteration]:
    """Copies of `state` altered where a tag usually sits: its last two characters (a base64 string's
    very last one may carry only padding bits), and its whole last segment when it has one."""
    altered = [Alteration("with its last two characters changed", _changed_last(state, 2))]
    if tag_start is not None and tag_start < len(state):
        altered.append(Alteration("with its last segment changed (the rest untouched)",
                                  state[:tag_start] + _changed_last(state[tag_start:], len(state))))
    return _distinct(state, altered)


def truncations(state: str, tag_start: int | None) -> list[Alteration]:
    """Copies of `state` cut short: without its last segment, with it emptied, and 4 characters shorter."""
    cut = []
    if tag_start is not None and tag_start > 1:
        cut += [Alteration("without its last segment", state[:tag_start - 1]),
                Alteration("with its last segment emptied", state[:tag_start])]
    if len(state) > 8:
        cut.append(Alteration("with its last 4 characters cut", state[:-4]))
    return _distinct(state, cut)


def last_segment(state: str) -> int | None:
    """Where the last segment of a state starts, after its last separator; None when it has none."""
    separator = _separator(state)
    return state.rindex(separator) + 1 if separator else None


def _whole_json(state: str) -> ReadableState | None:
    if _json_document(state) is None:
        return None
    return ReadableState(state, (Document(0, len(state), Encoding("json", False), state),), "", None)


def _json_then_tag(state: str) -> ReadableState | None:
    """JSON, a separator, then a tag: `{"fee":250}.c2lnbmF0dXJl`."""
    if state[:1] not in ("{", "["):
        return None
    try:
        value, end = json.JSONDecoder(parse_constant=_no_constant).raw_decode(state)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, (dict, list)) or state[end:end + 1] == "" or state[end] not in SEPARATORS \
            or end + 1 >= len(state):
        return None
    return ReadableState(state, (Document(0, end, Encoding("json", False), state[:end]),), state[end],
                         state[end + 1:])


def _segments(state: str) -> ReadableState | None:
    """The state split by its separator, each segment read as base64 JSON where it is."""
    separator = _separator(state)
    parts = state.split(separator) if separator else [state]
    documents, position = [], 0
    for part in parts:
        found = _base64_json(part, segmented=bool(separator))
        if found is not None:
            documents.append(Document(position, position + len(part), *found))
        position += len(part) + len(separator)
    if not documents:
        return None
    last_read = documents[-1].end == len(state)
    tag = parts[-1] if len(parts) > 1 and not last_read and parts[-1] else None
    return ReadableState(state, tuple(documents), separator, tag)


def _base64_json(part: str, segmented: bool) -> tuple[Encoding, str] | None:
    """`part` as base64 or base64url of a JSON object or array: how it is written, and the JSON text."""
    body = part.rstrip("=")
    pads = len(part) - len(body)
    if not body or not set(body) <= _BASE64 or (pads and len(part) % 4) or len(body) % 4 == 1:
        return None
    url, standard = bool(set(body) & set("-_")), bool(set(body) & set("+/"))
    if url and standard:
        return None
    unpadded = not pads and len(body) % 4 != 0
    # Neither alphabet's own characters: a segment or a stripped padding is the URL-safe habit (JWT)
    alphabet: Alphabet = "base64url" if url or (not standard and (segmented or unpadded)) else "base64"
    try:
        data = base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_" if url else None, validate=True)
        text = data.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    if _json_document(text) is None:
        return None
    return Encoding(alphabet, padded=bool(pads) or (not segmented and not unpadded)), text


def _json_document(text: str) -> Any:
    """`text` as a JSON object or array (strict: no NaN), or None."""
    try:
        value = json.loads(text, parse_constant=_no_constant)
        parse(text)  # the spans the forgeries replace: strict JSON always has them
    except (ValueError, RecursionError, JsoncError):
        return None
    return value if isinstance(value, (dict, list)) else None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _scalars(document: int, text: str, node: Node, path: str) -> Iterator[Scalar]:
    if node.kind == "object":
        for key, value in node.members:
            yield from _scalars(document, text, value, f"{path}.{key}" if path else key)
    elif node.kind == "array":
        for index, item in enumerate(node.items):
            yield from _scalars(document, text, item, f"{path}[{index}]")
    else:
        value = json.loads(text[node.start:node.end])
        if value is not None:
            yield Scalar(document, path, node.start, node.end, value)


def _contents(text: str) -> str:
    value = json.loads(text)
    if isinstance(value, list):
        return f"a JSON array of {len(value)} item{'s' if len(value) != 1 else ''}"
    if not value:
        return "no keys"
    keys = [f"`{key}`" for key in list(value)[:_SHOWN_KEYS]]
    more = f" and {len(value) - _SHOWN_KEYS} more" if len(value) > _SHOWN_KEYS else ""
    return f"key{'s' if len(value) != 1 else ''} {', '.join(keys)}{more}"


def _separator(state: str) -> str:
    return next((separator for separator in SEPARATORS if separator in state), "")


def _changed_last(text: str, count: int) -> str:
    """`text` with its last `count` letters, digits and base64 signs each changed to a neighbour of
    the same kind (hex stays hex, base64url stays base64url); separators and padding as they were."""
    characters, changed = list(text), 0
    for index in range(len(characters) - 1, -1, -1):
        if changed == count:
            break
        other = _neighbour(characters[index])
        if other is not None:
            characters[index], changed = other, changed + 1
    return "".join(characters)


def _neighbour(character: str) -> str | None:
    for first, last in (("0", "9"), ("a", "z"), ("A", "Z")):
        if first <= character <= last:
            return chr(((ord(character) - ord(first)) ^ 1) + ord(first))  # even-sized ranges: stays inside
    return {"-": "_", "_": "-", "+": "/", "/": "+"}.get(character)


def _distinct(state: str, alterations: list[Alteration]) -> list[Alteration]:
    """The alterations that change the state, each once, and leave something to send."""
    seen, kept = {state}, []
    for alteration in alterations:
        if alteration.state and alteration.state not in seen:
            seen.add(alteration.state)
            kept.append(alteration)
    return kept
