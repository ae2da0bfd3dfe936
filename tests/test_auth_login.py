"""Logging in through the real CLI against the tests' OAuth-protected SDK server
(tests/servers/oauth_server.py): `mrtr auth login` with --auth-open handing the URL to the
headless browser, a tool called with the kept token, a refresh, the refusals (exit 3, one
line), and no secret in -v, --json, a transcript, or another server's token file.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, mrtr_here
from helpers import kept
from peers import demo_http, oauth_http
from mrtr_cli.entry import main
from mrtr_cli.process.environment import Environment

BROWSER = shlex.join([sys.executable, str(ROOT / "tests" / "headless_browser.py")])


@pytest.fixture(scope="module")
def url():
    with oauth_http() as address:
        yield address


@pytest.fixture
def config(tmp_path) -> dict[str, str]:
    return {"MRTR_CONFIG_DIR": str(tmp_path / "config")}


def test_login_then_a_call_with_the_kept_token_then_logout(url, config):
    login = mrtr_here("auth", "login", url, "--auth-open", BROWSER, env=config)
    assert login.code == 0, login.stderr
    assert "logged in to" in login.stdout and "authorized by" in login.stderr
    call = mrtr_here("call", "whoami", "--url", url, "--json", env=config)
    assert call.code == 0, call.stderr
    assert "auth:" not in call.stderr  # the kept token went first: no login this time
    assert mrtr_here("auth", "logout", url, env=config).code == 0
    assert mrtr_here("call", "whoami", "--url", url, env=config).code == 3


def test_a_call_logs_in_by_itself_and_the_transcript_says_so_without_a_secret(url, config, tmp_path):
    transcript = tmp_path / "t.yaml"
    call = mrtr_here("call", "whoami", "--url", url, "--auth-open", BROWSER, "-v", "--json", "--record", str(transcript),
                env=config)
    assert call.code == 0, call.stderr
    [login] = kept(config)
    secrets = [login["access_token"], login["refresh_token"], login["client_secret"]]
    recorded = transcript.read_text()
    assert "authorization:" in recorded and "issuer:" in recorded
    for secret in filter(None, secrets):
        assert secret not in call.stdout and secret not in call.stderr and secret not in recorded
    shown = mrtr_here("call", "whoami", "--url", url, "-v", "--show-secrets", env=config)
    assert login["access_token"] in shown.stderr  # the check above could fail


def test_a_login_never_reaches_another_servers_token_file(url, config):
    with oauth_http() as other:
        assert mrtr_here("auth", "login", url, "--auth-open", BROWSER, env=config).code == 0
        assert mrtr_here("auth", "login", other, "--auth-open", BROWSER, env=config).code == 0
    first, second = kept(config)
    assert first["resource"] != second["resource"]
    for secret in (first["access_token"], first["refresh_token"], first["client_secret"]):
        assert secret is None or secret not in json.dumps(second)


def test_an_expired_token_is_refreshed(config):
    with oauth_http("--token-lifetime", "1") as url:
        assert mrtr_here("auth", "login", url, "--auth-open", BROWSER, env=config).code == 0
        before = kept(config)[0]["access_token"]
        # The SDK takes a token as expired once int(now) passes its whole-second expiry (issue time + 1,
        # cut to the second): only from 2 s on is that sure.
        time.sleep(2.5)
        call = mrtr_here("call", "whoami", "--url", url, env=config)
        assert call.code == 0, call.stderr
        assert "refreshed the access token" in call.stderr
        assert kept(config)[0]["access_token"] != before


def test_stored_only_without_a_login_is_exit_3_naming_the_command(url, config):
    run = mrtr_here("call", "whoami", "--url", url, "--auth-stored-only", "--json", env=config)
    assert run.code == 3
    assert f"mrtr auth login {url}" in run.error_line()["error"]["message"]


def test_no_redirect_within_the_timeout_is_exit_3(url, config):
    opener = shlex.join([sys.executable, "-c", "pass"])
    run = mrtr_here("auth", "login", url, "--auth-open", opener, "--auth-timeout", "1", env=config)
    assert run.code == 3
    assert "no redirect from the authorization server within 1 s" in run.stderr
    assert kept(config) == []


def test_an_authorization_header_wins_and_turns_the_flow_off(url, config):
    assert mrtr_here("auth", "login", url, "--auth-open", BROWSER, env=config).code == 0
    run = mrtr_here("call", "whoami", "--url", url, "-H", "Authorization: Bearer not-a-token", "--auth-open", BROWSER,
               env=config)
    assert run.code == 3 and "auth:" not in run.stderr
    assert mrtr_here("call", "whoami", "--url", url, "--no-auth", env=config).code == 3


def test_a_denied_login_is_exit_3_naming_the_denial_and_keeps_nothing(config):
    with oauth_http("--deny") as denying:
        run = mrtr_here("auth", "login", denying, "--auth-open", BROWSER, env=config)
    assert run.code == 3, run.stderr
    reason = run.stderr.strip().splitlines()[-1]
    assert reason.startswith("✗ the authorization server denied the login: access_denied"), run.stderr
    assert "Traceback" not in run.stderr
    assert kept(config) == []


class LetsTheBrowserGo(io.StringIO):
    """mrtr's stderr, read as it is written: the browser may go once a line says mrtr waits for it."""

    def __init__(self, go: Path) -> None:
        super().__init__()
        self.go = go

    def write(self, text: str) -> int:
        written = super().write(text)
        if "waiting for the redirect" in self.getvalue():  # the whole so far: a line may come in pieces
            self.go.touch()
        return written


