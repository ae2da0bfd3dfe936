"""`--html FILE`: conversations, a replay's differences and a check's checklist as one self-contained
page, to open from a file or a CI artifact and to attach to a bug report.

The page loads nothing: its style is inline, it has no script, and its Content-Security-Policy
(`default-src 'none'`) forbids any request even if some markup slipped through. Every text from a
server is text: it goes through text.py's `safe` (control characters become visible escapes) and
then `html.escape`, the one way text enters the page (`_text`). Transcripts are already redacted
(transcript/redact.py), so the page shows what a transcript would; a round's `requestState` shows
its size only, unless `show_state`. At most MAX_CONVERSATIONS a page, the rest counted.

The only module that writes HTML; pure functions that build strings, and one writer.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mrtr_cli import __version__
from mrtr_cli.check.verdicts import Check
from mrtr_cli.errors import UsageError
from mrtr_cli.text import safe
from mrtr_cli.transcript.compare import Difference

MAX_CONVERSATIONS = 50
"""The most conversations one page shows (a proxy's captures, many transcripts): the page stays
quick to open; the ones left out are counted."""
JSON_LIMIT = 20_000
"""The most characters of one JSON value shown (a huge result is cut, and says so)."""
ORDER = ("fail", "warn", "pass", "skipped")
"""The order of a level's checks on the page: what needs looking at first."""
COMPACT = 72
"""A JSON value this short or shorter is shown on one line; a longer one indented."""
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'"
"""The page's Content-Security-Policy: inline style only, no request of any kind."""

STYLE = """
:root { color-scheme: light; --line: #d0d7de; --dim: #57606a; --bad: #cf222e; --warn: #9a6700; --good: #1a7f37; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328;
       background: #f6f8fa; }
header.page { background: #24292f; color: #fff; padding: 14px 24px; }
header.page h1 { margin: 0; font-size: 18px; }
header.page p { margin: 4px 0 0; color: #d0d7de; }
main { padding: 16px 24px; max-width: 1280px; }
section.conversation, section.checklist { background: #fff; border: 1px solid var(--line); border-radius: 6px;
       padding: 12px 16px; margin-bottom: 16px; }
h2 { font-size: 16px; margin: 0 0 8px; }
h3 { font-size: 14px; margin: 0 0 6px; }
.meta { color: var(--dim); margin: 0 0 10px; }
ol.timeline { list-style: none; margin: 0; padding: 0 0 0 14px; border-left: 3px solid var(--line); }
li.round { position: relative; margin: 0 0 12px; padding: 8px 12px; border: 1px solid var(--line);
       border-radius: 6px; background: #fff; }
li.round::before { content: ""; position: absolute; left: -23px; top: 12px; width: 13px; height: 13px;
       border-radius: 50%; background: #0969da; border: 2px solid #fff; }
li.round.differs { border-color: var(--bad); }
.round-head { display: flex; gap: 12px; flex-wrap: wrap; align-items: baseline; }
.round-head strong { font-size: 15px; }
.tag { display: inline-block; padding: 0 6px; border-radius: 10px; background: #eaeef2; color: #1f2328;
       font-size: 12px; }
.tag.bad { background: #ffebe9; color: var(--bad); }
.tag.warn { background: #fff8c5; color: var(--warn); }
.tag.good { background: #dafbe1; color: var(--good); }
.columns { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; }
.columns.replay { grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); }
.part { margin-top: 6px; }
.part > b { color: var(--dim); font-weight: 600; font-size: 12px; text-transform: uppercase; }
pre { margin: 2px 0; padding: 6px 8px; background: #f6f8fa; border: 1px solid #eaeef2; border-radius: 4px;
      white-space: pre-wrap; word-break: break-word; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace;
      max-height: 320px; overflow: auto; }
.message { margin: 2px 0; padding: 3px 8px; background: #ddf4ff; border-radius: 4px; white-space: pre-wrap;
       word-break: break-word; }
.question pre { max-height: 220px; }
.question { border-left: 3px solid #0969da; padding-left: 8px; margin: 6px 0; }
.answer { border-left: 3px solid var(--good); padding-left: 8px; margin: 6px 0; }
.finding { border-left: 3px solid var(--warn); padding-left: 8px; margin: 6px 0; }
.finding.error { border-left-color: var(--bad); }
.difference { border-left: 3px solid var(--bad); padding-left: 8px; margin: 6px 0; background: #fff5f5; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid #eaeef2; }
th { color: var(--dim); font-weight: 600; }
a { color: #0969da; }
.outcome { margin-top: 8px; }
.more { color: var(--dim); font-style: italic; }
"""


def page(title: str, body: Iterable[str]) -> str:
    """The whole page: its head (policy, style) and `body`'s parts."""
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{POLICY}\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        f"<title>{_text(title)}</title><style>{STYLE}</style></head><body>",
        f"<header class=\"page\"><h1>{_text(title)}</h1><p>written by mrtr {_text(__version__)}</p></header><main>",
        *body, "</main></body></html>\n"])


