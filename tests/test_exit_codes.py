"""Every exit code of docs/exit-codes.md that stdio can reach, provoked through the command line."""

from __future__ import annotations

import time

import pytest

from conftest import elicit, input_required, mrtr_here, text_result

NAME_FORM = elicit("Your name?", {"name": {"type": "string"}})
AGE_FORM = elicit("Your age?", {"age": {"type": "integer", "minimum": 0, "maximum": 150}})


def test_0_complete(scripted):
    server = scripted(steps=[{"result": text_result("done")}])
    run = mrtr_here(*server.args("call", "t"))
    assert (run.code, run.stdout) == (0, "done\n")


def test_1_unknown_flag():
    run = mrtr_here("call", "t", "--no-such-flag", "--json")
    assert run.code == 1
    assert "No such option" in run.stderr
    assert run.error_line()["error"]["code"] == "usage"


def test_1_invalid_scripted_answer_names_key_field_and_constraint(scripted):
    server = scripted(steps=[{"result": input_required({"age": AGE_FORM})}])
    run = mrtr_here(*server.args("call", "t", "--answer", "age.age=200", "--json"))
    assert run.code == 1
    message = run.error_line()["error"]["message"]
    assert "field 'age' is 200: give a whole number from 0 to 150" in message
    assert run.json()["outcome"] == "incomplete"
    assert len(server.calls()) == 1  # the invalid answer never reached the server


def test_1_no_server_given():
    run = mrtr_here("call", "t")
    assert run.code == 1
    assert "no server given" in run.stderr and "--stdio" in run.stderr


def test_2_json_rpc_error(scripted):
    server = scripted(steps=[{"error": {"code": -32602, "message": "Unknown tool: t"}}])
    run = mrtr_here(*server.args("call", "t", "--json"))
    assert run.code == 2
    assert run.json()["error"] == {"type": "jsonrpc", "code": -32602, "message": "Unknown tool: t"}
    assert run.error_line()["error"]["code"] == "protocol"


def test_2_unknown_result_type(scripted):
    server = scripted(steps=[{"result": {"resultType": "later"}}])
    run = mrtr_here(*server.args("call", "t"))
    assert run.code == 2
    assert "unknown resultType 'later'" in run.stderr


def test_2_initialize_era_server_gets_a_clear_message(scripted):
    server = scripted(discover={"error": {"code": -32601, "message": "Method not found"}})
    run = mrtr_here(*server.args("call", "t", "--protocol-era", "modern"))  # auto would speak its handshake
    assert run.code == 2
    assert "initialize-handshake era" in run.stderr and "--no-discover" in run.stderr
    assert server.calls() == []


def test_silence_at_discover_is_the_handshake_era_unless_the_probe_is_skipped(scripted):
    server = scripted(discover="silent", steps=[{"silent": True}])
    run = mrtr_here(*server.args("call", "t", "--timeout", "0.5", "--protocol-era", "modern"))
    assert run.code == 2 and "within 0.5 s" in run.stderr
    assert "initialize-handshake era" in run.stderr and "or it hung" in run.stderr and "--no-discover" in run.stderr
    skipped = mrtr_here(*server.args("call", "t", "--timeout", "0.5", "--no-discover"))
    assert skipped.code == 4 and "no response to tools/call" in skipped.stderr


def test_2_unsupported_version_lists_what_the_server_speaks(scripted):
    error = {"code": -32022, "message": "Unsupported protocol version",
             "data": {"supported": ["2099-01-01"], "requested": "2026-07-28"}}
    server = scripted(discover={"error": error})
    run = mrtr_here(*server.args("call", "t"))
    assert run.code == 2
    assert "2099-01-01" in run.stderr and "mrtr speaks 2026-07-28" in run.stderr


def test_4_command_not_found():
    run = mrtr_here("call", "t", "--stdio", "no-such-server-binary --flag", "--json")
    assert run.code == 4
    assert "'no-such-server-binary' not found" in run.stderr
    assert run.error_line()["error"]["code"] == "unreachable"


