"""`mrtr shell` through real processes: the demo scripted on stdin (calls, lists, set, record, answer, exit
codes), a pseudo-terminal (completion, a question's prompt, Park at its review, Ctrl-C cancelling a call,
Ctrl-D), the demo over HTTP (its listen stream saying a list changed), and server-everything, an older-era
server whose one session serves every call."""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import subprocess
from pathlib import Path

from conftest import PYTHON, ROOT, Run, mrtr, text_result
from conformance import reference_server
from mrtr_cli.transcript import model, paused
from pty_session import ENTER, Pty

CTRL_C, CTRL_D, TAB = "\x03", "\x04", "\t"


def shell(*args: str, lines: str, timeout: float = 60) -> Run:
    """`mrtr shell ARGS` with `lines` on stdin (not a terminal: scripted)."""
    done = subprocess.run([PYTHON, "-m", "mrtr_cli", "shell", *args], input=lines, capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, "NO_COLOR": "1"})
    return Run(done.returncode, done.stdout, done.stderr)


def test_a_scripted_session_lists_sets_and_calls_on_one_server():
    run = shell("--demo", lines="list tools\n"
                                "set --answers examples/book_table.yaml --max-rounds 5\n"
                                "set\n"
                                "call book_table city=Porto\n"
                                "unset --max-rounds\n"
                                "set\n"
                                "exit\n"
                                "list tools\n")  # after exit: never run
    assert run.code == 0, run.stderr
    assert re.search(r"^book_table +Books a restaurant table", run.stdout, re.M)  # the listing
    assert "Porto" in run.stdout  # the result
    assert "--answers examples/book_table.yaml\n--max-rounds 5\n" in run.stdout
    assert run.stdout.rstrip().endswith("--answers examples/book_table.yaml")  # the second set: max-rounds unset
    assert run.stderr.count("→ server/discover") == 1  # one server, its era chosen once
    assert "✓ complete · 4 rounds" in run.stderr  # every round on the one server


def test_the_first_failing_command_ends_a_scripted_session_with_its_code():
    run = shell("--demo", lines="set --no-input\ncall book_table city=Porto\nlist tools\n")
    assert run.code == 7
    assert "nothing answered question 'date'" in run.stderr
    assert "workspace_roots" not in run.stdout  # the list after the failure was not run


def test_each_conversation_carries_its_own_findings_not_the_shell_s_earlier_ones(scripted):
    """The shell's one connection is linted from its start; a conversation's outcome holds the findings made
    while it ran. So under --strict a clean call is exit 0 after an earlier call's MUST-level finding."""
    server = scripted(tools=[{"name": "t", "inputSchema": {"type": "object"}}],
                      steps=[{"before": ["garbage"], "result": text_result("first")}, {"result": text_result("second")}])
    run = shell("--", *server.command, lines="call t\nset --strict\ncall t\n")
    assert run.code == 0, run.stderr
    assert run.stdout.split() == ["first", "second"] and run.stderr.count("[not-jsonrpc]") == 1
    strict = shell("--strict", "--", *server.command, lines="call t\n")  # the script's steps again: fresh
    assert strict.code == 2 and "[not-jsonrpc]" in strict.stderr


def test_a_shell_mistake_is_one_line_and_exit_1():
    for line, said in (("set --url http://localhost:1/mcp", "--url is a target option"),
                       ("set --max-rounds many", "--max-rounds many:"),
                       ("set --nope", "no option '--nope' to set"),
                       ("unset --url", "--url is a target option"),
                       ("frobnicate", "no shell command 'frobnicate'"),
                       ("call", "call needs a name"),
                       ("call book_table city", "'city' is not KEY=VALUE")):
        run = shell("--demo", lines=line + "\n")
        assert run.code == 1, line
        failures = [row for row in run.stderr.splitlines() if row.startswith("✗")]
        assert len(failures) == 1 and said in failures[0], (line, run.stderr)
        assert "Traceback" not in run.stderr


