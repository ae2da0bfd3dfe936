"""The official conformance suite's 2026-07-28 server scenarios against `mrtr demo-server --http`."""

from __future__ import annotations

import pytest

from conformance import failures, run_server_scenario
from peers import demo_http

SCENARIOS = ["caching", "http-header-validation", "dns-rebinding-protection",
             "input-required-result-unsupported-methods"]


@pytest.fixture(scope="module")
def url():
    with demo_http() as address:
        yield address


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_server_scenario_passes(url: str, scenario: str):
    code, checks, output = run_server_scenario(url, scenario)
    assert failures(checks, also=("WARNING",)) == [], output
    assert code == 0, output
    assert checks and all(c["status"] in ("SUCCESS", "INFO") for c in checks), checks
