"""Lines a user read, made true and plain (issue 35, item 13): each through the real CLI."""

from __future__ import annotations

from conftest import Run, mrtr
from peers import demo_http

NUMBER_TOOL = {"name": "tip", "description": "Computes a tip.", "inputSchema": {
    "type": "object", "properties": {"b": {"type": "number"}, "n": {"type": "integer"}}}}


def test_a_value_of_the_wrong_type_names_the_argument_the_type_and_the_value(scripted):
    """`-a b=x` once printed Python's `could not convert string to float: 'x'`."""
    server = scripted(tools=[NUMBER_TOOL], steps=[{"echo": True}])
    for given, wanted in [("b=x", "a number"), ("n=2.5", "an integer")]:
        run = mrtr("call", "tip", "-a", given, "--no-input", *server.args())
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
    run = mrtr("list", "tools", *scripted(tools=tools).args())
    assert run.code == 0, run.stderr
    assert "n" * 101 in run.stdout and "more character" not in run.stdout.split("long")[0]
    assert "l" * 100 + "… [200 more characters]" in run.stdout


def test_check_titles_name_an_http_status_only_over_http():
    """`(HTTP 400)` is what the rule says of an HTTP answer: over stdio no answer carries one."""
    def titles(run: Run) -> dict[str, str]:
        assert run.code == 0, run.stderr
        return {check["id"]: check["title"] for check in run.json()["checks"]}

    over_stdio = titles(mrtr("check", "--demo", "--json"))
    assert over_stdio["meta-required"] == "a request without _meta is rejected with -32602"
    assert not [title for title in over_stdio.values() if "HTTP 4" in title]
    with demo_http() as url:
        over_http = titles(mrtr("check", "--url", url, "--json"))
    assert over_http["meta-required"] == "a request without _meta is rejected with -32602 (HTTP 400)"
    assert "(HTTP 400)" not in mrtr("check", "--demo").stdout
