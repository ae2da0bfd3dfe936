"""Pure formatters: events and results in, rich `Text` out. Nothing here prints.

Every string a server sent goes through `text.safe`/`text.safe_line` and into a `Text`
object (never parsed as markup), so it cannot move the cursor, retitle the terminal,
or pass for mrtr's own output: multi-line server text is always indented under a bar.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from mrtr_cli import events
from mrtr_cli.forms.fields import Field, form_fields
from mrtr_cli.answering.questions import Question
from mrtr_cli.errors import MrtrError
from mrtr_cli.protocol import meta
from mrtr_cli.text import safe, safe_line

BAR = "│ "
WIRE_LIMIT = 8000
"""Characters of a raw frame shown with -v before it is folded."""


def compact_json(value: Any, limit: int | None = 400) -> str:
    """A JSON value on one safe line."""
    return safe_line(json.dumps(value, ensure_ascii=False, separators=(",", ":")), limit)


def pretty_json(value: Any) -> Text:
    return Text(safe(json.dumps(value, ensure_ascii=False, indent=2)))


def quoted(text: str, indent: str = "    ", limit: int | None = 2000) -> Text:
    """Server text, each line indented under a bar so it never starts a line of its own."""
    lines = safe(text, limit).split("\n")
    quoted_text = Text()
    for number, line in enumerate(lines):
        if number:
            quoted_text.append("\n")
        quoted_text.append(indent)
        quoted_text.append(BAR, "mrtr.dim")
        quoted_text.append(line)
    return quoted_text


def request_line(event: events.RequestSent) -> Text:
    """`→ tools/call book_table {...}  id 2`, or `↻` for a retry."""
    retry = event.purpose == "retry"
    line = Text("↻ " if retry else "→ ", "mrtr.retry" if retry else "mrtr.request")
    line.append(event.method, "mrtr.retry" if retry else "mrtr.request")
    subject = event.params.get("name") or event.params.get("uri")
    if subject is not None:
        line.append(f" {safe_line(subject, 120)}")
    arguments = event.params.get("arguments")
    if arguments and not retry:
        line.append(f" {compact_json(arguments, 160)}")
    line.append(f"  id {event.id}", "mrtr.dim")
    if retry:
        line.append(_retry_detail(event.params), "mrtr.dim")
    return line


def _retry_detail(params: dict[str, Any]) -> str:
    answers = params.get("inputResponses")
    parts = [f"{len(answers)} answer{'s' if len(answers) != 1 else ''}"] if answers else []
    if "requestState" in params:
        parts.append(f"requestState echoed ({len(params['requestState'])} chars)")
    return f" · {' · '.join(parts)}" if parts else ""


def response_line(event: events.ResponseReceived) -> Text:
    """`← complete · 12 ms`, `← input_required · round 1`, or `← error -32602 ...`."""
    took = f" · {event.elapsed_ms:.0f} ms"
    if event.error is not None:
        line = Text("← error ", "mrtr.error")
        line.append(f"{safe_line(event.error.get('code'))} {safe_line(event.error.get('message'), 300)}")
        return line.append(took, "mrtr.dim")
    result_type = event.result.get("resultType", "complete") if isinstance(event.result, dict) else "?"
    style = "mrtr.input" if result_type == "input_required" else "mrtr.complete"
    line = Text(f"← {safe_line(result_type, 60)}", style)
    if event.round is not None:
        line.append(f" · round {event.round}", "mrtr.dim")
    return line.append(took, "mrtr.dim")


def discover_line(result: dict[str, Any]) -> Text:
    """What server/discover told: who the server is and which versions it speaks."""
    info = meta.server_info(result)
    versions = result.get("supportedVersions") or []
    line = Text("  ")
    line.append(server_name(info) or "(no serverInfo)", "mrtr.key")
    line.append(f" · speaks {safe_line(', '.join(map(str, versions)), 120)}", "mrtr.dim")
    return line


def server_name(info: dict[str, Any] | None) -> str:
    if not info:
        return ""
    return safe_line(f"{info.get('name', '?')} {info.get('version', '')}".strip(), 80)


def input_summary(event: events.InputRequested) -> Text:
    count = len(event.requests)
    line = Text(f"  round {event.round} asks {count} question{'s' if count != 1 else ''}", "mrtr.input")
    if event.state is not None:
        line.append(f" · requestState {len(event.state)} chars", "mrtr.dim")
    elif not count:
        line.append(" · no requestState", "mrtr.dim")
    return line


def question_lines(question: Question) -> list[Text]:
    """A question: its key, its kind, the message, and what it asks for (one Text: one print)."""
    head = Text("  ? ", "mrtr.input")
    head.append(safe_line(question.key, 120), "mrtr.key")
    mode = f" ({safe_line(question.mode, 20)})" if question.mode else ""
    head.append(f" · {safe_line(question.method, 60)}{mode}", "mrtr.dim")
    if question.count > 1:
        head.append(f" · question {question.index} of {question.count}", "mrtr.dim")
    lines = [head]
    if isinstance(question.params.get("message"), str):
        lines.append(quoted(question.params["message"]))
    lines.extend(_asks(question))
    return [Text("\n").join(lines)]


def _asks(question: Question) -> list[Text]:
    if question.mode == "url":
        return [Text(f"    url: {safe_line(question.params.get('url'), 500)}")]
    if question.mode is not None:  # an elicitation of any other mode: its form
        return [field_line(f) for f in form_fields(question.schema)]
    if question.method == "sampling/createMessage":
        return _sampling_lines(question.params)
    return []


def field_line(field: Field) -> Text:
    """`· party: integer 1..12, required, default 2`."""
    line = Text("    · ")
    line.append(safe_line(field.name, 80), "mrtr.key")
    line.append(f": {field_detail(field)}", "mrtr.dim")
    return line


def field_detail(field: Field) -> str:
    schema = field.schema
    parts = [field.kind]
    if schema.get("format"):
        parts.append(f"format {schema['format']}")
    if "minimum" in schema or "maximum" in schema:
        parts.append(f"{schema.get('minimum', '')}..{schema.get('maximum', '')}")
    if "minLength" in schema or "maxLength" in schema:
        parts.append(f"length {schema.get('minLength', 0)}..{schema.get('maxLength', '')}")
    if field.kind in ("choice", "choices"):
        parts.append("of " + ", ".join(label for _, label in field.options()))
    parts.append("required" if field.required else "optional")
    if field.has_default:
        parts.append(f"default {json.dumps(schema['default'], ensure_ascii=False)}")
    return safe_line(", ".join(str(p) for p in parts), 300)


def _sampling_lines(params: dict[str, Any]) -> list[Text]:
    messages = params.get("messages") or []
    detail = f"    {len(messages)} message{'s' if len(messages) != 1 else ''}, maxTokens {params.get('maxTokens')}"
    lines = [Text(safe_line(detail), "mrtr.dim")]
    if isinstance(params.get("systemPrompt"), str):
        lines.append(Text("    system prompt:", "mrtr.dim"))
        lines.append(quoted(params["systemPrompt"], limit=500))
    last = messages[-1] if messages and isinstance(messages[-1], dict) else None
    if last is not None:
        lines.append(Text(f"    last message ({safe_line(last.get('role'), 20)}):", "mrtr.dim"))
        lines.append(quoted(content_summary(last.get("content")), limit=1000))
    return lines


def content_summary(content: Any) -> str:
    """Message content as text; images, audio and other blocks as a summary line."""
    blocks = content if isinstance(content, list) else [content]
    return "\n".join(_block_summary(b) for b in blocks)


def _block_summary(block: Any) -> str:
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


def answer_line(event: events.AnswerChosen) -> Text:
    """`✓ date ← accept {"date": ...}  from answers-file`."""
    line = Text("  ✓ ", "mrtr.complete")
    line.append(safe_line(event.key, 120), "mrtr.key")
    line.append(f" ← {_answer_summary(event.response)}")
    line.append(f"  from {event.source}", "mrtr.source")
    return line


def _answer_summary(response: dict[str, Any]) -> str:
    if "action" in response:
        content = response.get("content")
        return f"{response['action']}{' ' + compact_json(content, 300) if content is not None else ''}"
    if "roots" in response:
        return "roots " + compact_json([r.get("uri") for r in response["roots"]], 300)
    return "reply " + compact_json(content_summary(response.get("content")), 300)


def notification_line(event: events.NotificationReceived) -> Text:
    params = event.params
    if event.method == "notifications/message":
        line = Text(f"  log {safe_line(params.get('level', '?'), 20)}", "mrtr.warn")
        if params.get("logger"):
            line.append(f" {safe_line(params['logger'], 60)}", "mrtr.dim")
        data = params.get("data")
        return line.append(f": {safe_line(data if isinstance(data, str) else compact_json(data), 500)}")
    if event.method == "notifications/progress":
        return progress_line(params)
    return Text(f"  notification {safe_line(event.method, 80)} {compact_json(params, 300)}", "mrtr.dim")


def progress_line(params: dict[str, Any]) -> Text:
    total = params.get("total")
    amount = f"{params.get('progress')}/{total}" if total is not None else f"{params.get('progress')}"
    line = Text(f"  progress {safe_line(amount, 40)}", "mrtr.dim")
    if params.get("message"):
        line.append(f" {safe_line(params['message'], 200)}")
    return line


def ignored_line(event: events.FrameIgnored) -> Text:
    """A frame mrtr could not use (the linter's finding says why it is wrong)."""
    line = Text("  ✗ ignored: ", "mrtr.warn")
    return line.append(safe_line(event.raw, 300), "mrtr.dim")


SEVERITY_STYLES = {"error": "mrtr.error", "warning": "mrtr.warn", "info": "mrtr.dim"}


def finding_line(finding: Any) -> Text:
    """`! error [rule] message  (spec page)`."""
    line = Text(f"  ! {finding.severity} ", SEVERITY_STYLES.get(finding.severity, "mrtr.warn"))
    line.append(f"[{finding.rule}] ", "mrtr.dim")
    line.append(safe_line(finding.message, 400))
    if finding.page:
        line.append(f"  {finding.page}", "mrtr.dim")
    return line


def wire_line(direction: str, text: str) -> Text:
    """Raw wire for -v: `» ...` sent, `« ...` received; each line of `text` made safe."""
    marker = "    » " if direction == "out" else "    « "
    shown = text[:WIRE_LIMIT * 2]  # a huge frame: only its start
    lines = [safe_line(line, WIRE_LIMIT) for line in shown.rstrip("\r\n").split("\n")]
    return Text(marker + f"\n{' ' * len(marker)}".join(lines), "mrtr.dim")


def stderr_line(text: str) -> Text:
    line = Text("    stderr ", "mrtr.dim")
    line.append(BAR, "mrtr.dim")
    return line.append(safe_line(text, 1000), "mrtr.dim")


def error_lines(error: MrtrError) -> list[Text]:
    """`✗ what happened; what to do`, then any detail lines (a dead server's stderr)."""
    head = Text("✗ ", "mrtr.error")
    head.append(safe_line(error.one_line(), None))
    return [head] + [stderr_line(line) for line in error.details]


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
        texts.append(Text("structuredContent:", "mrtr.dim"))
        texts.append(pretty_json(result["structuredContent"]))
    return texts


def _content_block(block: Any) -> Text | str:
    if isinstance(block, dict) and block.get("type") == "text":
        return safe(block.get("text", ""))
    if isinstance(block, dict) and block.get("type") == "resource" and isinstance(block.get("resource"), dict):
        return Text("\n").join(as_text(t) for t in _resource_contents(block["resource"], 2))
    if isinstance(block, dict) and block.get("type") == "resource_link":
        return Text(safe_line(f"[resource link {block.get('name', '')}: {block.get('uri')}]"), "mrtr.dim")
    return Text(safe_line(_block_summary(block)), "mrtr.dim")


def _resource_contents(item: Any, count: int) -> list[Text | str]:
    if not isinstance(item, dict):
        return [Text(safe_line(item), "mrtr.dim")]
    texts = [Text(safe_line(f"── {item.get('uri')} ({item.get('mimeType', '?')})"), "mrtr.dim")] if count > 1 else []
    if isinstance(item.get("text"), str):
        texts.append(safe(item["text"]))
    else:
        texts.append(Text(f"[binary {safe_line(item.get('mimeType', '?'), 60)}, "
                          f"{len(str(item.get('blob', '')))} base64 chars]", "mrtr.dim"))
    return texts


def _prompt_result(result: dict[str, Any]) -> list[Text | str]:
    texts = [Text(safe(result["description"]), "mrtr.dim")] if isinstance(result.get("description"), str) else []
    for message in result["messages"]:
        role = message.get("role", "?") if isinstance(message, dict) else "?"
        texts.append(Text(f"{safe_line(role, 20)}:", "mrtr.key"))
        texts.append(quoted(content_summary(message.get("content") if isinstance(message, dict) else message),
                            indent="  ", limit=None))
    return texts


def as_text(piece: Text | str) -> Text:
    """A piece of a result as a `Text` (a `str` piece is already safe, and never read as markup)."""
    return Text(piece) if isinstance(piece, str) else piece


def _without_meta(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "_meta"}

