"""What one run of mrtr reads of the world: its variables, its three streams, whether each is a
terminal, the width, the config folder, the folder it starts in, and whether `--demo` is served in memory.

`entry.main(argv, env)` installs an Environment for the run and restores what was there before
when the run ends, so that two runs in one process (a test suite) never see each other's state.
Every module reads these as it always has (`os.environ`, `sys.stdout`, `sys.stdin.isatty()`,
COLUMNS, MRTR_CONFIG_DIR): installing puts the Environment's in their place, in one spot, rather
than threading an object through every function. Modelled on HTTPie's injected `Environment`.
One run at a time per process: the streams and variables are the process's own.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any


CONFIG_DIR_VARIABLE = "MRTR_CONFIG_DIR"
"""The variable config_dir.py reads the config folder from."""
HANDLED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")
"""The signals a run handles itself (signals.py): their handlers are the caller's again after it."""


@dataclass
class Environment:
    """One run's world. `width` None: the terminal's (or COLUMNS); `config_dir` None: as the
    variables say (MRTR_CONFIG_DIR, else the platform's folder)."""

    variables: Mapping[str, str] = field(default_factory=dict)
    stdin: IO[str] = field(default_factory=lambda: sys.stdin)
    stdout: IO[str] = field(default_factory=lambda: sys.stdout)
    stderr: IO[str] = field(default_factory=lambda: sys.stderr)
    stdin_isatty: bool = False
    stdout_isatty: bool = False
    stderr_isatty: bool = False
    width: int | None = None
    config_dir: Path | None = None
    cwd: Path | None = None
    """The folder the run starts in (None: the process's)."""
    demo_in_memory: bool = False
    """`--demo` reaches the demo server in this process (transport/memory.py), not a `mrtr demo-server` child."""

    @classmethod
    def from_process(cls) -> Environment:
        """The real one: the process's variables and streams, as the console script runs."""
        return cls(dict(os.environ), sys.stdin, sys.stdout, sys.stderr, _isatty(sys.stdin), _isatty(sys.stdout),
                   _isatty(sys.stderr))

    def effective_variables(self) -> dict[str, str]:
        """The variables, with the width as COLUMNS and the config folder as MRTR_CONFIG_DIR when given."""
        variables = dict(self.variables)
        if self.width is not None:
            variables["COLUMNS"] = str(self.width)
        if self.config_dir is not None:
            variables[CONFIG_DIR_VARIABLE] = str(self.config_dir)
        return variables


class Terminal:
    """A stream that says it is a terminal, or not, as the Environment says: everything else is the stream's."""

    def __init__(self, stream: IO[str], isatty: bool) -> None:
        self._stream = stream
        self._isatty = isatty

    def isatty(self) -> bool:
        return self._isatty

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._stream)


@contextlib.contextmanager
def installed(env: Environment, serve_demo: Callable[[], Callable[[], None]] | None = None) -> Iterator[None]:
    """Run the block in `env`: its variables in os.environ, its streams as sys.std*, the demo served
    in memory for `--demo` by `serve_demo` (which returns what undoes it); then everything as it was,
    the signal handlers too."""
    saved_variables = dict(os.environ)
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_handlers = _handlers()
    saved_cwd = os.getcwd()
    if env.cwd is not None:
        os.chdir(env.cwd)
    undo_demo = serve_demo() if serve_demo is not None else None
    os.environ.clear()
    os.environ.update(env.effective_variables())
    sys.stdin = Terminal(env.stdin, env.stdin_isatty)
    sys.stdout = Terminal(env.stdout, env.stdout_isatty)
    sys.stderr = Terminal(env.stderr, env.stderr_isatty)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_variables)
        for number, handler in saved_handlers.items():
            signal.signal(number, handler)
        if undo_demo is not None:
            undo_demo()


def _handlers() -> dict[int, Any]:
    """The handlers of the signals a run handles, to put back (none outside the main thread, where
    a run installs none)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    numbers = [getattr(signal, name) for name in HANDLED_SIGNALS if hasattr(signal, name)]
    return {number: signal.getsignal(number) for number in numbers}


def _isatty(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False
