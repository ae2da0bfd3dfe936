"""Lines a user read, made true and plain (issue 35, item 13): each through the real CLI."""

from __future__ import annotations

from conftest import PYTHON, SDK_SERVER, Run, elicit, input_required, mrtr_here
from peers import demo_http

NUMBER_TOOL = {"name": "tip", "description": "Computes a tip.", "inputSchema": {
    "type": "object", "properties": {"b": {"type": "number"}, "n": {"type": "integer"}}}}


def test_a_value_of_the_wrong_type_names_the_argument_the_type_and_the_value(scripted):
    """`-a b=x` once printed Python's `could not convert string to float: 'x'`."""
    server = scripted(tools=[NUMBER_TOOL], steps=[{"echo": True}])
    for given, wanted in [("b=x", "a number"), ("n=2.5", "an integer")]:
        run = mrtr_here("call", "tip", "-a", given, "--no-input", *server.args())
        assert run.code == 1, run.stderr
        name, value = given.split("=")
        assert (f"✗ -a {given}: the tool's schema wants argument {name!r} as {wanted}, and {value!r} is not "
                f"{wanted}; fix the value, or send it as given with --args") in run.stderr, run.stderr
        assert "convert" not in run.stderr and "literal" not in run.stderr
    assert server.calls() == []


def test_descriptions_are_cut_only_when_the_rest_is_worth_cutting(scripted):
    """`… [1 more characters]` once stood for one character: a rest no longer than the note is shown whole."""
    tools = [{"name": "nearly", "description": "n" * 101, "inputSchema": {"type": "object"}},
             {"name": "long", "description": "l" * 300, "inputSchema": {"type": "object"}}]
    run = mrtr_here("list", "tools", *scripted(tools=tools).args(), env={"COLUMNS": "400"})
    assert run.code == 0, run.stderr
    assert "n" * 101 in run.stdout and "more character" not in run.stdout.split("long")[0]
    assert "l" * 100 + "… [200 more characters]" in run.stdout


def test_check_titles_name_an_http_status_only_over_http():
    """`(HTTP 400)` is what the rule says of an HTTP answer: over stdio no answer carries one."""
    def titles(run: Run) -> dict[str, str]:
        assert run.code == 0, run.stderr
        return {check["id"]: check["title"] for check in run.json()["checks"]}

    over_stdio = titles(mrtr_here("check", "--demo", "--json"))
    assert over_stdio["meta-required"] == "a request without _meta is rejected with -32602"
    assert not [title for title in over_stdio.values() if "HTTP 4" in title]
    older = titles(mrtr_here("check", "--demo", "--protocol-era", "older", "--json"))  # its 2026-07-28 rules, skipped
    assert older["meta-required"] == "a request without _meta is rejected with -32602"
    assert not [title for title in older.values() if "HTTP 4" in title]
    with demo_http() as url:
        over_http = titles(mrtr_here("check", "--url", url, "--json"))
    assert over_http["meta-required"] == "a request without _meta is rejected with -32602 (HTTP 400)"
    assert "(HTTP 400)" not in mrtr_here("check", "--demo").stdout


def test_names_get_a_did_you_mean_case_aside_uris_against_templates_and_keys_by_their_last_part():
    """`BOOK_TABLE`, `vaul://recipes` and `--answer name.name=…` for the SDK's `__main__:ask_name` once got none."""
    tool = mrtr_here("call", "BOOK_TABLE", "--demo", "--no-input")
    assert "! no tool 'BOOK_TABLE'; did you mean 'book_table'? (mrtr list tools)" in tool.stderr, tool.stderr
    uri = mrtr_here("read", "vaul://recipes", "--demo", "--no-input")
    assert "! no resource 'vaul://recipes'; did you mean 'vault://recipes'? (mrtr list resources)" in uri.stderr
    listed = mrtr_here("read", "demo://readm", "--demo", "--no-input")
    assert "did you mean 'demo://readme'?" in listed.stderr, listed.stderr
    key = mrtr_here("call", "greet", "-a", "greeting=hi", "--answer", "name.name=Ada", "--no-input", "--", *SDK_SERVER)
    assert key.code == 7, key.stderr
    assert ("--answer name.name=Ada names question 'name'; did you mean question '__main__:ask_name'? write "
            "--answer __main__:ask_name.name=Ada") in key.stderr, key.stderr


def test_an_option_missing_its_value_says_so_and_points_at_its_commands_help():
    """`mrtr call X -a` once said `Option '-a' requires an argument. (see mrtr --help)`."""
    run = mrtr_here("call", "X", "-a")
    assert (run.code, run.stderr) == (1, "mrtr: -a is missing its value: write -a KEY=VALUE (see mrtr call --help)\n")
    nested = mrtr_here("auth", "login", "--client-id")
    assert nested.stderr == "mrtr: --client-id is missing its value: write --client-id ID (see mrtr auth login --help)\n"


def test_minus_v_is_the_version_and_mrtr_help_prints_a_commands_help():
    assert mrtr_here("-V").stdout == mrtr_here("--version").stdout != ""
    for path in [[], ["call"], ["auth", "login"]]:
        helped, asked = mrtr_here("help", *path), mrtr_here(*path, "--help")
        assert (helped.code, helped.stdout) == (0, asked.stdout) and "Usage: mrtr" in helped.stdout
    unknown = mrtr_here("help", "cal")
    assert (unknown.code, unknown.stdout) == (1, "")
    assert unknown.stderr.startswith("mrtr: no command or help topic 'cal'; did you mean 'call'? (see mrtr --help; "
                                     "topics: ")  # test_manual.py: the topics it lists
    nested = mrtr_here("help", "auth", "lgin")
    assert nested.stderr == "mrtr: no command 'auth lgin'; did you mean 'auth login'? (see mrtr auth --help)\n"
    assert mrtr_here("help", "call", "x").code == 1


def test_a_server_that_dies_on_the_retry_ends_live_and_in_show_with_the_same_true_lines(scripted, tmp_path):
    """Live once said `1 round` and `show` `2 rounds`, and `show` promised stderr lines it did not have."""
    asked = input_required({"ok": elicit("OK?", {"ok": {"type": "boolean"}})}, "s1")
    server = scripted(steps=[{"result": asked}, {"exit": 3, "stderr": "Traceback: boom\nValueError: bad\n"}])
    record = tmp_path / "died.yaml"
    live = mrtr_here("call", "t", "--answer", "ok.ok=true", "--no-input", "--record", str(record), *server.args())
    assert live.code == 4, live.stderr
    shown = mrtr_here("show", str(record))
    assert shown.code == 0, shown.stderr
    ending = ["✗ aborted · 2 rounds, the last unanswered · ",
              "✗ the server process exited with code 3 while mrtr waited for tools/call (id 3); its last stderr "
              "lines follow", "    stderr │ Traceback: boom", "    stderr │ ValueError: bad"]
    for lines in (live.stderr.splitlines()[-4:], shown.stdout.splitlines()[-4:]):
        assert lines[0].startswith(ending[0]) and lines[1:] == ending[1:], lines
    assert len(mrtr_here("show", str(record), "--json").json()["rounds"]) == 1  # the answered one, as live --json says
