"""The console script `mrtr`: `--version` answers at once, `--help` and a usual call without typer
(fast_paths/fast_help.py, fast_call.py); anything else loads the command line."""

from __future__ import annotations

import gc
import sys
import threading
from typing import TYPE_CHECKING, NoReturn

from mrtr_cli import __version__

if TYPE_CHECKING:
    from collections.abc import Callable

    from mrtr_cli.process.environment import Environment


def main(argv: list[str] | None = None, env: Environment | None = None) -> int:
    """`mrtr ARGS` in `env` (environment.py; None: the process's own, as the console script runs);
    returns the exit code and never exits. With an Environment every stream, variable, the width
    and the config folder the run reads are its, and the process's are back when it returns."""
    args = list(sys.argv[1:] if argv is None else argv)
    if env is None:
        return _main(args)
    from mrtr_cli.process import environment

    serve_demo: Callable[[], Callable[[], None]] | None = None
    if env.demo_in_memory:
        from mrtr_cli.commands import in_memory

        serve_demo = in_memory.serve_demo
    from mrtr_cli.process import signals

    with environment.installed(env, serve_demo):
        try:
            return _main(args)
        finally:
            signals.forget()


def _main(args: list[str]) -> int:
    if args in (["--version"], ["-V"]):
        print(f"mrtr {__version__}")  # the fast path: no typer, no rich
        return 0
    if args[:1] == ["load"] and not _asks_for_help(args):
        from mrtr_cli.load.first import import_locust

        import_locust()  # it monkey-patches ssl, socket and threading: before anything imports them
    from mrtr_cli.process import signals, workflow_commands

    if threading.current_thread() is threading.main_thread():
        signals.install()  # signals reach the main thread alone; a run on another has none of its own
    if args[:1] == ["demo-server"]:  # the fast path: no typer, no rich (--demo starts one per run)
        from mrtr_cli.fast_paths import fast_call

        serving = fast_call.parse_demo_server(args[1:])
        if serving is not None:
            from mrtr_cli.commands.serving import demo_server_fast

            return demo_server_fast(serving)
    with workflow_commands.paused(sys.stderr):
        return _run(args)


def _run(args: list[str]) -> int:
    """`--help`, and a usual call, read or prompt, without typer (fast_paths/fast_help.py and
    fast_call.py); anything else through it."""
    if args[:1] == ["help"] and not any(arg.startswith("-") for arg in args):
        from mrtr_cli.fast_paths import fast_help

        return fast_help.run_help(args[1:])
    if _asks_for_help(args[-1:]):
        from mrtr_cli.fast_paths import fast_help

        code = fast_help.run(args)
        if code is not None:
            return code
    from mrtr_cli.fast_paths import fast_call  # the command line imports it too, for `--`

    code = fast_call.run(args)
    if code is not None:
        return code
    from mrtr_cli.cli import run

    return run(args)


def _asks_for_help(words: list[str]) -> bool:
    """Whether `words` hold the help option (option_table.py's `HELP`, which loads nothing heavy)."""
    from mrtr_cli.definition.option_table import HELP

    return any(word in HELP for word in words)


def console() -> NoReturn:
    """The process `mrtr` (and `python -m mrtr_cli`): `main`, then exit with its code.

    Before exiting, every object is frozen out of the garbage collector's reach (`gc.freeze`). A
    Python process collects its garbage several times over while it shuts down, which for all the
    libraries a command loads costs 50 to 100 ms; the operating system frees the memory at once
    anyway. Output is flushed and exit handlers run as before. Not in `main`, which tests call
    in their own process.
    """
    code = main()
    gc.freeze()
    sys.exit(code)