def test_record_dir_keeps_one_transcript_per_conversation(tmp_path: Path):
    kept, later = tmp_path / "kept", tmp_path / "later"
    run = shell("--demo", "--record-dir", str(kept),
                lines="set --answers examples/book_table.yaml\n"
                      "call book_table city=Porto\n"
                      "call book_table city=Lisbon\n"
                      "show\n"
                      "record off\n"
                      "call book_table city=Faro\n"
                      f"record {later}\n"
                      "read demo://readme\n")
    assert run.code == 0, run.stderr
    names = sorted(path.name for path in kept.iterdir())
    assert len(names) == 2 and all(re.fullmatch(r"\d{8}T\d{6}\.\d{6}Z-tools-call-book_table(-2)?\.yaml", name)
                                   for name in names), names
    assert [path.name.split("-", 1)[1] for path in later.iterdir()] == ["resources-read-demo_readme.yaml"]
    assert "Lisbon" in mrtr("show", str(kept / names[1])).stdout
    assert "Faro" not in "".join(path.read_text() for path in kept.iterdir())
    assert run.stdout.count("Lisbon") >= 2  # the call's result, and `show` of its transcript


def test_completion_a_question_and_ctrl_d_at_a_terminal(tmp_path: Path):
    config = tmp_path / "config"
    session = Pty(tmp_path, "shell", "--demo", env={"MRTR_CONFIG_DIR": str(config)})
    session.expect("mrtr>")
    session.child.send("help" + ENTER)  # a command first: between commands, too, a kept list is not drawn again
    session.expect("mrtr>")
    session.child.send("call bo" + TAB)
    session.expect("ok_table")  # what Tab added (the line may or may not be drawn again whole)
    session.child.send(" ci" + TAB)
    session.expect("ty=")
    session.child.send("Paris" + ENTER)
    session.expect("Which day would you like a table in Paris")  # call's own prompt for the question
    assert session.screen.count("← complete") == 2  # server/discover, tools/list at the first Tab: kept since
    session.expect(r"Date \*")
    session.child.send(CTRL_C)  # at the question: the call ends, the shell goes on
    session.expect("interrupted by the user")
    session.expect("mrtr>")
    session.child.send("list " + TAB)
    session.expect("templates")  # the menu of the four lists
    session.child.send(ENTER)  # `list ` alone: a mistake, said, and the prompt again
    session.expect("list what")
    session.expect("mrtr>")
    session.child.send(CTRL_D)
    assert session.finish() == 0
    history = config / "shell" / "history"
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
    assert "+call book_table city=Paris" in history.read_text()


def test_ctrl_c_cancels_the_call_in_progress_and_the_server_stays(tmp_path: Path, scripted):
    server = scripted(steps=[{"silent": True}, {"result": text_result("second call answered")}])
    command = " ".join(map(shlex.quote, server.command))
    session = Pty(tmp_path, "shell", "--stdio", command)
    session.expect("mrtr>")
    session.child.send("call slow" + ENTER)
    session.expect("→ tools/call slow")
    session.child.send(CTRL_C)
    session.expect("interrupted")
    session.expect("mrtr>")
    session.child.send("call quick" + ENTER)
    session.expect("✓ complete")
    session.expect("mrtr>")
    session.child.send(CTRL_D)
    assert session.finish() == 0
    assert "second call answered" in session.stdout()
    received = server.received()
    calls = [message for message in received if message.get("method") == "tools/call"]
    cancelled = [message for message in received if message.get("method") == "notifications/cancelled"]
    assert [call["params"]["name"] for call in calls] == ["slow", "quick"]
    assert [message["params"]["requestId"] for message in cancelled] == [calls[0]["id"]]
    assert sum(message.get("method") == "server/discover" for message in received) == 1  # one process


