"""A machine logging in (the client credentials grant, issue 30) through the real CLI, against the
tests' OAuth server (tests/servers/oauth_server.py), which grants client credentials to a client
with a secret and to ones that sign a JWT with an EC or an RSA key: the machine's token kept beside a
person's login (neither replaces the other, a plain call never runs as the machine), nothing kept
with --no-auth-store, a new grant on a later run with the credentials, `check` and an mcpServers
entry logging in (a refused grant is exit 3 in check as in call), client_secret_post, each refusal
exit 1 in one line before any request, and neither the secret nor the key in any output,
transcript or JUnit report.
"""

from __future__ import annotations

import base64
import json
import os
import shlex
import sys
from pathlib import Path

import pytest
from joserfc.jwk import ECKey, OKPKey, RSAKey

from conftest import ROOT, mrtr_here
from helpers import kept
from peers import oauth_http

SECRET = "machine-secret-4f1c9a7e"
FLAGS = "--client-credentials --client-id ID with --client-secret-file FILE (or MRTR_CLIENT_SECRET)"
BROWSER = shlex.join([sys.executable, str(ROOT / "tests" / "headless_browser.py")])


def key_file(folder: Path, name: str, key, password: str | None = None) -> Path:
    """`key`'s private half in `folder/name.pem` (0600), its public half in `name.pub`."""
    private = folder / f"{name}.pem"
    private.touch(mode=0o600)
    private.write_bytes(key.as_pem(private=True, password=password))
    if password is None:
        (folder / f"{name}.pub").write_bytes(key.as_pem(private=False))
    return private


@pytest.fixture(scope="module")
def key_pair(tmp_path_factory) -> tuple[Path, str]:
    """The signer's private key file (0600) and its PEM text; the server holds the public half (and
    that of an RSA key, rsa.pem beside it)."""
    folder = tmp_path_factory.mktemp("keys")
    private = key_file(folder, "signer", ECKey.generate_key("P-256"))
    key_file(folder, "rsa", RSAKey.generate_key(2048))
    return private, private.read_text()


@pytest.fixture(scope="module")
def url(key_pair):
    folder = key_pair[0].parent
    with oauth_http("--machine-client", f"ci-bot:{SECRET}", "--machine-key", f"ci-signer:{folder / 'signer.pub'}",
                    "--machine-key", f"ci-rsa:{folder / 'rsa.pub'}") as address:
        yield address


@pytest.fixture
def config(tmp_path) -> dict[str, str]:
    return {"MRTR_CONFIG_DIR": str(tmp_path / "config")}


def last_line(run) -> str:
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 or "Traceback" not in run.stderr, run.stderr
    return lines[-1]


def by_grant(config: dict[str, str]) -> dict[str, dict]:
    return {login["grant_type"]: login for login in kept(config)}


def auth_file(config: dict[str, str], grant: str) -> Path:
    [path] = [path for path in Path(config["MRTR_CONFIG_DIR"], "auth").glob("*.json")
              if json.loads(path.read_text())["grant_type"] == grant]
    return path


def spoil(path: Path, **fields: str) -> None:
    path.write_text(json.dumps({**json.loads(path.read_text()), **fields}))


