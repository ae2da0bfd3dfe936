"""Where output goes and how it is laid out: `mrtr list` never splits a name, `mrtr show` writes its
timeline to stdout, and answer flags no question used are named."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT, elicit, input_required, mrtr_here, text_result

LONG_NAME = "test_input_required_result_elicitation_with_a_long_name"
TEMPLATE = "vault://secrets/very/long/path/segment/{resourceId}/and/more/{anotherId}"
DESCRIPTION = "A tool whose description goes on and on, well past the width of the terminal a person would use"
LISTED = {
    "tools": [{"name": LONG_NAME, "description": DESCRIPTION, "inputSchema": {
        "type": "object", "properties": {"resourceId": {"type": "string"}, "another_long_argument": {}},
        "required": ["resourceId"]}}],
    "resourceTemplates": [{"uriTemplate": TEMPLATE, "name": "a_long_template_name_for_the_vault",
                           "description": DESCRIPTION}],
}


@pytest.mark.parametrize("kind,name", [("tools", LONG_NAME), ("templates", TEMPLATE)])
def test_list_off_a_terminal_is_one_line_per_row_whatever_the_width(scripted, kind, name):
    server = scripted(**LISTED)
    for columns in (None, "40", "250"):
        run = mrtr_here(*server.args("list", kind), env={"COLUMNS": columns} if columns else {"COLUMNS": ""})
        assert run.code == 0, run.stderr
        header, row = run.stdout.splitlines()
        assert row.startswith(name + "  ")
        if columns is None:
            assert row.endswith(("resourceId*, another_long_argument", DESCRIPTION))  # nothing cut, nothing wrapped
        if columns == "250":
            assert DESCRIPTION in row and len(row) <= 250
        if columns == "40":  # names are never cut; the description is, to fit as well as it can
            assert "…" in row and DESCRIPTION not in row


def test_show_writes_the_timeline_to_stdout_and_errors_to_stderr(tmp_path: Path):
    run = mrtr_here("show", str(ROOT / "recordings" / "book_table.yaml"))
    assert run.code == 0 and run.stderr == ""
    order = ["→ tools/call book_table", "? date · elicitation/create (form)", "from answers-file",
             "↻ tools/call book_table", "? party · elicitation/create (form)", "Booked a table for 4",
             "✓ complete · 4 rounds"]
    positions = [run.stdout.find(text) for text in order]
    assert -1 not in positions and positions == sorted(positions), run.stdout
    missing = mrtr_here("show", str(tmp_path / "none.yaml"))
    assert missing.code == 1 and missing.stdout == "" and "none.yaml" in missing.stderr
    document = mrtr_here("show", str(ROOT / "recordings" / "book_table.yaml"), "--json")
    assert document.json()["outcome"] == "complete" and document.stderr == ""


def test_show_writes_a_recorded_failure_with_the_timeline(scripted, tmp_path: Path):
    form = elicit("Name?", {"name": {"type": "string"}})
    server = scripted(steps=[{"result": input_required({"n": form})}, {"exit": 9, "stderr": "boom\n"}])
    path = tmp_path / "dead.yaml"
    mrtr_here(*server.args("call", "t", "--answer", "n.name=Ada", "--record", str(path)))
    shown = mrtr_here("show", str(path))
    assert shown.code == 0 and shown.stderr == ""
    assert shown.stdout.index("? n · elicitation/create") < shown.stdout.index("exited with code 9")


ROOTS = {"method": "roots/list"}
SAMPLE = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}


@pytest.mark.parametrize("flag", [["--root", "."], ["--sampling-reply", "hi"], ["--sampler", "cat"],
                                  ["--answer", "other.x=1"]])
def test_answer_flags_no_question_used_are_named(scripted, flag):
    form = elicit("Name?", {"name": {"type": "string"}})
    server = scripted(steps=[{"result": input_required({"n": form})}, {"result": text_result("ok")}])
    run = mrtr_here(*server.args("call", "t", "--answer", "n.name=Ada", *flag))
    assert run.code == 0, run.stderr
    assert re.search(f"! {re.escape(flag[0])} {re.escape(flag[1])} matched no question the server asked",
                     run.stderr), run.stderr
    assert run.stderr.count("matched no question") == 1  # not the --answer that was used


def test_used_root_and_sampling_flags_are_not_named(scripted):
    server = scripted(steps=[{"result": input_required({"r": ROOTS, "s": SAMPLE})}, {"result": text_result("ok")}])
    run = mrtr_here(*server.args("call", "t", "--root", ".", "--sampling-reply", "hi"))
    assert run.code == 0, run.stderr
    assert "matched no question" not in run.stderr


def test_replay_names_the_answer_flags_no_question_used():
    run = mrtr_here("replay", str(ROOT / "recordings" / "book_table.yaml"), "--demo", "--root", ".",
               "--sampling-reply", "hi", "--answer", "nobody.x=1")
    assert run.code == 0, run.stderr
    for flag in ("--root .", "--sampling-reply hi", "--answer nobody.x=1"):
        assert f"! {flag} matched no question the server asked" in run.stderr
