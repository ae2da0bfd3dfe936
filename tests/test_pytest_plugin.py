"""The pytest plugin, run by pytest on small projects (pytester, in this process; in a subprocess for xdist):
transcripts as items, the replay diff as the failure, --mrtr-update, trust, and the `mrtr` fixture."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
import yaml

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
BOOK_TABLE = ROOT / "recordings" / "book_table.yaml"
PARTY = "How many people, and any seating wishes?"
PLUGIN = ("-p", "mrtr_cli.pytest_plugin", "-p", "no:cacheprovider")


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project with a passing and a diverging transcript under recordings/."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    recordings = pytester.mkdir("recordings")
    (recordings / "same.yaml").write_text(BOOK_TABLE.read_text())
    (recordings / "edited.yaml").write_text(BOOK_TABLE.read_text().replace(PARTY, "How many guests?"))
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """pytest on the project, in this process (a pytest session of its own, the plugin loaded as `-p` loads it);
    `run_in_a_subprocess` where a fresh interpreter is needed (pytest-xdist's workers)."""
    return pytester.runpytest_inprocess(*PLUGIN, *args)


def run_in_a_subprocess(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*PLUGIN, *args, timeout=120)


def test_transcripts_are_items_and_a_divergence_fails_with_the_replay_diff(project: pytest.Pytester):
    result = run(project, "--mrtr-replay", "recordings", "--mrtr-demo", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*recordings/edited.yaml::edited FAILED*", "*recordings/same.yaml::same PASSED*"])
    result.stdout.fnmatch_lines(["*edited.yaml: diverged from the recording (1 difference)",
                                 "    round 2, question 'party': message",
                                 '      - "How many guests?"',
                                 f'      + "{PARTY}"'])
    assert "Traceback" not in result.stdout.str()


def test_the_replay_items_run_under_pytest_xdist(project: pytest.Pytester):
    """What docs/ci.md says to use for a pytest suite: the items spread over workers, each verdict its own."""
    result = run_in_a_subprocess(project, "--mrtr-replay", "recordings", "--mrtr-demo", "-n", "2", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*[[]gw[01][]]*PASSED*recordings/same.yaml::same*"])
    result.stdout.fnmatch_lines(["*edited.yaml: diverged from the recording (1 difference)"])


def test_ini_options_work_like_the_flags_and_ignore_hides_a_difference(project: pytest.Pytester):
    project.makeini("[pytest]\nmrtr_replay = recordings\nmrtr_demo = true\n")
    run(project).assert_outcomes(passed=1, failed=1)
    ignored = run(project, "--mrtr-ignore", "$.rounds[*].received.result.inputRequests.party.params.message")
    ignored.assert_outcomes(passed=2)


def test_update_rewrites_the_diverging_transcript(project: pytest.Pytester):
    edited = project.path / "recordings" / "edited.yaml"
    first = run(project, "--mrtr-replay", "recordings", "--mrtr-demo", "--mrtr-update")
    first.assert_outcomes(passed=1, failed=1)
    first.stdout.fnmatch_lines(["*edited.yaml was rewritten from the live run (--mrtr-update)"])
    assert PARTY in edited.read_text()
    run(project, "--mrtr-replay", "recordings", "--mrtr-demo").assert_outcomes(passed=2)


def test_without_a_target_each_item_is_an_error_that_says_so(project: pytest.Pytester):
    result = run(project, "--mrtr-replay", "recordings")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["no server to replay against: pass --mrtr-stdio CMD, --mrtr-url URL or --mrtr-demo*"])


def test_a_recorded_command_runs_only_with_trust(project: pytest.Pytester):
    marker = project.path / "ran"
    script = project.path / "server.py"
    script.write_text("import pathlib, runpy, sys\n"
                      f"pathlib.Path({str(marker)!r}).touch()\n"
                      "sys.argv = ['mrtr', 'demo-server']\n"
                      "runpy.run_module('mrtr_cli', run_name='__main__')\n")
    document = yaml.safe_load(BOOK_TABLE.read_text())
    document["target"] = {"transport": "stdio", "command": [sys.executable, str(script)], "cwd": str(project.path)}
    (project.path / "recordings" / "edited.yaml").unlink()
    (project.path / "recordings" / "same.yaml").write_text(yaml.safe_dump(document, sort_keys=False))
    untrusted = run(project, "--mrtr-replay", "recordings")
    untrusted.assert_outcomes(errors=1)
    assert not marker.exists()
    no_consent = run(project, "--mrtr-replay", "recordings", "--mrtr-stdio", f"{sys.executable} -m mrtr_cli demo-server")
    no_consent.assert_outcomes(passed=1)
    assert not marker.exists()
    trusted = run(project, "--mrtr-replay", "recordings", "--mrtr-trust-target")
    trusted.assert_outcomes(passed=1)
    assert marker.exists()


def test_the_fixture_returns_the_outcome_as_data_in_either_era(pytester: pytest.Pytester,
                                                                monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_fixture=f"""
        import sys
        ANSWERS = {{"answers": {{"date": {{"content": {{"date": "2026-12-24"}}}}}}}}

        def test_modern(mrtr):
            outcome = mrtr.call("book_table", demo=True, answers=ANSWERS)
            assert outcome.exit_code == 7 and outcome.result is None
            assert [(q.key, q.method) for q in outcome.questions] == [
                ("date", "elicitation/create"), ("party", "elicitation/create")]
            assert outcome.questions[1].message == {PARTY!r}
            assert "size" in outcome.questions[1].schema["properties"]
            assert len(outcome.rounds) == 2

        def test_older(mrtr):
            outcome = mrtr.call("summarize", {{"text": "abc"}}, stdio=[sys.executable, "-m", "mrtr_cli", "demo-server"],
                                era="older", answers={{"answers": {{"sampling#1": {{"text": "short"}}}}}})
            assert outcome.exit_code == 0, outcome.error
            assert outcome.era == "older"
            assert [(q.key, q.method) for q in outcome.questions] == [("sampling#1", "sampling/createMessage")]
            assert outcome.result["content"]

        def test_no_server(mrtr):
            outcome = mrtr.prompt("release_notes")
            assert outcome.exit_code == 1 and "no server given" in outcome.error
    """)
    result = run(pytester)
    result.assert_outcomes(passed=3)


def test_the_entry_point_names_the_plugin_module():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["pytest11"] == {"mrtr_cli.pytest_plugin": "mrtr_cli.pytest_plugin"}
    assert (ROOT / "mrtr_cli" / "pytest_plugin.py").is_file()


def test_the_fixtures_errors_speak_of_answers_and_the_mapping_given(pytester: pytest.Pytester,
                                                                     monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_answers_given="""
        DATE = {"content": {"date": "2026-12-24"}}

        def speaks_of_the_mapping(error):
            assert "answers=" in error, error
            for cli_word in ("--answer", "--answers", "--no-input", "terminal", ".yaml", "mrtr-answers-"):
                assert cli_word not in error, error

        def test_a_misspelled_key(mrtr):
            outcome = mrtr.call("book_table", demo=True, answers={"answers": {"date": {"acton": "decline"}}})
            assert outcome.exit_code == 1
            assert outcome.error.startswith(
                "answers=['answers']['date']: unknown key 'acton' (did you mean 'action'?); fix the mapping given as answers=")
            speaks_of_the_mapping(outcome.error)

        def test_a_question_left_unanswered(mrtr):
            outcome = mrtr.call("book_table", demo=True, answers={"answers": {"date": DATE}})
            assert outcome.exit_code == 7
            assert "give it an entry in answers=, e.g. answers={'answers': {'party': {'content': {FIELD: VALUE}}}}" in outcome.error
            speaks_of_the_mapping(outcome.error)

        def test_no_answers_at_all(mrtr):
            outcome = mrtr.call("book_table", demo=True)
            assert outcome.exit_code == 7
            speaks_of_the_mapping(outcome.error)

        def test_a_key_close_to_the_question(mrtr):
            outcome = mrtr.call("book_table", demo=True, answers={"answers": {"dat": DATE}})
            assert outcome.exit_code == 7 and "the answers= mapping has an entry 'dat'; did you mean 'date'?" in outcome.error
            speaks_of_the_mapping(outcome.error)

        def test_an_invalid_answer(mrtr):
            outcome = mrtr.call("book_table", demo=True, answers={"answers": {"date": {"content": {"date": "tomorrow"}}}})
            assert outcome.exit_code == 1 and "the answer to 'date' is invalid" in outcome.error
            speaks_of_the_mapping(outcome.error)

        def test_a_wrong_shape_and_a_value_that_is_not_json(mrtr):
            for answers in ({"answers": {"date": {"action": "maybe"}}}, {"answers": {"date": {"content": {"date": object()}}}}):
                outcome = mrtr.call("book_table", demo=True, answers=answers)
                assert outcome.exit_code == 1
                speaks_of_the_mapping(outcome.error)
    """)
    result = run(pytester)
    result.assert_outcomes(passed=6)
