"""The messages a newcomer meets in the first minute (issue 24, items 9 to 11): a value where an
action belongs, a field the form does not have, a tool name the server does not list, required
arguments left out, a file named twice, a status line before a usage error, the mock server's
"answer differs" error; and the answering slips a first-time user made (a multi-select given
bare, an action or a question key mistyped, an empty key, a sampler echoing its input, a replay's
unanswered question, an answers file keyed for the other era, an unlisted prompt or resource)."""

from __future__ import annotations

import pytest

from conftest import ROOT, SDK_SERVER, mrtr_here, text_result
from peers import MemoryPeer, request

BOOK_TABLE = ROOT / "recordings" / "book_table.yaml"


def served_here() -> MemoryPeer:
    """`mrtr serve recordings/book_table.yaml`'s mock server, its stdio connection in this process."""
    from mrtr_cli.commands.in_memory import dispatcher_transport
    from mrtr_cli.server.dispatcher import Dispatcher
    from mrtr_cli.server.mock import MockApp
    from mrtr_cli.transcript import model

    return MemoryPeer(dispatcher_transport(Dispatcher(MockApp([model.load(str(BOOK_TABLE))])), "mrtr serve"))
DEMO_FIELD_FIX = ("✗ --answer date=2026-12-24: '2026-12-24' is not an action for question 'date' (accept, decline "
                  "or cancel); to set its field 'date', write --answer date.date=2026-12-24")


def test_a_value_where_an_action_belongs_and_an_unknown_field_are_usage_errors_with_the_fix():
    value = mrtr_here("call", "book_table", "--demo", "--answer", "date=2026-12-24")
    assert value.code == 1, value.stderr
    assert value.stderr.splitlines()[-1] == DEMO_FIELD_FIX
    assert "matched no question" not in value.stderr  # it matched one: the fix says how
    field = mrtr_here("call", "book_table", "--demo", "--answer", "date.dat=2026-12-24")
    assert field.code == 1, field.stderr
    assert field.stderr.splitlines()[-1] == ("✗ --answer date.dat=2026-12-24: the form of question 'date' has no "
                                             "field 'dat'; its fields: date")


def test_an_unlisted_tool_is_named_after_the_servers_error_and_tools_list_is_read_only_then(scripted):
    tools = [{"name": name, "inputSchema": {"type": "object"}} for name in ("book_table", "list_tables")]
    refused = scripted(tools=tools, steps=[{"error": {"code": -32602, "message": "Unknown tool: book_tabel"}}])
    run = mrtr_here(*refused.args("call", "book_tabel"))
    assert run.code == 2, run.stderr  # the server's error decides
    *_, error, advice = run.stderr.splitlines()
    assert error.startswith("✗ tools/call failed: error -32602: Unknown tool: book_tabel")
    assert advice == "! no tool 'book_tabel'; did you mean 'book_table'? (mrtr list tools)"
    assert [m["method"] for m in refused.received() if "id" in m] == ["server/discover", "tools/call", "tools/list"]
    answered = scripted(tools=tools, steps=[{"result": text_result("booked")}])
    done = mrtr_here(*answered.args("call", "book_table"))
    assert (done.code, done.stdout) == (0, "booked\n")
    assert "tools/list" not in [m["method"] for m in answered.received()]


def test_with_a_real_sdk_server_an_unlisted_tool_and_missing_required_arguments_are_named():
    unlisted = mrtr_here("call", "gret", "--", *SDK_SERVER)
    assert unlisted.code == 5, unlisted.stderr  # the SDK answers an unknown tool with isError
    assert unlisted.stderr.splitlines()[-1] == "! no tool 'gret'; did you mean 'greet'? (mrtr list tools)"
    missing = mrtr_here("call", "booking", "-a", "x=1", "--no-input", "--", *SDK_SERVER)
    lines = missing.stderr.splitlines()
    warning = "! tool 'booking' requires the argument city (its inputSchema), not given: sending the call as given"
    [sent] = [n for n, line in enumerate(lines) if line.startswith('→ tools/call booking {"x":1}  id ')]
    assert lines.index(warning) < sent  # before it is sent, as given (its id: 3, or more when the era probe was late)
    assert missing.code == 5 and "city" in missing.stdout  # the server's own validation answers
    assert "no tool" not in missing.stderr  # the tool is listed


