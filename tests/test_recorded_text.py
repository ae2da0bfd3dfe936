"""A transcript mrtr writes always reads back, whatever the text in it (issue 24).

The recorder writes a transcript in parts (the header, each round, the ending), each dumped on
its own: a part must not end the document (`...` after a text that ends in a blank line) nor
start another (`---`). The property drives the real Recorder with the engine's events, hostile
text in every field of every round, with each emitter, and reads every file back with each
loader of the project: the partial file, then the whole one, equal the document the builder
holds, and every value equals what was sent or received. Lone surrogates, which YAML cannot
hold, come back as U+FFFD, with a finding in their round. Then the same through the CLI: the
demo server with a sampling reply and an argument that end in a blank line, and a stdio server
that sends a lone surrogate.
"""

from __future__ import annotations

import json
import os
import re
import signal
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import mrtr_here
from mrtr_cli.conversation import events
from mrtr_cli.process import signals
from mrtr_cli.fileio import yaml_dumper, yaml_emitters, yaml_loader
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.errors import Signalled, UsageError
from mrtr_cli.render import json_report
from mrtr_cli.transcript import compare, model
from mrtr_cli.transcript.recorder import Recorder
from mrtr_cli.transcript.redact import Redaction

LONE_SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff"]
HOSTILE = ["\n", "\n\n", "\n\n\n", "...", "\n...\n", "---", "\n---\n", "--- |", "# no comment", " #", ": ", ":", "\t",
           "\r", "\r\n", "\x00", "\x07", "\x1b[2J", "\x7f", "\x85", "\u2028", "\u2029", "\ufeff", " ", "  ", "'", '"',
           "\\", "|", "|+", ">-", "- ", "? ", "&a", "*a", "!!python/object", "%YAML 1.1", "@", "`", "{", "}", "[", "]",
           ",", "~", "null", "true", "no", "0x1F", "1e3", "2026-12-24", "é", "日本", "\U0001F600", "word " * 30,
           "x" * 150, "B" + "ase64/+=" * 30, *LONE_SURROGATES]
"""Pieces of hostile text: line breaks of every kind, markers, indicators, controls, long lines
(the last but four, alone, is a text set aside while dumping: SET_ASIDE_LENGTH below)."""
SET_ASIDE_LENGTH = 200
"""Texts this long that YAML writes as they are are set aside while dumping (yaml_dumper.SET_ASIDE_LENGTH,
which is 64 KiB: a failing example that long would be too long to read)."""


def hostile_piece(index: int) -> str:
    return HOSTILE[index]


PIECE = st.sampled_from(range(len(HOSTILE))).map(hostile_piece)  # a short repr, unlike the list's
TEXT = st.lists(PIECE | st.text(max_size=3), max_size=8).map("".join) | st.text(max_size=30)
NUMBER = st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False)
SCALAR = st.none() | st.booleans() | NUMBER | TEXT
VALUE = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                     max_leaves=8)
OBJECT = st.dictionaries(TEXT, VALUE, max_size=3)
CONTENT = st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": TEXT}), max_size=2)
RESULT = st.fixed_dictionaries({"content": CONTENT}, optional={"structuredContent": OBJECT, "requestState": TEXT,
                                                                "_meta": OBJECT})
ERROR = st.fixed_dictionaries({"code": st.integers(-2**31, 2**31), "message": TEXT}, optional={"data": VALUE})
REPLY = st.fixed_dictionaries({"result": RESULT}) | st.fixed_dictionaries({"error": ERROR})
NOTE = st.fixed_dictionaries({"method": TEXT, "params": OBJECT})
INSTANCE = st.none() | st.fixed_dictionaries({"position": st.integers(0, 2**31), "name": TEXT})
"""Where a round went (`--replica`, `--restart-between-rounds`: events.InstanceChosen); None: no hops."""
ROUND = st.fixed_dictionaries({"instance": INSTANCE,
    "arguments": OBJECT, "headers": st.dictionaries(TEXT, TEXT, max_size=2), "content_type": TEXT,
    "notes": st.lists(NOTE, max_size=2), "reply": REPLY, "answers": st.dictionaries(TEXT, OBJECT, max_size=2),
    "finding": TEXT})
"""What one round holds, hostile text in every field: `finding` is the message of a linter's finding,
`instance` the instance of the server it went to, if it hopped."""
CONVERSATION = st.fixed_dictionaries({"name": TEXT, "server": OBJECT, "schema": OBJECT,
                                      "rounds": st.lists(ROUND, min_size=1, max_size=3), "error": st.none() | TEXT})
"""A tool's name, what the server says of itself and of the tool, the rounds, and mrtr's error, if one ended it."""
ROUND_ID = 100