def test_an_older_era_session_stays_open_across_calls(tmp_path: Path):
    command = " ".join(map(shlex.quote, reference_server("everything", "stdio")))
    run = shell("--stdio", command, lines="call echo message=first  # the handshake was before it\n"
                                          "list tools\n"
                                          f"record {tmp_path / 'kept'}\n"
                                          "call echo message=second\n"
                                          "discover\n")
    assert run.code == 0, run.stderr
    [transcript] = (tmp_path / "kept").iterdir()  # its recorder learnt the era the session chose before it
    assert "era: older\nprotocol_version: '2025-11-25'" in transcript.read_text()
    assert "Echo: second" in mrtr("show", str(transcript)).stdout
    assert "Echo: first" in run.stdout and "Echo: second" in run.stdout
    assert "mcp-servers/everything" in run.stdout  # discover: what initialize returned
    assert run.stderr.count("→ initialize") == 1  # one handshake, one session, for every call
    assert "era: older" in run.stderr


def test_an_older_era_shell_continues_no_paused_file():
    command = " ".join(map(shlex.quote, reference_server("everything", "stdio")))
    run = shell("--stdio", command, lines="answer\nanswer paused.yaml\n")
    assert run.code == 1
    assert run.stderr.rstrip().splitlines()[-1] == (
        "✗ this shell speaks the older era, whose conversations wait in a session, not a file; continue "
        "paused.yaml with mrtr answer paused.yaml (2026-07-28)")


def test_a_list_is_kept_until_its_ttl_lapses_or_the_server_says_it_changed(scripted):
    tools = [{"name": "ping", "inputSchema": {"type": "object"}}]
    changed = '{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}'
    kept = scripted(tools=tools, cache={"ttlMs": 600000, "cacheScope": "public"},
                    steps=[{"result": text_result("pong")}, {"result": text_result("pong"), "before": [changed]}])
    lapsing = scripted(tools=tools, steps=[{"result": text_result("pong")}] * 2)  # ttlMs 0
    script = "list tools\nlist tools\ncall ping\nlist tools\ncall ping\nlist tools\n"

    def listed(server) -> int:
        run = shell("--stdio", " ".join(map(shlex.quote, server.command)), lines=script)
        assert run.code == 0, run.stderr
        assert run.stdout.count("ping") == 4
        return sum(message.get("method") == "tools/list" for message in server.received())

    assert listed(kept) == 2  # once, then again after the second call's list_changed
    assert listed(lapsing) == 4  # every time