def test_a_machines_login_is_kept_beside_a_persons_and_a_plain_call_never_runs_as_the_machine(url, config, tmp_path):
    machine = {**config, "MRTR_CLIENT_SECRET": SECRET}
    transcript = tmp_path / "t.yaml"
    call = mrtr_here("call", "whoami", "--url", url, "--client-credentials", "--client-id", "ci-bot", "-v", "--json",
                "--record", str(transcript), env=machine)
    assert call.code == 0, call.stderr
    assert call.json()["result"]["structuredContent"]["client_id"] == "ci-bot"
    assert "client credentials of client ci-bot, proved by its secret, sent client_secret_basic" in call.stderr
    person = mrtr_here("auth", "login", url, "--auth-open", BROWSER, env=config)  # after the machine: both kept
    assert person.code == 0, person.stderr
    logins = by_grant(config)
    machine_login, person_login = logins["client_credentials"], logins["authorization_code"]
    assert (machine_login["client_secret"], machine_login["refresh_token"]) == (None, None)
    plain = mrtr_here("call", "whoami", "--url", url, "--json", env=config)
    assert plain.code == 0 and plain.json()["result"]["structuredContent"]["client_id"] == person_login["client_id"]
    status, status_json = mrtr_here("auth", "status", env=config), mrtr_here("auth", "status", "--json", env=config)
    assert "client_credentials (a machine: its secret or key, no browser)" in status.stdout
    assert "renewed by    a new grant with the same credentials when it expires" in status.stdout
    assert status.stdout.count("refresh token") == 1 and "none: log in again" not in status.stdout
    assert sorted(login["grant_type"] for login in status_json.json()["logins"]) == ["authorization_code",
                                                                                      "client_credentials"]
    outputs = [call.stdout, call.stderr, transcript.read_text(), status.stdout, status_json.stdout]
    basic = base64.b64encode(f"ci-bot:{SECRET}".encode()).decode()
    assert all(SECRET not in text and basic not in text and machine_login["access_token"] not in text
               for text in outputs)

    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET + "\n")
    with_file = ("--client-credentials", "--client-id", "ci-bot", "--client-secret-file", str(secret_file))
    again = mrtr_here("call", "whoami", "--url", url, *with_file, env=config)  # its kept token goes first: no grant
    assert again.code == 0 and "auth:" not in again.stderr, again.stderr
    spoil(auth_file(config, "client_credentials"), access_token="no-longer-good")
    renewed = mrtr_here("call", "whoami", "--url", url, *with_file, env=config)  # a new grant, the person's login kept
    assert renewed.code == 0 and "client credentials of client ci-bot" in renewed.stderr, renewed.stderr
    assert by_grant(config)["client_credentials"]["access_token"] not in ("no-longer-good",
                                                                          machine_login["access_token"])
    assert by_grant(config)["authorization_code"] == person_login

    spoil(auth_file(config, "authorization_code"), access_token="no-longer-good", refresh_token="nor-this")
    without = mrtr_here("call", "whoami", "--url", url, env=config)  # no terminal: never the machine's token instead
    assert without.code == 3, without.stderr
    assert last_line(without).startswith(f"✗ the login kept for {url} no longer works")
    assert f"log in first: mrtr auth login {url}" in last_line(without) and FLAGS in last_line(without)
    logout = mrtr_here("auth", "logout", url, env=config)
    assert logout.code == 0 and kept(config) == [], logout.stderr


def test_check_signs_with_the_key_keeps_nothing_and_a_refused_grant_is_exit_3(url, config, key_pair, tmp_path):
    key, pem = key_pair
    junit = tmp_path / "check.xml"
    machine = ("--client-credentials", "--client-id", "ci-signer", "--client-assertion-key", str(key),
               "--no-auth-store")
    check = mrtr_here("check", "--url", url, *machine, "--junit", str(junit), "-v", env=config)
    assert check.code == 0, check.stderr
    assert "proved by a JWT signed by the key in" in check.stderr and "not probed" not in check.stdout
    listed = mrtr_here("list", "tools", "--url", url, *machine, "--json", "-v", env=config)
    assert listed.code == 0 and [tool["name"] for tool in listed.json()["tools"]] == ["whoami"], listed.stderr
    assert "client_assertion=[hidden" in listed.stderr and "(ES256), sent private_key_jwt" in listed.stderr
    assert not Path(config["MRTR_CONFIG_DIR"], "auth").exists()  # --no-auth-store: nothing kept
    body_lines = [line for line in pem.splitlines() if line and not line.startswith("-----")]
    for text in (check.stdout, check.stderr, junit.read_text(), listed.stdout, listed.stderr):
        assert not any(line in text for line in body_lines)
        assert "eyJ" not in text  # no JWT: neither the assertion nor a token

    wrong = tmp_path / "wrong.txt"
    wrong.write_text("not-the-secret-91b3")
    secret = ("--client-credentials", "--client-id", "ci-bot", "--no-auth-store", "--junit", str(junit))
    refused = mrtr_here("check", "--url", url, *secret, "--client-secret-file", str(wrong), env=config)
    assert refused.code == 3 and "pass" not in refused.stdout, refused.stdout + refused.stderr
    assert "the token endpoint refused the client credentials: invalid_client" in last_line(refused)
    report = junit.read_text()
    assert "invalid_client" in report and "not-the-secret-91b3" not in report
    granted = mrtr_here("check", "--url", url, *secret, env={**config, "MRTR_CLIENT_SECRET": SECRET})
    assert granted.code == 0 and "not probed" not in granted.stdout, granted.stderr
    report = junit.read_text()
    basic = base64.b64encode(f"ci-bot:{SECRET}".encode()).decode()
    assert "<testcase" in report and SECRET not in report and basic not in report and "<failure" not in report