def conversation_events(conversation: dict[str, Any]) -> list[Any]:
    """The events the engine emits for `conversation`, without its outcome."""
    name = conversation["name"]
    listed = {"tools": [{"name": name, "inputSchema": conversation["schema"]}]}
    happened: list[Any] = [events.ServerIdentified(conversation["server"]),
                           events.ResponseReceived(1, "tools/list", listed, None, 1.0)]
    for number, shape in enumerate(conversation["rounds"], 1):
        request_id = ROUND_ID + number
        if shape["instance"] is not None:
            happened.append(events.InstanceChosen(number, shape["instance"]["position"], shape["instance"]["name"]))
        happened += [events.RequestSent(request_id, "tools/call", {"name": name, "arguments": shape["arguments"]}, "",
                                        number),
                     events.WireNote("out", "", {"headers": shape["headers"]}, request_id),
                     events.WireNote("in", "", {"status": 200, "content_type": shape["content_type"]}, request_id),
                     *(events.NotificationReceived(note["method"], note["params"], request_id)
                       for note in shape["notes"])]
        reply = shape["reply"]
        happened.append(events.ResponseReceived(request_id, "tools/call", reply.get("result"), reply.get("error"), 1.5,
                                                number))
        happened.append(events.Finding("warning", "a-rule", shape["finding"], "", number))
        happened += [events.AnswerChosen(number, key, "elicitation/create", response, "flag")
                     for key, response in shape["answers"].items()]
    return happened


def the_outcome(conversation: dict[str, Any]) -> Outcome:
    outcome = Outcome("tools/call", {"name": conversation["name"]}, "complete")
    if conversation["error"] is not None:
        outcome.status, outcome.error = "error", UsageError(conversation["error"], "a hint")
    return outcome


