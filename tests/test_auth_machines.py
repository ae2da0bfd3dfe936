"""A machine logging in (the client credentials grant, issue 30) through the real CLI, against the
tests' OAuth server (tests/servers/oauth_server.py), which grants client credentials to a client
with a secret and to one that signs a JWT with its key: the token kept (its grant type in `mrtr auth
status`), nothing kept with --no-auth-store, a new grant on a later run with the credentials, exit 3
naming the flags without them, `check` and an mcpServers entry logging in, each refusal exit 1 in
one line, and neither the secret nor the key in any output, transcript or JUnit report.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
from joserfc.jwk import ECKey

from conftest import mrtr
from peers import oauth_http

SECRET = "machine-secret-4f1c9a7e"
FLAGS = "--client-credentials --client-id ID with --client-secret-file FILE (or MRTR_CLIENT_SECRET)"


@pytest.fixture(scope="module")
def key_pair(tmp_path_factory) -> tuple[Path, str]:
    """The signer's private key file (0600) and its PEM text; the server holds the public half."""
    folder = tmp_path_factory.mktemp("keys")
    key = ECKey.generate_key("P-256")
    private = folder / "signer.pem"
    private.touch(mode=0o600)
    private.write_bytes(key.as_pem(private=True))
    (folder / "signer.pub").write_bytes(key.as_pem(private=False))
    return private, private.read_text()


@pytest.fixture(scope="module")
def url(key_pair):
    public = key_pair[0].with_name("signer.pub")
    with oauth_http("--machine-client", f"ci-bot:{SECRET}", "--machine-key", f"ci-signer:{public}") as address:
        yield address


@pytest.fixture
def config(tmp_path) -> dict[str, str]:
    return {"MRTR_CONFIG_DIR": str(tmp_path / "config")}


def kept(config: dict[str, str]) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(Path(config["MRTR_CONFIG_DIR"], "auth").glob("*.json"))]


def last_line(run) -> str:
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 or "Traceback" not in run.stderr, run.stderr
    return lines[-1]


def test_a_machine_logs_in_with_its_secret_keeps_the_token_and_needs_its_credentials_again(url, config, tmp_path):
    machine = {**config, "MRTR_CLIENT_SECRET": SECRET}
    transcript = tmp_path / "t.yaml"
    call = mrtr("call", "whoami", "--url", url, "--client-credentials", "--client-id", "ci-bot", "-v", "--json",
                "--record", str(transcript), env=machine)
    assert call.code == 0, call.stderr
    assert call.json()["result"]["structuredContent"]["client_id"] == "ci-bot"
    assert "client credentials of client ci-bot, proved by its secret" in call.stderr
    [login] = kept(config)
    assert (login["grant_type"], login["client_secret"], login["refresh_token"]) == ("client_credentials", None, None)
    status, status_json = mrtr("auth", "status", env=config), mrtr("auth", "status", "--json", env=config)
    assert "client_credentials (a machine" in status.stdout
    assert status_json.json()["logins"][0]["grant_type"] == "client_credentials"
    outputs = [call.stdout, call.stderr, transcript.read_text(), status.stdout, status_json.stdout]
    basic = base64.b64encode(f"ci-bot:{SECRET}".encode()).decode()
    assert all(SECRET not in text and basic not in text and login["access_token"] not in text for text in outputs)

    again = mrtr("call", "whoami", "--url", url, env=config)  # the kept token goes first: no grant
    assert again.code == 0 and "auth:" not in again.stderr, again.stderr
    path = next(Path(config["MRTR_CONFIG_DIR"], "auth").glob("*.json"))
    path.write_text(json.dumps({**login, "access_token": "no-longer-good"}))
    without = mrtr("call", "whoami", "--url", url, env=config)
    assert without.code == 3, without.stderr
    assert last_line(without).startswith("✗ the token kept for") and FLAGS in last_line(without)

    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET + "\n")
    login_again = mrtr("auth", "login", url, "--client-credentials", "--client-id", "ci-bot", "--client-secret-file",
                       str(secret_file), "--json", env=config)
    assert login_again.code == 0, login_again.stderr
    assert login_again.json()["grant_type"] == "client_credentials"
    assert kept(config)[0]["access_token"] not in (login["access_token"], "no-longer-good")
    assert SECRET not in login_again.stdout + login_again.stderr
    assert mrtr("call", "whoami", "--url", url, env=config).code == 0


