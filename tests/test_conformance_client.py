"""The official conformance suite's 2026-07-28 client scenarios, driven through mrtr."""

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


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_client_scenario_passes(scenario: str):
    assert " " not in str(ROOT), "the suite splits the command on spaces"
    code, checks, output = run_client_scenario(DRIVER, scenario)
    unexpected = [f for f in failures(checks, also=("WARNING",)) if f"{scenario}:{f.split(' ')[0]}" not in EXPECTED_FAILURES]
    assert unexpected == [], output
    assert code == 0, output
    assert sum(c["status"] == "SUCCESS" for c in checks) >= SUCCESSES[scenario], checks