def conversations(documents: Sequence[tuple[str, dict[str, Any]]], show_state: bool = False,
                  differences: dict[str, list[Difference]] | None = None, not_kept: int = 0) -> list[str]:
    """A section a transcript document (its name, its document), at most MAX_CONVERSATIONS;
    `differences`: a replay's, by the same name, shown beside the recorded rounds; `not_kept`: how
    many more there were that the caller did not keep (a proxy's)."""
    parts = [conversation(name, document, show_state, (differences or {}).get(name))
             for name, document in documents[:MAX_CONVERSATIONS]]
    left = len(documents) - MAX_CONVERSATIONS + not_kept
    if left > 0:
        parts.append(f"<p class=\"more\">{left} more conversation{'s' if left != 1 else ''} not shown "
                     f"(a page shows at most {MAX_CONVERSATIONS}).</p>")
    return parts


def conversation(name: str, document: dict[str, Any], show_state: bool = False,
                 differences: list[Difference] | None = None) -> str:
    """One conversation as a timeline of rounds, then its outcome and its task's statuses."""
    request = document.get("request") or {}
    rounds = document.get("rounds") or []
    replayed = differences is not None
    head = (f"<section class=\"conversation\" data-name=\"{_text(name)}\"><h2>{_text(name)}</h2>"
            f"<p class=\"meta\">{_text(_request_line(request))} · {_text(_server_line(document))} · "
            f"{len(rounds)} round{'s' if len(rounds) != 1 else ''}</p>")
    parts = [head]
    if replayed:
        parts.append(_replay_summary(differences or []))
        unplaced = [d for d in differences or [] if d.round is None or d.round > len(rounds)]
        if unplaced:
            parts.append("<div class=\"part\"><b>Differences in the conversation</b>"
                         + "".join(_difference(d) for d in unplaced) + "</div>")
    parts.append("<ol class=\"timeline\">")
    for entry in rounds:
        here = [d for d in differences or [] if d.round == entry.get("round")]
        parts.append(_round(entry, show_state, here if replayed else None))
    parts.append("</ol>")
    parts.append(_outcome(document))
    if document.get("task"):
        parts.append(_task(document["task"]))
    parts.append("</section>")
    return "".join(parts)


def checklist(checks: Sequence[Check], era_line: str) -> str:
    """`mrtr check`'s checklist grouped by level (MUST, then SHOULD), each probe with its status,
    what was seen and its spec page."""
    parts = [f"<section class=\"checklist\"><h2>Checklist</h2><p class=\"meta\">{_text(era_line)} · "
             f"{_text(_counts(checks))}</p>"]
    for level in ("MUST", "SHOULD"):
        these = sorted((check for check in checks if check.level == level), key=lambda c: ORDER.index(c.status))
        if not these:
            continue
        parts.append(f"<h3 id=\"level-{level}\">{level} ({len(these)})</h3><table><tr><th>status</th><th>probe</th>"
                     "<th>what was seen</th><th>spec</th></tr>")
        parts += [_check_row(check) for check in these]
        parts.append("</table>")
    parts.append("</section>")
    return "".join(parts)


def client_findings(findings: Sequence[Any]) -> str:
    """`mrtr proxy`: what the judge of the client found (lint_rules.Finding), with their rules' pages."""
    shown = "".join(_finding({"severity": f.severity, "rule": f.rule, "message": f.message, "page": f.page})
                    for f in findings) or "<p class=\"meta\">nothing: the client kept every rule mrtr judges</p>"
    return f"<section class=\"checklist\"><h2>The client</h2>{shown}</section>"


def failure(message: str) -> str:
    """What stopped a run before it had anything to show (an unreachable server)."""
    return f"<section class=\"checklist\"><h2>Not run</h2><p>{_text(message)}</p></section>"


