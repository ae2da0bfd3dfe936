"""`mrtr auth status` and `mrtr auth logout`, through the real CLI, with the token store in a
temporary MRTR_CONFIG_DIR."""

from __future__ import annotations

import json
import time
from pathlib import Path

import jsonschema
import pytest

from conftest import ROOT, mrtr_here
from mrtr_cli.auth.store import Login, TokenStore

SECRETS = ("access-SECRET-1", "refresh-SECRET-2", "client-SECRET-3")
STATUS_SCHEMA = json.loads((ROOT / "docs" / "json" / "auth-status.schema.json").read_text())
ONE = "https://one.example/mcp"
TWO = "http://127.0.0.1:8123/mcp"


def a_login(resource: str, **changes) -> Login:
    values = dict(resource=resource, issuer="https://auth.example", client_id="client-1", client_secret=SECRETS[2],
                  access_token=SECRETS[0], token_type="Bearer", refresh_token=SECRETS[1], scopes=["read", "write"],
                  expires_at=time.time() + 3600, obtained_at=time.time())
    return Login(**{**values, **changes})


@pytest.fixture
def config(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("MRTR_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"


@pytest.fixture
def tokens(config) -> TokenStore:
    store = TokenStore(config / "auth")
    store.save(a_login(ONE))
    store.save(a_login(TWO, refresh_token=None, scopes=[], expires_at=time.time() - 7200))
    return store


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text


# status


def test_status_without_logins(config):
    run = mrtr_here("auth", "status")
    assert (run.code, run.stderr) == (0, "")
    assert run.stdout == f"no logins kept (in {config / 'auth'})\n"


def test_status_names_each_server_and_no_secret(tokens):
    run = mrtr_here("auth", "status")
    assert run.code == 0, run.stderr
    assert_no_secret(run.stdout, run.stderr)
    lines = run.stdout.splitlines()
    assert lines[0] == TWO  # ordered by resource
    assert "  scopes        (none granted)" in lines
    assert any(line.startswith("  access token  expired 2 hours ago (") for line in lines)
    assert "  refresh token none: log in again when the access token expires" in lines
    assert ONE in lines
    assert "  issuer        https://auth.example" in lines
    assert "  scopes        read write" in lines
    assert any(line.startswith("  access token  expires in 59 minutes (") for line in lines)
    assert "  refresh token kept: mrtr renews the access token when it expires" in lines


def test_status_json(tokens, config):
    run = mrtr_here("auth", "status", "--json")
    assert run.code == 0, run.stderr
    assert_no_secret(run.stdout, run.stderr)
    document = run.json()
    jsonschema.validate(document, STATUS_SCHEMA)
    assert document["directory"] == str(config / "auth")
    first, second = document["logins"]
    assert (first["resource"], first["expired"], first["refresh_token"], first["scopes"]) == (TWO, True, False, [])
    assert (second["resource"], second["expired"], second["refresh_token"]) == (ONE, False, True)
    assert second["scopes"] == ["read", "write"] and second["expires_at"].endswith("Z")


def test_status_without_expiry(config):
    TokenStore(config / "auth").save(a_login(ONE, expires_at=None))
    run = mrtr_here("auth", "status")
    assert "  access token  no expiry given by the server" in run.stdout.splitlines()
    assert mrtr_here("auth", "status", "--json").json()["logins"][0]["expires_at"] is None


def test_status_shows_what_a_server_chose_safely(config):
    TokenStore(config / "auth").save(a_login("https://evil.example/\x1b]0;owned\x07mcp", issuer="https://x\x1b[2J",
                                             scopes=["read\nwrite", "\x1b[31mred"]))
    run = mrtr_here("auth", "status")
    assert run.code == 0
    assert "\x1b" not in run.stdout and "\x07" not in run.stdout
    assert "\\x1b[2J" in run.stdout and "read\\nwrite" in run.stdout
    assert "\x1b" not in mrtr_here("auth", "status", "--json").stdout


def test_status_passes_over_a_corrupt_file(tokens):
    (tokens.directory / "broken-000000000000.json").write_text("{not json")
    run = mrtr_here("auth", "status", "--json")
    assert run.code == 0
    assert [login["resource"] for login in run.json()["logins"]] == [TWO, ONE]


def test_xdg_config_home_moves_the_store(tmp_path, monkeypatch):
    monkeypatch.delenv("MRTR_CONFIG_DIR", raising=False)
    run = mrtr_here("auth", "status", "--json", env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert run.json()["directory"] == str(tmp_path / "xdg" / "mrtr" / "auth")


# logout


def test_logout_of_one_server(tokens):
    run = mrtr_here("auth", "logout", ONE + "/")
    assert (run.code, run.stderr) == (0, "")
    assert run.stdout == f"logged out of {ONE}: its tokens are removed\n"
    assert tokens.load(ONE) is None and tokens.load(TWO) is not None


def test_logout_of_a_server_without_a_login_is_a_usage_error(tokens):
    run = mrtr_here("auth", "logout", "https://never.example/mcp")
    assert (run.code, run.stdout) == (1, "")
    assert run.stderr == "✗ no login is kept for https://never.example/mcp; mrtr auth status lists the logins kept\n"
    run = mrtr_here("auth", "logout", "https://never.example/mcp", "--json")
    assert run.code == 1 and run.stdout == ""
    assert run.error_line() == {"error": {"code": "usage", "message": "no login is kept for "
                                          "https://never.example/mcp; mrtr auth status lists the logins kept"}}
    assert len(tokens.logins()) == 2


def test_logout_all(tokens):
    (tokens.directory / "broken-000000000000.json").write_text("{not json")
    run = mrtr_here("auth", "logout", "--all")
    assert (run.code, run.stderr) == (0, "")
    assert run.stdout.splitlines() == [f"logged out of {TWO}: its tokens are removed",
                                       f"logged out of {ONE}: its tokens are removed",
                                       "removed 1 unreadable token file too"]
    assert list(tokens.directory.iterdir()) == []
    again = mrtr_here("auth", "logout", "--all", "--json")
    assert again.code == 0 and again.json() == {"version": 1, "removed": [], "unreadable_files_removed": 0}


def test_logout_json(tokens):
    run = mrtr_here("auth", "logout", TWO, "--json")
    assert run.code == 0
    assert run.json() == {"version": 1, "removed": [TWO], "unreadable_files_removed": 0}


@pytest.mark.parametrize("args,message", [
    ((), "which server? give its URL, or --all"),
    ((ONE, "--all"), "give a server URL or --all, not both"),
])
def test_logout_needs_exactly_one_choice(tokens, args, message):
    run = mrtr_here("auth", "logout", *args)
    assert run.code == 1
    assert run.stderr.startswith(f"✗ {message};") and len(run.stderr.splitlines()) == 1
    assert len(tokens.logins()) == 2


def test_logout_output_has_no_secret(tokens):
    run = mrtr_here("auth", "logout", "--all", "--json")
    assert_no_secret(run.stdout, run.stderr)
