"""`--junit FILE` on `replay`, `check` and `proxy`: the run as a JUnit XML report, the shape Jenkins'
junit-10.xsd describes and GitLab's and GitHub's test reporters read.

One test case a transcript (replay), a probe (check) or a rule of the client's judge (proxy).
Built with the standard library's ElementTree, never by pasting strings; every text from a server goes through text.py's `safe`
first, which also turns the characters XML 1.0 cannot hold (C0 controls, lone surrogates) into
visible escapes. The only module that imports xml; loaded only when --junit is given.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Sequence
from pathlib import Path

from mrtr_cli.check.verdicts import Check
from mrtr_cli.errors import UsageError
from mrtr_cli.protocol.lint_rules import Finding
from mrtr_cli.render.replay_report import verdict_lines
from mrtr_cli.text import safe
from mrtr_cli.transcript.replay_verdict import ReplayVerdict

_NOT_IN_XML = str.maketrans({"\ufffe": "\\ufffe", "\uffff": "\\uffff"})
"""The two non-characters `safe` lets through that XML 1.0 cannot hold."""
TEXT_LIMIT = 100_000
"""The most characters of one failure's text kept in the report."""


def xml_text(text: object, limit: int | None = TEXT_LIMIT) -> str:
    """`text` as characters XML 1.0 can hold, control characters shown as escapes."""
    return safe(text, limit).translate(_NOT_IN_XML)


def replay_suite(verdicts: list[ReplayVerdict]) -> ElementTree.Element:
    """A test suite of one test case a transcript: diverged is a failure (the diff as its text),
    a replay that could not run (exit 1, 4, 7, 130) an error."""
    suite = _suite("mrtr replay")
    for verdict in verdicts:
        case = _case(suite, "mrtr.replay", verdict.file, verdict.elapsed)
        if verdict.result == "diverged":
            _outcome(case, "failure", "diverged", _head(verdict), _diff(verdict))
        elif verdict.result == "failed":
            message = verdict.error.one_line() if verdict.error else "did not replay"
            _outcome(case, "error", verdict.code.label, message, _diff(verdict))
    return _counted(suite)


def check_suite(checks: list[Check], elapsed: float, failure: str | None = None) -> ElementTree.Element:
    """A test suite of one test case a probe, named by its id, with the time of its exchanges: fail
    is a failure, skipped is skipped, warn passes with what was seen as its output. `failure`: the run stopped before any
    probe ran (the server unreachable, say), one error test case that says why."""
    suite = _suite("mrtr check")
    for check in checks:
        case = _case(suite, "mrtr.check", check.id, check.elapsed)
        if check.status == "fail":
            _outcome(case, "failure", check.level, check.title, f"{check.seen}\n{check.page}")
        elif check.status == "skipped":
            _outcome(case, "skipped", None, check.seen, None)
        elif check.status == "warn":
            ElementTree.SubElement(case, "system-out").text = xml_text(f"warn: {check.seen}\n{check.page}")
    if failure is not None:
        _outcome(_case(suite, "mrtr.check", "connect", None), "error", None, failure, None)
    suite.set("time", _seconds(elapsed))
    return _counted(suite)


def client_suite(findings: Sequence[Finding], rules: Iterable[str]) -> ElementTree.Element:
    """`mrtr proxy --junit`: one test case a rule of the client's judge; a rule the client broke as an
    error (a MUST) is a failure with every such finding as its text, a warning passes with them as
    its output."""
    suite = _suite("mrtr proxy")
    for rule in rules:
        broken = [found for found in findings if found.rule == rule]
        case = _case(suite, "mrtr.proxy", rule, None)
        text = "\n".join(f"{found.message}\n{found.page}" for found in broken)
        if any(found.severity == "error" for found in broken):
            _outcome(case, "failure", "error", broken[0].message, text)
        elif broken:
            ElementTree.SubElement(case, "system-out").text = xml_text(f"{broken[0].severity}: {text}")
    return _counted(suite)


def write_report(path: str, suite: ElementTree.Element) -> None:
    """Write the report to `path` as UTF-8 with an XML declaration; an unwritable path is exit 1."""
    root = ElementTree.Element("testsuites")
    root.append(suite)
    for name in ("tests", "failures", "errors", "time"):
        if suite.get(name) is not None:
            root.set(name, suite.get(name, ""))
    ElementTree.indent(root)
    try:
        ElementTree.ElementTree(root).write(Path(path), encoding="utf-8", xml_declaration=True)
    except OSError as error:
        raise UsageError(f"cannot write the JUnit report {path}: {error.strerror or error}",
                         "check that its directory exists and is writable") from None


def _suite(name: str) -> ElementTree.Element:
    return ElementTree.Element("testsuite", {"name": name})


def _case(suite: ElementTree.Element, classname: str, name: str, elapsed: float | None) -> ElementTree.Element:
    attributes = {"classname": classname, "name": xml_text(name, 500)}
    if elapsed is not None:
        attributes["time"] = _seconds(elapsed)
    return ElementTree.SubElement(suite, "testcase", attributes)


def _outcome(case: ElementTree.Element, tag: str, kind: str | None, message: str, text: str | None) -> None:
    """A failure, error or skipped element with its message (one line) and its text."""
    element = ElementTree.SubElement(case, tag, {"message": xml_text(message, 1000).replace("\n", " ")})
    if kind is not None:
        element.set("type", kind)
    if text:
        element.text = xml_text(text)


def _counted(suite: ElementTree.Element) -> ElementTree.Element:
    """The suite with its counts; its time the sum of its cases' unless already set."""
    cases = suite.findall("testcase")
    for name, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
        suite.set(name, str(sum(case.find(tag) is not None for case in cases)))
    suite.set("tests", str(len(cases)))
    if suite.get("time") is None:
        suite.set("time", _seconds(sum(float(case.get("time", "0")) for case in cases)))
    return suite


def _seconds(elapsed: float) -> str:
    """Seconds with three decimals (the SUREFIRE_TIME pattern of junit-10.xsd), rounded up: a probe
    whose exchanges took under half a millisecond shows 0.001, not the 0.000 of a probe judged from
    another probe's exchange."""
    return f"{math.ceil(round(max(elapsed, 0.0) * 1000, 6)) / 1000:.3f}"


def _head(verdict: ReplayVerdict) -> str:
    count = len(verdict.differences)
    return f"diverged from the recording ({count} difference{'s' if count != 1 else ''})"


def _diff(verdict: ReplayVerdict) -> str:
    """What `mrtr replay` prints for the transcript, as plain text."""
    return "\n".join(line.plain for line in verdict_lines(verdict))
