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
    then the era line, when given, and the counts."""
    lines = []
    for check in checks:
        mark, style = MARKS[check.status]
        head = Text(f"{mark}  ", style)
        head.append(f"{check.level:<6} ", "mrtr.dim")
        head.append(check.title)
        lines.append(head)
        lines.append(Text(f"        {safe_line(check.seen, 300)}  ({check.page.removeprefix(SPEC)})", "mrtr.dim"))
    if era is not None:
        lines.append(Text(safe_line(era, 300), "mrtr.key"))
    lines.append(Text(" · ".join(f"{n} {status}" for status, n in status_counts(checks).items()), "mrtr.key"))
    return lines
