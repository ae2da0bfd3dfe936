"""One run of the conformance suite's 2026-07-28 server scenarios against a URL, and its verdicts.

`--suite draft` runs every scenario of issue 17 (`input-required-result-*`, `caching`,
`http-header-validation`, `server-stateless`) in one process, a few seconds per server; the
draft suite's other scenarios are run too and left out of the results.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance import SPEC_VERSION, suite_command

SCENARIOS = ("caching", "http-header-validation", "server-stateless")
SCENARIO_PREFIX = "input-required-result-"
RESULT_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")


def of_issue_17(scenario: str) -> bool:
    return scenario in SCENARIOS or scenario.startswith(SCENARIO_PREFIX)


def run_scenarios(url: str) -> dict[str, list[dict[str, Any]]]:
    """Scenario name -> the checks the suite wrote for it, for the scenarios of issue 17."""
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([*suite_command(), "server", "--url", url, "--suite", "draft",
                               "--spec-version", SPEC_VERSION, "-o", out], capture_output=True, text=True,
                              timeout=240)
        results = _results(Path(out), of_issue_17)
    assert results, f"the suite wrote no results (exit {done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return results


def run_task_scenarios(url: str) -> dict[str, list[dict[str, Any]]]:
    """Scenario name -> checks, for the suite's `tasks-*` server scenarios (the io.modelcontextprotocol/tasks
    extension, issue 28), all in one run of the `pending` suite, where the suite keeps them.

    No `--spec-version`: with one, the suite skips an extension scenario unless `--force` is given, and
    `--force` works only with `--scenario` (one run per scenario); without one, it runs each extension
    scenario at 2026-07-28, as `--scenario NAME --spec-version 2026-07-28 --force` would. The suite's
    other pending scenarios are run too and left out of the results.
    """
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([*suite_command(), "server", "--url", url, "--suite", "pending", "-o", out],
                              capture_output=True, text=True, timeout=240)
        results = _results(Path(out), lambda scenario: scenario.startswith("tasks-"))
    assert results, f"the suite wrote no results (exit {done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return results


def _results(out: Path, wanted: Callable[[str], bool]) -> dict[str, list[dict[str, Any]]]:
    results = {}
    for checks in sorted(out.glob("*/checks.json")):
        match = RESULT_DIR.match(checks.parent.name)
        assert match, f"unexpected result folder {checks.parent.name}"
        if wanted(match["scenario"]):
            results[match["scenario"]] = json.loads(checks.read_text())
    return results


def met(check: dict[str, Any]) -> bool | None:
    """Whether the suite found its rule met (SUCCESS), broken (FAILURE, or WARNING for a SHOULD),
    or did not judge it (SKIPPED, INFO, or a FAILURE it marks untestable: a fixture was missing)."""
    if (check.get("details") or {}).get("untestable"):
        return None
    return {"SUCCESS": True, "FAILURE": False, "WARNING": False}.get(check["status"])
