"""A final result as it goes to stdout: text as text, JSON as JSON, binary content summarised.
Pure functions: nothing here prints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrtr_cli.render.server_text import block_summary, content_summary, pretty_json, quoted
from mrtr_cli.text import safe, safe_line

if TYPE_CHECKING:
    from rich.text import Text


def result_texts(result: dict[str, Any]) -> list[Text | str]:
    """A final result for stdout: text as text, JSON as JSON, binary content summarised.

    Text content comes as a plain `str`, already made safe: rich would copy and scan a big one
    again for control codes, and a big one is written out as it is (`console.write_long`).
    """
    if isinstance(result.get("content"), list):
        return _tool_result(result)
    if isinstance(result.get("contents"), list):
        return [t for item in result["contents"] for t in _resource_contents(item, len(result["contents"]))]
    if isinstance(result.get("messages"), list):
        return _prompt_result(result)
    return [pretty_json(_without_meta(result))]


def _tool_result(result: dict[str, Any]) -> list[Text | str]:
    texts = [_content_block(block) for block in result["content"]]
    if "structuredContent" in result:
        texts.append(_text("structuredContent:", "mrtr.dim"))
        texts.append(pretty_json(result["structuredContent"]))
    return texts


def _content_block(block: Any) -> Text | str:
    if isinstance(block, dict) and block.get("type") == "text":
        return safe(block.get("text", ""))
    if isinstance(block, dict) and block.get("type") == "resource" and isinstance(block.get("resource"), dict):
        return _text("\n").join(as_text(t) for t in _resource_contents(block["resource"], 2))
    if isinstance(block, dict) and block.get("type") == "resource_link":
        return _text(safe_line(f"[resource link {block.get('name', '')}: {block.get('uri')}]"), "mrtr.dim")
    return _text(safe_line(block_summary(block)), "mrtr.dim")


def _resource_contents(item: Any, count: int) -> list[Text | str]:
    if not isinstance(item, dict):
        return [_text(safe_line(item), "mrtr.dim")]
    heading = f"── {item.get('uri')} ({item.get('mimeType', '?')})"
    texts: list[Text | str] = [_text(safe_line(heading), "mrtr.dim")] if count > 1 else []
    if isinstance(item.get("text"), str):
        texts.append(safe(item["text"]))
    else:
        texts.append(_text(f"[binary {safe_line(item.get('mimeType', '?'), 60)}, "
                           f"{len(str(item.get('blob', '')))} base64 chars]", "mrtr.dim"))
    return texts


def _prompt_result(result: dict[str, Any]) -> list[Text | str]:
    description = result.get("description")
    texts: list[Text | str] = [_text(safe(description), "mrtr.dim")] if isinstance(description, str) else []
    for message in result["messages"]:
        role = message.get("role", "?") if isinstance(message, dict) else "?"
        texts.append(_text(f"{safe_line(role, 20)}:", "mrtr.key"))
        texts.append(quoted(content_summary(message.get("content") if isinstance(message, dict) else message),
                            indent="  ", limit=None))
    return texts


def as_text(piece: Text | str) -> Text:
    """A piece of a result as a `Text` (a `str` piece is already safe, and never read as markup)."""
    return _text(piece) if isinstance(piece, str) else piece


def _without_meta(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "_meta"}


def _text(text: str = "", style: str = "") -> Text:
    """A rich `Text`, rich loaded only when a result needs one (a text result needs none)."""
    from rich.text import Text

    return Text(text, style)
