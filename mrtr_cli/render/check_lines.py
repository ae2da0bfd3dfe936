"""`mrtr check`'s checklist as text: two lines a check, then the counts. Pure functions."""

from __future__ import annotations

from rich.text import Text

from mrtr_cli.check.verdicts import SPEC, Check, status_counts
from mrtr_cli.text import safe_line

MARKS = {"pass": ("✓ pass", "mrtr.complete"), "fail": ("✗ fail", "mrtr.error"), "warn": ("! warn", "mrtr.warn"),
         "skipped": ("- skip", "mrtr.dim")}
"""How each status of a check is marked, and in which style."""


def check_lines(checks: list[Check], era: str | None = None) -> list[Text]:
    """Two lines a check: the verdict and what it is about, then what was seen and where the rule is;
    one line for each group of checks skipped together (where its first check was); then the era
    line, when given, and the counts."""
    lines: list[Text] = []
    shown: set[str] = set()
    for check in checks:
        if check.group is None:
            lines += _check_lines(check)
        elif check.group not in shown:
            shown.add(check.group)
            lines.append(_group_line(check.group, sum(c.group == check.group for c in checks)))
    if era is not None:
        lines.append(Text(safe_line(era, 300), "mrtr.key"))
    lines.append(Text(" · ".join(f"{n} {status}" for status, n in status_counts(checks).items()), "mrtr.key"))
    return lines


def _check_lines(check: Check) -> list[Text]:
    mark, style = MARKS[check.status]
    head = Text(f"{mark}  ", style)
    head.append(f"{check.level:<6} ", "mrtr.dim")
    head.append(check.title)
    return [head, Text(f"        {safe_line(check.seen, 300)}  ({check.page.removeprefix(SPEC)})", "mrtr.dim")]


def _group_line(group: str, count: int) -> Text:
    """`- skip  28 rules of ...: why`, for checks skipped together (--json and --junit list each)."""
    mark, style = MARKS["skipped"]
    line = Text(f"{mark}  ", style)
    line.append(f"{count} {safe_line(group, 300)}  (--json and --junit list each)", "mrtr.dim")
    return line


def calls_line(budgets: list[str]) -> Text:
    """The line a check says once the era is known: at most how many calls each named target
    receives, so the side effects to expect are known before any happens."""
    return Text(safe_line(f"calls: {'; '.join(budgets)}", 400), "mrtr.key")