@pytest.mark.parametrize("flag, error", [
    (["-a", "bad"], "✗ -a 'bad' is not KEY=VALUE; write -a name=value"),
    (["--protocol-era", "bogus"], "✗ --protocol-era 'bogus' is not one of auto, modern, older; pick one of them"),
    (["--args", "{bad"], "✗ --args:1:2: the --args value is not valid JSON: Expecting property name enclosed in "
                         "double quotes; fix the JSON"),
    (["--answer", "=Ada"], "✗ --answer '=Ada' has no question key; use KEY.FIELD=VALUE or KEY=accept|decline|cancel"),
])
def test_a_usage_error_before_anything_is_sent_is_the_only_line(flag, error):
    run = mrtr_here("call", "book_table", "--demo", *flag)
    assert (run.code, run.stderr) == (1, error + "\n")


@pytest.mark.parametrize("args, what", [(["show"], "transcript"), (["replay"], "transcript"),
                                        (["call", "x", "--demo", "--answers"], "answers file")])
def test_a_file_that_cannot_be_read_is_named_once(args, what):
    run = mrtr_here(*args, "nosuch.yaml")
    assert run.code == 1
    assert run.stderr == f"✗ nosuch.yaml: cannot read the {what}: No such file or directory; check the path\n"


def test_the_mock_servers_answer_differs_error_shows_the_first_differing_field():
    peer = served_here()
    try:
        first = peer.exchange(request(1, "tools/call", {"name": "book_table", "arguments": {}}))[-1]["result"]
        wrong = {"date": {"action": "accept", "content": {"date": "2031-01-01"}}}
        error = peer.exchange(request(2, "tools/call", {"name": "book_table", "arguments": {},
                                                        "requestState": first["requestState"],
                                                        "inputResponses": wrong}))[-1]["error"]
        assert error["message"].endswith(': content.date is "2031-01-01", recorded "2026-12-24"'), error
    finally:
        peer.close()


def test_a_multi_select_takes_bare_choices_and_a_flag_whose_key_is_close_to_a_question_is_named():
    run = mrtr_here("call", "book_table", "--demo", "--no-input", "--answer", "date.date=2026-12-24",
               "--answer", "party.seating=window,quiet", "--answer", "prty.size=3", "--answer", "confirm=accept")
    assert run.code == 0, run.stderr
    assert run.stdout.startswith("Booked a table for 2 (window, quiet) in Lisbon on 2026-12-24.")
    assert ("! --answer prty.size=3 matched no question the server asked; did you mean question 'party'?"
            in run.stderr.splitlines())


@pytest.mark.parametrize("flags, code, last", [
    (["--answer", "dat.date=2026-12-24"], 7,
     "✗ nothing answered question 'date' of round 1, elicitation/create (form): \"Which day would you like a table "
     "in Lisbon?\"; --answer dat.date=2026-12-24 names question 'dat'; did you mean question 'date'? write "
     "--answer date.date=2026-12-24; add --record FILE to be able to continue it later with mrtr answer FILE"),
    (["--answer", "date=accpet"], 1,
     "✗ --answer date=accpet: 'accpet' is not an action for question 'date' (accept, decline or cancel); did you "
     "mean 'accept'? write --answer date=accept"),
    (["--answer", "date.date=2026-12-24", "--answer", "party.seating=windw"], 1,
     "✗ --answer 'party.seating=windw': field 'seating' takes a JSON array of its choices (window, terrace, quiet, "
     "accessible); write --answer 'party.seating=[\"window\",\"terrace\"]' or --answer party.seating=window,terrace"),
    (["--protocol-era", "older", "--answers", "examples/book_table.yaml"], 7,
     "✗ nothing answered question 'elicitation#1' of round 1, elicitation/create (form): \"Which day would you like "
     "a table in Lisbon?\"; the answers file's keys (date, party, confirm) are MRTR keys, which the older era's "
     "questions do not have (this one is 'elicitation#1'): answer them by message with match: rules (see "
     "examples/match_rules.yaml)"),
])
def test_an_answering_slip_is_named_with_what_was_meant(flags, code, last):
    run = mrtr_here("call", "book_table", "--demo", "--no-input", *flags)
    assert run.code == code, run.stderr
    assert run.stderr.splitlines()[-1] == last
    assert "matched no question" not in run.stderr  # the error names the flag: no warning as well


def test_a_sampler_that_prints_json_other_than_a_result_is_named_as_the_samplers():
    run = mrtr_here("call", "summarize", "--demo", "--sampler", "cat")  # cat echoes the request: method, params
    assert run.code == 1, run.stderr
    assert run.stderr.splitlines()[-1] == (
        "✗ the sampler's output is JSON but not a CreateMessageResult (it has 'method', 'params'; no content); "
        'print plain text, or JSON with content: {"type": "text", "text": ...}; check --sampler')


