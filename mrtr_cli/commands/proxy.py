"""`mrtr proxy`: the stdio shim (`-- CMD ARGS`) or the HTTP reverse proxy (`--http`, `--to`).

Both pass every message on unchanged and tell what crossed to the watchers (proxy/watching.py):
here, the conversations' follower, whose events go to the live timeline (a file for the shim,
whose stdout belongs to the host; the terminal for --http) and to one recorder per conversation
(`--record-dir`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from mrtr_cli.conversation import events
from mrtr_cli.commands.common import Context, guarded
from mrtr_cli.errors import UsageError, interruption
from mrtr_cli.definition.options import OutputOptions, ProxyOptions
from mrtr_cli.proxy.conversation import ConversationStart
from mrtr_cli.proxy.conversations import Conversations
from mrtr_cli.proxy.record_dir import RecordDir
from mrtr_cli.proxy.watching import Watcher
from mrtr_cli.render.console import make_console
from mrtr_cli.render.outcome import status_line
from mrtr_cli.render.styled_line import StyledLine
from mrtr_cli.render.timeline import Timeline
from mrtr_cli.text import safe_line

SWITCH_SECONDS = 0.0002
"""How long a thread holding the GIL runs before another may take it (Python's default: 5 ms): in
the proxy's process, the relaying threads get their turn at once while the watchers' thread works."""

WatchersFor = Callable[["ShownTimeline"], list[Watcher]]
"""The watchers of a run, given where the events of its conversations go (the timeline)."""


def run(proxying: ProxyOptions, http: str | None, max_message_size: int, output: OutputOptions,
        more_watchers: WatchersFor | None = None, captures: Captures | None = None) -> int:
    """Run the proxy until the server or the host ends it (stdio), or until interrupted (HTTP).
    `more_watchers` adds watchers of its own (the judge of the client) beside the conversations;
    `captures` keeps each conversation in memory too (--html)."""

    def body(context: Context) -> int:
        sys.setswitchinterval(SWITCH_SECONDS)
        try:
            if http is not None:
                return _run_http(proxying, http, max_message_size, output, context, more_watchers, captures)
            return _run_stdio(proxying, max_message_size, output, more_watchers, captures)
        except KeyboardInterrupt as raised:  # Ctrl-C, or the host's SIGTERM: how a proxy ends, said by its code
            return int(interruption(raised).exit_code)

    return guarded(output, body)  # an exit code: the server's, any int


def check_values(proxying: ProxyOptions, junit_path: str | None) -> None:
    """A FILE or DIR option that took the next option as its value (`--json --strict`): exit 1."""
    for name, value, what in (("--json", proxying.json_report, "FILE"), ("--junit", junit_path, "FILE"),
                              ("--timeline", proxying.timeline, "FILE"), ("--record-dir", proxying.record_dir, "DIR")):
        if value is not None and value.startswith("--"):
            raise UsageError(f"{name} needs a {what}", f"{safe_line(value, 60)} is an option, not a {what}")


def check_upstream(url: str) -> None:
    """`--to URL`: an http or https URL with a host, or exit 1."""
    parts = urlsplit(url)
    try:
        host = parts.hostname
    except ValueError:
        host = None
    if parts.scheme not in ("http", "https") or not host:
        raise UsageError(f"--to {safe_line(url, 200)}: not an http:// or https:// URL with a host",
                         "e.g. --to http://127.0.0.1:3000/mcp")


def _run_stdio(proxying: ProxyOptions, max_message_size: int, output: OutputOptions,
               more_watchers: WatchersFor | None, captures: Captures | None = None) -> int:
    from mrtr_cli.proxy.stdio_shim import run_shim

    if not proxying.command:
        raise UsageError("mrtr proxy needs the server to stand in front of", "give -- CMD ARGS (stdio), or "
                         "--http [HOST:]PORT --to URL")
    if proxying.to is not None:
        raise UsageError("--to names the server of an HTTP proxy", "give --http [HOST:]PORT with it, or drop --to")
    target = {"transport": "stdio", "command": list(proxying.command), "cwd": str(Path.cwd().resolve())}
    with _timeline_file(proxying.timeline, output) as timeline:
        shown = ShownTimeline(timeline)
        watchers = _watchers(proxying.record_dir, target, shown, more_watchers, captures)
        return run_shim(list(proxying.command), max_message_size, watchers, shown)


def _run_http(proxying: ProxyOptions, http: str, max_message_size: int, output: OutputOptions, context: Context,
              more_watchers: WatchersFor | None, captures: Captures | None = None) -> int:
    from mrtr_cli.commands.serving import parse_listen
    from mrtr_cli.proxy.http_proxy import serve_proxy

    if proxying.to is None:
        raise UsageError("--http needs --to URL: the server every request goes on to",
                         "e.g. mrtr proxy --http 8080 --to http://127.0.0.1:3000/mcp")
    if proxying.command:
        raise UsageError("-- CMD ARGS runs a stdio server, which --http does not forward to",
                         "give --to URL, or drop --http for the stdio shim")
    if proxying.timeline is not None:
        raise UsageError("--timeline is the stdio shim's: with --http the timeline is on the terminal",
                         "drop --timeline (redirect stderr to keep it)")
    check_upstream(proxying.to)
    host, port = parse_listen(http)
    shown = ShownTimeline(Timeline(context.consoles.err, verbose=output.verbose, live=False, answered_by_mrtr=False))
    watchers = _watchers(proxying.record_dir, {"transport": "http", "url": proxying.to}, shown, more_watchers,
                         captures)
    return serve_proxy(host, port, proxying.to, watchers, max_message_size, output.show_secrets, shown)


def _watchers(record_dir: str | None, target: dict[str, Any], timeline: ShownTimeline,
              more_watchers: WatchersFor | None, captures: Captures | None = None) -> list[Watcher]:
    """The conversations' follower (to the timeline, the recorders and the captures), then any more."""
    keeping = RecordDir(record_dir, target) if record_dir is not None else None

    def open_conversation(start: ConversationStart) -> events.Observer:
        observers: list[events.Observer] = [timeline]
        if keeping is not None:
            observers.append(keeping.recorder(start, timeline))
        if captures is not None:
            observers += captures.capture(start, target)
        if len(observers) == 1:
            return timeline

        def each(event: Any) -> None:
            for observer in observers:
                observer(event)

        return each

    followed: Watcher = Conversations(open_conversation, timeline)
    return [followed, *(more_watchers(timeline) if more_watchers else [])]


class Captures:
    """`--html FILE`: each conversation that crosses, built as a transcript in memory (secrets never
    kept, as --record-dir's), the first MAX_CONVERSATIONS of them; the rest only counted."""

    def __init__(self) -> None:
        from mrtr_cli.render.html_page import MAX_CONVERSATIONS

        self.limit = MAX_CONVERSATIONS
        self.kept: list[tuple[str, Any]] = []
        self.more = 0

    def capture(self, start: ConversationStart, target: dict[str, Any]) -> list[events.Observer]:
        """The builder of a conversation that starts now, or none once the page is full."""
        if len(self.kept) >= self.limit:
            self.more += 1
            return []
        from mrtr_cli.proxy.conversation import subject_of
        from mrtr_cli.transcript.recorder import TranscriptBuilder
        from mrtr_cli.transcript.redact import Redaction

        builder = TranscriptBuilder(target, start.version, start.capabilities, Redaction())
        builder.tools = [start.tool] if start.tool else []
        self.kept.append((f"{len(self.kept) + 1}. {start.method} {subject_of(start.params) or ''}".strip(), builder))
        return [builder]

    def documents(self, credentials: bool = False) -> list[tuple[str, dict[str, Any]]]:
        """Each conversation kept, named; `credentials`: its secret headers as sent (--har with --show-secrets)."""
        return [(name, builder.document_with_credentials() if credentials else builder.document())
                for name, builder in self.kept]


class ShownTimeline:
    """The proxy's timeline (None: nowhere), which also ends each conversation with its status line, as
    `mrtr call` does; more watchers may print lines of their own on it (the judge's summary)."""

    def __init__(self, timeline: Timeline | None) -> None:
        self.timeline = timeline

    def __call__(self, event: Any) -> None:
        if self.timeline is None:
            return
        self.timeline(event)
        if isinstance(event, events.OutcomeReached):
            self.timeline.print(status_line(event.outcome))

    def print(self, line: StyledLine) -> None:
        if self.timeline is not None:
            self.timeline.print(line)


@contextlib.contextmanager
def _timeline_file(path: str | None, output: OutputOptions) -> Iterator[Timeline | None]:
    """The stdio shim's timeline: to FILE (appended to: a host starts the shim again and again), or nowhere."""
    if path is None:
        yield None
        return
    try:
        stream: IO[str] = open(os.path.expanduser(path), "a", encoding="utf-8", buffering=1)
    except OSError as error:
        raise UsageError(f"--timeline {path}: {error.strerror}", "name a file mrtr can write") from None
    with stream:
        yield Timeline(make_console(stream, output.color), verbose=output.verbose, live=False, answered_by_mrtr=False)