def write_page(path: str, text: str) -> None:
    """Write the page to `path` as UTF-8; an unwritable path is exit 1."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write the HTML page {path}: {error.strerror or error}",
                         "check that its directory exists and is writable") from None


def _round(entry: dict[str, Any], show_state: bool, differences: list[Difference] | None) -> str:
    """One round: the request and what came back; with a replay's differences, those beside it."""
    number = entry.get("round")
    received = entry.get("received") or {}
    result = received.get("result") or {}
    marks = [f"<strong>Round {_text(number)}</strong>", _tag(_kind(received), _kind_class(received))]
    if entry.get("elapsed_ms") is not None:
        latency = f"{float(entry['elapsed_ms']):.1f}"
        marks.append(f"<span class=\"latency\">{latency} ms</span>")
    instance = entry.get("instance")
    if instance:
        marks.append(f"<span class=\"instance\">instance {_text(instance.get('name'))} "
                     f"(#{_text(instance.get('position'))})</span>")
    if received.get("status") is not None:
        marks.append(f"<span>HTTP {_text(received['status'])}</span>")
    asked = _sent(entry.get("sent") or {}, show_state) + _received(received, result, show_state)
    answered = _answers(entry.get("answers") or {}) + _findings(entry.get("findings") or [])
    recorded = f"<div class=\"columns\"><div>{asked}</div><div>{answered}</div></div>" if answered else asked
    differs = bool(differences)
    body = recorded
    if differences is not None:
        beside = "".join(_difference(d) for d in differences) or "<p class=\"meta\">the same as recorded</p>"
        body = (f"<div class=\"columns replay\"><div><div class=\"part\"><b>Recorded</b></div>{recorded}</div>"
                f"<div><div class=\"part\"><b>Live run</b></div>{beside}</div></div>")
    return (f"<li class=\"round{' differs' if differs else ''}\" id=\"round-{_text(number)}\" "
            f"data-round=\"{_text(number)}\"><div class=\"round-head\">{' '.join(marks)}</div>{body}</li>")


def _sent(sent: dict[str, Any], show_state: bool) -> str:
    params = dict(sent.get("params") or {})
    state = params.pop("requestState", None)
    answers = params.pop("inputResponses", None)
    shown = [f"<div class=\"part\"><b>Request</b>{_json(params)}"]
    if answers is not None:
        shown.append(f"<div>inputResponses for {_text(', '.join(map(str, answers)) or 'no question')}</div>")
    if state is not None:
        shown.append(_state("requestState echoed", state, show_state))
    if sent.get("headers"):
        shown.append(f"<div>headers</div>{_json(sent['headers'])}")
    return "".join(shown) + "</div>"


def _received(received: dict[str, Any], result: dict[str, Any], show_state: bool) -> str:
    if "error" in received:
        error = received["error"]
        return (f"<div class=\"part\"><b>Error</b><div>{_text(error.get('code'))}: {_text(error.get('message'))}"
                f"</div>{_json(error['data']) if 'data' in error else ''}</div>")
    asked = result.get("inputRequests") or received.get("asked_in_flight") or {}
    parts = [_question(key, question) for key, question in asked.items()]
    if "requestState" in result:
        parts.append(_state("requestState", result["requestState"], show_state))
    if not asked:
        shown = {key: value for key, value in result.items() if key != "_meta"}
        parts.append(f"<b>Result</b>{_json(shown)}")
    return f"<div class=\"part\">{''.join(parts)}</div>"


def _question(key: str, question: Any) -> str:
    question = question if isinstance(question, dict) else {"value": question}
    params = question.get("params") or {}
    message = params.get("message") if isinstance(params, dict) else None
    schema = params.get("requestedSchema") if isinstance(params, dict) else None
    rest = {k: v for k, v in params.items() if k not in ("message", "requestedSchema")} if isinstance(params, dict) \
        else params
    shown = [f"<div class=\"question\" data-question=\"{_text(key)}\"><b>Question</b> {_tag(key)} "
             f"{_text(question.get('method', ''))}"]
    if message is not None:
        shown.append(f"<div class=\"message\">{_text(message)}</div>")
    if schema is not None:
        shown.append(f"<div>schema</div>{_json(schema)}")
    if rest and schema is None:
        shown.append(_json(rest))
    return "".join(shown) + "</div>"


def _answers(answers: dict[str, Any]) -> str:
    shown = []
    for key, answer in answers.items():
        response = answer.get("response") if isinstance(answer, dict) else answer
        source = answer.get("source", "") if isinstance(answer, dict) else ""
        shown.append(f"<div class=\"answer\" data-answer=\"{_text(key)}\"><b>Answer</b> {_tag(key)} from "
                     f"<span class=\"source\">{_text(source or 'unknown')}</span>{_json(response)}</div>")
    return "".join(shown)


def _findings(findings: Sequence[dict[str, Any]]) -> str:
    return "".join(_finding(found) for found in findings)


