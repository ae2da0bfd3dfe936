"""Transcripts in both eras, and the migration check: a conversation recorded in one era replayed in
the other, against the demo server (which speaks both)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import yaml

from conftest import PYTHON, ROOT, mrtr_here
from peers import http_server
from mrtr_cli.transcript import model
from mrtr_cli.transcript.across_eras import compare_across_eras

SCHEMA = json.loads((ROOT / "mrtr_cli" / "transcript" / "schema.json").read_text())
CONVERSATION = json.loads((ROOT / "docs" / "json" / "conversation.schema.json").read_text())
REPLAY = json.loads((ROOT / "docs" / "json" / "replay.schema.json").read_text())
OLDER = ("--protocol-era", "older", "--no-input")
BOOK = ("--answer", "elicitation#1.date=2026-12-24", "--answer", "elicitation#2.size=4",
        "--answer", "elicitation#3.confirm=true")
BOOK_TABLE = str(ROOT / "recordings" / "book_table.yaml")


def record_older(tmp_path: Path) -> Path:
    path = tmp_path / "older.yaml"
    run = mrtr_here("call", "book_table", "--demo", *OLDER, *BOOK, "--record", str(path))
    assert run.code == 0, run.stderr
    return path


def loaded(path: Path) -> dict:
    document = yaml.safe_load(path.read_text())
    jsonschema.validate(document, SCHEMA)
    return document


def test_an_older_era_call_is_one_round_with_its_questions_asked_in_flight(tmp_path: Path):
    document = loaded(record_older(tmp_path))
    assert (document["mrtr_transcript"], document["era"], document["protocol_version"]) == (3, "older", "2025-11-25")
    [only] = document["rounds"]
    asked = only["received"]["asked_in_flight"]
    assert list(asked) == ["elicitation#1", "elicitation#2", "elicitation#3"]
    assert asked["elicitation#1"]["params"]["message"] == "Which day would you like a table in Lisbon?"
    assert list(only["received"]) == ["asked_in_flight", "result"]
    assert only["answers"]["elicitation#2"]["response"] == {"action": "accept", "content": {"size": 4}}
    assert "Booked a table for 4" in only["received"]["result"]["content"][0]["text"]


def test_a_modern_recording_says_its_era(tmp_path: Path):
    path = tmp_path / "modern.yaml"
    run = mrtr_here("call", "two_questions", "--demo", "--protocol-era", "modern", "--answers",
                    str(ROOT / "examples" / "two_questions.yaml"), "--record", str(path))
    assert run.code == 0, run.stderr
    document = loaded(path)
    assert (document["mrtr_transcript"], document["era"]) == (3, "modern")
    assert mrtr_here("replay", str(path)).code == 0


def test_an_older_recording_replays_in_its_own_era_and_in_the_modern_one(tmp_path: Path):
    path = record_older(tmp_path)
    same = mrtr_here("replay", str(path))
    assert same.code == 0 and "same as recorded (1 round)" in same.stderr, same.stderr
    migrated = mrtr_here("replay", str(path), "--protocol-era", "modern")
    assert migrated.code == 0 and "same as recorded (4 rounds)" in migrated.stderr, migrated.stderr


def test_a_format_1_recording_replays_against_the_older_era():
    for version in ("2025-11-25", "2025-06-18"):
        run = mrtr_here("replay", BOOK_TABLE, str(ROOT / "recordings" / "vault.yaml"), "--demo", "--protocol-version",
                        version)
        assert run.code == (0 if version == "2025-11-25" else 6), run.stderr
    assert "question 2 (recorded 'party', live 'elicitation#2'): requestedSchema" in run.stderr


def test_a_changed_question_is_exit_6_naming_the_first_that_differs(tmp_path: Path):
    path = record_older(tmp_path)
    path.write_text(path.read_text().replace("How many people, and any seating wishes?", "How many guests?"))
    run = mrtr_here("replay", str(path), "--protocol-era", "modern", "--json")
    assert run.code == 6, run.stderr
    document = run.json()
    jsonschema.validate(document, REPLAY)
    [difference] = document["transcripts"][0]["differences"]
    assert difference == {"round": None, "key": "elicitation#2", "what": "message", "recorded": "How many guests?",
                          "live": "How many people, and any seating wishes?", "question": 2, "live_key": "party"}
    shown = mrtr_here("replay", str(path), "--protocol-era", "modern")
    assert "question 2 (recorded 'elicitation#2', live 'party'): message" in shown.stderr


def test_show_renders_the_questions_asked_in_flight(tmp_path: Path):
    path = record_older(tmp_path)
    run = mrtr_here("show", str(path))
    assert run.code == 0, run.stderr
    assert "asked in flight: elicitation#1" in run.stdout and "✓ elicitation#3 ← accept" in run.stdout
    assert run.stdout.index("asked in flight: elicitation#2") < run.stdout.index("← complete")
    document = mrtr_here("show", str(path), "--json").json()
    jsonschema.validate(document, CONVERSATION)
    assert document["era"] == "older" and list(document["rounds"][0]["questions"]) == [
        "elicitation#1", "elicitation#2", "elicitation#3"]
    assert mrtr_here("show", BOOK_TABLE, "--json").json()["era"] == "modern"


def test_call_json_says_the_era():
    run = mrtr_here("call", "book_table", "--demo", *OLDER, *BOOK, "--json")
    assert run.code == 0 and run.json()["era"] == "older"


def document_of(questions: list[tuple[str, str]], result: dict, era: str) -> dict:
    """A one-round transcript document asking `questions` (key, message) in flight, or in rounds."""
    asked = {key: {"method": "elicitation/create", "params": {"message": message}} for key, message in questions}
    if era == "older":
        rounds = [{"round": 1, "received": {"asked_in_flight": asked, "result": result}}]
    else:
        rounds = [{"round": 1, "received": {"result": {"resultType": "input_required", "inputRequests": asked}}},
                  {"round": 2, "received": {"result": {**result, "resultType": "complete", "ttlMs": 0}}}]
    return {"era": era, "outcome": "complete", "rounds": rounds}


def test_across_eras_structured_content_counts_only_when_both_have_it():
    old = document_of([("elicitation#1", "Day?")], {"content": [{"type": "text", "text": "ok"}]}, "older")
    new = document_of([("date", "Day?")], {"content": [{"type": "text", "text": "ok"}], "structuredContent": {}},
                      "modern")
    assert compare_across_eras(old, new) == []
    other = document_of([("date", "Day?"), ("party", "Size?")], {"content": [{"type": "text", "text": "no"}]}, "modern")
    assert [d.what for d in compare_across_eras(old, other)] == ["number of questions", "result"]


def test_the_format_1_recordings_load_as_modern_and_migrate_back_to_the_older_era():
    files = sorted((ROOT / "recordings").glob("*.yaml"))
    for path in files:
        transcript = model.load(str(path))
        assert (transcript.data["mrtr_transcript"], transcript.era) == (1, "modern"), path
    run = mrtr_here("replay", *map(str, files), "--demo", "--protocol-era", "older")
    assert run.code == 0, run.stderr + run.stdout
    assert run.stderr.count("same as recorded (1 round)") == len(files)


def serve_command(path: Path) -> str:
    return f"{PYTHON} -m mrtr_cli serve {path}"


def test_serve_plays_an_older_recording_to_clients_of_both_eras_over_stdio(tmp_path: Path):
    path = record_older(tmp_path)
    older = mrtr_here("replay", str(path), "--stdio", serve_command(path), "--protocol-era", "older")
    assert older.code == 0 and "same as recorded (1 round)" in older.stderr, older.stderr
    modern = mrtr_here("replay", str(path), "--stdio", serve_command(path), "--protocol-era", "modern")
    assert modern.code == 0 and "same as recorded (4 rounds)" in modern.stderr, modern.stderr


def test_serve_plays_an_older_recording_over_http_and_refuses_a_different_answer(tmp_path: Path):
    path = record_older(tmp_path)
    changed = tmp_path / "changed.yaml"
    changed.write_text(path.read_text().replace("size: 4", "size: 5"))
    with http_server([PYTHON, "-m", "mrtr_cli", "serve", str(path), "--http", "127.0.0.1:0"]) as url:
        runs = {era: mrtr_here("replay", str(path), "--url", url, "--protocol-era", era) for era in ("older", "modern")}
        differing = mrtr_here("replay", str(changed), "--url", url, "--protocol-era", "older")
    assert all(run.code == 0 for run in runs.values()), {era: run.stderr for era, run in runs.items()}
    assert differing.code == 6 and "the answer to 'elicitation#2' differs from the recording" in differing.stderr, \
        differing.stderr