def fixed(value: Any) -> Any:
    """`value` with U+FFFD in place of each lone surrogate, as the transcript keeps it."""
    if isinstance(value, str):
        return re.sub("[\ud800-\udfff]", "\ufffd", value)
    if isinstance(value, dict):
        return {fixed(key): fixed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [fixed(item) for item in value]
    return value


def holds_lone_surrogate(value: Any) -> bool:
    return fixed(value) != value


def loaded(path: Path, libyaml: bool) -> dict[str, Any]:
    """The transcript at `path`, read by mrtr's own loader (libyaml's parser or the pure one)."""
    yaml_loader.USE_LIBYAML = libyaml
    return model.load(str(path)).data


def record(directory: Path, conversation: dict[str, Any], libyaml: bool) -> tuple[Recorder, list[Any]]:
    """Record `conversation` through a real Recorder subscribed as the engine subscribes it; each
    emitter writes; the partial file reads back as the builder's document before the outcome."""
    broadcast, shown = events.Broadcast(), []
    recorder = Recorder(str(directory / "t.yaml"), {"transport": "demo"}, "2026-07-28", {"sampling": {}},
                        Redaction.from_flags([]), broadcast)
    broadcast.subscribe(recorder)
    broadcast.subscribe(shown.append)
    yaml_dumper.USE_LIBYAML = libyaml
    for event in conversation_events(conversation):
        broadcast(event)
    if recorder.file is not None:  # a round is written once the next one starts: one round waits for the outcome
        for reader in (True, False):
            assert loaded(recorder.partial, reader) == recorder.document()
    broadcast(events.OutcomeReached(the_outcome(conversation)))
    return recorder, shown


def check_rounds(document: dict[str, Any], conversation: dict[str, Any]) -> None:
    """Every value of every round is what was sent or received (lone surrogates as U+FFFD)."""
    name = conversation["name"]
    for entry, shape in zip(document["rounds"], conversation["rounds"], strict=True):
        assert entry["sent"]["params"] == {"name": fixed(name), "arguments": fixed(shape["arguments"])}
        assert entry.get("instance") == fixed(shape["instance"])  # absent without a hop
        notes = fixed(shape["notes"])
        assert entry["received"] == {"status": 200, **({"content_type": fixed(shape["content_type"])}
                                                        if shape["content_type"] else {}),
                                     **({"notifications": notes} if notes else {}), **fixed(shape["reply"])}
        assert {key: answer["response"] for key, answer in entry["answers"].items()} == fixed(shape["answers"])
        rules = [finding["rule"] for finding in entry["findings"]]
        assert rules[0] == "a-rule" and entry["findings"][0]["message"] == fixed(shape["finding"])
        held = holds_lone_surrogate([name, shape])
        header = entry["round"] == 1 and holds_lone_surrogate(
            [name, conversation["server"], conversation["schema"], shape["arguments"]])
        assert rules[1:] == ["lone-surrogate"] * (int(header) + int(held))


def check_instances_read_back(path: Path, conversation: dict[str, Any]) -> None:
    """Each round's instance reads back as the event `show` draws and the round the `--json` report
    writes; replay's comparison ignores it."""
    transcript = model.load(str(path))
    expected = [events.InstanceChosen(number, shape["instance"]["position"], fixed(shape["instance"]["name"]))
                for number, shape in enumerate(conversation["rounds"], 1) if shape["instance"] is not None]
    assert [e for e in model.events_of(transcript) if isinstance(e, events.InstanceChosen)] == expected
    read = model.outcome_of(transcript).rounds
    assert [r.instance for r in read if r.instance is not None] == expected
    assert [json_report.conversation(model.outcome_of(transcript))["rounds"][e.round - 1]["instance"]
            for e in expected] == [{"position": e.position, "name": e.name} for e in expected]
    elsewhere = [{**entry, "instance": {"position": 9, "name": "elsewhere"}} for entry in transcript.rounds]
    assert compare.compare(transcript.data, {**transcript.data, "rounds": elsewhere}, [], strict=True) == []


@settings(suppress_health_check=[HealthCheck.data_too_large])  # examples: the profile's (conftest.py)
@given(conversation=CONVERSATION)
def test_any_text_in_any_field_of_a_round_is_written_and_read_back(conversation: dict[str, Any]):
    directory = Path(tempfile.mkdtemp())
    chosen, set_aside = (yaml_dumper.USE_LIBYAML, yaml_loader.USE_LIBYAML), yaml_dumper.SET_ASIDE_LENGTH
    yaml_dumper.SET_ASIDE_LENGTH = SET_ASIDE_LENGTH
    try:
        for libyaml in (True, False):
            recorder, shown = record(directory, conversation, libyaml)
            for reader in (True, False):
                document = loaded(recorder.path, reader)
                assert document == recorder.document()
                assert document["request"]["params"]["name"] == fixed(conversation["name"])
                assert document.get("server", {}) == fixed(conversation["server"])
                assert document["tool"]["inputSchema"] == fixed(conversation["schema"])
                check_rounds(document, conversation)
            noted = [e for e in shown if isinstance(e, events.Finding) and e.rule == "lone-surrogate"]
            kept = [f for entry in recorder.document()["rounds"] for f in entry["findings"]
                    if f["rule"] == "lone-surrogate"]
            ending = conversation["error"] is not None and holds_lone_surrogate(conversation["error"])
            assert len(noted) == len(kept) + int(ending)  # each shown once; the ending's is only shown
            check_instances_read_back(recorder.path, conversation)
    finally:
        (yaml_dumper.USE_LIBYAML, yaml_loader.USE_LIBYAML), yaml_dumper.SET_ASIDE_LENGTH = chosen, set_aside
        shutil.rmtree(directory)


def test_a_part_that_ends_in_a_kept_blank_line_does_not_end_the_document():
    for libyaml in (True, False):
        yaml_dumper.USE_LIBYAML = libyaml
        try:
            assert yaml_dumper.dumps({"k": "a\n\n"}).endswith("\n...\n")  # what the emitter writes alone
            assert yaml_dumper.dumps_part({"k": "a\n\n"}) == "k: |+\n  a\n\n"
            assert yaml_dumper.dumps_part([{"k": "\n"}]) == "- k: |2+\n\n"
        finally:
            yaml_dumper.USE_LIBYAML = True
    for refused in ("text", {}, []):
        with pytest.raises(ValueError):
            yaml_dumper.dumps_part(refused)


class SignalledMidRound(Recorder):
    """A Recorder that is sent `signal_number` after writing the first piece of its first round."""

    signal_number = signal.SIGINT

    def added(self, entry: dict[str, Any]) -> None:
        if len(self.rounds) > 1:
            return super().added(entry)
        original = self._write

        def write_then_signal(first: str, *rest: str) -> None:
            original(first)
            os.kill(os.getpid(), self.signal_number)
            original(*rest)
        self._write = write_then_signal  # type: ignore[method-assign]
        try:
            super().added(entry)
        finally:
            del self._write


@pytest.mark.parametrize("number, raised", [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Signalled)])
def test_a_signal_while_a_round_is_written_waits_for_the_round(tmp_path: Path, number: int, raised: type):
    """Ctrl-C (or SIGTERM) landing between the pieces of a round is raised once the event is taken
    in whole; the transcript the outcome then ends holds every round. Before signals.held, it held
    `rounds` only if the signal missed the window between `rounds:` and the round (CI saw it)."""
    conversation = {"name": "t", "server": {}, "schema": {}, "error": None,
                    "rounds": [{"instance": None, "arguments": {}, "headers": {}, "content_type": "application/json",
                                "notes": [], "reply": {"result": {"content": []}},
                                "answers": {"n": {"action": "accept"}}, "finding": "f"}] * 2}
    handlers = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    signals.install()
    try:
        recorder = SignalledMidRound(str(tmp_path / "t.yaml"), {"transport": "demo"}, "2026-07-28", {},
                                     Redaction.from_flags([]))
        recorder.signal_number = number
        happened = conversation_events(conversation)
        second_round = next(i for i, e in enumerate(happened) if isinstance(e, events.RequestSent) and e.round == 2)
        for event in happened[:second_round]:
            recorder(event)
        with pytest.raises(raised):
            recorder(happened[second_round])  # the first round is written now
        assert len(recorder.rounds) == 1 and recorder.pending is not None and recorder.pending.number == 2
        recorder(events.OutcomeReached(Outcome("tools/call", {"name": "t"}, "aborted")))
    finally:
        for n, handler in handlers.items():
            signal.signal(n, handler)
        signals._raised = False
    document = loaded(tmp_path / "t.yaml", True)
    assert [entry["round"] for entry in document["rounds"]] == [1, 2] and document["outcome"] == "aborted"


