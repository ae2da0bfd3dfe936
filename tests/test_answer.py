"""`mrtr answer FILE.yaml` (commands/answer.py): a paused conversation continued from its transcript, on the
instance that paused it or another, and `mrtr answer --list DIR`. Real processes for the servers: the demo over
HTTP as instances sharing `--state-key` (or not), the demo over stdio. mrtr runs in this process (`mrtr_here`),
but in a pseudo-terminal of its own for the prompts."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import PYTHON, ROOT, mrtr_here as mrtr
from mrtr_cli.fileio import yaml_dumper
from mrtr_cli.transcript import model, paused
from peers import http_server
from pty_session import ENTER, Pty, prompt

DEMO = [PYTHON, "-m", "mrtr_cli", "demo-server", "--http", "127.0.0.1:0"]
BOOK = str(ROOT / "examples" / "book_table.yaml")
DATE = ("--answer", "date.date=2026-12-24")
BOOKED = "Booked a table for 4 (window, quiet) in Lisbon on 2026-12-24."
STATE_REFUSED = "error -32602 'requestState failed verification: it was altered or not issued by this server'"


def pause(tmp_path: Path, url: str, name: str = "paused.yaml", *extra: str) -> Path:
    """book_table called with nothing to answer its first question: exit 7, kept in `name`."""
    path = tmp_path / name
    run = mrtr("call", "book_table", "--url", url, "--no-input", "--record", str(path), *extra)
    assert run.code == 7, run.stderr
    assert run.stderr.rstrip().endswith(f"; to answer it later: mrtr answer {path}"), run.stderr
    return path


def test_paused_on_one_instance_and_answered_on_another_that_shares_the_key(tmp_path: Path):
    """Round 1 on A; round 2 on B pauses again (the file stays paused, its first round as it was); the rest on B
    completes. The file is one whole conversation (0600) that show and replay (against A) read; answering it
    once more is exit 1."""
    with http_server([*DEMO, "--state-key", "shared"]) as a, http_server([*DEMO, "--state-key", "shared"]) as b:
        path = pause(tmp_path, a)
        first = path.read_text()
        again = mrtr("answer", str(path), "--url", b, *DATE, "--no-input")
        assert again.code == 7, again.stderr
        assert again.stderr.rstrip().endswith(f"; to answer it later: mrtr answer {path}")
        assert "question 'party' of round 2" in again.stderr
        assert f"era: modern (2026-07-28): as {path} recorded it (no era probe)" in again.stderr
        assert "server/discover" not in again.stderr and "tools/list" not in again.stderr
        second = path.read_text()
        cut = first.index("\n- round: 1\n") + 1
        assert second[:cut] == first[:cut]  # the header, byte for byte
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert paused.load_paused(str(path)).number == 2  # paused again, at round 2
        saved = tmp_path / "saved.yaml"
        done = mrtr("answer", str(path), "--url", b, "--answers", BOOK, "--no-input", "--save-answers", str(saved))
        assert done.code == 0, done.stderr
        assert BOOKED in done.stdout
        assert done.stderr.rstrip().splitlines()[-1].startswith("✓ complete · 4 rounds")  # the whole conversation
        assert mrtr("call", "book_table", "--url", a, "--answers", str(saved), "--no-input").code == 0
        third = path.read_text()
        cut = second.index("\n- round: 2\n") + 1
        assert third[:cut] == second[:cut]  # round 1, answered, kept as the second run wrote it
        document = model.load(str(path)).data
        assert [r["round"] for r in document["rounds"]] == [1, 2, 3, 4] and document["outcome"] == "complete"
        assert [(c["from_round"], c["target"]["url"]) for c in document["continued"]] == [(1, b), (2, b)]
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", r["sent_at"]) for r in document["rounds"])
        assert document["rounds"][1]["sent"]["params"]["requestState"] == (
            document["rounds"][0]["received"]["result"]["requestState"])  # byte for byte
        shown = mrtr("show", str(path))
        assert shown.code == 0 and BOOKED in shown.stdout
        lines = shown.stdout.splitlines()
        drawn = [line for line in lines if line.startswith("  ⋯ continued")]
        assert [re.sub(r"\d+ (second|minute|hour|day)s?", "N", line) for line in drawn] == [
            f"  ⋯ continued from round {c['from_round']} at {c['at']} (waited N) → {b} · by {c['by']}"
            for c in document["continued"]]
        # each between the paused round's questions and the retry that continued it
        retries = [i for i, line in enumerate(lines) if line.lstrip().startswith("→ tools/call")]
        assert [i for i in retries if lines[i - 1] in drawn] == retries[1:3]
        report = json.loads(mrtr("show", str(path), "--json").stdout)
        assert [(c["from_round"], c["at"], c["target"]) for c in report["continued"]] == [
            (c["from_round"], c["at"], c["target"]) for c in document["continued"]]
        assert all(c["waited_seconds"] >= 0 for c in report["continued"])
        jsonschema.validate(report, json.loads((ROOT / "docs" / "json" / "conversation.schema.json").read_text()))
        replayed = mrtr("replay", str(path), "--url", a)
        assert replayed.code == 0, replayed.stderr
        finished = mrtr("answer", str(path), "--url", b, "--answers", BOOK)
    assert finished.code == 1
    assert finished.stderr == (f"✗ {path}: the conversation is not paused (outcome: complete): its last round asks "
                               "nothing; `mrtr show` draws it; a paused one ends at a round that asks (exit 7 under "
                               "--no-input)\n")


def test_an_instance_with_another_key_refuses_the_old_state_in_those_words_and_the_file_stays_paused(
        tmp_path: Path):
    with http_server([*DEMO, "--state-key", "one"]) as a, http_server([*DEMO, "--state-key", "two"]) as c:
        path = pause(tmp_path, a)
        before = path.read_bytes()
        refused = mrtr("answer", str(path), "--url", c, "--answers", BOOK)
    where = c.removeprefix("http://").removesuffix("/mcp")
    assert refused.code == 2, refused.stderr
    assert re.fullmatch(
        rf"✗ the retry went to {re.escape(where)} with the requestState of round 1, made \d+ seconds? ago, and was "
        rf"refused: {re.escape(STATE_REFUSED)}; the state has expired, or was sealed under another key than this "
        r"server's: .*cannot be scaled out; share the key across instances; "
        rf"{re.escape(str(path))} is left as it was \(still paused\)", refused.stderr.rstrip().splitlines()[-1])
    assert path.read_bytes() == before


def test_record_other_gets_the_whole_conversation_and_leaves_the_file_untouched(tmp_path: Path):
    with http_server([*DEMO, "--state-key", "k"]) as a, http_server([*DEMO, "--state-key", "k"]) as b:
        path = pause(tmp_path, a)
        before = path.read_bytes()
        other = tmp_path / "whole.yaml"
        done = mrtr("answer", str(path), "--url", b, "--answers", BOOK, "--record", str(other))
    assert done.code == 0, done.stderr
    assert path.read_bytes() == before
    whole = model.load(str(other))
    assert whole.outcome == "complete" and len(whole.rounds) == 4
    assert other.read_text().startswith(before.decode().split("\n- round: 1\n")[0])


def test_call_without_record_says_how_to_make_it_continuable():
    with http_server(DEMO) as a:
        run = mrtr("call", "book_table", "--url", a, "--no-input")
    assert run.code == 7
    assert run.stderr.rstrip().endswith("; add --record FILE to be able to continue it later with mrtr answer FILE")


def test_flags_that_would_change_the_retry_are_refused(tmp_path: Path):
    with http_server(DEMO) as a:
        path = pause(tmp_path, a)
    for flag in (["--protocol-version", "2026-07-28"], ["--no-elicitation"], ["--protocol-era", "modern"]):
        run = mrtr("answer", str(path), *flag)
        assert run.code == 1
        assert run.stderr == (f"✗ {flag[0]} would change how the paused conversation goes on: its retry is sent with "
                              "the recorded protocol version and client capabilities, to one target; leave out "
                              f"{flag[0]} (name another instance with --url or --stdio)\n")


def test_a_redacted_argument_must_come_from_a(tmp_path: Path):
    with http_server([*DEMO, "--state-key", "k"]) as a:
        path = pause(tmp_path, a, "paused.yaml", "-a", "city=Porto", "--redact", "city")
        assert model.load(str(path)).request["params"]["arguments"] == {"city": "[redacted]"}
        refused = mrtr("answer", str(path), "--answers", BOOK)
        assert refused.code == 1
        assert refused.stderr == (f"✗ {path} redacted the argument 'city', and a redacted value is never sent; "
                                  "pass -a city=VALUE\n")
        done = mrtr("answer", str(path), "-a", "city=Porto", "--answers", BOOK)
    assert done.code == 0, done.stderr
    assert "in Porto on 2026-12-24" in done.stdout
    document = model.load(str(path)).data
    assert [r["sent"]["params"]["arguments"] for r in document["rounds"]] == [{"city": "[redacted]"}] * 4


def test_an_older_era_conversation_cannot_be_continued(tmp_path: Path):
    path = tmp_path / "older.yaml"
    run = mrtr("call", "book_table", "--demo", "--protocol-era", "older", "--no-input", "--record", str(path))
    assert run.code == 7, run.stderr
    assert "mrtr answer" not in run.stderr
    refused = mrtr("answer", str(path))
    assert refused.code == 1
    assert refused.stderr.startswith(f"✗ {path}: an older-era conversation waits in its server's session")


def test_a_recorded_stdio_command_runs_only_when_trusted_and_a_new_process_keeps_state_only_with_the_key(
        tmp_path: Path):
    """A stdio server answering is a new process: with MRTR_DEMO_STATE_KEY kept it continues, without it the
    refusal is worded as for --restart-between-rounds."""
    command = f"{PYTHON} -m mrtr_cli demo-server"
    path = tmp_path / "stdio.yaml"
    keyed = {"MRTR_DEMO_STATE_KEY": "kept"}
    run = mrtr("call", "book_table", "--stdio", command, "--no-input", "--record", str(path), env=keyed)
    assert run.code == 7, run.stderr
    untrusted = mrtr("answer", str(path), "--answers", BOOK, env=keyed)
    assert untrusted.code == 1
    assert untrusted.stderr == (f"✗ {path} would run the recorded command `{command}`; pass --trust-target if you "
                                "trust it, or name the server (--stdio, --url, --demo)\n")
    before = path.read_bytes()
    fresh = mrtr("answer", str(path), "--answers", BOOK, "--trust-target")
    assert fresh.code == 2
    assert "with the requestState of round 1" in fresh.stderr and "cannot survive a restart" in fresh.stderr
    assert path.read_bytes() == before
    done = mrtr("answer", str(path), "--answers", BOOK, "--trust-target", env=keyed)
    assert done.code == 0, done.stderr
    assert BOOKED in done.stdout
    assert "server/discover" not in done.stderr  # over stdio too: no era probe


def test_list_shows_the_paused_transcripts_of_a_folder(tmp_path: Path):
    with http_server([*DEMO, "--state-key", "k"]) as a:
        first = pause(tmp_path, a, "one.yaml")
        second = pause(tmp_path, a, "two.yaml")
        assert mrtr("answer", str(second), "--answers", BOOK).code == 0  # finished: not listed
    (tmp_path / "notes.yaml").write_text("just: text\n")
    listed = mrtr("answer", "--list", str(tmp_path))
    assert listed.code == 0, listed.stderr
    assert re.fullmatch(rf"{re.escape(str(first))}  mrtr-demo  tools/call book_table  waiting: date  state \d+ "
                        r"seconds? old\n", listed.stdout)
    reported = mrtr("answer", "--list", str(tmp_path), "--json")
    schema = json.loads((ROOT / "docs/json/paused.schema.json").read_text())
    jsonschema.validate(reported.json(), schema)
    [row] = reported.json()["paused"]
    assert (row["file"], row["questions"], row["round"], row["target"]) == (str(first), ["date"], 1,
                                                                            {"transport": "http", "url": a})


def test_the_questions_are_asked_at_a_terminal(tmp_path: Path):
    with http_server([*DEMO, "--state-key", "k"]) as a, http_server([*DEMO, "--state-key", "k"]) as b:
        path = pause(tmp_path, a)
        pty = Pty(tmp_path, "answer", str(path), "--url", b, "--answer", "party.size=4",
                  "--answer", "party.seating=[\"window\",\"quiet\"]", "--answer", "confirm.confirm=true")
        pty.answer(prompt("Date *"), "2026-12-24", ENTER)
        pty.answer(prompt("Send this answer"), ENTER)
        code = pty.finish()
    assert code == 0, pty.screen
    assert BOOKED in pty.stdout()
    assert model.load(str(path)).rounds[0]["answers"]["date"]["source"] == "interactive"


HEADER = {"mrtr_transcript": 3, "recorded": {"at": "2026-12-01T10:00:00Z", "by": "mrtr 0.1.0"},
          "target": {"transport": "http", "url": "http://127.0.0.1:1/mcp"}, "era": "modern",
          "protocol_version": "2026-07-28", "client_capabilities": {"elicitation": {"form": {}}},
          "request": {"method": "tools/call", "params": {"name": "t", "arguments": {}}}}


def _round(number: int, text: str, paused_here: bool) -> dict:
    result = ({"resultType": "input_required", "inputRequests": {"q": {"method": "elicitation/create", "params": {
        "mode": "form", "message": text, "requestedSchema": {"type": "object", "properties": {}}}}},
        "requestState": text or "s"})
    answers = {} if paused_here else {"q": {"method": "elicitation/create", "source": "flag",
                                            "response": {"action": "accept", "content": {"v": text}}}}
    return {"round": number, "id": number, "sent": {"params": {"name": "t", "arguments": {"a": text}}},
            "received": {"result": result}, "elapsed_ms": 1.0, "sent_at": "2026-12-01T10:00:00Z",
            "answers": answers, "findings": []}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc"))) | st.sampled_from(
    ["", "a\n\n", "...", "- round: 1", "'quoted'", "x: y", "\t"]), min_size=1, max_size=4))
def test_a_paused_file_rewritten_keeps_its_earlier_rounds_byte_for_byte(tmp_path: Path, texts: list[str]):
    """The file as the recorder writes it (header, each round as a part, the ending), continued by the text
    `mrtr answer` writes: everything before the paused round is the same bytes, and the whole loads back."""
    rounds = [_round(n, text, n == len(texts)) for n, text in enumerate(texts, 1)]
    ending = {"outcome": "incomplete"}
    text = (yaml_dumper.dumps_part(HEADER) + "rounds:\n" + "".join(yaml_dumper.dumps_part([r]) for r in rounds)
            + yaml_dumper.dumps_part(ending))
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    loaded = paused.load_paused(str(path))
    answered = {**rounds[-1], "answers": {"q": {"method": "elicitation/create", "source": "flag",
                                                 "response": {"action": "accept", "content": {}}}}}
    new = [answered, _round(len(texts) + 1, "done", True)]
    ending = {"continued": paused.continuation(loaded.transcript, "2026-12-01T10:05:00Z", "mrtr 0.1.0",
                                               HEADER["target"]), "outcome": "incomplete"}
    written = paused.continued_text(loaded, new, ending)
    kept = text[:text.index(yaml_dumper.dumps_part([rounds[-1]]), len(yaml_dumper.dumps_part(HEADER)))]
    assert written.startswith(kept)
    path.write_text(written, encoding="utf-8")
    again = model.load(str(path))
    assert again.rounds[:-2] == rounds[:-1] and again.rounds[-2:] == new
    assert paused.load_paused(str(path)).number == len(texts) + 1


def test_a_paused_task_is_resumed_with_tasks_resume(tmp_path: Path):
    """A task waits on its server, not in the file: the answer is `mrtr tasks resume ID`."""
    path = tmp_path / "task.yaml"
    with http_server(DEMO) as a:
        run = mrtr("call", "deploy_service", "--url", a, "-a", "service=billing", "--no-input", "--record", str(path))
        assert run.code == 7, run.stderr
        assert "mrtr answer" not in run.stderr
        task_id = model.load(str(path)).data["task"]["id"]
        refused = mrtr("answer", str(path))
    assert refused.code == 1
    assert refused.stderr == (f"✗ {path}: the conversation is a task ({task_id}), which the server keeps, not the "
                              f"file; continue it with mrtr tasks resume {task_id}\n")


def test_the_sdk_mcpserver_continues_on_another_instance_only_with_a_shared_key(tmp_path: Path):
    """The PyPI `mcp` SDK's MCPServer: paused on one process, answered on the other; by default each seals its
    state under a key of its own, and the refusal is named."""
    from peers import SHARED_STATE_KEY, sdk_instances_over_http

    results = {}
    for key in (SHARED_STATE_KEY, None):
        path = tmp_path / f"greet-{bool(key)}.yaml"
        with sdk_instances_over_http(key) as (first, second):
            run = mrtr("call", "greet", "--url", first, "-a", "greeting=Hi", "--no-input", "--record", str(path))
            assert run.code == 7, run.stderr
            results[key] = mrtr("answer", str(path), "--url", second, "--answer", "__main__:ask_name.name=Ada")
    shared, own = results[SHARED_STATE_KEY], results[None]
    assert shared.code == 0, shared.stderr
    assert "Hi, Ada!" in shared.stdout
    assert own.code == 2
    assert "with the requestState of round 1" in own.stderr
    assert "refused: error -32602 'Invalid or expired requestState'; the state has expired, or was sealed under " \
           "another key than this server's" in own.stderr


def test_ctrl_c_at_a_prompt_leaves_a_paused_file_that_answer_continues(tmp_path: Path):
    from pty_session import CTRL_C

    path = tmp_path / "stopped.yaml"
    with http_server([*DEMO, "--state-key", "k"]) as a, http_server([*DEMO, "--state-key", "k"]) as b:
        pty = Pty(tmp_path, "call", "book_table", "--url", a, "--record", str(path))
        pty.answer(prompt("Date *"), CTRL_C)
        assert pty.finish() == 130
        assert model.load(str(path)).outcome == "aborted" and paused.load_paused(str(path)).number == 1
        done = mrtr("answer", str(path), "--url", b, "--answers", BOOK)
    assert done.code == 0, done.stderr
    assert model.load(str(path)).outcome == "complete"


def test_the_retry_declares_what_the_recording_declared(tmp_path: Path):
    """Recorded without sampling, roots and tasks: every retry of the continuation declares the same, in the
    recorded version (seen on the wire with -v)."""
    path, keyed = tmp_path / "narrow.yaml", {"MRTR_DEMO_STATE_KEY": "k"}
    run = mrtr("call", "book_table", "--demo", "--no-sampling", "--no-roots", "--no-tasks", "--no-input",
               "--record", str(path), env=keyed)
    assert run.code == 7, run.stderr
    recorded = model.load(str(path)).data["client_capabilities"]
    assert recorded == {"elicitation": {"form": {}, "url": {}}}
    done = mrtr("answer", str(path), "--answers", BOOK, "-v", env=keyed)
    assert done.code == 0, done.stderr
    sent = [json.loads(line.split("» ", 1)[1]) for line in done.stderr.splitlines() if line.strip().startswith("» {")]
    metas = [frame["params"]["_meta"] for frame in sent if frame.get("method") == "tools/call"]
    assert len(metas) == 3
    assert all(meta["io.modelcontextprotocol/clientCapabilities"] == recorded for meta in metas)
    assert all(meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28" for meta in metas)


def test_a_person_at_a_terminal_consents_to_the_recorded_command(tmp_path: Path):
    command = f"{PYTHON} -m mrtr_cli demo-server"
    path, keyed = tmp_path / "stdio.yaml", {"MRTR_DEMO_STATE_KEY": "kept"}
    assert mrtr("call", "book_table", "--stdio", command, "--no-input", "--record", str(path), env=keyed).code == 7
    pty = Pty(tmp_path, "answer", str(path), "--answers", BOOK, env=keyed)
    pty.answer(r"Run it\? (?:\x1b\[[0-9;?]*[a-zA-Z])*\(y/N\)", "y")
    assert "runs `" in pty.screen and "Run it?" in pty.screen
    assert pty.finish() == 0, pty.screen
    assert BOOKED in pty.stdout()


def test_a_states_age_in_words():
    import datetime

    now = datetime.datetime(2026, 12, 2, 12, 0, 0, tzinfo=datetime.timezone.utc)
    said = {since: paused.age(since, now) for since in ("2026-12-02T12:00:00Z", "2026-12-02T11:59:59Z",
                                                        "2026-12-02T11:58:01Z", "2026-12-02T11:00:00Z",
                                                        "2026-11-30T12:00:00Z", "2026-12-02T12:00:09Z")}
    assert list(said.values()) == ["0 seconds", "1 second", "119 seconds", "60 minutes", "2 days", "0 seconds"]


def test_a_file_whose_rounds_have_no_sent_at_counts_the_wait_from_the_recording_or_the_last_continuation(
        tmp_path: Path):
    """A transcript from before rounds kept their time: the state dates from when it was recorded, or from the
    last continuation; `--list` says its age so, and `show`'s continuations count each wait from the one before."""
    import datetime

    from conftest import mrtr_here

    def timeless(number: int, paused_here: bool) -> dict:
        entry = _round(number, f"r{number}", paused_here)
        del entry["sent_at"]
        return entry

    once = {**HEADER, "rounds": [timeless(1, True)], "outcome": "incomplete"}
    continued = [{"at": "2026-12-01T10:30:00Z", "by": "mrtr 0.1.0", "from_round": 1, "target": HEADER["target"]},
                 {"at": "2026-12-01T12:30:00Z", "by": "mrtr 0.1.0", "from_round": 2, "target": HEADER["target"]}]
    twice = {**HEADER, "rounds": [timeless(1, False), timeless(2, False), timeless(3, True)],
             "continued": continued, "outcome": "incomplete"}
    for name, document in (("once.yaml", once), ("twice.yaml", twice)):
        (tmp_path / name).write_text(yaml_dumper.dumps(document), encoding="utf-8")
    assert paused.load_paused(str(tmp_path / "once.yaml")).state_since == "2026-12-01T10:00:00Z"
    assert paused.load_paused(str(tmp_path / "twice.yaml")).state_since == "2026-12-01T12:30:00Z"
    waits = [(c.from_round, c.waited_seconds) for c in model.continuations(model.load(str(tmp_path / "twice.yaml")))]
    assert waits == [(1, 30 * 60), (2, 2 * 3600)]  # from the recording, then from the first continuation
    listed = mrtr_here("answer", "--list", str(tmp_path), "--json")
    assert listed.code == 0, listed.stderr
    now = datetime.datetime.now(datetime.timezone.utc)
    rows = {Path(row["file"]).name: row for row in json.loads(listed.stdout)["paused"]}
    for name, since in (("once.yaml", "2026-12-01T10:00:00Z"), ("twice.yaml", "2026-12-01T12:30:00Z")):
        assert rows[name]["state_since"] == since
        assert abs(rows[name]["state_age_seconds"] - paused.age_seconds(since, now)) <= 60
