"""GitHub Actions annotations: when `GITHUB_ACTIONS=true`, a divergence, a replay that could not
run, or a failed probe is also one `::error file=...,line=...,title=...::message` line, which the
runner shows on the run's page and beside the file in a pull request.

Workflow commands are escaped as the runner's toolkit does: `%`, `\\r` and `\\n` in the message,
and also `:` and `,` in a property. Server text passes through text.py's `safe` first.
Standard library only; pure functions.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from mrtr_cli.check.verdicts import Check
from mrtr_cli.text import safe, safe_line
from mrtr_cli.transcript.compare import Difference
from mrtr_cli.transcript.replay_verdict import ReplayVerdict

MESSAGE_LIMIT = 4000
"""The most characters of one annotation's message (GitHub cuts longer ones anyway)."""


def error_annotation(message: str, title: str, file: str | None = None, line: int | None = None) -> str:
    """One `::error ...::message` workflow command, every part escaped."""
    properties = []
    if file is not None:
        properties.append(f"file={_property(file)}")
    if line is not None:
        properties.append(f"line={line}")
    properties.append(f"title={_property(title)}")
    return f"::error {','.join(properties)}::{_data(safe(message, MESSAGE_LIMIT))}"


def replay_annotations(verdicts: list[ReplayVerdict],
                       line_of: Callable[[str, Difference], int | None]) -> list[str]:
    """An annotation a transcript that did not replay the same; a divergence points at the line of
    its first differing round when `line_of` knows it."""
    lines = []
    for verdict in verdicts:
        if verdict.result == "diverged":
            first = verdict.differences[0]
            message = "\n".join(describe_difference(d) for d in verdict.differences)
            lines.append(error_annotation(message, "mrtr replay: diverged from the recording", verdict.file,
                                          line_of(verdict.file, first)))
        elif verdict.result == "failed":
            message = verdict.error.one_line() if verdict.error else "did not replay"
            lines.append(error_annotation(message, "mrtr replay: could not replay", verdict.file))
    return lines


def check_annotations(checks: list[Check]) -> list[str]:
    """An annotation a failed probe, titled by its id."""
    return [error_annotation(f"{check.title}: {check.seen} ({check.page})", f"mrtr check: {check.id}")
            for check in checks if check.status == "fail"]


def describe_difference(difference: Difference) -> str:
    """`WHERE: WHAT: recorded X, live Y`, the values as JSON."""
    recorded, live = (json.dumps(v, ensure_ascii=False, sort_keys=True) for v in (difference.recorded, difference.live))
    return f"{difference.where()}: {difference.what}: recorded {recorded}, live {live}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(safe_line(text, 300)).replace(":", "%3A").replace(",", "%2C")
