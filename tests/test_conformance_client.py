"""The official conformance suite's client scenarios (2026-07-28 and 2025-11-25), driven through mrtr."""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT
from conformance import failures, run_client_scenario

SCENARIOS = ["sep-2322-client-request-state", "request-metadata", "tools_call", "http-standard-headers",
             "http-custom-headers", "http-invalid-tool-headers", "json-schema-ref-no-deref"]
DRIVER = f"exec {sys.executable} {ROOT / 'tests' / 'conformance_driver.py'}"
EXPECTED_FAILURES: dict[str, str] = {}
"""scenario:check-id -> why mrtr cannot pass it (none today)."""
SUCCESSES = {"sep-2322-client-request-state": 5, "request-metadata": 8, "tools_call": 2, "http-standard-headers": 9,
             "http-custom-headers": 18, "http-invalid-tool-headers": 12, "json-schema-ref-no-deref": 1}
"""How many checks each scenario passes today: fewer means checks stopped running."""
OLDER_SCENARIOS = {"initialize": 1, "tools_call": 2, "elicitation-sep1034-client-defaults": 5, "sse-retry": 3,
                   "json-schema-2020-12-preservation": 9}
"""The 2025-11-25 scenarios (the initialize handshake era) and how many checks each passes."""


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_client_scenario_passes(scenario: str):
    assert_passes(scenario, "2026-07-28", SUCCESSES[scenario])


@pytest.mark.parametrize("scenario", OLDER_SCENARIOS)
def test_older_client_scenario_passes(scenario: str):
    """GET stream, resumption with Last-Event-ID after the `retry:` delay, defaults, schemas kept."""
    assert_passes(scenario, "2025-11-25", OLDER_SCENARIOS[scenario])


def assert_passes(scenario: str, spec_version: str, successes: int) -> None:
    assert_passes_with(DRIVER, scenario, spec_version, successes)


def assert_passes_with(driver: str, scenario: str, spec_version: str, successes: int) -> None:
    """The scenario passes with the client `driver` runs (mrtr, or mrtr through the proxy)."""
    assert " " not in str(ROOT), "the suite splits the command on spaces"
    code, checks, output = run_client_scenario(driver, scenario, spec_version)
    unexpected = [f for f in failures(checks, also=("WARNING",)) if f"{scenario}:{f.split(' ')[0]}" not in EXPECTED_FAILURES]
    assert unexpected == [], output
    assert code == 0, output
    assert sum(c["status"] == "SUCCESS" for c in checks) >= successes, checks
