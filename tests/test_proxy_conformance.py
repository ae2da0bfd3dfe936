"""Passing through `mrtr proxy --http` changes nothing either side sees: the suite's non-auth
2026-07-28 client scenarios still pass when mrtr's own client reaches the suite's server through it."""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT
from test_conformance_client import SCENARIOS, SUCCESSES, assert_passes_with

PROXIED_DRIVER = f"exec {sys.executable} {ROOT / 'tests' / 'proxied_driver.py'}"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_client_scenario_passes_through_the_proxy(scenario: str):
    assert_passes_with(PROXIED_DRIVER, scenario, "2026-07-28", SUCCESSES[scenario])
