"""`mrtr demo-server --conformance-fixtures`: the suite's fixture tools beside the demo's own,
judged by the real conformance suite over HTTP and called by mrtr over stdio."""

from __future__ import annotations

import pytest

from conftest import PYTHON, mrtr
from peers import http_server
from suite_runs import run_scenarios

FIXTURE_DEMO = [PYTHON, "-m", "mrtr_cli", "demo-server", "--conformance-fixtures"]
NOT_SUCCESS = {
    ("sep-2575-http-server-method-not-found-404-initialize", "FAILURE"),
    ("sep-2575-server-sends-subscription-ack", "SKIPPED"),
    ("sep-2575-server-tags-subscription-id", "SKIPPED"),
    ("sep-2575-server-honors-notification-filter", "SKIPPED"),
    ("sep-2575-server-sends-prompts-list-changed-on-subscription", "SKIPPED"),
    ("sep-2575-server-sends-tools-list-changed-on-subscription", "SKIPPED"),
}
"""The demo answers `initialize` (it also speaks the handshake era: docs/check-rules.md, "Where mrtr
and the suite differ"), and serves no subscriptions/listen, so it declares no listChanged and the
suite skips the subscription checks."""


@pytest.fixture(scope="module")
def suite_checks():
    with http_server([*FIXTURE_DEMO, "--http", "127.0.0.1:0"]) as url:
        yield run_scenarios(url)


def test_the_suite_runs_every_scenario_of_the_issue(suite_checks):
    assert len(suite_checks) == 17, sorted(suite_checks)
    assert sum(len(checks) for checks in suite_checks.values()) >= 60


def test_every_check_passes_but_the_explained_ones(suite_checks):
    seen = {(c["id"], c["status"]) for checks in suite_checks.values() for c in checks if c["status"] != "SUCCESS"}
    assert seen == NOT_SUCCESS, [c for checks in suite_checks.values() for c in checks if c["status"] != "SUCCESS"]


def names(kind: str, *server: str) -> set[str]:
    run = mrtr("list", kind, "--json", *server)
    assert run.code == 0, run.stderr
    return {item["name"] for items in run.json().values() if isinstance(items, list) for item in items}


def test_the_plain_demo_keeps_its_short_tool_list():
    plain = names("tools", "--demo")
    assert len(plain) == 8 and not any(name.startswith("test_") for name in plain), plain
    with_fixtures = names("tools", "--", *FIXTURE_DEMO)
    assert plain < with_fixtures
    assert {"test_input_required_result_elicitation", "test_missing_capability", "test_logging_tool",
            "test_streaming_elicitation"} <= with_fixtures
    assert "test_input_required_result_prompt" in names("prompts", "--", *FIXTURE_DEMO)


def test_a_fixture_answered_over_stdio_as_a_user_would():
    run = mrtr("call", "test_input_required_result_multi_round", "--answer", "step1.name=Ada",
               "--answer", "step2.color=blue", "--no-input", "--", *FIXTURE_DEMO)
    assert run.code == 0, run.stderr
    assert "Ada likes blue." in run.stdout


def test_a_tool_needing_a_withheld_capability_is_refused():
    run = mrtr("call", "test_missing_capability", "--no-sampling", "--no-input", "--", *FIXTURE_DEMO)
    assert run.code != 0 and "-32021" in run.stderr, (run.code, run.stderr)