def _finding(found: dict[str, Any]) -> str:
    severity = str(found.get("severity", "info"))
    page_link = found.get("page")
    link = f" <a href=\"{_text(page_link)}\">{_text(found.get('rule'))}</a>" if _is_web(page_link) \
        else f" {_text(found.get('rule'))}"
    return (f"<div class=\"finding {_text(severity)}\" data-rule=\"{_text(found.get('rule'))}\">"
            f"{_tag(severity, 'bad' if severity == 'error' else 'warn')}{link}: {_text(found.get('message'))}</div>")


def _difference(difference: Difference) -> str:
    return (f"<div class=\"difference\"><div>{_text(difference.where())}: {_text(difference.what)}</div>"
            f"<div>recorded</div>{_json(difference.recorded)}<div>live</div>{_json(difference.live)}</div>")


def _replay_summary(differences: list[Difference]) -> str:
    if not differences:
        return f"<p>{_tag('same as recorded', 'good')}</p>"
    count = len(differences)
    return f"<p>{_tag(f'diverged: {count} difference' + ('s' if count != 1 else ''), 'bad')}</p>"


def _outcome(document: dict[str, Any]) -> str:
    outcome = document.get("outcome", "aborted")
    shown = [f"<div class=\"outcome\"><b>Outcome</b> {_tag(outcome, 'good' if outcome == 'complete' else 'bad')}"]
    if document.get("error"):
        shown.append(_json(document["error"]))
    return "".join(shown) + "</div>"


def _task(task: dict[str, Any]) -> str:
    rows = "".join(f"<tr><td>{_text(status.get('status'))}</td><td>{_text(status.get('message', ''))}</td></tr>"
                   for status in task.get("statuses") or [])
    return (f"<div class=\"part task\"><b>Task</b> {_text(task.get('id'))}<table><tr><th>status</th>"
            f"<th>message</th></tr>{rows}</table></div>")


def _check_row(check: Check) -> str:
    kind = {"pass": "good", "fail": "bad", "warn": "warn"}.get(check.status, "")
    link = f"<a href=\"{_text(check.page)}\">spec</a>" if _is_web(check.page) else _text(check.page)
    return (f"<tr class=\"check {check.status}\" data-check=\"{_text(check.id)}\"><td>{_tag(check.status, kind)}"
            f"</td><td><b>{_text(check.id)}</b><br>{_text(check.title)}</td><td>{_text(check.seen)}</td>"
            f"<td>{link}</td></tr>")


def _state(label: str, state: Any, show_state: bool) -> str:
    size = len(state) if isinstance(state, str) else len(json.dumps(state))
    shown = f"<div class=\"state\">{_text(label)}: {size} characters</div>"
    return shown + (_json(state) if show_state else "")


def _request_line(request: dict[str, Any]) -> str:
    params = request.get("params") or {}
    named = params.get("name") or params.get("uri") or ""
    return f"{request.get('method', 'request')} {named}".strip()


def _server_line(document: dict[str, Any]) -> str:
    server = document.get("server") or {}
    target = document.get("target") or {}
    where = target.get("url") or " ".join(target.get("command") or []) or target.get("transport") or "server"
    named = f"{server.get('name', '')} {server.get('version', '')}".strip()
    return f"{named} at {where}" if named else str(where)


def _kind(received: dict[str, Any]) -> str:
    if "error" in received:
        return "error"
    return str((received.get("result") or {}).get("resultType", "complete"))


def _kind_class(received: dict[str, Any]) -> str:
    kind = _kind(received)
    return "bad" if kind == "error" else "good" if kind == "complete" else "warn"


def _counts(checks: Sequence[Check]) -> str:
    counted = {status: sum(c.status == status for c in checks) for status in ("pass", "fail", "warn", "skipped")}
    return " · ".join(f"{count} {status}" for status, count in counted.items())


def _tag(text: object, kind: str = "") -> str:
    return f"<span class=\"tag {kind}\">{_text(text)}</span>"


def _json(value: Any) -> str:
    """A JSON value, indented, as text in a <pre> (cut at JSON_LIMIT characters)."""
    try:
        shown = json.dumps(value, ensure_ascii=False)
        if len(shown) > COMPACT:
            shown = json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = repr(value)
    return f"<pre>{_text(safe(shown, JSON_LIMIT))}</pre>"


def _is_web(link: Any) -> bool:
    return isinstance(link, str) and link.startswith(("https://", "http://"))


def _text(value: object) -> str:
    """Any text as HTML text or an attribute's value: control characters as visible escapes,
    then `&`, `<`, `>` and both quotes escaped. Nothing from a server enters the page another way."""
    return html.escape(safe(value), quote=True)
