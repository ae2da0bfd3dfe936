"""A question as the timeline shows it: its key, kind and message, and the form or sampling
conversation it asks about. Pure functions: nothing here prints."""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli.answering.questions import Question
from mrtr_cli.forms.fields import Field, form_fields
from mrtr_cli.forms.wording import count_wanted
from mrtr_cli.protocol.per_value import PerValue
from mrtr_cli.render.server_text import content_summary, quoted_line
from mrtr_cli.render.styled_line import JoinedLines, StyledLine
from mrtr_cli.text import safe_line


def question_lines(question: Question) -> list[JoinedLines]:
    """A question: its key, its kind, the message, and what it asks for (joined: one print)."""
    head = StyledLine("  ? ", "mrtr.input")
    head.append(safe_line(question.key, 120), "mrtr.key")
    mode = f" ({safe_line(question.mode, 20)})" if question.mode else ""
    head.append(f" · {safe_line(question.method, 60)}{mode}", "mrtr.dim")
    if question.count > 1:
        head.append(f" · question {question.index} of {question.count}", "mrtr.dim")
    lines = [head]
    if isinstance(question.params.get("message"), str):
        lines.append(quoted_line(question.params["message"]))
    lines.extend(_asks(question))
    return [JoinedLines(lines)]


def shown_question(request: dict[str, Any], key: str, index: int = 1, count: int = 1) -> list[JoinedLines]:
    """The `question_lines` of a round's question `key` (its `index` of `count`), made once for a
    question asked again as it was: the lines are only printed, never changed."""
    return _SHOWN(request, key, index, count)


def _lines_of(request: dict[str, Any], key: str, index: int, count: int) -> list[JoinedLines]:
    return question_lines(Question(0, key, request, "", index, count))


_SHOWN: PerValue[list[JoinedLines]] = PerValue(_lines_of)


def _asks(question: Question) -> list[StyledLine]:
    if question.mode == "url":
        return [StyledLine(f"    url: {safe_line(question.params.get('url'), 500)}")]
    if question.mode is not None:  # an elicitation of any other mode: its form
        return [field_line(f) for f in form_fields(question.schema)]
    if question.method == "sampling/createMessage":
        return _sampling_lines(question.params)
    return []


def field_line(field: Field) -> StyledLine:
    """`· party: integer 1..12, required, default 2`."""
    line = StyledLine("    · ")
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
        parts.append("of " + ", ".join(label for _, label in field.shown_options()))
    if field.kind == "choices" and count_wanted(schema):
        parts.append(str(count_wanted(schema)))  # `choose 1 to 2`, shown before the person picks
    parts.append("required" if field.required else "optional")
    if field.has_default:
        parts.append(f"default {answer_text(field, schema['default'])}")
    return safe_line(", ".join(str(p) for p in parts), 300)


def answer_text(field: Field, value: Any, limit: int = 200) -> str:
    """A field's value as a person reads it, in one form wherever it is shown (the prompt once
    answered, the review, a default): a choice by its title, a multi-select as its titles joined
    (`window, quiet`; `none`), anything else as JSON."""
    if field.kind == "choice":
        return _choice_label(field, value, limit)
    if field.kind == "choices" and isinstance(value, list):
        return safe_line(", ".join(_choice_label(field, item, 80) for item in value) or "none", limit)
    return safe_line(json.dumps(value, ensure_ascii=False), limit)


def _choice_label(field: Field, value: Any, limit: int) -> str:
    label = next((text for option, text in field.shown_options() if option == value), None)
    return safe_line(json.dumps(value, ensure_ascii=False) if label is None else label, limit)


def _sampling_lines(params: dict[str, Any]) -> list[StyledLine]:
    messages = params.get("messages") or []
    detail = f"    {len(messages)} message{'s' if len(messages) != 1 else ''}, maxTokens {params.get('maxTokens')}"
    lines = [StyledLine(safe_line(detail), "mrtr.dim")]
    if isinstance(params.get("systemPrompt"), str):
        lines.append(StyledLine("    system prompt:", "mrtr.dim"))
        lines.append(quoted_line(params["systemPrompt"], limit=500))
    last = messages[-1] if messages and isinstance(messages[-1], dict) else None
    if last is not None:
        lines.append(StyledLine(f"    last message ({safe_line(last.get('role'), 20)}):", "mrtr.dim"))
        lines.append(quoted_line(content_summary(last.get("content")), limit=1000))
    return lines
