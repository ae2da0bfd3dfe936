"""`mrtr check --url` against servers behind OAuth (tests/servers/oauth_server.py): the
authorization probes pass, a faulty metadata document fails its probe, a server not behind OAuth
has them skipped, and check never logs in by itself (with a kept token it probes the rest)."""

from __future__ import annotations

import json
import shlex
import sys

import jsonschema

from conftest import ROOT, mrtr_here
from peers import demo_http, oauth_http

SCHEMA = json.loads((ROOT / "docs" / "json" / "check.schema.json").read_text())
BROWSER = shlex.join([sys.executable, str(ROOT / "tests" / "headless_browser.py")])
AUTH_IDS = {"auth-challenge", "auth-resource-metadata", "auth-resource-matches", "auth-servers-listed",
            "auth-server-metadata", "auth-pkce-s256", "auth-resource-canonical"}


def checks(run) -> dict[str, dict]:
    document = run.json()
    jsonschema.validate(document, SCHEMA)
    return {check["id"]: check for check in document["checks"]}


def test_an_oauth_server_passes_and_without_a_token_the_rest_is_skipped(tmp_path):
    config = {"MRTR_CONFIG_DIR": str(tmp_path / "config")}
    with oauth_http() as url:
        run = mrtr_here("check", "--url", url, "--json", "--auth-open", BROWSER, env=config)
        assert run.code == 0, run.stderr
        found = checks(run)
        assert {found[id]["status"] for id in AUTH_IDS} == {"pass"}
        rest = [c for id, c in found.items() if id not in AUTH_IDS]
        assert rest and all(c["status"] == "skipped" and f"mrtr auth login {url}" in c["seen"] for c in rest)
        assert not (tmp_path / "config" / "auth").exists() or not list((tmp_path / "config" / "auth").iterdir())
        assert mrtr_here("auth", "login", url, "--auth-open", BROWSER, env=config).code == 0
        logged_in = mrtr_here("check", "--url", url, "--json", env=config)
    assert logged_in.code == 0, logged_in.stderr
    judged = {id: c["status"] for id, c in checks(logged_in).items() if id != "interim-no-caching-hints"}
    assert set(judged.values()) == {"pass"}  # no input_required came without a named tool: that probe is skipped


def test_metadata_without_pkce_s256_fails_through_the_cli(tmp_path):
    with oauth_http("--metadata-fault", "no-s256") as url:
        run = mrtr_here("check", "--url", url, "--json", env={"MRTR_CONFIG_DIR": str(tmp_path)})
    assert run.code == 2
    found = checks(run)
    assert found["auth-pkce-s256"]["status"] == "fail" and '["plain"]' in found["auth-pkce-s256"]["seen"]
    assert found["auth-server-metadata"]["status"] == "pass"
    assert "auth-pkce-s256" in run.error_line()["error"]["message"]


def test_metadata_naming_another_issuer_fails_and_the_text_says_so(tmp_path):
    with oauth_http("--metadata-fault", "issuer") as url:
        run = mrtr_here("check", "--url", url, env={"MRTR_CONFIG_DIR": str(tmp_path)})
    assert run.code == 2
    line = next(line for line in run.stdout.splitlines() if "names the same issuer" in line)
    assert line.startswith("✗ fail"), run.stdout
    assert "http://issuer.invalid" in run.stdout


def test_a_server_not_behind_oauth_has_the_authorization_probes_skipped_with_the_reason():
    with demo_http() as url:
        run = mrtr_here("check", "--url", url, "--json")
    assert run.code == 0, run.stderr
    found = checks(run)
    for id in AUTH_IDS:
        assert found[id]["status"] == "skipped" and "not behind OAuth" in found[id]["seen"]
    with demo_http() as url:
        shown = mrtr_here("check", "--url", url).stdout.splitlines()
    grouped = [line for line in shown if "OAuth" in line]  # one line for the seven, not seven
    assert grouped == [f"- skip  {len(AUTH_IDS)} authorization rules not probed: the server is not behind OAuth: it "
                       "answered HTTP 400 to a request without a token  (--json and --junit list each)"]
    stdio = checks(mrtr_here("check", "--demo", "--json"))
    assert not set(stdio) & set(AUTH_IDS)  # over stdio there is no authorization to probe
