"""How transcripts replayed, as `mrtr replay` shows it: lines for each transcript (each
difference as recorded `-` and live `+`), and a summary table when there are several."""

from __future__ import annotations

import json
from typing import Any

from rich.table import Table
from rich.text import Text

from mrtr_cli.render.diagnostics import stderr_line
from mrtr_cli.render.styled_line import StyledLine
from mrtr_cli.text import safe_line
from mrtr_cli.transcript.compare import Difference
from mrtr_cli.transcript.replay_verdict import ReplayVerdict


def verdict_lines(verdict: ReplayVerdict) -> list[Text | StyledLine]:
    """`✓ FILE: same as recorded`, or what failed, or every difference."""
    name = safe_line(verdict.file, 200)
    if verdict.result == "same":
        return [Text(f"✓ {name}: same as recorded ({verdict.rounds} round{'s' if verdict.rounds != 1 else ''})",
                     "mrtr.complete")]
    if verdict.result == "failed":
        error = verdict.error
        said = safe_line(error.one_line() if error else "", None)
        if not said.startswith(f"{name}:"):  # an error about the file itself names it already (cannot read)
            said = f"{name}: {said}"
        head = Text(f"✗ {said}", "mrtr.error")
        return [head, *(stderr_line(line) for line in (error.details if error else []))]  # a dead server's stderr
    count = len(verdict.differences)
    lines: list[Text | StyledLine] = [
        Text(f"✗ {name}: diverged from the recording ({count} difference{'s' if count != 1 else ''})", "mrtr.error")]
    if verdict.cause is not None:
        lines.append(Text(f"    {safe_line(verdict.cause.one_line(), None)}", "mrtr.error"))
    for difference in verdict.differences:
        lines += _difference_lines(difference)
    return lines


def _difference_lines(difference: Difference) -> list[Text]:
    return [Text(f"    {difference.where()}: {difference.what}", "mrtr.key"),
            Text(f"      - {safe_line(_shown(difference.recorded), 400)}", "mrtr.error"),
            Text(f"      + {safe_line(_shown(difference.live), 400)}", "mrtr.complete")]


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def summary_table(verdicts: list[ReplayVerdict]) -> Table:
    """One row a transcript: its result, rounds, differences and exit code."""
    table = Table(box=None, pad_edge=False, header_style="mrtr.dim")
    for column in ("transcript", "result", "rounds", "differences", "exit"):
        table.add_column(column)
    for verdict in verdicts:
        table.add_row(Text(safe_line(verdict.file, 80)), verdict.result, str(verdict.rounds),
                      str(len(verdict.differences)), str(int(verdict.code)))
    return table
