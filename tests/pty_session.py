"""Drive mrtr through a real pseudo-terminal (pexpect), as a person at a terminal would, and read
the screen it draws (pyte, a terminal emulator fed every byte mrtr wrote)."""

from __future__ import annotations

import json
import re
import os
import shlex
import time
from pathlib import Path
from typing import Any

import pexpect
import pyte

from conftest import PYTHON, ROOT

ENTER, DOWN, UP, SPACE, ESC, CTRL_C = "\r", "\x1b[B", "\x1b[A", " ", "\x1b", "\x03"
ALT_ENTER = "\x1b\r"
ROWS = 50


class Pty:
    """`mrtr ARGS` on a terminal; stdout goes to a file, so `--json` documents stay parseable."""

    def __init__(self, tmp: Path, *args: str, env: dict[str, str] | None = None, columns: int = 140) -> None:
        self.out = tmp / "stdout.txt"
        words = " ".join(map(shlex.quote, (*args, "--color", "never")))
        command = f"exec {shlex.quote(PYTHON)} -m mrtr_cli {words} > {shlex.quote(str(self.out))}"
        environment = {**os.environ, "TERM": "xterm-256color", "NO_COLOR": "1", "PROMPT_TOOLKIT_NO_CPR": "1",
                       "COLUMNS": str(columns), **(env or {})}
        self.child = pexpect.spawn("bash", ["-c", command], cwd=str(ROOT), env=environment, encoding="utf-8",
                                   timeout=20, dimensions=(ROWS, columns))
        self.screen = ""
        """Every character written to the terminal so far (read so far: up to the last match)."""
        self.terminal = pyte.Screen(columns, ROWS)
        self._stream = pyte.Stream(self.terminal)

    def expect(self, pattern: str) -> None:
        """Wait until `pattern` (a regular expression) appears in what mrtr writes."""
        self.child.expect(pattern)
        self._read(self.child.before + self.child.after)

    def _read(self, text: str) -> None:
        self.screen += text
        self._stream.feed(text)

    def rows(self) -> list[str]:
        """The screen's rows as a person sees them now (what was read so far), trailing blanks cut."""
        return [row.rstrip() for row in self.terminal.display]

    def press(self, *keys: str) -> None:
        for key in keys:
            self.child.send(key)
            time.sleep(0.15 if key == ESC else 0.05)

    def answer(self, pattern: str, *keys: str) -> None:
        self.expect(pattern)
        self.press(*keys)

    def finish(self) -> int:
        self.child.expect(pexpect.EOF, timeout=30)
        self._read(self.child.before)
        self.child.close()
        return self.child.exitstatus if self.child.exitstatus is not None else 128 + (self.child.signalstatus or 0)

    def json(self) -> Any:
        return json.loads(self.out.read_text())

    def stdout(self) -> str:
        return self.out.read_text()


def words(rows: list[str]) -> list[str]:
    """The words of `rows` read one after the other: a word cut at a row's end shows as two."""
    return " ".join(rows).split()


def spaced(row: str) -> str:
    """A row with each run of spaces made one (a table's column padding)."""
    return " ".join(row.split())


def prompt(title: str) -> str:
    """A pattern for questionary's prompt line `? TITLE`, styled or not."""
    return r"\?(?:\x1b\[[0-9;?]*[a-zA-Z])*\s+" + re.escape(title)
