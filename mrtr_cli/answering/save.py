"""`--save-answers FILE.yaml`: every answer of a run, whatever its source, as an answers file
that reproduces the session without a person (the step from a session by hand to a CI job).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mrtr_cli.fileio import yaml_dumper
from mrtr_cli.forms.fields import form_fields
from mrtr_cli.errors import UsageError


def answers_document(rounds: list[Any]) -> dict[str, Any]:
    """`answers:` keyed by question; a later round's answer to the same key wins."""
    answers: dict[str, Any] = {}
    for current in rounds:
        for key, answer in current.answers.items():
            answers[key] = _entry(current.requests[key], answer.response)
    return {"answers": answers}


def _entry(request: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    method = request.get("method")
    if method == "sampling/createMessage":
        return _sampling_entry(response)
    if method == "roots/list":
        return {"roots": response.get("roots", [])}
    if response.get("action") != "accept" or "content" not in response:
        return {"action": response.get("action", "accept")}
    return {"action": "accept", "content": _with_cleared_fields(request, response["content"])}


def _with_cleared_fields(request: dict[str, Any], content: dict[str, Any]) -> dict[str, Any]:
    """Fields with a default that the answer left out are written as null, so replaying does not
    fill the default back in."""
    schema = (request.get("params") or {}).get("requestedSchema") or {}
    cleared = {f.name: None for f in form_fields(schema) if f.has_default and f.name not in content}
    return {**content, **cleared}


def _sampling_entry(response: dict[str, Any]) -> dict[str, Any]:
    content = response.get("content")
    if isinstance(content, dict) and content.get("type") == "text" and response.get("stopReason") == "endTurn":
        return {"text": content.get("text", ""), "model": response.get("model")}
    return dict(response)


def save_answers(path: str, rounds: list[Any]) -> None:
    try:
        Path(path).write_text(yaml_dumper.dumps(answers_document(rounds)), encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write --save-answers {path!r}: {error.strerror}", "check the path") from None
