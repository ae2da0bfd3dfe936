"""The demo server in this process, behind the in-memory transport (transport/memory.py).

What `mrtr demo-server` serves over stdio, the same app, dispatcher and stdio connection, only
without a process: an Environment with `demo_in_memory` (entry.py) makes `--demo` open this, so
tests run whole conversations in-process. Its requestState key is MRTR_DEMO_STATE_KEY's when the
run's environment sets one, else one made for this instance, as a process makes its own (serving.demo_sealer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO

from mrtr_cli.commands.serving import demo_sealer
from mrtr_cli.server.demo import DemoApp
from mrtr_cli.server.dispatcher import Dispatcher
from mrtr_cli.server.stdio_serving import StdioConnection
from mrtr_cli.server.task_store import TaskStore
from mrtr_cli.transport.memory import MemoryTransport, serving_demo


def demo_dispatcher(over_http: bool = False, fixtures: bool = False, state_key: str | None = None) -> Dispatcher:
    """The demo's dispatcher, with the tasks extension, as `mrtr demo-server` builds it (`over_http`:
    as `--http` does, where a task's notifications have a stream to go to; `fixtures`: as
    `--conformance-fixtures` does, the conformance suite's fixture tools and prompt too; `state_key`:
    as `--state-key`, else MRTR_DEMO_STATE_KEY)."""
    sealer = demo_sealer(state_key)
    if fixtures:
        from mrtr_cli.server import conformance_fixtures

        return Dispatcher(conformance_fixtures.app(), sealer, tasks=TaskStore(), task_notifications=over_http)
    return Dispatcher(DemoApp(), sealer, tasks=TaskStore(), task_notifications=over_http)


def serve_demo() -> Callable[[], None]:
    """From now on `--demo` opens the demo in memory (`demo_transport`); returns the call that undoes it
    (process/environment.py's `installed`, for an Environment with `demo_in_memory`)."""
    return serving_demo(demo_transport)


def demo_transport() -> MemoryTransport:
    """One connection to a fresh demo in memory (a fresh process, for `--demo`)."""
    return dispatcher_transport(demo_dispatcher(), "the demo server (in memory)")


def dispatcher_transport(dispatcher: Dispatcher, name: str) -> MemoryTransport:
    """One connection to `dispatcher` in memory, served as over stdio (either era, as the first line says)."""

    def serve(sink: IO[bytes]) -> StdioConnection:
        return StdioConnection(dispatcher, sink)

    return MemoryTransport(serve, name)