def test_a_call_reads_the_tool_schema_from_the_kept_list(tmp_path: Path, scripted):
    """A call with arguments types them by the tool's inputSchema: the shell's kept tools/list, fetched once while
    its ttlMs holds and again after list_changed; each call's transcript still holds its tool."""
    tools = [{"name": "add", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}]
    changed = '{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}'
    answered = {"result": text_result("sum")}
    kept = scripted(tools=tools, cache={"ttlMs": 600000, "cacheScope": "public"},
                    steps=[answered, {**answered, "before": [changed]}, answered, answered])
    run = shell("--stdio", " ".join(map(shlex.quote, kept.command)),
                lines=f"record {tmp_path / 'kept'}\ncall add n=1\ncall add n=2\ncall add n=3\nlist tools\n"
                      "call add n=4\n")
    assert run.code == 0, run.stderr
    received = kept.received()
    calls = [message["params"]["arguments"] for message in received if message.get("method") == "tools/call"]
    assert calls == [{"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}]  # typed by the schema every time
    listed = [message.get("method") for message in received if message.get("method") in ("tools/list", "tools/call")]
    assert listed == ["tools/list", "tools/call", "tools/call", "tools/list", "tools/call", "tools/call"]
    transcripts = sorted((tmp_path / "kept").iterdir())
    assert [model.load(str(path)).data["tool"] for path in transcripts] == tools * 4


def test_a_session_over_http_keeps_its_settings_across_calls(tmp_path: Path):
    from peers import demo_http

    with demo_http() as url:
        run = shell("--url", url, lines="set --answers examples/book_table.yaml --json\n"
                                        "call book_table city=Porto\ncall book_table city=Faro\n")
    assert run.code == 0, run.stderr
    documents, text, decoder = [], run.stdout.strip(), json.JSONDecoder()
    while text:
        document, end = decoder.raw_decode(text)
        documents.append(document)
        text = text[end:].strip()
    assert [document["outcome"] for document in documents] == ["complete", "complete"]
    assert "Faro" in json.dumps(documents[1]["result"])
    assert run.stderr.count("→ server/discover") == 1


LISTS = {"tools": [{"name": "book", "inputSchema": {"type": "object", "properties": {
    "city": {"type": "string"}, "seating": {"type": "string", "enum": ["window", "terrace"]}}}},
                   {"name": "ping"}],
         "prompts": [{"name": "haiku", "arguments": [{"name": "topic"}]}],
         "resources": [{"uri": "notes://diary"}]}


def test_tab_offers_names_argument_names_and_enum_values_from_the_lists():
    from mrtr_cli.commands.shell_words import candidates

    def offered(before: str) -> list[str]:
        return list(candidates(before, lambda kind: LISTS.get(kind, [])))

    assert offered("ca") == ["call"]
    assert offered("call ") == ["book", "ping"]
    assert offered("call book ") == ["city=", "seating="]
    assert offered("call book city=Porto se") == ["seating="]
    assert offered("call book seating=") == ["seating=window", "seating=terrace"]
    assert offered("call book seating=t") == ["seating=terrace"]
    assert offered("prompt haiku t") == ["topic="]
    assert offered("read n") == ["notes://diary"]
    assert offered("list t") == ["tools", "templates"]
    assert "--max-rounds" in offered("set --max") and "--url" not in offered("set --")


def test_set_reads_options_as_call_does_and_unset_restores_the_default():
    from mrtr_cli.commands.shell_session import ShellOptions
    from mrtr_cli.commands.shell_words import set_lines, set_options, unset_option

    groups = set_options(["--answer", "date.date=2026-12-24", "--answer=party=decline", "--max-rounds", "3",
                          "--no-input", "--redact", "token"], ShellOptions()._asdict())
    assert groups["answering"].answers == ("date.date=2026-12-24", "party=decline")
    assert set_lines(groups) == ["--answer date.date=2026-12-24", "--answer party=decline", "--no-input",
                                 "--max-rounds 3", "--redact token"]
    assert unset_option("max-rounds", groups)["answering"].max_rounds == ShellOptions().answering.max_rounds


def test_ctrl_c_over_http_closes_the_call_and_the_shell_goes_on(tmp_path: Path):
    from servers.http_faults import FaultServer

    faults = FaultServer().start()  # its /slow path never answers a call
    try:
        session = Pty(tmp_path, "shell", "--url", f"{faults.url}/slow")
        session.expect("mrtr>")
        session.child.send("call wait" + ENTER)
        session.expect("→ tools/call wait")
        session.child.send(CTRL_C)
        session.expect("interrupted")
        session.expect("mrtr>")
        session.child.send("list tools" + ENTER)  # the next request, on the same shell
        session.expect("← complete")  # the list's response (the prompt's own redraw says mrtr> too)
        session.expect("mrtr>")
        session.child.send(CTRL_D)
        assert session.finish() == 0
    finally:
        faults.stop()
    # tools/list for the call's x-mcp-header arguments, the call cut short, then the shell's own list
    assert [r["body"]["method"] for r in faults.received] == ["tools/list", "tools/call", "tools/list"]
    assert "region" in session.stdout()


def test_park_at_a_question_then_answer_it_in_the_shell_or_later_with_mrtr_answer(tmp_path: Path):
    """At a question's review, "Park (answer later)" stops the conversation paused in a file of the config
    folder: `answer` lists it, `answer 1` continues it on this connection, and `mrtr answer FILE` continues
    another one after the shell is gone."""
    from peers import demo_http
    from pty_session import DOWN, prompt

    config = tmp_path / "config"
    with demo_http() as url:
        session = Pty(tmp_path, "shell", "--url", url, env={"MRTR_CONFIG_DIR": str(config)})
        for city in ("Paris", "Lisbon"):
            session.answer("mrtr>", f"call book_table city={city}" + ENTER)
            session.answer(prompt("Date *"), "2026-12-24", ENTER)
            session.answer(prompt("Send this answer"), DOWN, DOWN, DOWN, DOWN)
            session.answer("Park", ENTER)
            session.expect("was parked, to be answered later")
        session.answer("mrtr>", "answer" + ENTER)  # the list, on stdout
        session.answer("mrtr>", "set --answers examples/book_table.yaml" + ENTER)
        session.answer("mrtr>", "answer 1" + ENTER)
        session.expect("complete · 4 rounds")
        session.answer("mrtr>", CTRL_D)
        assert session.finish() == 0, session.screen
        parked = sorted((config / "shell" / "parked").iterdir())
        assert [path.name.split("-", 1)[1] for path in parked] == ["tools-call-book_table.yaml"] * 2
        assert all(stat.S_IMODE(path.stat().st_mode) == 0o600 for path in parked)
        first, second = (model.load(str(path)) for path in parked)
        assert first.outcome == "complete" and len(first.rounds) == 4
        listed = [line for line in session.stdout().splitlines() if line.endswith("-tools-call-book_table.yaml")]
        assert [re.sub(r"\d+ seconds?", "N", line) for line in listed] == [
            f"{number}  tools/call book_table  waiting: date  state N old  {path}" for number, path in enumerate(parked, 1)]
        assert "in Paris on 2026-12-24" in session.stdout()
        assert second.outcome == "incomplete" and paused.load_paused(str(parked[1])).number == 1
        said = "".join(session.screen.split())  # the line wraps where the terminal's width has it
        assert "".join(f"answer 2 continues it here; to answer it later: mrtr answer {parked[1]}".split()) in said
        later = mrtr("answer", str(parked[1]), "--answers", "examples/book_table.yaml")
    assert later.code == 0, later.stderr
    assert "in Lisbon on 2026-12-24" in later.stdout


def test_a_tasks_question_parked_waits_on_its_server_not_in_a_file(tmp_path: Path):
    from peers import demo_http
    from pty_session import DOWN, prompt

    config = tmp_path / "config"
    with demo_http() as url:
        session = Pty(tmp_path, "shell", "--url", url, env={"MRTR_CONFIG_DIR": str(config)})
        session.answer("mrtr>", "call deploy_service service=billing" + ENTER)
        session.answer(prompt("Deploy now *"), ENTER)
        session.answer(prompt("Send this answer"), DOWN, DOWN, DOWN, DOWN)
        session.answer("Park", ENTER)
        said = "was parked, to be answered later; a task's question waits on its server, not in a file"
        session.expect(r"\s+".join(map(re.escape, said.split())))  # wrapped where the terminal's width has it
        session.expect(r"come back to it with:\s+mrtr tasks resume \S+ --url")
        session.answer("mrtr>", CTRL_D)
        assert session.finish() == 0, session.screen
    assert not (config / "shell" / "parked").exists()


def test_answer_lists_and_continues_the_paused_conversations_of_a_scripted_shell(tmp_path: Path):
    """In process: a conversation recorded by `record DIR` that stops at a question is numbered (its hint says
    so); `answer FILE` in another shell continues it on that shell's connection; mistakes are exit 1."""
    from conftest import mrtr_here

    keyed, kept = {"MRTR_DEMO_STATE_KEY": "shared"}, tmp_path / "kept"
    stopped = mrtr_here("shell", "--demo", env=keyed, config_dir=tmp_path / "config",
                        stdin=f"answer\nrecord {kept}\nset --no-input\ncall book_table city=Faro\n")
    assert stopped.code == 7, stopped.stderr
    assert "no paused conversation in this shell" in stopped.stderr  # `answer` before any: said, exit 0
    [path] = kept.iterdir()
    assert f"answer 1 continues it here; to answer it later: mrtr answer {path}" in " ".join(stopped.stderr.split())
    done = mrtr_here("shell", "--demo", env=keyed, config_dir=tmp_path / "config",
                     stdin=f"set --answers examples/book_table.yaml\nanswer {path}\nshow\n")
    assert done.code == 0, done.stderr
    assert done.stderr.count("→ server/discover") == 1 and "as " + str(path) + " recorded it" in done.stderr
    assert model.load(str(path)).outcome == "complete"
    assert done.stdout.count("in Faro on 2026-12-24") >= 2  # the result, and `show` of the file continued
    for line, said in (("answer 1", "no paused conversation 1 in this shell (0 so far); Park one at a question's "
                                    "review first"),
                       ("answer 1 2", "answer takes one number or transcript"),
                       (f"answer {path}", "the conversation is not paused (outcome: complete)")):
        run = mrtr_here("shell", "--demo", stdin=line + "\n", config_dir=tmp_path / "config")
        assert run.code == 1 and said in run.stderr, (line, run.stderr)


def test_over_http_a_list_change_heard_on_the_listen_stream_makes_the_kept_list_stale(tmp_path: Path):
    """The demo with its fixtures declares listChanged: the shell opens one subscriptions/listen stream, and
    the change test_trigger_tool_change announces on it makes the next `list tools` fetch the list again (the
    ttlMs of 5 minutes would have kept it). The stream is read in a thread: `list tools` is asked until the
    shell has heard (bounded), then once more, which the list kept again answers."""
    import time

    from peers import demo_http

    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    with demo_http(fixtures=True) as url, out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen([PYTHON, "-m", "mrtr_cli", "shell", "--url", url], stdin=subprocess.PIPE,
                                   stdout=stdout, stderr=stderr, text=True, cwd=ROOT, env={**os.environ, "NO_COLOR": "1"})
        assert process.stdin is not None

        def say(line: str, done: str) -> int:
            """`line` run (`done` one more time in its output); how many tools/list the shell sent so far."""
            before = out.read_text().count(done)
            process.stdin.write(line + "\n")
            process.stdin.flush()
            for _ in range(400):
                if out.read_text().count(done) > before:
                    return err.read_text().count("→ tools/list")
                time.sleep(0.05)
            raise AssertionError(f"{line!r} did not finish: {err.read_text()}")

        listing = "test_trigger_prompt_change"
        try:
            assert [say("list tools", listing), say("list tools", listing)] == [1, 1]
            say("call test_trigger_tool_change", "Announced notifications/tools/list_changed")
            fetched = [say("list tools", listing) for _ in range(50) if err.read_text().count("→ tools/list") < 2]
            assert fetched and fetched[-1] == 2, err.read_text()
            assert say("list tools", listing) == 2  # kept again
            process.stdin.close()
            assert process.wait(timeout=30) == 0
        finally:
            process.kill()
    assert "✗" not in err.read_text()


def test_a_mistyped_shell_command_is_told_what_it_likely_meant():
    from mrtr_cli.commands.shell import _unknown_hint

    known = ["call", "read", "prompt", "list", "discover", "answer", "record", "show", "set", "unset", "help", "exit"]
    assert _unknown_hint("lst", known) == "did you mean list? help lists them"
    assert _unknown_hint("tools", known) == "list tools lists them"
    assert _unknown_hint("tols", known) == "list tools lists them"
    assert "without mrtr" in _unknown_hint("mrtr", known)
    assert _unknown_hint("frobnicate", known) == "help lists them"


def test_help_wraps_each_description_under_itself():
    from mrtr_cli.commands.shell import help_lines

    rows = [("list tools|prompts", "a list of the server, kept until its ttlMs lapses or the server says it changed"),
            ("exit", "leave")]
    wide = help_lines(rows, 60)
    assert all(len(line) <= 60 for line in wide) and len(wide) == 4
    assert wide[0].startswith("  list tools|prompts  a list") and wide[1].startswith(" " * 22 + "ttlMs")
    assert wide[-1] == "  exit                leave"
    narrow = help_lines(rows, 40)  # no room for two columns: the description goes under its usage
    assert narrow[0] == "  list tools|prompts" and narrow[1].startswith("      a list") and all(
        len(line) <= 40 for line in narrow)