TEXTS = {"libyaml": ("A short summary.\n\n", "Two paragraphs.\n\n---\n...\n\n"),
         "pure": ("A short summary \U0001F600\n\n", "Two paragraphs \U0001F600\n\n---\n...\n\n")}
"""A sampling reply and an argument that end in a blank line (`|+` blocks): ones libyaml's emitter
writes, and ones the pure emitter writes (libyaml escapes characters beyond U+FFFF)."""


@pytest.mark.parametrize("emitter", list(TEXTS))
def test_a_recorded_reply_and_argument_ending_in_a_blank_line_show_and_replay(emitter: str, tmp_path: Path):
    path, (reply, text) = tmp_path / "s.yaml", TEXTS[emitter]
    assert yaml_emitters.emitters_agree({"reply": reply, "text": text}) is (emitter == "libyaml")
    run = mrtr_here("call", "summarize", "--demo", "--args", json.dumps({"text": text}), "--sampling-reply", reply,
                    "--record", str(path))
    assert run.code == 0, run.stderr
    written = path.read_text(encoding="utf-8")
    assert "|+\n" in written and re.search(r"^\.\.\.$", written, re.MULTILINE) is None
    document = model.load(str(path)).data
    assert document["request"]["params"]["arguments"] == {"text": text}
    assert document["rounds"][0]["answers"]["summary"]["response"]["content"]["text"] == reply
    assert document["outcome"] == "complete" and len(document["rounds"]) == 2
    shown = mrtr_here("show", str(path))
    assert shown.code == 0 and "✓ complete · 2 rounds" in shown.stdout, shown.stderr
    replayed = mrtr_here("replay", str(path))
    assert replayed.code == 0 and "same as recorded (2 rounds)" in replayed.stderr, replayed.stderr


def test_a_lone_surrogate_from_a_server_is_recorded_as_u_fffd_with_a_finding(tmp_path: Path, scripted):
    sent = json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "content": [
        {"type": "text", "text": "bad \ud800 text\n\n"}], "structuredContent": {"k\udfff": "ok"}}})
    assert "\\ud800" in sent  # the wire holds an escape, which JSON allows and Python decodes as it is
    server = scripted(steps=[{"raw": [sent]}])
    path = tmp_path / "t.yaml"
    run = mrtr_here("call", "t", "--record", str(path), "--", *server.command)
    assert run.code == 0, run.stderr
    assert "! warning [lone-surrogate] $.rounds[0].received.result.content[0].text, " \
           "$.rounds[0].received.result.structuredContent.k\ufffd hold lone surrogates" in run.stderr
    document = model.load(str(path)).data
    result = document["rounds"][0]["received"]["result"]
    assert result["content"][0]["text"] == "bad \ufffd text\n\n" and result["structuredContent"] == {"k\ufffd": "ok"}
    assert [f["rule"] for f in document["rounds"][0]["findings"]] == ["lone-surrogate"]
    shown = mrtr_here("show", str(path))
    assert shown.code == 0 and "[lone-surrogate]" in shown.stdout, shown.stderr
    # the raw answer names id 2, after the era probe's id 1: --protocol-era modern probes as the recording did
    replayed = mrtr_here("replay", str(path), "--trust-target", "--protocol-era", "modern")
    assert replayed.code == 0 and "same as recorded (1 round)" in replayed.stderr, replayed.stderr
