"""The README is the front door: at most 200 lines, the two set-up commands as they always were (the
second is what .ci/run runs), and an answers file that answers the demo as it says. The rest is the
manual's (docs/); tests/test_demo.py runs the shell examples of both."""

from __future__ import annotations

import re

from conftest import ROOT, mrtr_here

README = (ROOT / "README.md").read_text(encoding="utf-8")
TRY_IT = ("python3 -m venv .venv && .venv/bin/pip install -q -e . && "
          ".venv/bin/mrtr call book_table --demo --answers examples/book_table.yaml")
TEST_IT = ("python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && "
           ".venv/bin/pytest -q -n auto --mrtr-replay recordings --mrtr-demo")


def sh_lines() -> list[str]:
    return [line for block in re.findall(r"```sh\n(.*?)```", README, re.S) for line in block.splitlines()]


def test_the_readme_is_at_most_200_lines():
    assert len(README.splitlines()) <= 200


def test_the_readme_holds_the_two_set_up_commands_and_ci_runs_the_second():
    assert sh_lines()[:1] == [TRY_IT] and TEST_IT in sh_lines()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == TEST_IT


def test_the_readmes_answers_file_answers_the_demo(tmp_path):
    example = README.split("**An answers file.**", 1)[1]
    document = re.search(r"```yaml\n(.*?)```", example, re.S)
    assert document, "the README lost its answers file"
    (tmp_path / "answers.yaml").write_text(document.group(1), encoding="utf-8")
    run = mrtr_here("call", "book_table", "--demo", "--no-input", "--answers", str(tmp_path / "answers.yaml"))
    assert run.code == 0, run.stderr
    assert "Booked a table for 4 (window, quiet) in Lisbon on 2026-12-24" in run.stdout
