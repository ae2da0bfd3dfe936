"""Resuming an SSE stream (resume.py) and the GET stream's hand-over (listening.py), in-process."""

from __future__ import annotations

import threading

from mrtr_cli.transport.base import Deadline, Frame, WireInfo
from mrtr_cli.transport.listening import ListeningStream, attached
from mrtr_cli.transport.pump import Pump
from mrtr_cli.transport import resume
from mrtr_cli.transport.resume import MAX_RESUMES, Resumption, StreamPosition
from mrtr_cli.transport.sse import RETRY_CAP_MS, SseParser

REQUEST = '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {}}'


def read(position: StreamPosition, stream: bytes) -> list:
    parser = SseParser()
    return list(position.follow(parser, iter([Frame(e.data) for e in parser.feed(stream)])))


def test_a_priming_event_gives_the_id_and_retry_but_no_message():
    resumption = Resumption(REQUEST)
    assert read(resumption, b"id: event-1\nretry: 500\ndata: \n\n") == [Frame("")]
    assert (resumption.last_event_id, resumption.retry_ms, resumption.delay_seconds()) == ("event-1", 500, 0.5)
    assert resumption.wanted()


def test_the_response_ends_resumption_and_tries_are_bounded():
    answered = Resumption(REQUEST)
    read(answered, b'id: 1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","id":7}\n\n')
    assert answered.wanted()
    read(answered, b'id: 2\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\n\n')
    assert not answered.wanted()
    broken = Resumption(REQUEST)
    read(broken, b"id: 1\ndata: \n\n")
    assert [broken.wanted() for _ in range(MAX_RESUMES + 1)] == [True] * MAX_RESUMES + [False]


def test_the_response_before_the_first_event_id_still_ends_resumption():
    answered = Resumption(REQUEST)
    read(answered, b'data: {"jsonrpc":"2.0","id":7,"result":{}}\n\ndata: {"id":7,"method":"ping"}\n\nid: 1\ndata: \n\n')
    assert not answered.wanted()
    late = Resumption(REQUEST)
    read(late, b'data: {"jsonrpc":"2.0","id":7,"result":{}}\n\nid: 1\ndata: {"id":7,"method":"ping"}\n\n')
    assert not late.wanted()


def test_a_response_on_a_stream_without_event_ids_is_not_parsed_twice(monkeypatch):
    parsed, resumption = [], Resumption(REQUEST)
    monkeypatch.setattr(resume.json, "loads", lambda text: parsed.append(text))
    read(resumption, b'data: {"jsonrpc":"2.0","id":7,"result":{}}\n\n')
    assert parsed == []  # it cannot be resumed: only the client reads the response


def test_no_event_id_means_no_resumption_and_the_delay_is_capped():
    plain = Resumption(REQUEST)
    read(plain, b"retry: 99999\ndata: {}\n\n")
    assert not plain.wanted()
    assert plain.delay_seconds() == RETRY_CAP_MS / 1000


def test_the_wait_keeps_to_the_deadline_and_ends_when_stopped():
    position = StreamPosition()
    position.retry_ms = 1000
    stopped = threading.Event()
    assert not position.wait(stopped, Deadline(0.5))  # the delay would pass the deadline: no resumption
    stopped.set()
    assert not position.wait(stopped, Deadline(30))  # stopped: returns at once


def produce(*items):
    yield from items


def test_the_get_stream_keeps_messages_for_the_next_request_and_reopens_with_the_last_id():
    opened, done = [], threading.Event()

    def connect(position: StreamPosition, stopped: threading.Event):
        opened.append(position.last_event_id)
        yield WireInfo("in", "HTTP 200")
        yield Frame(f'{{"jsonrpc":"2.0","id":{len(opened)},"method":"ping"}}')
        position.last_event_id = f"e{len(opened)}"
        if len(opened) == 2:
            done.set()
        return len(opened) < 2  # the second time the server offers no stream (405): no more tries

    listening = ListeningStream(connect)
    listening.position.retry_ms = 1
    listening.start()
    assert done.wait(5)
    pump = Pump(lambda: produce(Frame("response")), "test")
    with attached(listening, pump) as kept:
        assert kept == [Frame('{"jsonrpc":"2.0","id":1,"method":"ping"}', outside=True),  # on no request's stream
                        Frame('{"jsonrpc":"2.0","id":2,"method":"ping"}', outside=True)]
        assert list(pump.items(Deadline(5))) == [Frame("response")]
    listening.stop()
    assert opened == [None, "e1"]


def test_no_get_stream_attaches_nothing():
    pump = Pump(lambda: produce(), "test")
    with attached(None, pump) as kept:
        assert kept == []


def test_a_get_stream_message_that_comes_after_the_response_is_kept_for_the_next_request():
    listening = ListeningStream(lambda position, stopped: iter(()))  # never started: messages are handed in below
    response, late = Frame('{"jsonrpc":"2.0","id":2,"result":{}}'), Frame('{"jsonrpc":"2.0","method":"ping","id":9}')
    pump = Pump(lambda: iter([response]), "test-pump")
    with attached(listening, pump):
        assert next(pump.items(Deadline(5))) == response  # the reader has its response and reads no more
        listening._deliver(late)  # the GET stream's message arrives before the request is detached
    pump.stop()
    assert listening.attach(Pump(lambda: iter(()), "next-pump")) == [Frame(late.data, outside=True)]