def test_check_signs_with_the_key_keeps_nothing_and_shows_no_key(url, config, key_pair, tmp_path):
    key, pem = key_pair
    junit = tmp_path / "check.xml"
    machine = ("--client-credentials", "--client-id", "ci-signer", "--client-assertion-key", str(key),
               "--no-auth-store")
    check = mrtr("check", "--url", url, *machine, "--junit", str(junit), "-v", env=config)
    assert check.code == 0, check.stderr
    assert "proved by a JWT signed by the key in" in check.stderr and "not probed" not in check.stdout
    listed = mrtr("list", "tools", "--url", url, *machine, "--json", "-v", env=config)
    assert listed.code == 0 and [tool["name"] for tool in listed.json()["tools"]] == ["whoami"], listed.stderr
    assert "client_assertion=[hidden" in listed.stderr
    assert not Path(config["MRTR_CONFIG_DIR"], "auth").exists()  # --no-auth-store: nothing kept
    body_lines = [line for line in pem.splitlines() if line and not line.startswith("-----")]
    for text in (check.stdout, check.stderr, junit.read_text(), listed.stdout, listed.stderr):
        assert not any(line in text for line in body_lines)
        assert "eyJ" not in text  # no JWT: neither the assertion nor a token


def test_an_mcp_servers_entry_logs_in_with_a_secret_from_the_environment(url, config, key_pair, tmp_path):
    servers = tmp_path / "mcp.json"
    servers.write_text(json.dumps({"mcpServers": {
        "secret": {"url": url, "oauth": {"clientId": "ci-bot", "clientCredentials": True,
                                         "clientSecret": "${CI_MACHINE_SECRET}"}},
        "key": {"url": url, "oauth": {"clientId": "ci-signer", "clientCredentials": True,
                                      "clientAssertionKeyFile": str(key_pair[0])}}}}))
    before = servers.read_text()
    with_secret = mrtr("discover", "--config", str(servers), "--server", "secret", "--no-auth-store",
                       env={**config, "CI_MACHINE_SECRET": SECRET})
    assert with_secret.code == 0, with_secret.stderr
    assert "client credentials of client ci-bot" in with_secret.stderr
    with_key = mrtr("call", "whoami", "--config", str(servers), "--server", "key", "--json", env=config)
    assert with_key.code == 0, with_key.stderr
    assert with_key.json()["result"]["structuredContent"]["client_id"] == "ci-signer"
    assert servers.read_text() == before and SECRET not in json.dumps(kept(config))
    unset = mrtr("list", "tools", "--config", str(servers), "--server", "secret", env=config)
    assert unset.code == 1 and "${CI_MACHINE_SECRET}" in last_line(unset)


def test_each_refusal_is_exit_1_in_one_line(config, key_pair, tmp_path):
    """Refused before any request: the URL has no server behind it."""
    key = key_pair[0]
    loose = tmp_path / "loose.pem"
    loose.write_bytes(key.read_bytes())
    os.chmod(loose, 0o640)
    nowhere = ("--url", "http://127.0.0.1:9/mcp")
    cases = {
        "--client-credentials needs --client-id": ("--client-credentials", "--client-assertion-key", str(key)),
        "both a secret (--client-secret) and a key (--client-assertion-key)": (
            "--client-credentials", "--client-id", "x", "--client-secret", "s", "--client-assertion-key", str(key)),
        "--client-assertion-key is for --client-credentials": ("--client-assertion-key", str(key)),
        "--client-secret-file is for --client-credentials": ("--client-secret-file", str(key)),
        f"may be read or changed by others (mode 0640); chmod 600 {loose}": (
            "--client-credentials", "--client-id", "x", "--client-assertion-key", str(loose)),
        "--client-credentials needs a secret or a key": ("--client-credentials", "--client-id", "x"),
    }
    for expected, flags in cases.items():
        run = mrtr("list", "tools", *nowhere, *flags, env=config)
        assert run.code == 1, (expected, run.stderr)
        assert expected in last_line(run) and len(run.stderr.strip().splitlines()) == 1, run.stderr
    both = mrtr("auth", "login", *nowhere[1:], "--client-credentials", "--client-id", "x", "--client-assertion-key",
                str(key), "--json", env={**config, "MRTR_CLIENT_SECRET": "s"})
    assert both.code == 1 and "both a secret (MRTR_CLIENT_SECRET)" in both.error_line()["error"]["message"]


def test_a_key_the_grant_cannot_use_is_named(url, config, key_pair, tmp_path):
    public = key_pair[0].with_name("signer.pub")
    held = tmp_path / "public.pem"
    held.write_bytes(public.read_bytes())
    os.chmod(held, 0o600)
    machine = ("--client-credentials", "--client-id", "ci-signer", "--no-auth-store")
    run = mrtr("call", "whoami", "--url", url, *machine, "--client-assertion-key", str(held), env=config)
    assert run.code == 1 and "a public key: give the private key" in last_line(run), run.stderr
    pinned = mrtr("call", "whoami", "--url", url, *machine, "--client-assertion-key", str(key_pair[0]),
                  "--client-assertion-alg", "RS256", env=config)
    assert pinned.code == 3 and "the key cannot sign with RS256 (it signs with ES256)" in last_line(pinned)
    wrong = mrtr("call", "whoami", "--url", url, "--client-credentials", "--client-id", "ci-bot", "--no-auth-store",
                 env={**config, "MRTR_CLIENT_SECRET": "not-the-secret"})
    assert wrong.code == 3 and "refused the client credentials: invalid_client" in last_line(wrong)