def test_replay_says_its_own_way_to_ask_a_person(tmp_path):
    recorded = (ROOT / "recordings" / "book_table.yaml").read_text()
    unanswered = tmp_path / "int.yaml"  # the recording answers 'confrm', not the 'confirm' the server asks
    unanswered.write_text(recorded.replace("  answers:\n    confirm:\n", "  answers:\n    confrm:\n"))
    run = mrtr_here("replay", str(unanswered), "--demo")
    assert run.code == 7, run.stderr
    assert run.stderr.splitlines()[-1].endswith(
        "; pass --answer confirm.FIELD=VALUE or --answers FILE, or replay at a terminal with --interactive")


@pytest.mark.parametrize("command, error, advice", [
    (["prompt", "release_note"], "✗ prompts/get failed: error -32602: Unknown prompt: release_note",
     "! no prompt 'release_note'; did you mean 'release_notes'? (mrtr list prompts)"),
    (["read", "demo://readm"], "✗ resources/read failed: error -32602: Resource not found: demo://readm",
     "! no resource 'demo://readm'; did you mean 'demo://readme'? (mrtr list resources)"),
])
def test_an_unlisted_prompt_or_resource_is_named_after_the_servers_error(command, error, advice):
    run = mrtr_here(*command, "--demo")
    assert run.code == 2, run.stderr
    *_, said, hint = run.stderr.splitlines()
    assert said.startswith(error) and hint == advice


def test_a_prompt_the_server_did_not_refuse_reads_no_list():
    run = mrtr_here("prompt", "release_notes", "-a", "version=1", "--demo", "--no-input")
    assert run.code == 7, run.stderr  # its question is unanswered: not a refusal
    assert "prompts/list" not in run.stderr and "no prompt" not in run.stderr


STDIO_HINT = ('mrtr: --stdio takes the whole command as one argument: quote it (--stdio "python server.py") or put '
              "it after -- ({}) (see {} --help)\n")


def test_a_server_command_spilled_out_of_stdio_is_told_to_be_quoted_or_put_after_the_dashes():
    for words in (["call", "greet"], ["read", "note://x"], ["prompt", "greet"], ["list", "tools"], ["discover"],
                  ["check"]):
        run = mrtr_here(*words, "--stdio", "python", "server.py")
        command = f"mrtr {words[0]}"
        assert (run.code, run.stdout) == (1, ""), run.stderr
        assert run.stderr == STDIO_HINT.format(" ".join(["mrtr", *words, "--", "python", "server.py"]), command)
    options = mrtr_here("call", "greet", "-v", "--stdio=python", "server.py", "x y", "--json")
    assert options.code == 1
    assert options.stderr.splitlines()[0] == (
        "mrtr: --stdio takes the whole command as one argument: quote it (--stdio \"python server.py 'x y'\") or put "
        "it after -- (mrtr call greet -v --json -- python server.py 'x y') (see mrtr call --help)")
    for other in (["call", "greet", "extra", "--stdio", "python"], ["call", "greet", "x", "--demo"],
                  ["call", "--stdio", "python", "server.py", "greet"]):  # the extra word is not --stdio's next
        kept = mrtr_here(*other)
        assert kept.code == 1 and "--stdio takes" not in kept.stderr, kept.stderr
        assert kept.stderr.startswith("mrtr: Got unexpected extra argument(s) ("), kept.stderr


def test_a_server_command_given_without_the_dashes_is_told_to_go_after_them():
    for words in (["call", "greet"], ["read", "note://x"], ["list", "tools"], ["discover"], ["check"]):
        run = mrtr_here(*words, "-v", "python", "my server.py")
        command = f"mrtr {words[0]}"
        assert (run.code, run.stdout) == (1, ""), run.stderr
        assert run.stderr == (f"mrtr: Got unexpected extra argument(s) (python my server.py); if they are the server's "
                              f"command, put it after -- ({' '.join([command, *words[1:]])} -v -- python 'my server.py')"
                              f" (see {command} --help)\n")
    for named in (["--demo"], ["--url", "http://127.0.0.1:9/mcp"], ["--url=http://127.0.0.1:9/mcp"], ["--config", "c.json"]):
        run = mrtr_here("call", "greet", *named, "python", "server.py")
        assert run.code == 1 and "put it after --" not in run.stderr, run.stderr  # a server is named already
    for other in (["show", "a.yaml", "b.yaml"], ["call", "greet", "python", "-v"]):  # no server; not the last words
        run = mrtr_here(*other)
        assert run.code == 1 and "put it after --" not in run.stderr, run.stderr
