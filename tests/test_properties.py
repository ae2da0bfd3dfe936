"""Properties of the MRTR loop, checked with hypothesis against a real server process.

Each example runs a Session (in this process, to afford many examples) over the real stdio
transport to tests/servers/scripted_server.py, which logs every line it reads.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Scripted, elicit, input_required
from mrtr_cli.answering.chain import build_chain
from mrtr_cli.conversation.client import Client, ClientSettings
from mrtr_cli.definition.options import AnsweringOptions
from mrtr_cli.protocol.meta import ClientIdentity
from mrtr_cli.conversation.session import Outcome, Session
from mrtr_cli.transport.stdio import StdioTransport
from mrtr_cli.conversation import events
from mrtr_cli.fileio import yaml_dumper
from mrtr_cli.answering.questions import Question, Response
from mrtr_cli.transcript import model
from mrtr_cli.transcript.recorded_answerer import RecordedAnswerer
from mrtr_cli.transcript.recorder import TranscriptBuilder
from mrtr_cli.transcript.redact import Redaction
from mrtr_cli.transcript.task_record import compare_tasks

FORM = elicit("Go on?", {"ok": {"type": "boolean"}})
ANY_TEXT = st.text(alphabet=st.characters(exclude_categories=()), max_size=3000)
PROPERTY = settings(max_examples=40)


def converse(steps: list[dict[str, Any]], answers: tuple[str, ...] = (), probe: bool = True) -> tuple[Outcome, Scripted]:
    directory = Path(tempfile.mkdtemp())
    server = Scripted(directory, steps=steps)
    transport = StdioTransport(server.command)
    try:
        client = Client(transport, ClientSettings(identity=ClientIdentity("mrtr-test", "0")), lambda event: None)
        if probe:
            client.discover()
        chain, _ = build_chain(AnsweringOptions(answers=answers), 10)
        outcome = Session(client, chain, sleep=lambda seconds: None).run("tools/call", {"name": "t", "arguments": {}})
    finally:
        transport.close()
    return outcome, server


@PROPERTY
@given(state=ANY_TEXT)
def test_any_request_state_is_echoed_exactly(state: str):
    outcome, server = converse([{"result": input_required({"q": FORM}, state)}, {"echo": True}], ("q.ok=true",))
    assert outcome.status == "complete", outcome.error
    assert outcome.result["structuredContent"]["requestState"] == state
    assert server.calls()[1]["params"]["requestState"] == state


def test_a_one_megabyte_request_state_is_echoed_exactly():
    state = ("\u00e9\t \\\"\n\u2028\U0001f600" * 150_000)[:1_000_000]
    outcome, server = converse([{"result": input_required(None, state)}, {"echo": True}])
    assert outcome.status == "complete", outcome.error
    assert outcome.result["structuredContent"]["requestState"] == state
    assert "inputResponses" not in outcome.result["structuredContent"]


def test_no_request_state_received_means_none_sent():
    outcome, server = converse([{"result": input_required({"q": FORM})}, {"echo": True}], ("q.ok=false",))
    assert "requestState" not in outcome.result["structuredContent"]


ROUND = st.fixed_dictionaries({"ask": st.booleans(), "state": st.one_of(st.none(), st.text(max_size=20))})


def round_steps(rounds: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    steps, answers = [], []
    for number, shape in enumerate(rounds):
        ask = shape["ask"] or shape["state"] is None
        requests = {f"q{number}": FORM} if ask else None
        steps.append({"result": input_required(requests, shape["state"])})
        if ask:
            answers.append(f"q{number}.ok=true")
    return steps + [{"echo": True}], tuple(answers)


@PROPERTY
@given(rounds=st.lists(ROUND, max_size=6))
def test_ids_never_repeat(rounds: list[dict[str, Any]]):
    steps, answers = round_steps(rounds)
    outcome, server = converse(steps, answers)
    assert outcome.status == "complete", outcome.error
    ids = [m["id"] for m in server.received() if "id" in m]
    assert len(ids) == len(set(ids)) == len(rounds) + 2  # discover, every round, the last retry


@PROPERTY
@given(rounds=st.lists(ROUND, min_size=1, max_size=6))
def test_answers_and_state_go_only_on_the_next_retry(rounds: list[dict[str, Any]]):
    steps, answers = round_steps(rounds)
    outcome, server = converse(steps, answers)
    assert outcome.status == "complete", outcome.error
    received = server.received()
    assert "inputResponses" not in received[0]["params"] and "requestState" not in received[0]["params"]
    calls = server.calls()
    assert "inputResponses" not in calls[0]["params"] and "requestState" not in calls[0]["params"]
    for number, (shape, retry) in enumerate(zip(rounds, calls[1:])):
        asked = shape["ask"] or shape["state"] is None
        expected = {f"q{number}": {"action": "accept", "content": {"ok": True}}} if asked else None
        assert retry["params"].get("inputResponses") == expected
        assert retry["params"].get("requestState") == shape["state"]
        assert "requestState" in retry["params"] or shape["state"] is None
        assert retry["params"]["name"] == "t" and retry["params"]["arguments"] == {}


TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40)
STATUS = st.fixed_dictionaries({"status": st.sampled_from(["working", "input_required"]) | TEXT,
                                "message": st.none() | TEXT})
ASKED = st.dictionaries(TEXT, st.fixed_dictionaries({"message": TEXT, "answer": TEXT}), max_size=2)
TASK = st.fixed_dictionaries({"id": TEXT.filter(bool), "statuses": st.lists(STATUS, max_size=4),
                              "inputs": st.lists(ASKED, max_size=3), "text": TEXT,
                              "poll": st.none() | st.integers(0, 2**40), "ttl": st.none() | st.integers(0, 2**40)})
"""A task as its events tell it: statuses and messages, input rounds (questions and answers), the result's text."""


