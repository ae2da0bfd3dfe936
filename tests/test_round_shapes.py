"""The shape of a round, kept in one module (transcript/rounds.py), and the answer sources, kept
in one list (answering/sources.py) that both published schemas repeat."""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from mrtr_cli.conversation import events
from mrtr_cli.fileio import yaml_dumper
from mrtr_cli.answering.sources import SOURCES
from mrtr_cli.render.json_report import conversation
from mrtr_cli.transcript import model
from mrtr_cli.transcript.rounds import (
    RoundParts,
    comparable,
    report_view,
    round_events,
    round_from_data,
    round_to_data,
)

SCHEMAS = [ROOT / "mrtr_cli" / "transcript" / "schema.json", ROOT / "docs" / "json" / "conversation.schema.json"]
ANSWERERS = ["answering.scripted", "answering.answers_file", "answering.interactive", "transcript.recorded_answerer"]
RECORDINGS = sorted((ROOT / "recordings").glob("*.yaml"))


def schema_sources(path: Path) -> list[str]:
    """The `source` enum of a schema, wherever it sits (inline once, or defined once as `$defs/source`)."""
    found: list[list[str]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            source = node.get("properties", {}).get("source") if isinstance(node.get("properties"), dict) else None
            if isinstance(source, dict):
                found.extend(option["enum"] for option in [source, *source.get("oneOf", [])] if "enum" in option)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    schema = json.loads(path.read_text(encoding="utf-8"))
    walk(schema)
    defined = schema.get("$defs", {}).get("source")  # one definition the answers refer to
    found += [defined["enum"]] if isinstance(defined, dict) and "enum" in defined else []
    assert len(found) == 1, f"{path.name}: expected one source enum, found {found}"
    return found[0]


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_each_schema_lists_every_answer_source(path: Path):
    assert sorted(schema_sources(path)) == sorted(SOURCES), \
        f"{path.name} lists other answer sources than answering/sources.py: add or remove the name in both"


@pytest.mark.parametrize("module", ANSWERERS)
def test_every_answerer_names_a_registered_source(module: str):
    loaded = importlib.import_module(f"mrtr_cli.{module}")
    answerers = [c for _, c in inspect.getmembers(loaded, inspect.isclass)
                 if c.__module__ == loaded.__name__ and hasattr(c, "answer") and hasattr(c, "name")]
    assert answerers
    for answerer in answerers:
        assert answerer.name in SOURCES, f"{answerer.__name__}.name {answerer.name!r} is not in SOURCES"


def parts_of_a_round() -> RoundParts:
    asked = {"date": {"method": "elicitation/create", "params": {"message": "Which day?", "requestedSchema": {}}}}
    parts = RoundParts(1, 7, {"name": "book_table", "arguments": {}}, headers={"Accept": "application/json"})
    parts.received.update({"content_type": "application/json", "status": 200,
                           "result": {"resultType": "input_required", "inputRequests": asked,
                                      "requestState": "s1", "_meta": {"x": 1}}})
    parts.notifications.append(events.NotificationReceived("notifications/message", {"level": "info"}, 7))
    parts.elapsed_ms = 12.34567
    parts.answers["date"] = events.AnswerChosen(1, "date", "elicitation/create", {"action": "accept"}, "flag")
    parts.findings.append(events.Finding("warning", "some-rule", "a note", "", 1))
    return parts


def test_a_round_is_written_in_the_documented_order():
    data = round_to_data(parts_of_a_round())
    assert list(data) == ["round", "id", "sent", "received", "elapsed_ms", "answers", "findings"]
    assert list(data["sent"]) == ["params", "headers"]
    assert list(data["received"]) == ["status", "content_type", "notifications", "result"]
    assert data["elapsed_ms"] == 12.346
    assert data["answers"] == {"date": {"method": "elicitation/create", "source": "flag",
                                        "response": {"action": "accept"}}}
    assert data["findings"] == [{"severity": "warning", "rule": "some-rule", "message": "a note"}]


def test_a_round_sent_and_never_answered_keeps_an_empty_received():
    data = round_to_data(RoundParts(2, 9, {"name": "x"}))
    assert data == {"round": 2, "id": 9, "sent": {"params": {"name": "x"}}, "received": {}, "answers": {},
                    "findings": []}


def test_a_round_read_back_gives_the_round_and_the_events_it_was_made_of():
    parts = parts_of_a_round()
    data = round_to_data(parts)
    current = round_from_data("tools/call", data)
    assert (current.number, current.reply.id, current.result_type, current.state) == (1, 7, "input_required", "s1")
    assert current.answers["date"].source == "flag"
    emitted = list(round_events("tools/call", data))
    assert [type(e).__name__ for e in emitted] == ["RequestSent", "NotificationReceived", "ResponseReceived",
                                                   "InputRequested", "AnswerChosen", "Finding"]
    assert emitted[-2] == parts.answers["date"] and emitted[-1] == parts.findings[0]


def test_the_report_and_the_comparison_are_views_of_the_same_round():
    data = round_to_data(parts_of_a_round())
    view = report_view(round_from_data("tools/call", data))
    assert view == {"round": 1, "id": 7, "resultType": "input_required", "elapsed_ms": 12.346,
                    "questions": {"date": {"method": "elicitation/create", "message": "Which day?",
                                           "response": {"action": "accept"}, "source": "flag"}}}
    compared = comparable(data)
    assert set(compared) == {"round", "received", "findings"}
    assert "requestState" not in compared["received"]["result"] and "_meta" not in compared["received"]["result"]
    assert data["received"]["result"]["requestState"] == "s1", "the comparison leaves the round itself alone"


def test_a_round_that_hopped_names_its_instance_in_every_view():
    """--replica, --restart-between-rounds: the instance is written after the id, read back as the
    event the timeline drew (before the request), kept in the report's round, left out of replay's comparison."""
    parts = parts_of_a_round()
    parts.instance = events.InstanceChosen(1, 2, "127.0.0.1:8002")
    data = round_to_data(parts)
    assert list(data)[:4] == ["round", "id", "instance", "sent"]
    assert data["instance"] == {"position": 2, "name": "127.0.0.1:8002"}
    emitted = list(round_events("tools/call", data))
    assert emitted[0] == parts.instance and type(emitted[1]).__name__ == "RequestSent"
    current = round_from_data("tools/call", data)
    assert current.instance == parts.instance
    assert report_view(current)["instance"] == {"position": 2, "name": "127.0.0.1:8002"}
    assert comparable(data) == comparable(round_to_data(parts_of_a_round()))
    assert round_from_data("tools/call", round_to_data(parts_of_a_round())).instance is None


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_recorded_rounds_read_back_into_the_parts_they_were_written_from(path: Path):
    transcript = model.load(str(path))
    method = transcript.request["method"]
    for entry in transcript.rounds:
        written = round_to_data(_parts_from(method, entry))
        assert yaml_dumper.dumps(written) == yaml_dumper.dumps(entry)
    document = conversation(model.outcome_of(transcript))
    assert [r["round"] for r in document["rounds"]] == [e["round"] for e in transcript.rounds]


def _parts_from(method: str, entry: dict[str, Any]) -> RoundParts:
    """The parts a recorder would have gathered, from the events the round reads back as."""
    parts = RoundParts(entry["round"], entry["id"], entry["sent"]["params"], entry["sent"].get("headers"))
    parts.received.update({k: v for k, v in entry["received"].items() if k != "notifications"})
    for event in round_events(method, entry):
        if isinstance(event, events.NotificationReceived):
            parts.notifications.append(event)
        elif isinstance(event, events.ResponseReceived):
            parts.elapsed_ms = event.elapsed_ms
        elif isinstance(event, events.AnswerChosen):
            parts.answers[event.key] = event
        elif isinstance(event, events.Finding):
            parts.findings.append(event)
        elif isinstance(event, events.InstanceChosen):
            parts.instance = event
    return parts
