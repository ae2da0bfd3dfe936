"""How transcripts replayed, as `mrtr replay` shows it: lines for each transcript (each
difference as recorded `-` and live `+`), and a summary table when there are several; with
--repeat, each transcript's runs counted on its lines, and with --jobs or --repeat the run's figures."""

from __future__ import annotations

import json
from typing import Any

from rich.table import Table
from rich.text import Text

from mrtr_cli.render.diagnostics import stderr_line
from mrtr_cli.render.styled_line import StyledLine
from mrtr_cli.text import safe_line
from mrtr_cli.transcript.compare import Difference
from mrtr_cli.transcript.replay_verdict import RESULTS, LoadFigures, ReplayVerdict


def verdict_lines(verdict: ReplayVerdict) -> list[Text | StyledLine]:
    """`✓ FILE: same as recorded`, or what failed, or every difference; with --repeat, the runs
    counted: on the line of a transcript every run of which was the same, else under the first line
    (the run shown is the first whose exit code decides the transcript's)."""
    lines = _shown_run_lines(verdict)
    if verdict.runs is None:
        return lines
    if verdict.result == "same" and verdict.runs["same"] == verdict.runs["count"]:
        return [Text(f"{lines[0].plain}, {run_counts(verdict.runs)}", "mrtr.complete")]
    return [lines[0], Text(f"    {run_counts(verdict.runs)}; shown: run {verdict.shown_run}", "mrtr.error"),
            *lines[1:]]


def run_counts(runs: dict[str, int]) -> str:
    """`160 runs: 157 same, 3 diverged` (the results that no run had left out)."""
    counted = ", ".join(f"{runs[result]} {result}" for result in RESULTS if runs[result])
    return f"{runs['count']} runs: {counted}"


def _shown_run_lines(verdict: ReplayVerdict) -> list[Text | StyledLine]:
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


ONE_LINE = 120
"""A recorded or live value longer than this, as JSON, is shown by the fields that changed."""
FIELDS_SHOWN = 10
"""At most this many changed fields are shown for one difference."""
ABSENT = object()
"""A field one side has and the other lacks."""


def _difference_lines(difference: Difference) -> list[Text]:
    head = Text(f"    {difference.where()}: {difference.what}", "mrtr.key")
    recorded, live = difference.recorded, difference.live
    changed = changed_fields(recorded, live)
    if max(len(_shown(recorded)), len(_shown(live))) <= ONE_LINE or not changed:
        return [head, *_pair_lines("      ", recorded, live)]
    lines = [head]
    for path, before, after in changed[:FIELDS_SHOWN]:
        lines += [Text(f"      {safe_line(path, 200)}", "mrtr.key"), *_pair_lines("        ", before, after)]
    if len(changed) > FIELDS_SHOWN:
        lines.append(Text(f"      … {len(changed) - FIELDS_SHOWN} more changed fields (--json has both values)", "mrtr.dim"))
    return lines


def _pair_lines(indent: str, recorded: Any, live: Any) -> list[Text]:
    return [Text(f"{indent}- {safe_line(_shown(recorded), 400)}", "mrtr.error"),
            Text(f"{indent}+ {safe_line(_shown(live), 400)}", "mrtr.complete")]


def changed_fields(recorded: Any, live: Any, path: str = "$") -> list[tuple[str, Any, Any]]:
    """Each field where two JSON values differ, by its path (`$.content[0].text`), with both values
    (a field only one side has: `(absent)` on the other); objects and arrays are gone into, others
    compared whole."""
    if isinstance(recorded, dict) and isinstance(live, dict):
        return [change for key in sorted(set(recorded) | set(live), key=str)
                for change in changed_fields(recorded.get(key, ABSENT), live.get(key, ABSENT), _member(path, key))]
    if isinstance(recorded, list) and isinstance(live, list):
        padded = max(len(recorded), len(live))
        return [change for index in range(padded)
                for change in changed_fields(recorded[index] if index < len(recorded) else ABSENT,
                                             live[index] if index < len(live) else ABSENT, f"{path}[{index}]")]
    return [] if recorded == live and type(recorded) is type(live) else [(path, recorded, live)]


def _member(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{json.dumps(key)}]"


def _shown(value: Any) -> str:
    return "(absent)" if value is ABSENT else json.dumps(value, ensure_ascii=False, sort_keys=True)


def summary_table(verdicts: list[ReplayVerdict]) -> Table:
    """One row a transcript: its result, rounds, differences and exit code (with --repeat, also how
    many of its runs were the same)."""
    repeated = any(verdict.runs is not None for verdict in verdicts)
    table = Table(box=None, pad_edge=False, header_style="mrtr.dim")
    for column in ("transcript", "result", "rounds", "differences", "exit") + (("same runs",) if repeated else ()):
        table.add_column(column)
    for verdict in verdicts:
        runs = (f"{verdict.runs['same']}/{verdict.runs['count']}",) if verdict.runs is not None else ()
        table.add_row(Text(safe_line(verdict.file, 80)), verdict.result, str(verdict.rounds),
                      str(len(verdict.differences)), str(int(verdict.code)), *runs)
    return table


def load_lines(figures: LoadFigures) -> list[Text]:
    """The figures of a run with --jobs or --repeat: conversations, their pace, the rounds' latency."""
    counted = ", ".join(f"{figures.counts[result]} {result}" for result in RESULTS)
    jobs = f"{figures.jobs} job{'s' if figures.jobs != 1 else ''}"
    lines = [Text(f"{figures.conversations} conversations in {figures.wall:.2f} s with {jobs}: "
                  f"{figures.per_second:.1f} a second ({counted})")]
    latency = figures.percentiles()
    if latency is not None:
        lines.append(Text(f"round latency over {len(figures.round_ms)} rounds: " +
                          ", ".join(f"{name} {ms:.1f} ms" for name, ms in latency.items())))
    return lines
