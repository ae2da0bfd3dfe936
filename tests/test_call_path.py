"""One `mrtr call --url`, followed to the wire and back: the files a reader opens, in order, each once
(docs/architecture.md's "One call, file by file" is this path).

A reader follows a call down its stack: the frames from the console script to the message handed to the
transport (the main thread), from there to the POST (the transport's thread), and back up to the outcome handed
to render/. What those frames call and are returned a value from (the target resolved, the answer chain built,
an answer checked against its schema, a line of the timeline) the reader meets as a name, not as a stop. So the
path is traced, not written down: the stacks at those three points, while a real call runs against the demo
served over HTTP."""

from __future__ import annotations

import json
import re
import sys
import threading
from types import FrameType
from typing import Any

from conftest import ROOT, mrtr_here
from peers import demo_http

PACKAGE = str(ROOT / "mrtr_cli") + "/"

TO_THE_WIRE = ("entry.py", "fast_paths/fast_call.py", "commands/call.py", "commands/conversation_builder.py",
               "conversation/session.py", "conversation/client.py", "transport/http/streamable_http.py")
"""Each round of the tools/call: the command, the builder's conversation, the session's rounds, the client's
request, the transport."""
IN_THE_TRANSPORT_THREAD = ("transport/pump.py", "transport/http/streamable_http.py", "transport/http/connection.py")
"""The POST: the transport's own steps, in the thread its pump runs them in (so --timeout bounds a slow body),
and httpx's one owner."""
BACK = ("entry.py", "fast_paths/fast_call.py", "commands/call.py", "render/outcome.py")
"""The outcome shown: from the command, which holds it once the conversation ends, to render/."""
BEFORE_THE_CALL = {"server/discover": ("commands/conversation_builder.py", "conversation/era.py",
                                       "conversation/client.py"),
                   "tools/list": ("commands/conversation_builder.py", "conversation/preparation.py",
                                  "conversation/lists.py", "conversation/client.py")}
"""The two requests the call sends first: the era's probe, and the tool's definition (its schema, its mirrored
headers)."""
READER_PATH = (*TO_THE_WIRE, *BACK[3:])
"""The files in the order a reader opens them: down to the wire, and back to render/."""
ARCHITECTURE = ROOT / "docs" / "architecture.md"
TABLE_ROW = re.compile(r"^\| \d+ \| `([^`]+)` \| .+ \|$")


def in_package(path: str, package: str = PACKAGE) -> str | None:
    return path[len(package):] if path.startswith(package) else None


def files_on(frame: FrameType | None, package: str = PACKAGE) -> tuple[str, ...]:
    """The files of `package` on the stack that leads to `frame`, outermost first, a file's frames in a row as one."""
    files: list[str] = []
    while frame is not None:
        where = in_package(frame.f_code.co_filename, package)
        if where is not None and (not files or files[-1] != where):
            files.append(where)
        frame = frame.f_back
    return tuple(reversed(files))


def each_once(stack: tuple[str, ...]) -> bool:
    """No file on the stack twice apart: nothing climbs back up into a file the path has left."""
    return len(set(stack)) == len(stack)


class Stacks:
    """A profile hook that keeps the stacks at the three points: a message handed to the transport (by its JSON-RPC
    method), the POST sent, the outcome handed to render/."""

    def __init__(self) -> None:
        self.sent: dict[str, set[tuple[str, ...]]] = {}
        self.posted: set[tuple[str, ...]] = set()
        self.shown: set[tuple[str, ...]] = set()

    def __call__(self, frame: FrameType, event: str, _: Any) -> None:
        if event != "call":
            return
        where, name = in_package(frame.f_code.co_filename), frame.f_code.co_name
        if where == "transport/http/streamable_http.py" and name == "start":
            method = json.loads(frame.f_locals["text"])["method"]
            self.sent.setdefault(method, set()).add(files_on(frame))
        elif where == "transport/http/connection.py" and name == "open":
            self.posted.add(files_on(frame))
        elif where == "render/outcome.py" and name == "print_outcome":
            self.shown.add(files_on(frame))


def traced_call(url: str) -> tuple[Any, Stacks]:
    stacks = Stacks()
    sys.setprofile(stacks)
    threading.setprofile(stacks)  # type: ignore[arg-type]  # the transport's thread starts during the call
    try:
        ran = mrtr_here("call", "two_questions", "--url", url, "--answer", "name.name=Ada",
                        "--answer", "color.color=blue")
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    return ran, stacks


def test_one_call_reaches_the_wire_and_comes_back_through_eight_files_each_opened_once():
    with demo_http() as url:
        ran, stacks = traced_call(url)
    assert ran.code == 0, ran.stderr
    assert stacks.sent["tools/call"] == {TO_THE_WIRE}  # both rounds: the first request and its retry
    assert stacks.posted == {IN_THE_TRANSPORT_THREAD}
    assert stacks.shown == {BACK}
    assert set(READER_PATH) == {*TO_THE_WIRE, *BACK} and len(READER_PATH) == 8
    assert set(IN_THE_TRANSPORT_THREAD) - set(READER_PATH) == {"transport/pump.py", "transport/http/connection.py"}
    for method, path in BEFORE_THE_CALL.items():
        assert stacks.sent[method] == {(*TO_THE_WIRE[:3], *path, TO_THE_WIRE[-1])}, method
    assert set(stacks.sent) == {"tools/call", *BEFORE_THE_CALL}
    every = [*stacks.posted, *stacks.shown, *(stack for sent in stacks.sent.values() for stack in sent)]
    assert all(each_once(stack) for stack in every)


def test_the_architecture_tells_the_path_as_traced():
    """docs/architecture.md's table: one file per stop, in the traced order; its prose counts them."""
    section = ARCHITECTURE.read_text("utf-8").split("## One call, file by file", 1)[1].split("\n## ", 1)[0]
    rows = [row.group(1) for row in map(TABLE_ROW.match, section.splitlines()) if row]
    assert tuple(rows) == READER_PATH
    assert "`mrtr call two_questions --url URL --answer name.name=Ada --answer color.color=blue`" in section
    assert "Eight files, each opened once" in section and len(READER_PATH) == 8


def test_a_stack_that_climbs_back_into_a_file_is_seen():
    """The rule on a real stack: this file hands a function to mrtr's broadcast, which calls it back here."""
    from mrtr_cli.conversation.events import Broadcast

    seen: list[tuple[str, ...]] = []
    Broadcast([lambda event: seen.append(files_on(sys._getframe(), str(ROOT) + "/"))])("an event")  # type: ignore[list-item]
    assert seen[0][-3:] == ("tests/test_call_path.py", "mrtr_cli/conversation/events.py", "tests/test_call_path.py")
    assert not each_once(seen[0])
    assert each_once(seen[0][-2:])
