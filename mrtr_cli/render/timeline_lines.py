"""The timeline's lines: one `StyledLine` for each request, response, answer, notification, finding
and frame of the wire (-v). Pure functions: nothing here prints (render/timeline.py does)."""

from __future__ import annotations

from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.protocol import meta
from mrtr_cli.render.server_text import compact_json, content_summary, server_name
from mrtr_cli.render.styled_line import StyledLine, WrappedLine
from mrtr_cli.text import duration_in_words, safe_line

WIRE_LIMIT = 8000
"""Characters of a raw frame shown with -v before it is folded."""


def request_line(event: events.RequestSent) -> StyledLine:
    """`→ tools/call book_table {...}  id 2`, or `↻` for a retry."""
    retry = event.purpose == "retry"
    line = StyledLine("↻ " if retry else "→ ", "mrtr.retry" if retry else "mrtr.request")
    line.append(event.method, "mrtr.retry" if retry else "mrtr.request")
    subject = event.params.get("name") or event.params.get("uri")
    if subject is not None:
        line.append(f" {safe_line(subject, 120)}")
    arguments = event.params.get("arguments")
    if arguments and not retry:
        line.append(f" {compact_json(arguments, 160)}")
    line.append(f"  id {event.id}", "mrtr.dim")
    if retry:
        line.append(_retry_detail(event.params, event.state_as_received), "mrtr.dim")
    return line


def _retry_detail(params: dict[str, Any], state_as_received: bool) -> str:
    answers = params.get("inputResponses")
    count = len(answers) if isinstance(answers, (dict, list)) else None
    parts = [f"{count} answer{'s' if count != 1 else ''}"] if count else []
    if answers and count is None:
        parts.append(f"inputResponses {compact_json(answers, 60)}")
    if "requestState" in params:
        state = params["requestState"]
        if not isinstance(state, str):
            parts.append(f"requestState {compact_json(state, 60)}")
        else:
            parts.append(f"requestState {'echoed' if state_as_received else 'not the one received'} "
                         f"({len(state)} chars)")
    return f" · {' · '.join(parts)}" if parts else ""


def instance_line(event: events.InstanceChosen) -> StyledLine:
    """`round 2 → instance 1 · 127.0.0.1:8002`: where a round goes (`--replica`, `--restart-between-rounds`)."""
    where = f"instance {event.position} · {safe_line(event.name, 120)}"
    return StyledLine(f"  round {event.round} → {where}", "mrtr.dim")


def continued_line(event: events.Continued) -> StyledLine:
    """`⋯ continued from round 1 at 2026-…Z (waited 12 minutes) → http://…/mcp · by mrtr 0.1.0`: `mrtr answer`."""
    target = event.target
    where = target.get("url") or " ".join(str(word) for word in target.get("command") or []) or target.get("transport")
    return StyledLine(f"  ⋯ continued from round {event.from_round} at {event.at} (waited "
                      f"{duration_in_words(event.waited_seconds)}) → {safe_line(str(where), 120)} · by {safe_line(event.by, 40)}",
                      "mrtr.dim")


ACKNOWLEDGED = ("tasks/update", "tasks/cancel")
"""Requests whose empty result only acknowledges them: shown as such, never as the call's outcome."""


def response_line(event: events.ResponseReceived) -> StyledLine:
    """`← complete · 12 ms`, `← input_required · round 1`, or `← error -32602 ...`."""
    took = f" · {event.elapsed_ms:.0f} ms"
    if event.error is not None:
        line = StyledLine("← error ", "mrtr.error")
        line.append(f"{safe_line(event.error.get('code'))} {safe_line(event.error.get('message'), 300)}")
        return line.append(took, "mrtr.dim")
    if event.method in ACKNOWLEDGED:
        return StyledLine(f"← {event.method} acknowledged", "mrtr.complete").append(took, "mrtr.dim")
    result_type = event.result.get("resultType", "complete") if isinstance(event.result, dict) else "?"
    style = "mrtr.input" if result_type == "input_required" else "mrtr.complete"
    line = StyledLine(f"← {safe_line(result_type, 60)}", style)
    if event.round is not None:
        line.append(f" · round {event.round}", "mrtr.dim")
    return line.append(took, "mrtr.dim")


def discover_line(result: dict[str, Any]) -> StyledLine:
    """What server/discover told: who the server is and which versions it speaks."""
    info = meta.server_info(result)
    versions = result.get("supportedVersions") or []
    line = StyledLine("  ")
    line.append(server_name(info) or "(no serverInfo)", "mrtr.key")
    line.append(f" · speaks {safe_line(', '.join(map(str, versions)), 120)}", "mrtr.dim")
    return line


