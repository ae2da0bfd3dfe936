"""mrtr's configuration directory: where it is, the folders mrtr keeps in it, their modes, and how
they are made, written and read.

The directory is `$MRTR_CONFIG_DIR` when set (and not empty), else platformdirs' user configuration
directory for "mrtr" (on Linux `$XDG_CONFIG_HOME/mrtr`, by default `~/.config/mrtr`; on macOS
`~/Library/Application Support/mrtr`). It is looked up each time it is asked for, never at import.
This module alone imports platformdirs, and only when the directory is asked for, `MRTR_CONFIG_DIR` is
not set, and the directory is not plain XDG: on Linux with `$XDG_CONFIG_HOME` absolute, or else an
absolute `$HOME`, the XDG base directory rule platformdirs follows there is applied here (every call
over HTTP reads the token store: platformdirs' modules cost it about 2 ms of start-up),
and a test holds the two to the same answer.

Each folder mrtr keeps there is named below. A folder is made mode 0700 whatever the umask (one of
this user's with looser modes is tightened to 0700); a symbolic link, a non-directory or another
user's folder is refused. Each file in a folder is 0600, written to a temporary name and renamed, so
a reader never sees half a file; a file is read only when it is a small regular file of this user,
reached without a symbolic link.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from pathlib import Path

CONFIG_DIR_VARIABLE = "MRTR_CONFIG_DIR"
"""The environment variable that moves mrtr's configuration directory, on every system."""
FOLDER_MODE = 0o700
"""The mode of every folder mrtr keeps: this user only."""
FILE_MODE = 0o600
"""The mode of every file mrtr keeps in its folders: this user only, never executable."""

TOKENS = "auth"
"""The token store's folder (auth/store.py): one JSON file of logins per protected resource."""
ERA_MEMORY = "eras"
"""Reserved for a later issue: which era each server spoke when last seen. Nothing uses it yet."""
TASKS = "tasks"
"""The ids of tasks mrtr started over HTTP and may come back to (kept_tasks.py): one JSON file per server."""
SHELL = "shell"
"""`mrtr shell`'s command history (line_editor.py): one file, `history`."""
FOLDERS = (TOKENS, ERA_MEMORY, TASKS, SHELL)
"""Every folder mrtr keeps in its configuration directory."""


def location() -> Path:
    """mrtr's configuration directory: `$MRTR_CONFIG_DIR` if set, else the platform's."""
    chosen = os.environ.get(CONFIG_DIR_VARIABLE)
    if chosen:
        return Path(chosen).expanduser()
    plain = _plain_xdg()
    if plain is not None:
        return plain
    import platformdirs

    return Path(platformdirs.user_config_dir("mrtr", appauthor=False))


def _plain_xdg() -> Path | None:
    """On Linux (not Android), what platformdirs says there: `$XDG_CONFIG_HOME/mrtr` when that is an
    absolute path, else `$HOME/.config/mrtr` when HOME is absolute; None elsewhere (platformdirs decides)."""
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel") or os.environ.get("ANDROID_DATA"):
        return None
    configured = os.environ.get("XDG_CONFIG_HOME", "")
    if configured.startswith("/"):
        return Path(configured) / "mrtr"
    home = os.environ.get("HOME", "")
    return Path(home.rstrip("/") or "/") / ".config" / "mrtr" if home.startswith("/") else None


def folder(name: str) -> Path:
    """Where the folder `name` (one of FOLDERS) is; nothing is made."""
    if name not in FOLDERS:
        raise ValueError(f"{name!r} is not one of mrtr's folders {FOLDERS}")
    return location() / name


def make_private_folder(path: Path) -> None:
    """Make the folder `path` (and its parents) and leave it mode 0700. Raises OSError when it
    cannot be made, or is a symbolic link, not a directory, or another user's."""
    path.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    status = os.lstat(path)
    if stat.S_ISLNK(status.st_mode) or not stat.S_ISDIR(status.st_mode):
        raise NotADirectoryError(f"{path} is not a directory of its own")
    if status.st_uid != os.geteuid():
        raise PermissionError(errno.EPERM, f"{path} belongs to another user (uid {status.st_uid})")
    if stat.S_IMODE(status.st_mode) != FOLDER_MODE:
        os.chmod(path, FOLDER_MODE)


def write_private_file(path: Path, text: str, prefix: str = ".mrtr-") -> None:
    """Write `text` to a new 0600 file beside `path` (named `prefix`...), then rename it over `path`."""
    import tempfile  # only when a file is written: it costs every call that merely reads the folder 5 ms

    descriptor, temporary = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            os.fchmod(file.fileno(), FILE_MODE)
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def kept_files(directory: Path, most: int) -> list[Path]:
    """The JSON files kept in `directory` (not the hidden ones being written), sorted by name, at most
    `most`; none when the folder cannot be read."""
    try:
        names = sorted(entry.name for entry in os.scandir(directory)
                       if entry.name.endswith(".json") and not entry.name.startswith("."))
    except OSError:
        return []
    return [directory / name for name in names[:most]]


def read_own_file(path: Path, limit: int) -> bytes | None:
    """The bytes of `path` if it is a regular file of this user of at most `limit` bytes, reached
    without a symbolic link; else None."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_uid != os.geteuid():
            return None
        data = os.read(descriptor, limit + 1)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return data if len(data) <= limit else None
