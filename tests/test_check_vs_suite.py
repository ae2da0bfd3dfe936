"""`mrtr check` and the conformance suite judge the same servers, and agree.

Two servers that implement the suite's fixtures: the demo with `--conformance-fixtures`, and the
python-sdk's everything-server (tests/servers/everything_server.py) on the PyPI `mcp`. On each,
the suite's server scenarios run once, and `mrtr check --json` once, with `--tool
test_input_required_result_elicitation` and its answer, as a user would name a tool that asks
(it is the tool the suite itself uses for the result-type, missing-answer, extra-answer and
validation rules). Each check line of mrtr names the conformance ids it judges (`conformance`
in `--json`, from check/rules.py), so a probe added there joins the comparison by itself.

A verdict is whether the rule was met: `pass` and SUCCESS are met; `fail`, `warn`, FAILURE and
WARNING are not (a SHOULD broken is a warning in both judges, and mrtr grades some rules the
suite fails as SHOULDs: the comparison is of what each saw, not of how severe each calls it);
`skipped`, SKIPPED, INFO and the suite's "Not testable" failures are no verdict. An id judged
several times (several probes, or several suite checks) is met when every judgement is met.
The ids on which the two differ are listed below, each explained with its evidence in
docs/check-rules.md, "Where mrtr and the suite differ"; the test fails on any other difference
and on a listed one that no longer differs.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from conftest import PYTHON, ROOT, SERVERS, mrtr_here
from peers import demo_http, free_port, listening
from suite_runs import met, run_scenarios

TOOL = ["--tool", "test_input_required_result_elicitation", "--answer", "user_name.name=Alice"]
DIFFERENCES = {
    "demo": {"sep-2575-http-server-method-not-found-404-initialize"},
    "everything": {"sep-2322-respect-client-capabilities", "sep-2575-server-rejects-undeclared-capability",
                   "sep-2575-missing-capability-http-400"},
}
"""Per server, the ids on which mrtr and the suite disagree, with the reason in docs/check-rules.md."""
DOCS = ROOT / "docs" / "check-rules.md"
DIFFER_HEADING = "## Where mrtr and the suite differ"


def everything_server() -> Any:
    """The vendored everything-server on a free port of 127.0.0.1; yields its /mcp URL."""
    port = free_port()
    return listening([PYTHON, str(SERVERS / "everything_server.py"), "--port", str(port), "--log-level", "WARNING"],
                     port, "the everything-server")


SERVER_STARTS = {
    "demo": lambda: demo_http(fixtures=True),
    "everything": everything_server,
}


def verdicts(judged: list[tuple[str, bool | None]]) -> dict[str, bool]:
    """Id -> met, from (id, met or None) judgements; an id with no verdict is left out."""
    by_id: dict[str, list[bool]] = {}
    for check_id, verdict in judged:
        if verdict is not None:
            by_id.setdefault(check_id, []).append(verdict)
    return {check_id: all(seen) for check_id, seen in by_id.items()}


def suite_verdicts(url: str) -> dict[str, bool]:
    checks = [check for scenario in run_scenarios(url).values() for check in scenario]
    return verdicts([(check["id"], met(check)) for check in checks])


CHECK_MET = {"pass": True, "fail": False, "warn": False}


def check_verdicts(url: str) -> tuple[dict[str, bool], dict[str, Any]]:
    """Id -> met as `mrtr check` judged it, and its report."""
    run = mrtr_here("check", "--url", url, *TOOL, "--json")
    assert run.code in (0, 2), run.stderr
    report = run.json()
    judged = [(check_id, CHECK_MET.get(line["status"])) for line in report["checks"] for check_id in ids_of(line)]
    return verdicts(judged), report


def ids_of(line: dict[str, Any]) -> list[str]:
    """The conformance ids a line of `mrtr check --json` judges (`conformance`: a list, or one id)."""
    named = line.get("conformance") or []
    return [named] if isinstance(named, str) else list(named)


@pytest.fixture(scope="module", params=sorted(SERVER_STARTS))
def judged(request):
    with SERVER_STARTS[request.param]() as url:
        started = time.monotonic()
        suite = suite_verdicts(url)
        check, report = check_verdicts(url)
        yield request.param, suite, check, report, time.monotonic() - started


def test_both_judges_agree_on_every_id_both_judge(judged):
    server, suite, check, report, _ = judged
    both = sorted(set(suite) & set(check))
    differ = {check_id for check_id in both if suite[check_id] != check[check_id]}
    explain = {check_id: (f"suite {'met' if suite[check_id] else 'broken'}",
                          [(line["id"], line["status"], line["seen"]) for line in report["checks"]
                           if check_id in ids_of(line)]) for check_id in differ}
    assert differ == DIFFERENCES[server], json.dumps(explain, indent=1)
    assert len(both) >= 25, both  # the comparison is not empty


def test_the_run_stays_short(judged):
    assert judged[4] < 60, f"one suite run and one mrtr check took {judged[4]:.1f} s"


def documented_differences() -> str:
    text = DOCS.read_text(encoding="utf-8")
    assert DIFFER_HEADING in text, f"docs/check-rules.md has no section {DIFFER_HEADING!r}"
    section = text.split(DIFFER_HEADING, 1)[1]
    return re.split(r"^## ", section, maxsplit=1, flags=re.MULTILINE)[0]


def test_every_difference_is_explained_in_the_docs():
    named = set(re.findall(r"`(sep-[a-z0-9-]+)`", documented_differences()))
    for server, ids in DIFFERENCES.items():
        assert ids <= named, f"{server}: explain {sorted(ids - named)} in docs/check-rules.md, {DIFFER_HEADING!r}"
