"""`mrtr demo-server`: the server side, over stdio or HTTP."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable

from mrtr_cli.errors import UsageError, interruption
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.options import ServingOptions
from mrtr_cli.server.app import App
from mrtr_cli.server.dispatcher import Dispatcher
from mrtr_cli.server.state import Sealer, key_from_text

DEFAULT_HOST = "127.0.0.1"
STATE_KEY_VARIABLE = "MRTR_DEMO_STATE_KEY"
"""The environment variable `--state-key` defaults to (a `--demo` child inherits it)."""


def parse_listen(value: str) -> tuple[str, int]:
    """`[HOST:]PORT` (IPv6 hosts in brackets); the host defaults to 127.0.0.1."""
    host, sep, port = value.rpartition(":")
    host = host.strip("[]") if sep else DEFAULT_HOST
    if not port.isdigit() or int(port) > 65535 or not host:
        raise UsageError(f"--http {value!r} is not [HOST:]PORT", "e.g. --http 8080 or --http 127.0.0.1:0")
    return host, int(port)


def serve(app: App, http: str | None, sealer: Sealer | None = None, tasks: bool = False) -> int:
    """Serve `app` until stdin closes (stdio) or until interrupted (HTTP); its requestState sealed
    by `sealer` (none: under a key made now); with `tasks`, the tasks extension too."""
    task_store = None
    if tasks:
        from mrtr_cli.server.task_store import TaskStore

        task_store = TaskStore()
    dispatcher = Dispatcher(app, sealer, tasks=task_store, task_notifications=http is not None)
    if http is None:
        from mrtr_cli.server.stdio_serving import serve_stdio

        serve_stdio(dispatcher)
        return ExitCode.OK
    host, port = parse_listen(http)
    from mrtr_cli.server.http_serving import serve_http

    try:
        serve_http(dispatcher, host, port)
    except OSError as error:
        print(f"✗ cannot listen on {host}:{port}: {error.strerror}; pick another port (0 picks a free one)",
              file=sys.stderr)
        return ExitCode.UNREACHABLE
    except KeyboardInterrupt as raised:
        return interruption(raised).exit_code
    return ExitCode.OK


def demo_server_fast(options: ServingOptions) -> int:
    """`mrtr demo-server` without building the command line (no typer, no rich: `--demo` starts one
    per run); its options read by fast_paths/fast_call.py's `parse_demo_server`."""
    try:
        return run_demo_server(options.http, options.conformance_fixtures, options.state_key)
    except KeyboardInterrupt as raised:  # Ctrl-C, SIGTERM or SIGHUP while serving stdio
        return int(interruption(raised).exit_code)


def run_demo_server(http: str | None, fixtures: bool = False, state_key: str | None = None) -> int:
    """The demo; with `fixtures`, also the conformance suite's fixture tools and prompt; its
    requestState sealed under `state_key` (else MRTR_DEMO_STATE_KEY, else a key made at start-up)."""
    if state_key == "":
        print("✗ --state-key is empty; give the key every instance shares, or leave --state-key out",
              file=sys.stderr)
        return int(ExitCode.USAGE)
    sealer = demo_sealer(state_key)
    if fixtures:
        from mrtr_cli.server import conformance_fixtures

        return _serve_or_say_why(conformance_fixtures.app, http, sealer, tasks=True)
    from mrtr_cli.server.demo import DemoApp

    return _serve_or_say_why(DemoApp, http, sealer, tasks=True)


def demo_sealer(state_key: str | None) -> Sealer | None:
    """What seals the demo's requestState: `--state-key`, else MRTR_DEMO_STATE_KEY, else None (a
    key made at start-up, the instance's own)."""
    shared = state_key or os.environ.get(STATE_KEY_VARIABLE)
    return Sealer(key_from_text(shared)) if shared else None


def run_serve(files: list[str], http: str | None) -> int:
    """`mrtr serve FILE...`: the transcripts as a server."""
    from mrtr_cli.server.mock import MockApp
    from mrtr_cli.transcript import model

    return _serve_or_say_why(lambda: MockApp([model.load(path) for path in files]), http)


def _serve_or_say_why(make_app: Callable[[], App], http: str | None, sealer: Sealer | None = None,
                      tasks: bool = False) -> int:
    """Serve the app `make_app` builds (with the tasks extension when `tasks`); a usage error (a bad
    transcript, a bad --http) is one line."""
    try:
        app = make_app()
        gc.freeze()  # what the app holds (every transcript) lives to the end: no collection walks it again
        return int(serve(app, http, sealer, tasks))
    except UsageError as error:
        print(f"✗ {error.one_line()}", file=sys.stderr)  # as every command says a failure
        return int(error.exit_code)
