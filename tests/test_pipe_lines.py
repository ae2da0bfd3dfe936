"""PipeLines reads a real pipe's lines within a deadline, bounded as the reader thread was."""

from __future__ import annotations

import os
import threading
import time

import pytest

from mrtr_cli.transport.base import Deadline
from mrtr_cli.transport.pipe_lines import TIMED_OUT, PipeLines


@pytest.fixture
def pipe():
    read_end, write_end = os.pipe()
    reader = os.fdopen(read_end, "rb", buffering=0)
    yield reader, write_end
    reader.close()
    try:
        os.close(write_end)
    except OSError:
        pass


def lines_of(pipe, data: bytes, limit: int = 100) -> list[tuple[str, object]]:
    reader, write_end = pipe
    os.write(write_end, data)
    os.close(write_end)
    lines, seen = PipeLines(reader, limit), []
    while not seen or seen[-1][0] == "out":
        seen.append(lines.next(Deadline(5)))
    return seen


def test_lines_keep_their_endings_and_the_last_one_may_lack_one(pipe):
    assert lines_of(pipe, b'{"a":1}\n{"b":2}\r\n{"c":3}') == [
        ("out", '{"a":1}\n'), ("out", '{"b":2}\r\n'), ("out", '{"c":3}'), ("eof", b"")]


def test_bytes_that_are_not_utf8_stay_bytes(pipe):
    assert lines_of(pipe, b"\xff\xfe\n") == [("out", b"\xff\xfe\n"), ("eof", b"")]


def test_a_line_past_the_limit_ends_reading(pipe):
    assert lines_of(pipe, b"x" * 100 + b"\r\n" + b"y" * 101 + b"\nz\n") == [
        ("out", "x" * 100 + "\r\n"), ("too-large", 100)]


def test_an_endless_line_stops_at_the_limit_without_its_end(pipe):
    reader, write_end = pipe
    os.write(write_end, b"x" * 5000)
    assert PipeLines(reader, 1000).next(Deadline(5)) == ("too-large", 1000)


def test_a_line_written_in_pieces_waits_for_its_end(pipe):
    reader, write_end = pipe
    lines = PipeLines(reader, 100)

    def slowly() -> None:
        for piece in (b'{"a":', b"1}", b"\n"):
            time.sleep(0.05)
            os.write(write_end, piece)

    writer = threading.Thread(target=slowly)
    writer.start()
    assert lines.next(Deadline(5)) == ("out", '{"a":1}\n')
    writer.join(timeout=5)


def test_silence_times_out_at_the_deadline(pipe):
    reader, _ = pipe
    started = time.monotonic()
    assert PipeLines(reader, 100).next(Deadline(0.2)) == TIMED_OUT
    assert 0.15 < time.monotonic() - started < 3
