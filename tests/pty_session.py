"""Drive mrtr through a real pseudo-terminal (pexpect), as a person at a terminal would."""

from __future__ import annotations

import json
import re
import os
import shlex
import time
from pathlib import Path
from typing import Any

import pexpect

from conftest import PYTHON, ROOT

ENTER, DOWN, UP, SPACE, ESC, CTRL_C = "\r", "\x1b[B", "\x1b[A", " ", "\x1b", "\x03"
ALT_ENTER = "\x1b\r"


class Pty:
    """`mrtr ARGS` on a terminal; stdout goes to a file, so `--json` documents stay parseable."""

    def __init__(self, tmp: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.out = tmp / "stdout.txt"
        words = " ".join(map(shlex.quote, (*args, "--color", "never")))
        command = f"exec {shlex.quote(PYTHON)} -m mrtr_cli {words} > {shlex.quote(str(self.out))}"
        environment = {**os.environ, "TERM": "xterm-256color", "NO_COLOR": "1", "PROMPT_TOOLKIT_NO_CPR": "1",
                       **(env or {})}
        self.child = pexpect.spawn("bash", ["-c", command], cwd=str(ROOT), env=environment, encoding="utf-8",
                                   timeout=20, dimensions=(50, 140))
        self.screen = ""

    def expect(self, pattern: str) -> None:
        """Wait until `pattern` (a regular expression) appears on the screen."""
        self.child.expect(pattern)
        self.screen += self.child.before + self.child.after

    def press(self, *keys: str) -> None:
        for key in keys:
            self.child.send(key)
            time.sleep(0.15 if key == ESC else 0.05)

    def answer(self, pattern: str, *keys: str) -> None:
        self.expect(pattern)
        self.press(*keys)

    def finish(self) -> int:
        self.child.expect(pexpect.EOF, timeout=30)
        self.screen += self.child.before
        self.child.close()
        return self.child.exitstatus if self.child.exitstatus is not None else 128 + (self.child.signalstatus or 0)

    def json(self) -> Any:
        return json.loads(self.out.read_text())

    def stdout(self) -> str:
        return self.out.read_text()


def prompt(title: str) -> str:
    """A pattern for questionary's prompt line `? TITLE`, styled or not."""
    return r"\?(?:\x1b\[[0-9;?]*[a-zA-Z])*\s+" + re.escape(title)