def input_summary(event: events.InputRequested, answered_by_mrtr: bool = True) -> StyledLine:
    """`round 1 asks 2 questions`; a question asked in flight (older era) with its key, and, when mrtr
    answers it, where that key goes (through the proxy the host answers); a request the server sent on
    its own (unprompted), kept beside the round."""
    if event.unprompted:
        where = f"while request {event.id} is in flight" if event.id is not None else "outside the call's request"
        keys = ", ".join(safe_line(key, 60) for key in event.requests)
        return StyledLine(f"  unprompted: {keys} (the server's own request, {where}: kept beside the round, "
                          "not among its questions)", "mrtr.input")
    if event.in_flight:
        where = f"while request {event.id} is in flight" if event.id is not None else "outside a call"
        keys = ", ".join(safe_line(key, 60) for key in event.requests)
        takes = "; the key takes --answer and answers files" if answered_by_mrtr else ""
        return StyledLine(f"  asked in flight: {keys} ({where}{takes})", "mrtr.input")
    count = len(event.requests)
    line = StyledLine(f"  round {event.round} asks {count} question{'s' if count != 1 else ''}", "mrtr.input")
    if event.state is not None:
        line.append(f" · requestState {len(event.state)} chars", "mrtr.dim")
    elif not count:
        line.append(" · no requestState", "mrtr.dim")
    return line


def answer_line(event: events.AnswerChosen) -> StyledLine:
    """`✓ date ← accept {"date": ...}  from answers-file`; a terminal wraps it at words."""
    line = WrappedLine("  ✓ ", "mrtr.complete")
    line.append(safe_line(event.key, 120), "mrtr.key")
    line.append(f" ← {_answer_summary(event.response)}")
    line.append(f"  from {event.source}", "mrtr.source")
    return line


def _answer_summary(response: Any) -> str:
    """An answer in a few words, whatever the client sent (any JSON value: each string made safe)."""
    if not isinstance(response, dict):
        return "reply " + compact_json(response, 300)
    if "action" in response:
        content = response.get("content")
        return f"{safe_line(response['action'], 60)}{' ' + compact_json(content, 300) if content is not None else ''}"
    if "roots" in response:
        roots = response["roots"]
        uris = [root.get("uri") if isinstance(root, dict) else root for root in roots] if isinstance(roots, list) \
            else roots
        return "roots " + compact_json(uris, 300)
    return "reply " + compact_json(content_summary(response.get("content")), 300)


def notification_line(event: events.NotificationReceived) -> StyledLine:
    params = event.params
    if event.method == "notifications/message":
        line = StyledLine(f"  log {safe_line(params.get('level', '?'), 20)}", "mrtr.warn")
        if params.get("logger"):
            line.append(f" {safe_line(params['logger'], 60)}", "mrtr.dim")
        data = params.get("data")
        return line.append(f": {safe_line(data if isinstance(data, str) else compact_json(data), 500)}")
    if event.method == "notifications/progress":
        return progress_line(params)
    return StyledLine(f"  notification {safe_line(event.method, 80)} {compact_json(params, 300)}", "mrtr.dim")


def progress_line(params: dict[str, Any]) -> StyledLine:
    total = params.get("total")
    amount = f"{params.get('progress')}/{total}" if total is not None else f"{params.get('progress')}"
    line = StyledLine(f"  progress {safe_line(amount, 40)}", "mrtr.dim")
    if params.get("message"):
        line.append(f" {safe_line(params['message'], 200)}")
    return line


def ignored_line(event: events.FrameIgnored) -> StyledLine:
    """A frame mrtr could not use (the linter's finding says why it is wrong)."""
    line = StyledLine("  ✗ ignored: ", "mrtr.warn")
    return line.append(safe_line(event.raw, 300), "mrtr.dim")


SEVERITY_STYLES = {"error": "mrtr.error", "warning": "mrtr.warn", "info": "mrtr.dim"}


def finding_line(finding: Any) -> StyledLine:
    """`! error [rule] message  (spec page)`."""
    line = StyledLine(f"  ! {finding.severity} ", SEVERITY_STYLES.get(finding.severity, "mrtr.warn"))
    line.append(f"[{finding.rule}] ", "mrtr.dim")
    line.append(safe_line(finding.message, 400))
    if finding.page:
        line.append(f"  {finding.page}", "mrtr.dim")
    return line


def wire_line(direction: str, text: str) -> StyledLine:
    """Raw wire for -v: `» ...` sent, `« ...` received; each line of `text` made safe."""
    marker = "    » " if direction == "out" else "    « "
    shown = text[:WIRE_LIMIT * 2]  # a huge frame: only its start
    lines = [safe_line(line, WIRE_LIMIT) for line in shown.rstrip("\r\n").split("\n")]
    return StyledLine(marker + f"\n{' ' * len(marker)}".join(lines), "mrtr.dim")
