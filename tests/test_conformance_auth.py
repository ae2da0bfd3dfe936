"""The conformance suite's authorization scenarios (auth/*, the extensions left out), for
2026-07-28 and for 2025-11-25, each run through the real CLI: `mrtr call` logs in with
`--auth-open` handing the URL to the tests' headless browser (tests/headless_browser.py), which
approves at once. Where the scenario's server misbehaves (a foreign resource, a forged issuer or
`iss`), mrtr must refuse with exit 3 before the token request; the driver expects that exit.
Tokens are kept in a temporary MRTR_CONFIG_DIR, never in the real home.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import ROOT
from conformance import failures, run_client_scenario, suite_command

DRIVER = f"exec {sys.executable} {ROOT / 'tests' / 'conformance_driver.py'}"
BOTH_ERAS = {"auth/metadata-default": (17, 18), "auth/metadata-var1": (17, 18), "auth/metadata-var2": (17, 18),
             "auth/metadata-var3": (17, 18), "auth/basic-cimd": (11, 13), "auth/scope-from-www-authenticate": (13, 14),
             "auth/scope-from-scopes-supported": (13, 14), "auth/scope-omitted-when-undefined": (13, 14),
             "auth/scope-step-up": (26, 23), "auth/scope-retry-limit": (33, 30),
             "auth/token-endpoint-auth-basic": (18, 19), "auth/token-endpoint-auth-post": (18, 19),
             "auth/token-endpoint-auth-none": (18, 19), "auth/pre-registration": (11, 13)}
"""Scenarios of both versions: how many checks each passes (2026-07-28, 2025-11-25); fewer means
checks stopped running."""
MODERN_ONLY = {"auth/resource-mismatch": 2, "auth/offline-access-scope": 14, "auth/offline-access-not-supported": 13,
               "auth/authorization-server-migration": 26, "auth/iss-supported": 13, "auth/iss-not-advertised": 13,
               "auth/iss-supported-missing": 8, "auth/iss-wrong-issuer": 8, "auth/iss-unexpected": 8,
               "auth/iss-normalized": 8, "auth/metadata-issuer-mismatch": 3}
"""Scenarios introduced in 2026-07-28, and their checks."""
CASES = ([("2026-07-28", name, counts[0]) for name, counts in BOTH_ERAS.items()]
         + [("2026-07-28", name, count) for name, count in MODERN_ONLY.items()]
         + [("2025-11-25", name, counts[1]) for name, counts in BOTH_ERAS.items()])


def listed_auth_scenarios(spec_version: str) -> set[str]:
    """The auth/* client scenarios the suite lists for `spec_version`, without its extensions."""
    done = subprocess.run([*suite_command(), "list", "--client", "--spec-version", spec_version],
                          capture_output=True, text=True, timeout=60)
    return {match.group(1) for match in re.finditer(r"- (auth/\S+)( \[[^\]]*\])?", done.stdout + done.stderr)
            if "extension" not in (match.group(2) or "")}


def test_every_auth_scenario_the_suite_lists_is_run():
    assert listed_auth_scenarios("2026-07-28") == set(BOTH_ERAS) | set(MODERN_ONLY)
    assert len(set(BOTH_ERAS) | set(MODERN_ONLY)) == 25
    assert listed_auth_scenarios("2025-11-25") == set(BOTH_ERAS)


@pytest.mark.parametrize(("spec_version", "scenario", "successes"), CASES, ids=[f"{v}-{s}" for v, s, _ in CASES])
def test_auth_scenario_passes(spec_version: str, scenario: str, successes: int, tmp_path, monkeypatch):
    assert " " not in str(ROOT), "the suite splits the command on spaces"
    monkeypatch.setenv("MRTR_CONFIG_DIR", str(tmp_path))
    code, checks, output = run_client_scenario(DRIVER, scenario, spec_version)
    assert failures(checks, also=("WARNING",)) == [], output
    assert code == 0, output
    assert sum(c["status"] == "SUCCESS" for c in checks) >= successes, checks


MACHINE_SCENARIOS = {"auth/client-credentials-basic": "client-credentials-basic-auth",
                     "auth/client-credentials-jwt": "client-credentials-jwt-verified"}
"""The client credentials extension's scenarios (run with --force), and the check each must pass:
the client proved itself with its secret, or with a JWT its key signed."""


@pytest.mark.parametrize("scenario", sorted(MACHINE_SCENARIOS))
def test_client_credentials_scenario_passes(scenario: str, tmp_path, monkeypatch):
    monkeypatch.setenv("MRTR_CONFIG_DIR", str(tmp_path))
    code, checks, output = run_client_scenario(DRIVER, scenario, "2026-07-28", force=True)
    assert failures(checks, also=("WARNING",)) == [], output
    assert code == 0, output
    passed = {c["id"] for c in checks if c["status"] == "SUCCESS"}
    assert {MACHINE_SCENARIOS[scenario], "valid-bearer-token", "authorization-server-metadata"} <= passed, checks
    assert "authorization-request" not in {c["id"] for c in checks}  # no browser: no authorization request
    assert not (tmp_path / "auth").exists()  # --no-auth-store: nothing kept
