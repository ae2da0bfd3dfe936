"""Server text and JSON as mrtr shows them: made safe, quoted under a bar, summarised.

Every string a server sent goes through `text.safe`/`text.safe_line` and into a `Text`
object (never parsed as markup), so it cannot move the cursor, retitle the terminal,
or pass for mrtr's own output: multi-line server text is always indented under a bar.
Pure functions: nothing here prints.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mrtr_cli.protocol.jsonrpc import compact
from mrtr_cli.render.styled_line import StyledLine
from mrtr_cli.text import safe, safe_line

if TYPE_CHECKING:
    from rich.text import Text

BAR = "│ "


def compact_json(value: Any, limit: int | None = 400) -> str:
    """A JSON value on one safe line."""
    return safe_line(compact(value), limit)


def pretty_json(value: Any) -> Text:
    from rich.text import Text  # loaded only when a result or a prompt shows JSON

    return Text(safe(json.dumps(value, ensure_ascii=False, indent=2)))


def quoted(text: str, indent: str = "    ", limit: int | None = 2000) -> Text:
    """Server text, each line indented under a bar so it never starts a line of its own."""
    return quoted_line(text, indent, limit).as_text()


def quoted_line(text: str, indent: str = "    ", limit: int | None = 2000) -> StyledLine:
    """`quoted` as a StyledLine, for the timeline."""
    lines = safe(text, limit).split("\n")
    quoted_text = StyledLine()
    for number, line in enumerate(lines):
        if number:
            quoted_text.append("\n")
        quoted_text.append(indent)
        quoted_text.append(BAR, "mrtr.dim")
        quoted_text.append(line)
    return quoted_text


def server_name(info: dict[str, Any] | None) -> str:
    if not info:
        return ""
    return safe_line(f"{info.get('name', '?')} {info.get('version', '')}".strip(), 80)


def content_summary(content: Any) -> str:
    """Message content as text; images, audio and other blocks as a summary line."""
    blocks = content if isinstance(content, list) else [content]
    return "\n".join(block_summary(b) for b in blocks)


def block_summary(block: Any) -> str:
    if not isinstance(block, dict):
        return str(block)
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind in ("image", "audio"):
        return f"[{kind} {block.get('mimeType', '?')}, {len(str(block.get('data', '')))} base64 chars]"
    if kind == "tool_use":
        return f"[tool_use {block.get('name')} {json.dumps(block.get('input'), ensure_ascii=False)}]"
    if kind == "tool_result":
        return f"[tool_result for {block.get('toolUseId')}]"
    return f"[{kind}]"
