"""mrtr's configuration directory (config_dir.py): where it is, its folders' modes, and what is refused."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from mrtr_cli.config import config_dir
from mrtr_cli.auth.store import Login, TokenStore
from mrtr_cli.errors import UsageError


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def no_config_variable(tmp_path, monkeypatch):
    """MRTR_CONFIG_DIR unset, and the home and XDG directories in tmp_path, never the real ones."""
    monkeypatch.delenv("MRTR_CONFIG_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


# Where it is


def test_mrtr_config_dir_is_the_directory_and_names_each_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("MRTR_CONFIG_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir.location() == tmp_path / "mine"
    assert [config_dir.folder(name) for name in config_dir.FOLDERS] == \
        [tmp_path / "mine" / "auth", tmp_path / "mine" / "eras", tmp_path / "mine" / "tasks", tmp_path / "mine" / "shell"]
    with pytest.raises(ValueError, match="not one of mrtr's folders"):
        config_dir.folder("../elsewhere")


def test_mrtr_config_dir_with_a_tilde_is_under_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MRTR_CONFIG_DIR", "~/mrtr-config")
    assert config_dir.location() == tmp_path / "mrtr-config"


def test_without_mrtr_config_dir_the_platform_directory(tmp_path, no_config_variable):
    if sys.platform.startswith("linux"):
        assert config_dir.location() == tmp_path / "xdg" / "mrtr"
    else:  # macOS keeps configuration under Library, whatever XDG says
        assert config_dir.location() == tmp_path / "home" / "Library" / "Application Support" / "mrtr"


def test_an_empty_mrtr_config_dir_means_the_platform_directory(tmp_path, no_config_variable, monkeypatch):
    monkeypatch.setenv("MRTR_CONFIG_DIR", "")
    assert config_dir.location().name == "mrtr"
    assert str(config_dir.location()).startswith(str(tmp_path))


@pytest.mark.parametrize("xdg, home", [
    ("/x/config", "/home/ada"), ("/x/config/", "/home/ada"), ("//x//config", "/home/ada"), ("", "/home/ada"),
    ("relative/config", "/home/ada"), (None, "/home/ada/"), (None, "/"), ("  ", "/home/ada"),
])
def test_the_plain_xdg_directory_is_the_one_platformdirs_names(xdg, home, monkeypatch):
    """Over HTTP every call reads the token store: on Linux config_dir finds the folder without platformdirs,
    and must find the one platformdirs would."""
    import platformdirs

    monkeypatch.delenv("MRTR_CONFIG_DIR", raising=False)
    monkeypatch.setenv("HOME", home)
    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    plain = config_dir._plain_xdg()
    if sys.platform == "linux" and not hasattr(sys, "getandroidapilevel"):
        assert plain == Path(platformdirs.user_config_dir("mrtr", appauthor=False))
        assert config_dir.location() == plain
    else:  # macOS, Windows, Android: platformdirs decides
        assert plain is None


def test_without_an_absolute_home_or_xdg_directory_platformdirs_decides(monkeypatch):
    monkeypatch.delenv("MRTR_CONFIG_DIR", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", "relative-home")
    assert config_dir._plain_xdg() is None


def test_platformdirs_is_imported_only_when_the_platform_directory_is_asked_for(tmp_path):
    code = ("import sys; from mrtr_cli.config import config_dir; from mrtr_cli.auth.store import TokenStore; "
            "TokenStore().logins(); print('platformdirs' in sys.modules, config_dir.location())")
    env = {**os.environ, "MRTR_CONFIG_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.strip() == f"False {tmp_path}"


# Making a folder


def test_a_folder_and_its_parents_are_made_and_the_folder_is_0700(tmp_path):
    folder = tmp_path / "config" / "auth"
    config_dir.make_private_folder(folder)
    assert folder.is_dir() and mode(folder) == 0o700
    config_dir.make_private_folder(folder)  # again: nothing to do, nothing refused
    assert mode(folder) == 0o700


def test_a_folder_is_0700_whatever_the_umask(tmp_path):
    previous = os.umask(0o777)  # mkdir alone would leave the folder with no bits at all
    try:
        config_dir.make_private_folder(tmp_path / "auth")
    finally:
        os.umask(previous)
    assert mode(tmp_path / "auth") == 0o700


def test_a_folder_of_this_user_with_looser_modes_is_tightened(tmp_path):
    folder = tmp_path / "auth"
    folder.mkdir()
    os.chmod(folder, 0o777)
    config_dir.make_private_folder(folder)
    assert mode(folder) == 0o700


def test_a_symbolic_link_or_a_file_is_refused_and_not_changed(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o755)
    os.chmod(real, 0o755)
    (tmp_path / "link").symlink_to(real)
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError, match="link is not a directory of its own"):
        config_dir.make_private_folder(tmp_path / "link")
    with pytest.raises(OSError):
        config_dir.make_private_folder(tmp_path / "file")
    assert mode(real) == 0o755


def someone_elses_folder(tmp_path: Path) -> Path:
    """A folder of another user: one given away to `nobody` when the tests run as root, else `/` (root's)."""
    if os.geteuid() != 0:
        return Path("/")
    folder = tmp_path / "theirs"
    folder.mkdir()
    os.chmod(folder, 0o755)
    os.chown(folder, 65534, 65534)
    return folder


def test_another_users_folder_is_refused_and_not_changed(tmp_path):
    folder = someone_elses_folder(tmp_path)
    before = mode(folder)
    with pytest.raises(PermissionError, match=f"{folder} belongs to another user"):
        config_dir.make_private_folder(folder)
    assert mode(folder) == before
    login = Login(resource="https://mcp.example.com/mcp", issuer="https://auth.example.com", client_id="c",
                  client_secret=None, access_token="a", token_type="Bearer", refresh_token=None)
    with pytest.raises(UsageError) as refused:
        TokenStore(folder).save(login)
    assert refused.value.one_line() == (f"cannot keep the login in {folder}: {folder} belongs to another user "
                                        f"(uid {os.lstat(folder).st_uid}); check that the directory is writable, "
                                        "or set MRTR_CONFIG_DIR")
    assert not TokenStore(folder).path_for(login.resource).exists()


# Files


def test_a_file_is_written_0600_and_read_back_only_when_it_is_ours(tmp_path):
    path = tmp_path / "kept.json"
    config_dir.write_private_file(path, "{}\n")
    assert mode(path) == 0o600 and [p.name for p in tmp_path.iterdir()] == ["kept.json"]
    assert config_dir.read_own_file(path, limit=3) == b"{}\n"
    assert config_dir.read_own_file(path, limit=2) is None  # larger than asked for
    (tmp_path / "link.json").symlink_to(path)
    assert config_dir.read_own_file(tmp_path / "link.json", limit=3) is None


# The tests' own directory


def test_each_test_worker_has_its_own_config_directory_and_never_the_users(tmp_path):
    """tests/conftest.py sets MRTR_CONFIG_DIR in each process that loads it, over the shell's value."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_where.py").write_text(
        "import os, pathlib\n"
        "def test_where():\n"
        "    chosen = os.environ['MRTR_CONFIG_DIR']\n"
        "    assert os.path.isdir(chosen)\n"
        "    pathlib.Path(os.environ['RECORD_TO'], os.environ['PYTEST_XDIST_WORKER']).write_text(chosen)\n")
    (tmp_path / "seen").mkdir()
    env = {**os.environ, "MRTR_CONFIG_DIR": str(tmp_path / "users"), "RECORD_TO": str(tmp_path / "seen"),
           "PYTHONPATH": str(ROOT / "tests")}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:randomly", "-p", "no:cacheprovider",
               "-n", "2", "--dist", "each", "-c", str(tmp_path / "pytest.ini"), str(tmp_path / "test_where.py")]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    seen = {path.name: path.read_text() for path in (tmp_path / "seen").iterdir()}
    assert sorted(seen) == ["gw0", "gw1"]
    assert len(set(seen.values())) == 2 and str(tmp_path / "users") not in seen.values()