def task_events(task: dict[str, Any]) -> list[Any]:
    """The events of a task conversation, as the engine emits them: round 1 makes the task."""
    sent = [events.RequestSent(3, "tools/call", {"name": "t", "arguments": {}}, "{}", 1, "request"),
            events.ResponseReceived(3, "tools/call", {"resultType": "task", "taskId": task["id"], "status": "working"},
                                    None, 1.0, 1),
            events.TaskCreated(3, task["id"], "working", None, task["poll"], task["ttl"])]
    number = 1
    for status in task["statuses"]:
        sent.append(events.TaskStatusChanged(task["id"], status["status"], status["message"]))
    for asked in task["inputs"]:
        number += 1
        questions = {key: elicit(q["message"], {"a": {"type": "string"}}) for key, q in asked.items()}
        sent.append(events.InputRequested(number, 7, questions, None))
        sent += [events.AnswerChosen(number, key, "elicitation/create", {"action": "accept", "content": {"a": q["answer"]}},
                                     "flag") for key, q in asked.items()]
    return sent


@PROPERTY
@given(task=TASK)
def test_a_recorded_task_reads_back_as_it_was_told(task: dict[str, Any]):
    """Any task part the recorder writes loads (the schema holds it), shows as the events it was made
    of, answers its questions again, and replays the same as itself (issue 28)."""
    told = task_events(task)
    builder = TranscriptBuilder({"transport": "demo"}, "2026-07-28", {}, Redaction.from_flags([]))
    for event in told:
        builder(event)
    outcome = Outcome("tools/call", {"name": "t"}, "complete", {"content": [{"type": "text", "text": task["text"]}]})
    builder(events.OutcomeReached(outcome))
    path = Path(tempfile.mkdtemp()) / "task.yaml"
    path.write_text(yaml_dumper.dumps(builder.document()), encoding="utf-8")
    loaded = model.load(str(path))
    assert loaded.data["task"] == builder.document()["task"]
    kinds = (events.TaskCreated, events.TaskStatusChanged, events.InputRequested, events.AnswerChosen)
    shown = [event for event in model.events_of(loaded) if isinstance(event, kinds)]
    assert sorted(map(repr, shown)) == sorted(repr(e._replace(id=None) if isinstance(e, events.InputRequested) else e)
                                              for e in told if isinstance(e, kinds))
    assert model.outcome_of(loaded).result == outcome.result
    assert compare_tasks(loaded.data["task"], builder.document()["task"]) == []
    answerer = RecordedAnswerer(loaded)
    for asked in task["inputs"]:
        for key, question in asked.items():
            request = elicit(question["message"], {"a": {"type": "string"}})
            response = answerer.answer(Question(2, key, request, "s"))
            assert isinstance(response, Response) and response.payload["content"] == {"a": question["answer"]}


