"""Tasks of the 2026-07-28 extension (`io.modelcontextprotocol/tasks`), followed through the real CLI
against tests/servers/task_server.py, a server written from the extension's specification (issue 28):
each ending and its exit code, answers from flags and from a file, the timeline, --json, record then
show then replay (and a replay that diverges), --task-timeout, --no-tasks; and the readers of
protocol/tasks.py against what a hostile server may send."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
import yaml

from conftest import PYTHON, ROOT, SERVERS, mrtr
from mrtr_cli.errors import ProtocolError
from mrtr_cli.protocol import lint_rules, meta, tasks
from peers import http_server

TASK_SERVER = [PYTHON, str(SERVERS / "task_server.py")]
CONVERSATION_SCHEMA = json.loads((ROOT / "docs" / "json" / "conversation.schema.json").read_text())
TRANSCRIPT_SCHEMA = json.loads((ROOT / "mrtr_cli" / "transcript" / "schema.json").read_text())


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with http_server([*TASK_SERVER, "http", "0"]) as address:
        yield address


def call(url: str, tool: str, *args: str) -> tuple[int, str, str]:
    run = mrtr("call", tool, "--url", url, "--no-input", *args)
    return run.code, run.stdout, run.stderr


def test_each_ending_of_a_task_and_its_exit_code(url: str):
    code, out, err = call(url, "deploy", "-a", "env=prod", "--answer", "confirm.go=true")
    assert (code, out.strip()) == (0, "deployed prod"), err
    created = re.search(r"⧗ task (task-\d+) created · working · poll every 0.1 s · ttl 60 s", err)
    assert created, err
    for line in ("… task working: building", "⧗ task input_required: waiting for a confirmation",
                 "round 2 asks 1 question", "│ Deploy to production?", "✓ confirm ← accept {\"go\":true}  from flag",
                 "→ tasks/update", "✓ task completed", "✓ complete · 2 rounds"):
        assert line in err, (line, err)
    assert "→ tasks/get" not in err and "result-type-unknown" not in err  # polls show with -v only
    code, _, err = call(url, "broken")
    assert code == 2 and re.search(r"task task-\d+ failed: error -32603: the build farm is down$", err.strip()), err
    assert "✗ task failed: the build farm is down" in err
    code, _, err = call(url, "halted")
    assert code == 2 and re.search(r"task task-\d+ was cancelled: stopped by an operator", err), err
    code, out, err = call(url, "flaky")
    assert (code, out.strip()) == (5, "the tests failed"), err
    assert "tools/list" not in err.split("→ tools/call")[1]  # a task's ending sends no one looking for the tool


def test_json_report_carries_the_task_and_its_rounds(url: str):
    code, out, err = call(url, "deploy", "--answer", "confirm.go=false", "--json", "--poll-interval", "0.05")
    document = json.loads(out)
    jsonschema.validate(document, CONVERSATION_SCHEMA)
    assert code == 0 and document["result"]["content"][0]["text"] == "not deployed", err
    assert [r["resultType"] for r in document["rounds"]] == ["task", "input_required"]
    assert document["rounds"][1]["questions"]["confirm"]["response"] == {"action": "accept", "content": {"go": False}}
    task = document["task"]
    statuses = [s["status"] for s in task["statuses"]]
    assert statuses[0] == "working" and statuses[-1] == "completed" and "input_required" in statuses
    assert re.fullmatch(r"task-\d+", task["id"]) and task["polls"] >= 4


def test_record_show_replay_and_a_replay_that_diverges(url: str, tmp_path: Path):
    answers = tmp_path / "answers.yaml"
    answers.write_text("answers:\n  confirm:\n    content: {go: true}\n")
    recorded = tmp_path / "deploy.yaml"
    code, out, err = call(url, "deploy", "-a", "env=prod", "--answers", str(answers), "--record", str(recorded))
    assert (code, out.strip()) == (0, "deployed prod"), err
    document = yaml.safe_load(recorded.read_text())
    jsonschema.validate(document, TRANSCRIPT_SCHEMA)
    task = document["task"]
    assert document["rounds"][0]["received"]["result"]["resultType"] == "task" and len(document["rounds"]) == 1
    assert [entry["round"] for entry in task["inputs"]] == [2]
    assert task["inputs"][0]["answers"]["confirm"] == {"method": "elicitation/create", "source": "answers-file",
                                                       "response": {"action": "accept", "content": {"go": True}}}
    assert task["statuses"][-1] == {"status": "completed"} and task["result"]["content"][0]["text"] == "deployed prod"
    shown = mrtr("show", str(recorded))
    assert shown.code == 0 and "⧗ task input_required: waiting for a confirmation" in shown.stdout, shown.stderr
    assert "from answers-file" in shown.stdout and "✓ task completed" in shown.stdout
    replayed = mrtr("replay", str(recorded), "--url", url)
    assert replayed.code == 0 and "same as recorded" in replayed.stderr, replayed.stdout + replayed.stderr
    diverging = tmp_path / "moon.yaml"
    diverging.write_text(recorded.read_text().replace("Deploy to production?", "Deploy to the moon?")
                         .replace("text: deployed prod", "text: deployed moon"))
    replayed = mrtr("replay", str(diverging), "--url", url)
    assert replayed.code == 6, replayed.stdout + replayed.stderr
    assert "round 2, question 'confirm': message" in replayed.stderr and "conversation: task result" in replayed.stderr


def test_task_timeout_no_tasks_and_stdio(url: str):
    code, _, err = call(url, "slow", "-a", "seconds=30", "--task-timeout", "0.5")
    found = re.search(r"task (task-\d+) did not end within --task-timeout 0.5 s \(last status: working\).*"
                      r"its task id is (task-\d+)", err)
    assert code == 4 and found and found.group(1) == found.group(2), err
    code, out, err = call(url, "deploy", "--no-tasks")
    assert (code, out.strip()) == (0, "deployed at once (no task)") and "← complete · round 1" in err, err
    assert "⧗ task" not in err and "caching-hints" not in err
    run = mrtr("call", "flaky", "-v", "--stdio", f"{PYTHON} {SERVERS / 'task_server.py'} stdio")
    assert (run.code, run.stdout.strip()) == (5, "the tests failed"), run.stderr
    assert "→ tasks/get" in run.stderr and '"extensions":{"io.modelcontextprotocol/tasks":{}}' in run.stderr


@pytest.mark.parametrize("result, message", [
    ({"resultType": "task", "status": "working"}, "no usable taskId"),
    ({"resultType": "task", "taskId": "t" * 2000, "status": "working"}, "no usable taskId"),
    ({"resultType": "task", "taskId": "t", "status": "sleeping"}, "status 'sleeping', not one of"),
    ({"resultType": "task", "taskId": "t", "status": "working", "pollIntervalMs": "5"}, "pollIntervalMs '5'"),
    ({"resultType": "task", "taskId": "t", "status": "working", "ttlMs": True}, "ttlMs True"),
    ({"resultType": "task", "taskId": "t", "status": "working", "statusMessage": 3}, "statusMessage that is not"),
    ({"resultType": "task", "taskId": "t", "status": "completed"}, "a completed task without a result object"),
    ({"resultType": "task", "taskId": "t", "status": "failed", "error": {"code": "x", "message": "m"}}, "integer code"),
])
def test_a_created_task_mrtr_cannot_follow_is_a_protocol_error(result, message):
    with pytest.raises(ProtocolError, match=re.escape(message)):
        tasks.read_created("tools/call", result)


def test_detailed_tasks_polls_and_the_declaration():
    asked = {"resultType": "complete", "taskId": "t", "status": "input_required",
             "inputRequests": {"k": {"method": "elicitation/create", "params": {"message": "?"}}}}
    with pytest.raises(ProtocolError, match="input request 'k' is a form without a requestedSchema"):
        tasks.read_detailed(asked, "t")
    with pytest.raises(ProtocolError, match="about another task"):
        tasks.read_detailed({**asked, "taskId": "u"}, "t")
    with pytest.raises(ProtocolError, match="prompts/get with a task, which only tools/call may be"):
        tasks.read_created("prompts/get", {"resultType": "task", "taskId": "t", "status": "working"})
    assert [tasks.poll_seconds(ms) for ms in (None, 1, 5000, 86_400_000)] == [1.0, 0.1, 5.0, 10.0]
    assert tasks.poll_seconds(86_400_000, override=30.0) == 30.0
    assert meta.Capabilities().declared()["extensions"] == {"io.modelcontextprotocol/tasks": {}}
    assert "extensions" not in meta.Capabilities(tasks=False).declared()
    found = lint_rules.check_result("tools/call", {"resultType": "task"}, meta.Capabilities(tasks=False))
    assert [f.rule for f in found] == ["task-undeclared"] and found[0].page.startswith(lint_rules.TASKS_SPEC)
    assert lint_rules.check_result("tools/call", {"resultType": "task"}, meta.Capabilities()) == []