def test_4_server_dies_mid_round_with_its_stderr_shown(scripted):
    server = scripted(steps=[{"exit": 3, "stderr": "Traceback: boom\nKeyError: 'x'\n"}])
    run = mrtr_here(*server.args("call", "t", "--json"))
    assert run.code == 4
    assert "exited with code 3 while mrtr waited for tools/call" in run.stderr
    assert "KeyError: 'x'" in run.stderr
    assert run.json()["outcome"] == "aborted"


def test_4_timeout_cancels_the_request(scripted):
    server = scripted(steps=[{"silent": True}])
    run = mrtr_here(*server.args("call", "t", "--timeout", "0.5"))
    assert run.code == 4
    assert "no response to tools/call (id 2) within 0.5 s" in run.stderr
    cancelled = [m for m in server.received() if m.get("method") == "notifications/cancelled"]
    assert cancelled and cancelled[0]["params"]["requestId"] == 2


def test_5_is_error(scripted):
    server = scripted(steps=[{"result": text_result("nope", isError=True)}])
    run = mrtr_here(*server.args("call", "t"))
    assert run.code == 5
    assert "the tool reported an error" in run.stderr


def test_7_nothing_answers_with_no_input(scripted):
    server = scripted(steps=[{"result": input_required({"who": NAME_FORM})}])
    run = mrtr_here(*server.args("call", "t", "--no-input", "--json"))
    assert run.code == 7
    message = run.error_line()["error"]["message"]
    assert "nothing answered question 'who' of round 1" in message and "--answer who.FIELD=VALUE" in message
    assert run.json()["outcome"] == "incomplete"


def test_7_round_limit(scripted):
    steps = [{"result": input_required({"who": NAME_FORM})}] * 3
    server = scripted(steps=steps)
    run = mrtr_here(*server.args("call", "t", "--max-rounds", "2", "--answer", "who.name=Ada"))
    assert run.code == 7
    assert "still wants input after 2 answered rounds (--max-rounds)" in run.stderr
    assert len(server.calls()) == 3


def test_7_question_for_an_undeclared_capability(scripted):
    roots = {"method": "roots/list"}
    server = scripted(steps=[{"result": input_required({"where": roots})}])
    run = mrtr_here(*server.args("call", "t", "--no-roots", "--root", "/tmp"))
    assert run.code == 7
    assert "needs the client capability roots, withheld by --no-roots" in run.stderr


def test_7_sampling_with_tools_is_never_declared(scripted):
    sampling = {"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5,
        "tools": [{"name": "x", "inputSchema": {"type": "object"}}]}}
    server = scripted(steps=[{"result": input_required({"llm": sampling})}])
    run = mrtr_here(*server.args("call", "t", "--sampling-reply", "hello"))
    assert run.code == 7
    assert "sampling.tools, never declared by mrtr" in run.stderr


@pytest.mark.parametrize("args,needle", [
    (["--answer", "no-equals-sign"], "has no '='"),
    (["--max-rounds", "-1"], "--max-rounds"),
    (["--sampling-reply", "a", "--sampler", "b"], "both answer sampling"),
    (["-H", "Mcp-Method: x"], "mrtr sets MCP-Protocol-Version and Mcp-* headers itself"),
])
def test_1_bad_flags(scripted, args, needle):
    server = scripted(steps=[{"result": text_result("never")}])
    run = mrtr_here(*server.args("call", "t", *args))
    assert run.code == 1, run.stderr
    assert needle in run.stderr


def test_7_without_a_terminal_never_waits_for_a_person(scripted):
    server = scripted(steps=[{"result": input_required({"who": NAME_FORM})}])
    started = time.monotonic()
    run = mrtr_here(*server.args("call", "t"))
    assert run.code == 7 and "nothing answered question 'who'" in run.stderr
    assert time.monotonic() - started < 15


