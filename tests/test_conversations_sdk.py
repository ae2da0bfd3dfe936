"""Whole MRTR conversations against the official Python SDK's MCPServer, over stdio."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import jsonschema
import pytest

from conftest import ROOT, mrtr_here, sdk

CONVERSATION_SCHEMA = json.loads((ROOT / "docs" / "json" / "conversation.schema.json").read_text())


def conversation(*args: str) -> dict:
    run = mrtr_here(*sdk(*args, "--json"))
    assert run.code == 0, run.stderr
    document = run.json()
    jsonschema.validate(document, CONVERSATION_SCHEMA)
    return document


def test_form_elicitation_with_the_sdk_sealed_request_state():
    document = conversation("call", "greet", "-a", "greeting=Hello", "--answer", "__main__:ask_name.name=Ada")
    assert document["outcome"] == "complete"
    assert document["result"]["structuredContent"] == {"result": "Hello, Ada!"}
    first, second = document["rounds"]
    assert first["resultType"] == "input_required" and second["resultType"] == "complete"
    question = first["questions"]["__main__:ask_name"]
    assert question == {"method": "elicitation/create", "message": "What is your name?",
                        "response": {"action": "accept", "content": {"name": "Ada"}}, "source": "flag"}
    assert document["server"]["name"] == "sdk-test-server"


def test_two_rounds_threaded_through_request_state(tmp_path: Path):
    answers = tmp_path / "answers.yaml"
    answers.write_text("answers:\n  date:\n    content: {date: '2026-12-01'}\n  party:\n    content: {size: 4}\n")
    document = conversation("call", "booking", "-a", "city=Lisbon", "--answers", str(answers))
    assert document["result"]["structuredContent"] == {"city": "Lisbon", "date": "2026-12-01", "size": 4}
    assert [r["resultType"] for r in document["rounds"]] == ["input_required", "input_required", "complete"]
    assert document["rounds"][1]["questions"]["party"]["source"] == "answers-file"


def test_several_questions_in_one_round():
    document = conversation("call", "two_at_once", "--answer", "color.color=red", "--sampling-reply", "one two three")
    received = document["result"]["structuredContent"]
    assert received["color"] == {"action": "accept", "content": {"color": "red"}}
    assert received["words"]["content"] == {"type": "text", "text": "one two three"}
    assert received["words"]["model"] == "mrtr"
    assert set(document["rounds"][0]["questions"]) == {"color", "words"}


def test_sampling_answered_by_a_sampler_command(tmp_path: Path):
    sampler = tmp_path / "sampler.py"
    sampler.write_text("import json, sys\nrequest = json.load(sys.stdin)\n"
                       "print('I read: ' + request['params']['messages'][-1]['content']['text'])\n")
    document = conversation("call", "summarize", "-a", "text=the tides", "--sampler", f"python3 {sampler}",
                            "--sampling-model", "tiny-llm")
    assert document["result"]["structuredContent"] == {"result": "summary from tiny-llm: I read: Summarize: the tides"}
    answer = next(iter(document["rounds"][0]["questions"].values()))
    assert answer["source"] == "sampler" and answer["method"] == "sampling/createMessage"


def test_roots_from_the_command_line(tmp_path: Path):
    document = conversation("call", "workspace", "--root", str(tmp_path), "--root", "file:///srv/data")
    assert document["result"]["structuredContent"] == {"result": f"roots: {tmp_path.as_uri()}, file:///srv/data"}


def test_prompt_through_elicitation():
    document = conversation("prompt", "haiku", "-a", "topic=rain", "--answer", "style.style=sad")
    assert document["result"]["messages"][0]["content"]["text"] == "Write a sad haiku about rain."


def test_resource_through_elicitation():
    document = conversation("read", "notes://diary", "--answer", "passphrase.word=open sesame")
    assert document["result"]["contents"][0]["text"] == "note diary, unlocked with open sesame"


def test_decline_is_an_answer_sent_on_the_retry():
    run = mrtr_here(*sdk("call", "greet", "-a", "greeting=Hi", "--answer", "__main__:ask_name=decline", "--json"))
    document = run.json()
    assert document["rounds"][0]["questions"]["__main__:ask_name"]["response"] == {"action": "decline"}
    assert len(document["rounds"]) == 2  # the decline reached the server, which ended the call


def test_human_output_shows_the_rounds_and_the_result():
    run = mrtr_here(*sdk("call", "booking", "-a", "city=Porto", "--answer", "date.date=2026-12-24",
                    "--answer", "party.size=2"))
    assert run.code == 0
    assert run.stdout.startswith("booked Porto on 2026-12-24 for 2\n")
    for expected in ("→ server/discover", "→ tools/call booking", "? date · elicitation/create (form)",
                     "│ Which date in Porto?", "✓ date ← accept", "from flag", "↻ tools/call booking",
                     "requestState echoed", "← complete · round 3", "✓ complete · 3 rounds"):
        assert expected in run.stderr


def test_the_tool_reporting_an_error_is_exit_5():
    run = mrtr_here(*sdk("call", "fails", "--json"))
    assert run.code == 5
    assert run.json()["result"]["isError"] is True
    assert run.error_line() == {"error": {"code": "tool_error", "message": "the tool reported an error (isError: true)"}}


def test_list_tools_and_discover():
    tools = mrtr_here(*sdk("list", "tools", "--json"))
    assert tools.code == 0
    assert {"greet", "booking", "two_at_once"} <= {t["name"] for t in tools.json()["tools"]}
    found = mrtr_here(*sdk("discover", "--json")).json()
    assert found["supportedVersions"] == ["2026-07-28"]
    assert found["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "sdk-test-server"


@pytest.mark.parametrize("kind,key", [("prompts", "prompts"), ("templates", "resourceTemplates")])
def test_list_other_kinds(kind: str, key: str):
    run = mrtr_here(*sdk("list", kind, "--json"))
    assert run.code == 0
    assert run.json()[key]


def test_withheld_capability_gets_the_servers_32021_naming_the_flag():
    run = mrtr_here(*sdk("call", "summarize", "-a", "text=x", "--no-sampling", "--sampling-reply", "x"))
    assert run.code == 2
    assert "-32021" in run.stderr and "--no-sampling" in run.stderr


def test_config_file_with_variable_expansion(tmp_path: Path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"sdk": {"command": "${PYTHON_UNDER_TEST}",
                                                         "args": [str(ROOT / "tests/servers/sdk_server.py")]}}}))
    import sys

    run = mrtr_here("call", "greet", "-a", "greeting=Yo", "--answer", "__main__:ask_name.name=Bo",
               "--config", str(config), "--server", "sdk", env={"PYTHON_UNDER_TEST": sys.executable})
    assert run.code == 0, run.stderr
    assert "Yo, Bo!" in run.stdout


def test_sampler_script_must_exist(tmp_path: Path):
    script = tmp_path / "sampler.sh"
    script.write_text("#!/bin/sh\nexit 3\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    run = mrtr_here(*sdk("call", "summarize", "-a", "text=x", "--sampler", str(script)))
    assert run.code == 7
    assert "refused by sampler: the sampler exited with code 3" in run.stderr
