"""The token store: where logins are kept, with which modes, and how a bad file is read."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest

from mrtr_cli.config import config_dir
from mrtr_cli.auth import store
from mrtr_cli.auth.store import Login, TokenStore, canonical_resource, file_name

SECRETS = ("access-SECRET-1", "refresh-SECRET-2", "client-SECRET-3")


def a_login(resource: str = "https://mcp.example.com/mcp", **changes) -> Login:
    values = dict(resource=resource, issuer="https://auth.example.com", client_id="client-1",
                  client_secret=SECRETS[2], access_token=SECRETS[0], token_type="Bearer",
                  refresh_token=SECRETS[1], scopes=["read", "write"], expires_at=time.time() + 3600,
                  obtained_at=time.time())
    return Login(**{**values, **changes})


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# Where the directory is (tests/test_config_dir.py has the rest)


def test_the_store_keeps_logins_in_the_tokens_folder_of_the_config_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("MRTR_CONFIG_DIR", str(tmp_path / "mine"))
    assert TokenStore().directory == tmp_path / "mine" / "auth"
    assert TokenStore().save(a_login()).parent == tmp_path / "mine" / "auth"


# Writing


def test_save_makes_a_private_directory_and_file(tmp_path):
    tokens = TokenStore(tmp_path / "config" / "auth")
    path = tokens.save(a_login())
    assert path.parent == tmp_path / "config" / "auth"
    assert mode(path.parent) == 0o700
    assert mode(path) == 0o600
    assert json.loads(path.read_text())["access_token"] == SECRETS[0]


def test_save_tightens_an_existing_directory(tmp_path):
    directory = tmp_path / "auth"
    directory.mkdir(mode=0o755)
    os.chmod(directory, 0o755)
    TokenStore(directory).save(a_login())
    assert mode(directory) == 0o700


def test_save_replaces_the_file_atomically_and_leaves_no_temporary(tmp_path):
    tokens = TokenStore(tmp_path)
    first = tokens.save(a_login(access_token="old"))
    inode = first.stat().st_ino
    second = tokens.save(a_login(access_token="new"))
    assert first == second
    assert second.stat().st_ino != inode  # a new file renamed over the old, not rewritten in place
    assert tokens.load("https://mcp.example.com/mcp").access_token == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == [second.name]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    tokens = TokenStore(tmp_path)
    tokens.save(a_login(access_token="old"))

    def broken_replace(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(config_dir.os, "replace", broken_replace)  # where the file is written
    with pytest.raises(store.UsageError, match="cannot keep the login in .*No space left on device"):
        tokens.save(a_login(access_token="new"))
    monkeypatch.undo()
    assert tokens.load("https://mcp.example.com/mcp").access_token == "old"
    assert len(list(tmp_path.iterdir())) == 1


def test_a_directory_that_cannot_be_made_is_a_usage_error(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(store.UsageError, match="cannot keep the login"):
        TokenStore(tmp_path / "file" / "auth").save(a_login())


def test_one_file_per_resource_named_readably(tmp_path):
    tokens = TokenStore(tmp_path)
    one = tokens.save(a_login("https://mcp.example.com/mcp"))
    two = tokens.save(a_login("https://mcp.example.com/other"))
    three = tokens.save(a_login("http://127.0.0.1:8123/mcp"))
    assert len({one, two, three}) == 3
    assert one.name.startswith("mcp.example.com-mcp-") and one.suffix == ".json"
    assert three.name.startswith("127.0.0.1-8123-mcp-")
    assert [login.resource for login in tokens.logins()] == [
        "http://127.0.0.1:8123/mcp", "https://mcp.example.com/mcp", "https://mcp.example.com/other"]


def test_file_names_are_safe_whatever_the_url(tmp_path):
    for url in ("https://x/../../etc/passwd", "https://x/" + "a" * 500, "file:///", "\x1b[31m", ""):
        name = file_name(url)
        assert "/" not in name and ".." not in name and len(name) < 80
        assert name.endswith(".json") and not name.startswith(".")


def test_the_resource_is_matched_in_canonical_form(tmp_path):
    tokens = TokenStore(tmp_path)
    tokens.save(a_login("https://mcp.example.com/mcp"))
    assert tokens.load("HTTPS://MCP.Example.com/mcp/") is not None
    assert canonical_resource("https://Host:8443/Path/#frag") == "https://host:8443/Path"
    assert tokens.load("https://mcp.example.com/MCP") is None  # the path is case-sensitive


def test_remove_and_remove_all(tmp_path):
    tokens = TokenStore(tmp_path)
    tokens.save(a_login("https://a.example/mcp"))
    tokens.save(a_login("https://b.example/mcp"))
    tokens.save(a_login("https://c.example/mcp"))
    assert tokens.remove("https://a.example/mcp") is True
    assert tokens.remove("https://a.example/mcp") is False
    assert tokens.load("https://a.example/mcp") is None
    assert tokens.remove_all() == 2
    assert tokens.logins() == []
    assert tokens.remove_all() == 0


def test_a_missing_directory_has_no_logins(tmp_path):
    tokens = TokenStore(tmp_path / "nowhere")
    assert tokens.logins() == []
    assert tokens.load("https://mcp.example.com/mcp") is None
    assert tokens.remove("https://mcp.example.com/mcp") is False
    assert tokens.remove_all() == 0


# Reading a bad or hostile file


def write_raw(tokens: TokenStore, resource: str, data: bytes) -> Path:
    tokens.directory.mkdir(parents=True, exist_ok=True)
    path = tokens.path_for(resource)
    path.write_bytes(data)
    return path


GOOD = a_login().to_document()
BAD_DOCUMENTS = {
    "not json": b"{not json",
    "not utf-8": b"\xff\xfe{}",
    "a list": b"[]",
    "a string": b'"token"',
    "no version": json.dumps({k: v for k, v in GOOD.items() if k != "version"}).encode(),
    "a newer version": json.dumps({**GOOD, "version": 2}).encode(),
    "no access token": json.dumps({k: v for k, v in GOOD.items() if k != "access_token"}).encode(),
    "an empty access token": json.dumps({**GOOD, "access_token": ""}).encode(),
    "a numeric token": json.dumps({**GOOD, "access_token": 12}).encode(),
    "scopes as text": json.dumps({**GOOD, "scopes": "read write"}).encode(),
    "a scope not text": json.dumps({**GOOD, "scopes": ["read", {"x": 1}]}).encode(),
    "expiry as text": json.dumps({**GOOD, "expires_at": "tomorrow"}).encode(),
    "expiry as a boolean": json.dumps({**GOOD, "expires_at": True}).encode(),
    "expiry infinite": json.dumps({**GOOD, "expires_at": 1e400}).replace("Infinity", "1e999").encode(),
    "expiry NaN": json.dumps({**GOOD, "expires_at": float("nan")}).encode(),
    "refresh token a number": json.dumps({**GOOD, "refresh_token": 5}).encode(),
    "deeply nested": b"[" * 100000 + b"]" * 100000,
    "huge": b'{"pad": "' + b"x" * (store.MAX_LOGIN_FILE_SIZE + 10) + b'"}',
    "empty": b"",
}


@pytest.mark.parametrize("data", BAD_DOCUMENTS.values(), ids=BAD_DOCUMENTS.keys())
def test_a_corrupt_file_reads_as_no_login(tmp_path, data):
    tokens = TokenStore(tmp_path)
    write_raw(tokens, GOOD["resource"], data)
    assert tokens.load(GOOD["resource"]) is None
    assert tokens.logins() == []
    assert tokens.remove(GOOD["resource"]) is True  # logout still clears it


def test_the_good_document_itself_is_read(tmp_path):
    tokens = TokenStore(tmp_path)
    write_raw(tokens, GOOD["resource"], json.dumps(GOOD).encode())
    assert tokens.load(GOOD["resource"]) == a_login(expires_at=GOOD["expires_at"], obtained_at=GOOD["obtained_at"])


def test_a_symlinked_file_is_not_followed(tmp_path):
    tokens = TokenStore(tmp_path / "auth")
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps(GOOD))
    tokens.directory.mkdir()
    tokens.path_for(GOOD["resource"]).symlink_to(elsewhere)
    assert tokens.load(GOOD["resource"]) is None
    assert tokens.logins() == []


def test_a_fifo_or_directory_in_place_of_a_file_is_no_login(tmp_path):
    tokens = TokenStore(tmp_path)
    os.mkfifo(tokens.path_for("https://a.example/mcp"))
    tokens.path_for("https://b.example/mcp").mkdir()
    started = time.monotonic()
    assert tokens.load("https://a.example/mcp") is None
    assert tokens.load("https://b.example/mcp") is None
    assert tokens.logins() == []
    assert time.monotonic() - started < 5  # a FIFO is not waited on


def test_another_servers_login_under_this_name_is_not_used(tmp_path):
    tokens = TokenStore(tmp_path)
    other = tokens.save(a_login("https://evil.example/mcp"))
    other.rename(tokens.path_for("https://mcp.example.com/mcp"))
    assert tokens.load("https://mcp.example.com/mcp") is None


def test_the_save_is_refused_into_a_symlinked_directory(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "auth").symlink_to(real)
    with pytest.raises(store.UsageError, match="cannot keep the login"):
        TokenStore(tmp_path / "auth").save(a_login())
    assert list(real.iterdir()) == []


# The login itself


def test_the_repr_and_str_of_a_login_show_no_secret():
    login = a_login()
    for shown in (repr(login), str(login), f"{login}", repr([login])):
        assert "mcp.example.com" in shown and "read" in shown
        for secret in SECRETS:
            assert secret not in shown
    assert "refresh_token=kept" in repr(login)
    assert "refresh_token=none" in repr(a_login(refresh_token=None))


def test_expired():
    login = a_login(expires_at=1000.0)
    assert not login.expired(now=900.0)
    assert login.expired(now=980.0)  # within the default 30-second margin
    assert not login.expired(now=980.0, margin=0)
    assert login.expired(now=1000.0, margin=0)
    assert login.expired(now=2000.0)
    assert not a_login(expires_at=None).expired(now=1e11)
    assert a_login(expires_at=time.time() - 1).expired()
    assert not a_login(expires_at=time.time() + 3600).expired()


def test_a_login_round_trips_through_its_file(tmp_path):
    tokens = TokenStore(tmp_path)
    login = a_login(client_secret=None, refresh_token=None, scopes=[], expires_at=None)
    tokens.save(login)
    assert tokens.load(login.resource) == login
