"""`--junit FILE` on replay and check, valid against Jenkins' junit-10.xsd (vendored here with its
licence) and read back to the right counts; GitHub Actions annotations; hostile text kept safe."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
import xmlschema
import yaml

from conftest import PYTHON, ROOT, SERVERS, mrtr_here
from mrtr_cli.render.annotations import error_annotation

SCHEMA = xmlschema.XMLSchema(str(ROOT / "tests" / "junit-10.xsd"))
BOOK_TABLE = ROOT / "recordings" / "book_table.yaml"
PARTY = "How many people, and any seating wishes?"
HOSTILE = "How many \x1b[2J<guests> & ]]> \x00\x07\ufffe?"
BOOK = ("--tool", "book_table", "--answers", "examples/book_table.yaml")


def suite_of(path: Path) -> ElementTree.Element:
    """The report's one test suite, after validating the whole file against the XSD."""
    SCHEMA.validate(str(path))
    root = ElementTree.parse(path).getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    return suite


def counts(suite: ElementTree.Element) -> dict[str, int]:
    cases = suite.findall("testcase")
    found = {tag: sum(case.find(tag) is not None for case in cases) for tag in ("failure", "error", "skipped")}
    assert (int(suite.get("failures")), int(suite.get("errors")), int(suite.get("skipped"))) == \
        (found["failure"], found["error"], found["skipped"])
    return {"tests": int(suite.get("tests")), **found}


def transcripts(tmp_path: Path) -> list[str]:
    """A transcript that replays the same, one that diverges in hostile text, one that cannot load."""
    same, edited, broken = tmp_path / "same.yaml", tmp_path / "edited.yaml", tmp_path / "broken.yaml"
    same.write_text(BOOK_TABLE.read_text())
    document = yaml.safe_load(BOOK_TABLE.read_text())
    document["rounds"][1]["received"]["result"]["inputRequests"]["party"]["params"]["message"] = HOSTILE
    edited.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=False))
    broken.write_text("rounds: [")
    return [str(same), str(edited), str(broken)]


def test_replay_writes_a_valid_report_even_when_it_fails(tmp_path: Path):
    report = tmp_path / "out" / "replay.xml"
    report.parent.mkdir()
    run = mrtr_here("replay", *transcripts(tmp_path), "--demo", "--junit", str(report), env={"GITHUB_ACTIONS": "false"})
    assert run.code == 1, run.stderr  # the unreadable file wins over the divergence
    suite = suite_of(report)
    assert counts(suite) == {"tests": 3, "failure": 1, "error": 1, "skipped": 0}
    same, edited, broken = suite.findall("testcase")
    assert same.get("name").endswith("same.yaml") and float(same.get("time")) > 0
    failure = edited.find("failure")
    assert failure.get("message") == "diverged from the recording (1 difference)"
    assert "round 2, question 'party': message" in failure.text
    assert '\\u001b[2J<guests> & ]]> \\u0000\\u0007\\ufffe?' in failure.text
    assert f'+ "{PARTY}"' in failure.text
    assert broken.find("error").get("type") == "usage" and "not valid YAML" in broken.find("error").get("message")
    assert "::error" not in run.stderr


def test_check_writes_a_valid_report_with_failures_and_skips(tmp_path: Path):
    passing, failing = tmp_path / "pass.xml", tmp_path / "fail.xml"
    assert mrtr_here("check", *BOOK, "--demo", "--junit", str(passing)).code == 0
    suite = suite_of(passing)
    assert counts(suite) == {"tests": 64, "failure": 0, "error": 0, "skipped": 19}
    assert suite.find("testcase[@name='header-mismatch']/skipped").get("message") == "stdio has no headers"
    times = {case.get("name"): float(case.get("time", "-1")) for case in suite.iter("testcase")}
    assert times["discover"] > 0 and times["capability-withheld"] > 0  # each probe group's own exchanges
    assert times["discover-caching"] == 0  # judged from the discover probe's exchange
    assert times["state-forged-field"] > 0 and times["state-readable"] >= 0  # check/state_probes.py, each a case
    run = mrtr_here("check", *BOOK, "--junit", str(failing), "--", PYTHON, str(SERVERS / "broken_server.py"),
               "meta-not-required", env={"GITHUB_ACTIONS": "true"})
    assert run.code == 2
    suite = suite_of(failing)
    assert counts(suite)["failure"] == 1
    assert suite.find("testcase[@name='meta-required']/failure").get("type") == "MUST"
    assert "::error title=mrtr check%3A meta-required::" in run.stderr