def test_an_mcp_servers_entry_logs_in_with_a_secret_from_the_environment(url, config, key_pair, tmp_path):
    servers = tmp_path / "mcp.json"
    servers.write_text(json.dumps({"mcpServers": {
        "secret": {"url": url, "oauth": {"clientId": "ci-bot", "clientCredentials": True,
                                         "clientSecret": "${CI_MACHINE_SECRET}"}},
        "key": {"url": url, "oauth": {"clientId": "ci-signer", "clientCredentials": True,
                                      "clientAssertionKeyFile": str(key_pair[0])}}}}))
    before = servers.read_text()
    with_secret = mrtr_here("discover", "--config", str(servers), "--server", "secret", "--no-auth-store",
                       env={**config, "CI_MACHINE_SECRET": SECRET})
    assert with_secret.code == 0, with_secret.stderr
    assert "client credentials of client ci-bot" in with_secret.stderr
    with_key = mrtr_here("call", "whoami", "--config", str(servers), "--server", "key", "--json", env=config)
    assert with_key.code == 0, with_key.stderr
    assert with_key.json()["result"]["structuredContent"]["client_id"] == "ci-signer"
    assert servers.read_text() == before and SECRET not in json.dumps(kept(config))
    unset = mrtr_here("list", "tools", "--config", str(servers), "--server", "secret", env=config)
    assert unset.code == 1 and "${CI_MACHINE_SECRET}" in last_line(unset)
    ambient = mrtr_here("list", "tools", "--config", str(servers), "--server", "key", env={**config,
                                                                                      "MRTR_CLIENT_SECRET": SECRET})
    assert ambient.code == 1, ambient.stderr
    assert "both a secret (MRTR_CLIENT_SECRET) and a key (the entry's oauth.clientAssertionKeyFile)" in \
        last_line(ambient)


def test_each_refusal_is_exit_1_in_one_line_before_any_request(config, key_pair, tmp_path):
    """The URL has no server behind it: each of these is refused before a request is made."""
    key = key_pair[0]
    loose = tmp_path / "loose.pem"
    loose.write_bytes(key.read_bytes())
    os.chmod(loose, 0o640)
    not_pem = tmp_path / "not.pem"
    not_pem.touch(mode=0o600)
    not_pem.write_text("not a key\n")
    public = tmp_path / "public.pem"
    public.touch(mode=0o600)
    public.write_bytes(key.with_name("signer.pub").read_bytes())
    locked = key_file(tmp_path, "locked", ECKey.generate_key("P-256"), password="pass-phrase")
    edwards, koblitz = key_file(tmp_path, "ed", OKPKey.generate_key("Ed25519")), \
        key_file(tmp_path, "k1", ECKey.generate_key("secp256k1"))
    nowhere = ("--url", "http://127.0.0.1:9/mcp")
    as_machine = ("--client-credentials", "--client-id", "x")
    cases = {
        "--client-credentials needs --client-id": ("--client-credentials", "--client-assertion-key", str(key)),
        "both a secret (--client-secret) and a key (--client-assertion-key)": (
            *as_machine, "--client-secret", "s", "--client-assertion-key", str(key)),
        "--client-assertion-key is for --client-credentials": ("--client-assertion-key", str(key)),
        "--client-secret-file is for --client-credentials": ("--client-secret-file", str(key)),
        "--client-assertion-alg is for --client-credentials": ("--client-assertion-alg", "ES256"),
        "--client-assertion-alg is for a key (--client-assertion-key), not a secret": (
            *as_machine, "--client-secret", "s", "--client-assertion-alg", "ES256"),
        f"may be read or changed by others (mode 0640); chmod 600 {loose}": (
            *as_machine, "--client-assertion-key", str(loose)),
        "--client-credentials needs a secret or a key": as_machine,
        f"--client-assertion-key {not_pem}: not a PEM file": (*as_machine, "--client-assertion-key", str(not_pem)),
        "a public key: give the private key": (*as_machine, "--client-assertion-key", str(public)),
        "protected by a passphrase": (*as_machine, "--client-assertion-key", str(locked)),
        "an Ed25519 key: mrtr signs with EC (P-256, P-384, P-521) or RSA keys": (
            *as_machine, "--client-assertion-key", str(edwards)),
        "an EC key on the curve secp256k1: mrtr signs with P-256, P-384 or P-521": (
            *as_machine, "--client-assertion-key", str(koblitz)),
        "the key cannot sign with RS256 (it signs with ES256)": (
            *as_machine, "--client-assertion-key", str(key), "--client-assertion-alg", "RS256"),
        "--client-credentials logs in, and --no-auth says not to": (*as_machine, "--no-auth"),
        "--client-assertion-key logs in, and an Authorization header": (
            "-H", "Authorization: Bearer t", "--client-assertion-key", str(key)),
    }
    for expected, flags in cases.items():
        run = mrtr_here("list", "tools", *nowhere, *flags, env=config)
        assert run.code == 1, (expected, run.stderr)
        assert expected in last_line(run) and len(run.stderr.strip().splitlines()) == 1, run.stderr
    stdio = mrtr_here("list", "tools", "--stdio", "python -c pass", *as_machine, env=config)
    assert stdio.code == 1 and "--client-credentials logs in to a server over HTTP, and this one is a stdio process" \
        in last_line(stdio)
    both = mrtr_here("auth", "login", *nowhere[1:], *as_machine, "--client-assertion-key", str(key), "--json",
                env={**config, "MRTR_CLIENT_SECRET": "s"})
    assert both.code == 1 and "both a secret (MRTR_CLIENT_SECRET)" in both.error_line()["error"]["message"]
    empty = mrtr_here("call", "t", *nowhere, *as_machine, env={**config, "MRTR_CLIENT_SECRET": ""})
    assert empty.code == 1 and "MRTR_CLIENT_SECRET is set but empty" in last_line(empty)