ROOTS_REQUEST = {"method": "roots/list", "params": {}}
STRAY = st.fixed_dictionaries({
    "method": st.sampled_from(["elicitation/create", "sampling/createMessage", "roots/list"]),
    "before": st.booleans(),
    "answer": st.one_of(TEXT.map(lambda text: ("answer", "flag", text)),
                        st.tuples(st.just("refused"), st.sampled_from(["interactive", "sampler"]), TEXT),
                        st.tuples(st.just("refused"), st.none(), TEXT))})
"""A request the server sends of its own accord, before the call or during it, and how it was answered."""


def stray_events(strays: list[dict[str, Any]]) -> list[Any]:
    """The events of an older-era call with unprompted requests, as server_requests.py emits them."""
    def told(number: int, stray: dict[str, Any], key: str) -> list[Any]:
        request = ROOTS_REQUEST if stray["method"] == "roots/list" else \
            {"method": stray["method"], "params": {"message": "m"}}
        kind, source, text = stray["answer"]
        asked = events.InputRequested(number, None if stray["before"] else 3, {key: request}, None,
                                      in_flight=True, unprompted=True)
        if kind == "answer":
            return [asked, events.AnswerChosen(number, key, stray["method"], {"text": text}, source, unprompted=True)]
        return [asked, events.Unanswered(key, "told", number, stray["method"], source, True, text)]

    counts: dict[str, int] = {}
    keyed = []
    for stray in strays:
        counts[stray["method"]] = counts.get(stray["method"], 0) + 1
        keyed.append((stray, f"{stray['method'].split('/')[0]}#{counts[stray['method']]}"))
    sent = [event for stray, key in keyed if stray["before"] for event in told(0, stray, key)]
    sent.append(events.RequestSent(3, "tools/call", {"name": "t", "arguments": {}}, "{}", 1, "request"))
    sent += [event for stray, key in keyed if not stray["before"] for event in told(1, stray, key)]
    sent.append(events.ResponseReceived(3, "tools/call", {"content": []}, None, 1.0, 1))
    return sent


@PROPERTY
@given(strays=st.lists(STRAY, max_size=5))
def test_what_the_server_asked_unprompted_reads_back_as_it_was_told(strays: list[dict[str, Any]]):
    """Whatever the server asks of its own accord, whenever, and however it was answered (refusals
    included), what the recorder writes loads (format 3's schema holds it), keeps every answer and
    refusal beside the round, shows as those events, replays the same as itself, and answers each
    request again by its method as recorded (issue 35)."""
    from mrtr_cli.answering.questions import Refusal
    from mrtr_cli.transcript.compare import compare

    told = stray_events(strays)
    builder = TranscriptBuilder({"transport": "stdio", "command": ["s"]}, "2025-06-18", {}, Redaction.from_flags([]))
    builder(events.EraChosen("older", "2025-06-18", "asked for"))
    for event in told:
        builder(event)
    builder(events.OutcomeReached(Outcome("tools/call", {"name": "t"}, "complete", {"content": []})))
    path = Path(tempfile.mkdtemp()) / "stray.yaml"
    path.write_text(yaml_dumper.dumps(builder.document()), encoding="utf-8")
    loaded = model.load(str(path))
    [entry] = loaded.rounds
    assert "asked_in_flight" not in entry["received"] and entry["answers"] == {}
    assert len(entry.get("unprompted", {})) == len(strays)
    kinds = (events.InputRequested, events.AnswerChosen, events.Unanswered)
    shown = [event for event in model.events_of(loaded) if isinstance(event, kinds)]
    normal = [(type(e).__name__, e.key) if not isinstance(e, events.InputRequested) else ("asked", *e.requests)
              for e in told if isinstance(e, kinds)]
    assert sorted(normal) == sorted((type(e).__name__, e.key) if not isinstance(e, events.InputRequested)
                                    else ("asked", *e.requests) for e in shown)
    assert compare(loaded.data, builder.document(), [], strict=False) == []
    answerer = RecordedAnswerer(loaded)
    firsts: dict[str, dict[str, Any]] = {}
    for stray in sorted(strays, key=lambda stray: not stray["before"]):  # in the order they came
        firsts.setdefault(stray["method"], stray)
    for method, stray in firsts.items():
        decision = answerer.answer(Question(1, "x#1", {"method": method}, "s", in_flight=True, unprompted=True))
        kind, _, text = stray["answer"]
        assert decision == Response({"text": text}) if kind == "answer" else isinstance(decision, Refusal)
