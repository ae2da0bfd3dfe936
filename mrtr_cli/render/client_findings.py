"""What `mrtr proxy` found the client doing: the summary at exit, and the `--json FILE` document.

Pure functions over the judge's findings (lint_rules.Finding); the JUnit report is junit.py's
`client_suite`. Every text from the wire went through text.py when the finding was made.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from mrtr_cli.protocol.lint_rules import CLIENT_RULES, Finding
from mrtr_cli.text import safe_line

VERSION = 1
SEVERITIES = ("error", "warning", "info")


def counts(findings: Sequence[Finding]) -> dict[str, int]:
    """How many findings of each severity (every severity named, zero included)."""
    counted = Counter(found.severity for found in findings)
    return {severity: counted[severity] for severity in SEVERITIES}


def summary_lines(findings: Sequence[Finding]) -> list[str]:
    """`the client: 2 errors, 1 warning` and one line a finding, or that the client did nothing wrong."""
    if not findings:
        return ["the client: no findings (every rule of mrtr's judge held)"]
    counted = counts(findings)
    head = ", ".join(f"{number} {severity}{'s' if number != 1 else ''}"
                     for severity, number in counted.items() if number)
    return [f"the client: {head}"] + [finding_text(found) for found in findings]


def finding_text(found: Finding) -> str:
    """`  ! error [rule] message  page`: one finding as a plain line."""
    return f"  ! {found.severity} [{found.rule}] {safe_line(found.message, 400)}  {found.page}"


def findings_document(findings: Sequence[Finding]) -> dict[str, Any]:
    """The `--json FILE` document: the counts, the findings, and the rules judged."""
    return {"version": VERSION, "counts": counts(findings), "findings": [asdict(found) for found in findings],
            "rules": sorted(CLIENT_RULES)}