def test_an_rsa_key_signs_rs256_and_what_the_server_does_not_take_is_exit_3(url, config, key_pair, tmp_path):
    rsa = key_pair[0].with_name("rsa.pem")
    machine = ("--client-credentials", "--client-id", "ci-rsa", "--no-auth-store", "--client-assertion-key", str(rsa))
    run = mrtr_here("call", "whoami", "--url", url, *machine, "--json", env=config)
    assert run.code == 0 and run.json()["result"]["structuredContent"]["client_id"] == "ci-rsa", run.stderr
    assert "(RS256), sent private_key_jwt" in run.stderr
    pinned = mrtr_here("call", "whoami", "--url", url, *machine, "--client-assertion-alg", "PS256", env=config)
    assert pinned.code == 0 and "(PS256), sent private_key_jwt" in pinned.stderr, pinned.stderr
    p521 = key_file(tmp_path, "p521", ECKey.generate_key("P-521"))
    unlisted = mrtr_here("call", "whoami", "--url", url, "--client-credentials", "--client-id", "ci-signer",
                    "--client-assertion-key", str(p521), "--no-auth-store", env=config)
    assert unlisted.code == 3 and "accepts assertions signed with ES256, ES384, RS256, PS256, and the key signs " \
        "with ES512" in last_line(unlisted), unlisted.stderr
    wrong = mrtr_here("call", "whoami", "--url", url, "--client-credentials", "--client-id", "ci-bot", "--no-auth-store",
                 env={**config, "MRTR_CLIENT_SECRET": "not-the-secret"})
    assert wrong.code == 3 and "refused the client credentials: invalid_client" in last_line(wrong)


def test_a_secret_goes_as_the_metadata_allows_post_or_not_at_all(config, key_pair):
    secret = ("--client-credentials", "--client-id", "ci-bot", "--no-auth-store", "-v")
    with oauth_http("--machine-client", f"ci-bot:{SECRET}", "--machine-auth-methods", "client_secret_post") as post:
        run = mrtr_here("call", "whoami", "--url", post, *secret, "--json", env={**config, "MRTR_CLIENT_SECRET": SECRET})
    assert run.code == 0 and run.json()["result"]["structuredContent"]["client_id"] == "ci-bot", run.stderr
    assert "sent client_secret_post" in run.stderr and "client_secret=[hidden" in run.stderr
    assert SECRET not in run.stdout + run.stderr
    public = key_pair[0].with_name("signer.pub")
    with oauth_http("--machine-key", f"ci-signer:{public}", "--machine-auth-methods", "private_key_jwt") as jwt_only:
        refused = mrtr_here("call", "whoami", "--url", jwt_only, *secret, env={**config, "MRTR_CLIENT_SECRET": SECRET})
    assert refused.code == 3, refused.stderr
    assert "takes no client secret at its token endpoint, only private_key_jwt" in last_line(refused)
    token_request = f"POST {jwt_only.removesuffix('/mcp')}/token"
    assert "--client-assertion-key FILE" in last_line(refused) and token_request not in refused.stderr
    assert f"POST {post.removesuffix('/mcp')}/token" in run.stderr  # -v shows the token request it made