def test_check_that_cannot_reach_the_server_still_writes_a_report(tmp_path: Path):
    report = tmp_path / "check.xml"
    run = mrtr_here("check", "--url", "http://127.0.0.1:9/mcp", "--timeout", "5", "--junit", str(report))
    assert run.code == 4
    suite = suite_of(report)
    assert counts(suite) == {"tests": 1, "failure": 0, "error": 1, "skipped": 0}


def test_an_unwritable_report_is_one_line_and_exit_1_before_anything_runs(tmp_path: Path):
    path = str(tmp_path / "missing" / "r.xml")
    for command in (["replay", str(BOOK_TABLE), "--demo"], ["check", "--demo"]):
        run = mrtr_here(*command, "--junit", path)
        assert run.code == 1 and run.stderr == f"✗ cannot write --junit '{path}': its folder does not exist; pick " \
            "another path\n", run.stderr  # the one line: nothing was replayed or probed first


def test_annotations_point_at_the_transcript_and_the_round(tmp_path: Path):
    files = transcripts(tmp_path)[:2]
    run = mrtr_here("replay", *files, "--demo", env={"GITHUB_ACTIONS": "true"})
    assert run.code == 6
    (line,) = [line for line in run.stderr.splitlines() if line.startswith("::error")]
    round_two = next(number for number, text in enumerate(Path(files[1]).read_text().splitlines(), 1)
                     if text.startswith("- round: 2"))
    assert line.startswith(f"::error file={files[1]},line={round_two},"
                           "title=mrtr replay%3A diverged from the recording::round 2, question 'party'")
    assert "\x1b" not in line and "\x00" not in line and "\\u001b[2J" in line
    assert "::error" not in mrtr_here("replay", *files, "--demo", env={"GITHUB_ACTIONS": ""}).stderr


def test_raw_control_characters_become_visible_escapes_in_the_xml(tmp_path: Path):
    from mrtr_cli.render.junit import check_suite, write_report
    from mrtr_cli.check.verdicts import Check

    hostile = Check("probe\x00", "title", "MUST", "fail", "seen \x1b[2J\x00\ud800\uffff <&>\r\n]]>", "page")
    write_report(str(tmp_path / "c.xml"), check_suite([hostile], 0.5))
    failure = suite_of(tmp_path / "c.xml").find("testcase/failure")
    assert failure.text == "seen \\x1b[2J\\x00\\ud800\\uffff <&>\\r\n]]>\npage"


@pytest.mark.parametrize("message,title,expected", [
    ("50% done\r\nnext", "a:b,c", "::error title=a%3Ab%2Cc::50%25 done\\r%0Anext"),
    ("plain", "t", "::error title=t::plain"),
])
def test_annotations_are_escaped_as_github_requires(message: str, title: str, expected: str):
    assert error_annotation(message, title) == expected
    assert error_annotation("m", "t", "dir/a,b:c.yaml", 7) == "::error file=dir/a%2Cb%3Ac.yaml,line=7,title=t::m"


def commands_the_runner_acts_on(output: str) -> list[str]:
    """The workflow commands GitHub's runner would act on in `output`, as its parser reads them: a
    line starting with `::` after leading spaces, or `##[` anywhere, except while paused by
    `::stop-commands::TOKEN` until `::TOKEN::`."""
    acted, resume = [], None
    for line in output.splitlines():
        if resume is not None:
            resume = None if line.strip() == f"::{resume}::" else resume
            continue
        if line.lstrip().startswith("::stop-commands::"):
            resume = line.strip().removeprefix("::stop-commands::")
        elif line.lstrip().startswith("::") or "##[" in line:
            acted.append(line.strip())
    return acted


def test_a_server_can_neither_forge_nor_hide_an_annotation(tmp_path: Path):
    hostile = "##[error]forged::stop-commands::hidden"
    path = tmp_path / "book_table.yaml"
    path.write_text(BOOK_TABLE.read_text().replace("How many people, and any seating wishes?", f"'{hostile}'"))
    done = mrtr_here("replay", str(path), "--demo", env={"GITHUB_ACTIONS": "true"}, merged=True)  # as the runner reads
    assert done.code == 6 and hostile in done.stdout, done.stdout
    [annotation] = commands_the_runner_acts_on(done.stdout)
    assert annotation.startswith(f"::error file={path},line=")
    assert commands_the_runner_acts_on(done.stdout.replace("::stop-commands::", "::not-a-command::")) != [annotation]
