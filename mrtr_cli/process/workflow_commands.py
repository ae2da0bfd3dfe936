"""GitHub Actions reads workflow commands in everything a step prints: a line that starts with
`::` (`::add-mask::`, `::error::`, `::stop-commands::`) or holds `##[` anywhere. mrtr prints what
servers send, so while it runs there (`GITHUB_ACTIONS=true`) the runner is told to act on none of
it (`::stop-commands::TOKEN`, TOKEN unguessable), and to act again (`::TOKEN::`) only around
mrtr's own annotations and at the end. A server cannot forge or hide an annotation.

Standard library only: the console script sets this up before anything else is loaded.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import IO

_token: list[str] = []
"""The token that resumes the runner's commands, while they are paused (at most one)."""


def in_github_actions() -> bool:
    """Whether this runs as a step of a GitHub Actions job."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


@contextlib.contextmanager
def paused(stream: IO[str]) -> Iterator[None]:
    """While the block runs, the runner acts on no workflow command mrtr prints (on any stream);
    `stream` carries the pause and its end."""
    if not in_github_actions():
        yield
        return
    _pause(stream)
    try:
        yield
    finally:
        _resume(stream)


def write_commands(stream: IO[str], lines: list[str]) -> None:
    """mrtr's own workflow commands (annotations), which the runner acts on even while paused."""
    if not lines:
        return
    was_paused = bool(_token)
    _resume(stream)
    for line in lines:
        stream.write(line + "\n")
    if was_paused:
        _pause(stream)
    stream.flush()


def _pause(stream: IO[str]) -> None:
    import secrets  # hmac and hashlib: loaded only in GitHub Actions

    token = secrets.token_hex(16)
    stream.write(f"::stop-commands::{token}\n")
    stream.flush()
    _token.append(token)


def _resume(stream: IO[str]) -> None:
    if _token:
        stream.write(f"::{_token.pop()}::\n")
        stream.flush()