def test_a_call_shows_each_step_while_the_login_waits(url, config, tmp_path):
    """The browser is let go only once the timeline has said what mrtr waits for: were the steps
    shown after the login, the browser would never go and the login would time out (exit 3)."""
    go = tmp_path / "go"
    waiting_browser = shlex.join([sys.executable, "-c", "import os, sys, time; "
                                  f"[time.sleep(0.05) for _ in range(400) if not os.path.exists({str(go)!r})]; "
                                  f"os.execv(sys.executable, [sys.executable, {str(ROOT / 'tests' / 'headless_browser.py')!r}, sys.argv[1]])"])
    stderr = LetsTheBrowserGo(go)
    code = main(["call", "whoami", "--url", url, "--auth-open", waiting_browser, "--auth-timeout", "15"],
                Environment({**os.environ, **config, "NO_COLOR": "1"}, io.StringIO(), io.StringIO(), stderr))
    seen = stderr.getvalue().splitlines()
    assert code == 0, "\n".join(seen)
    assert [i for i, line in enumerate(seen) if "waiting for the redirect" in line] < \
        [i for i, line in enumerate(seen) if "authorized by" in line]


def test_login_to_a_server_that_asks_for_no_authorization_says_so_and_keeps_nothing(config):
    """The demo over HTTP answers a request without a token and publishes no protected resource
    metadata: nothing to log in to, exit 1 (as logging out of a server with no login), not exit 3."""
    with demo_http() as open_url:
        run = mrtr_here("auth", "login", open_url, env=config)
        elsewhere = open_url.rsplit("/", 1)[0] + "/elsewhere"
        wrong = mrtr_here("auth", "login", elsewhere, "--json", env=config)
    assert run.code == 1 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.strip().splitlines()[-1] == (
        f"✗ {open_url} does not ask for authorization: it answered a request without a token with HTTP 200, not "
        "401, and publishes no protected resource metadata (RFC 9728); nothing to log in to: use it as it is")
    assert "wants authentication" not in run.stderr and "HTTP 401" not in run.stderr
    assert wrong.code == 1 and wrong.error_line()["error"]["code"] == "usage"
    assert wrong.error_line()["error"]["message"].endswith(
        f"with HTTP 404, not 401, and publishes no protected resource metadata (RFC 9728); nothing to log in to; "
        f"check the URL (mrtr discover --url {elsewhere})")
    assert not Path(config["MRTR_CONFIG_DIR"], "auth").exists() or kept(config) == []
