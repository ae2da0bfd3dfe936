"""JSON with comments (VS Code's mcp.json, Claude Desktop's JSON), read as spans of its text.

Each value is a `Node` that knows where it starts and ends, so an edit can replace one value's
text and leave every other character of the file as it was: comments, spacing, escapes, the order
of keys. `//` and `/* */` comments and trailing commas are allowed; anything else is plain JSON.
A problem raises `JsoncError` with the offset where it was found. Standard library only.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

MAX_DEPTH = 100
_LITERAL = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_SPACE = " \t\r\n\ufeff"


class JsoncError(ValueError):
    """The text is not JSON with comments; `offset` is where reading stopped."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


class Node(NamedTuple):
    """One value: its kind (object, array, string, literal), its span [start, end) in the text, and
    its parts: an object's (key, value) members, an array's items."""

    kind: str
    start: int
    end: int
    members: tuple[tuple[str, "Node"], ...] = ()
    items: tuple["Node", ...] = ()

    def member(self, key: str) -> Node | None:
        """The value of `key` in an object (the last one, as JSON readers take it), or None."""
        found = [value for name, value in self.members if name == key]
        return found[-1] if found else None


def parse(text: str) -> Node:
    """The one value of a whole text, with comments and spacing around it."""
    start = skip_space(text, 0)
    node = _value(text, start, 0)
    end = skip_space(text, node.end)
    if end != len(text):
        raise JsoncError("more text after the JSON value", end)
    return node


def skip_space(text: str, offset: int) -> int:
    """The offset of the next character that is not spacing or inside a comment."""
    while offset < len(text):
        if text[offset] in _SPACE:
            offset += 1
        elif text.startswith("//", offset):
            newline = text.find("\n", offset)
            offset = len(text) if newline < 0 else newline + 1
        elif text.startswith("/*", offset):
            close = text.find("*/", offset + 2)
            if close < 0:
                raise JsoncError("a /* comment is never closed", offset)
            offset = close + 2
        else:
            break
    return offset


def _value(text: str, offset: int, depth: int) -> Node:
    if depth > MAX_DEPTH:
        raise JsoncError(f"nested more than {MAX_DEPTH} levels", offset)
    first = text[offset:offset + 1]
    if first == "{":
        return _object(text, offset, depth)
    if first == "[":
        return _array(text, offset, depth)
    if first == '"':
        return Node("string", offset, _string_end(text, offset))
    found = _LITERAL.match(text, offset)
    if found is None:
        raise JsoncError("expected a JSON value", offset)
    return Node("literal", offset, found.end())


def _string_end(text: str, offset: int) -> int:
    try:
        return int(json.decoder.scanstring(text, offset + 1, True)[1])  # type: ignore[attr-defined]
    except json.JSONDecodeError as error:
        raise JsoncError(f"a string that is not JSON: {error.msg}", error.pos) from None


def _object(text: str, offset: int, depth: int) -> Node:
    members: list[tuple[str, Node]] = []
    position = skip_space(text, offset + 1)
    while not text.startswith("}", position):
        if not text.startswith('"', position):
            raise JsoncError("expected a key in double quotes, or }", position)
        key_node = Node("string", position, _string_end(text, position))
        key = string_value(text, key_node)
        position = skip_space(text, key_node.end)
        if not text.startswith(":", position):
            raise JsoncError("expected : after the key", position)
        value = _value(text, skip_space(text, position + 1), depth + 1)
        members.append((key, value))
        position = _after_item(text, value.end, "}")
    return Node("object", offset, position + 1, members=tuple(members))


def _array(text: str, offset: int, depth: int) -> Node:
    items: list[Node] = []
    position = skip_space(text, offset + 1)
    while not text.startswith("]", position):
        item = _value(text, position, depth + 1)
        items.append(item)
        position = _after_item(text, item.end, "]")
    return Node("array", offset, position + 1, items=tuple(items))


def _after_item(text: str, offset: int, close: str) -> int:
    """Past the comma after an item (a trailing one allowed); at the closing bracket otherwise."""
    position = skip_space(text, offset)
    if text.startswith(",", position):
        return skip_space(text, position + 1)
    if not text.startswith(close, position):
        raise JsoncError(f"expected , or {close}", position)
    return position


def string_value(text: str, node: Node) -> str:
    """The text a string node holds, its escapes read."""
    return str(json.loads(text[node.start:node.end]))


def value_of(text: str, node: Node) -> Any:
    """A node as a Python value (comments and trailing commas gone)."""
    if node.kind == "object":
        return {key: value_of(text, value) for key, value in node.members}
    if node.kind == "array":
        return [value_of(text, item) for item in node.items]
    return json.loads(text[node.start:node.end])
