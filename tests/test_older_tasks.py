"""Tasks of the older era (2025-11-25, `basic/utilities/tasks`): a call made a task, followed to its end.

Against the npm `@modelcontextprotocol/server-everything` (its `simulate-research-query` tool, whose
`execution.taskSupport` is required, asks a clarifying question on the tasks/result stream when
`ambiguous`), over stdio and Streamable HTTP; and against scripted servers (tests/servers/
scripted_server.py) for the endings and the rules of when a call is a task.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance import reference_server
from conftest import mrtr_here
from peers import everything_over_http

RESEARCH = ("call", "simulate-research-query", "-a", "topic=python", "-a", "ambiguous=true", "--no-input")
ANSWERS = "answers:\n  elicitation#1:\n    content: {interpretation: comedy}\n"


def everything() -> list[str]:
    return ["--", *reference_server("everything", "stdio")]


def answers_file(tmp_path: Path) -> str:
    path = tmp_path / "answers.yaml"
    path.write_text(ANSWERS)
    return str(path)


def assert_research_followed(run: Any, report: str) -> None:
    """The task created, its statuses with their messages, the question asked in flight on the
    tasks/result stream and answered from the file, the final report (`report`: as printed)."""
    assert run.code == 0, run.stderr
    timeline = run.stderr
    assert "task " in timeline and " created · working · poll every 1 s · ttl 300 s" in timeline
    assert "⧗ task input_required: Found multiple interpretations for \"python\"" in timeline
    asked = timeline.index("asked in flight: elicitation#1")
    assert timeline.index("→ tasks/result") < asked < timeline.index("✓ elicitation#1 ← accept "
                                                                      "{\"interpretation\":\"comedy\"}  from answers-file")
    assert timeline.index("… task working: Continuing with interpretation: \"comedy\"") > asked
    assert "✓ task completed" in timeline and "→ tasks/get" not in timeline  # the polls: with -v only
    assert "# Research Report: python (comedy)" in report


def assert_recorded(path: Path) -> None:
    """The call asked for a task; its one round keeps the CreateTaskResult and the question asked in
    flight with its answer; the `task` part its statuses and the report."""
    document = yaml.safe_load(path.read_text())
    [only] = document["rounds"]
    assert only["sent"]["params"]["task"] == {} and only["received"]["result"]["task"]["status"] == "working"
    assert list(only["received"]["asked_in_flight"]) == ["elicitation#1"] and list(only["answers"]) == ["elicitation#1"]
    statuses = [entry["status"] for entry in document["task"]["statuses"]]
    assert statuses[0] == "working" and "input_required" in statuses and statuses[-1] == "completed"
    assert "python (comedy)" in document["task"]["result"]["content"][0]["text"]


def test_a_required_task_over_stdio_is_followed_recorded_and_replayed(tmp_path: Path):
    path = tmp_path / "research.yaml"
    run = mrtr_here(*RESEARCH, "--answers", answers_file(tmp_path), "--record", str(path), *everything())
    assert_research_followed(run, run.stdout)
    assert_recorded(path)
    again = mrtr_here("replay", str(path), "--trust-target")
    assert again.code == 0 and "same as recorded (1 round)" in again.stderr, again.stderr
    shown = mrtr_here("show", str(path))
    assert shown.code == 0 and "⧗ task input_required" in shown.stdout and "python (comedy)" in shown.stdout
    assert task_lines(shown.stdout) == task_lines(run.stderr), shown.stdout  # drawn in the live order


TASK_LINES = ("⧗ task", "… task", "✓ task", "→ tasks/result", "asked in flight:", "✓ elicitation#")


def task_lines(timeline: str) -> list[str]:
    """The task's lines of a timeline in order: created, statuses, tasks/result (its id), the question asked
    on its stream (naming that id), the answer, the end."""
    lines = [line.strip() for line in timeline.splitlines()]
    return [line for line in lines if line.startswith(TASK_LINES)]


def test_a_required_task_over_streamable_http_is_followed_recorded_and_replayed(tmp_path: Path):
    path = tmp_path / "research-http.yaml"
    with everything_over_http() as url:
        run = mrtr_here(*RESEARCH, "--answers", answers_file(tmp_path), "--record", str(path), "--json", "--url", url)
        again = mrtr_here("replay", str(path), "--url", url)
        config = {"MRTR_CONFIG_DIR": str(tmp_path / "config")}
        late = mrtr_here(*RESEARCH, "--task-timeout", "1.5", "--url", url, env=config)
    assert late.code == 4 and "did not end within --task-timeout 1.5 s" in late.stderr, late.stderr
    assert "belonged to the session mrtr ends now" in late.stderr and "mrtr tasks resume" not in late.stderr
    assert "may still run it" not in late.stderr and not list((tmp_path / "config").glob("tasks/*.json"))
    assert_research_followed(run, run.json()["result"]["content"][0]["text"])
    assert run.json()["task"]["statuses"][-1] == {"status": "completed", "message": "Generating report..."}
    assert_recorded(path)
    assert again.code == 0 and "same as recorded (1 round)" in again.stderr, again.stderr


def test_task_on_a_tool_without_task_support_and_in_the_modern_era_is_exit_1():
    echo = mrtr_here("call", "echo", "-a", "message=hi", "--task", *everything())
    assert echo.code == 1, echo.stderr
    assert echo.stderr.splitlines()[-1] == ("✗ --task: the tool 'echo' cannot be called as a task: its "
                                            "execution.taskSupport is 'forbidden' (or absent); leave --task out")
    modern = mrtr_here("call", "book_table", "--demo", "--task")
    assert modern.code == 1
    assert "since 2026-07-28 the server decides whether a call runs as a task" in modern.stderr.splitlines()[-1]
    read = mrtr_here("read", "vault://recipes", "--demo", "--task")
    assert read.code == 1 and "only a tool call runs as a task, not resources/read" in read.stderr


NOT_FOUND = {"error": {"code": -32601, "message": "Method not found"}}
TAKES_TASKS = {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}}


def initialized(capabilities: dict[str, Any]) -> dict[str, Any]:
    return {"result": {"protocolVersion": "2025-11-25", "capabilities": capabilities,
                       "serverInfo": {"name": "scripted-tasks", "version": "1"}}}


def tool(name: str, support: str | None) -> dict[str, Any]:
    execution = {"execution": {"taskSupport": support}} if support else {}
    return {"name": name, "inputSchema": {"type": "object"}, **execution}


def task(status: str, message: str | None = None, **more: Any) -> dict[str, Any]:
    said = {"statusMessage": message} if message else {}
    return {"taskId": "t-1", "status": status, "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000, "pollInterval": 100, **said, **more}


TEXT = {"content": [{"type": "text", "text": "done"}]}


ENDINGS = {
    "completed": ("completed", None, [{"result": TEXT}], 0, "done"),
    "failed": ("failed", "Tool execution failed: quota exceeded", [{"result": {**TEXT, "isError": True}}], 2,
               "✗ the task t-1 failed: Tool execution failed: quota exceeded; the server ended it; its logs may say why"),
    "failed, said by tasks/result": ("failed", None, [{"error": {"code": -32603, "message": "upstream down"}}], 2,
                                     "✗ the task t-1 failed: upstream down; the server ended it; its logs may say why"),
    "cancelled": ("cancelled", "Cancelled by the operator", [], 2, "✗ the task t-1 was cancelled: Cancelled by the "
                  "operator; the server ended it; its logs may say why"),
}


@pytest.mark.parametrize("name", ENDINGS)
def test_a_task_ends_as_its_status_says(scripted, name: str):
    ending, message, result, code, said = ENDINGS[name]
    server = scripted(discover=NOT_FOUND, tools=[tool("slow", "required")], steps=[
        initialized(TAKES_TASKS), {"result": {"task": task("working")}},
        {"result": task("working", "half way")}, {"result": task(ending, message)}, *result])
    run = mrtr_here("call", "slow", "--no-input", "--", *server.command)
    assert run.code == code, run.stderr
    assert said in run.stdout if code == 0 else said == run.stderr.splitlines()[-1]
    assert "… task working: half way" in run.stderr
    methods = [m["method"] for m in server.received() if "id" in m and m["method"].startswith("task")]
    assert methods == ["tasks/get", "tasks/get"] + (["tasks/result"] if result else [])
    [call] = server.calls()
    assert call["params"]["task"] == {}


@pytest.mark.parametrize("support, capabilities, flags, as_task", [
    ("optional", TAKES_TASKS, ("--task",), True),
    ("optional", TAKES_TASKS, (), False),
    ("required", {"tools": {}}, (), False),  # no tasks.requests.tools.call: a client MUST NOT make it a task
])
def test_when_a_call_is_a_task(scripted, support: str, capabilities: dict[str, Any], flags: tuple[str, ...],
                               as_task: bool):
    created = [{"result": {"task": task("completed")}}, {"result": TEXT}] if as_task else [{"result": TEXT}]
    server = scripted(discover=NOT_FOUND, tools=[tool("maybe", support)],
                      steps=[initialized(capabilities), *created])
    run = mrtr_here("call", "maybe", "--no-input", *flags, "--", *server.command)
    assert run.code == 0, run.stderr
    [call] = server.calls()
    assert ("task" in call["params"]) is as_task
    assert ("→ tasks/result" in run.stderr) is as_task and "done" in run.stdout


def test_task_where_the_server_takes_no_tasks_is_exit_1_and_a_hostile_task_is_exit_2(scripted):
    plain = scripted(discover=NOT_FOUND, tools=[tool("maybe", "optional")], steps=[initialized({"tools": {}})])
    refused = mrtr_here("call", "maybe", "--no-input", "--task", "--", *plain.command)
    assert refused.code == 1 and "declares no tasks.requests.tools.call capability" in refused.stderr
    assert plain.calls() == []
    hostile = scripted(discover=NOT_FOUND, tools=[tool("slow", "required")], steps=[
        initialized(TAKES_TASKS), {"result": {"task": {"taskId": "x" * 5000, "status": "working"}}}])
    run = mrtr_here("call", "slow", "--no-input", "--", *hostile.command)
    assert run.code == 2 and "no CreateTaskResult" in run.stderr.splitlines()[-1]


def test_sampling_and_roots_asked_on_the_tasks_result_stream_are_answered_from_the_flags(scripted, tmp_path: Path):
    related = {"_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}}}
    sampling = {"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Summarise"}}], "maxTokens": 50, **related}}
    roots = {"jsonrpc": "2.0", "id": "r1", "method": "roots/list", "params": related}
    server = scripted(discover=NOT_FOUND, tools=[tool("slow", "required")], steps=[
        initialized(TAKES_TASKS), {"result": {"task": task("input_required", "Need a summary")}},
        {"before": [json.dumps(sampling), json.dumps(roots)], "result": TEXT}, {"result": task("completed")}])
    run = mrtr_here("call", "slow", "--no-input", "--sampling-reply", "A summary", "--root", str(tmp_path),
                    "--", *server.command)
    assert run.code == 0, run.stderr
    assert "asked in flight: sampling#1" in run.stderr and "unprompted: roots#1" in run.stderr  # over stdio: not the task's question
    assert "✓ sampling#1 ← reply" in run.stderr and f"✓ roots#1 ← roots [\"{tmp_path.as_uri()}\"]" in run.stderr
    answered = {m["id"]: m["result"] for m in server.received() if "result" in m}
    assert answered["s1"]["content"]["text"] == "A summary" and answered["r1"]["roots"][0]["uri"] == tmp_path.as_uri()
    assert "✓ task completed" in run.stderr and "done" in run.stdout


def test_task_timeout_bounds_the_polls_and_tasks_result(scripted):
    """--task-timeout covers the whole task: a tasks/get, or a tasks/result, the server never answers ends it
    (exit 4, naming the task), though --timeout would wait longer; over stdio the task is said to be lost."""
    for status in ("working", "input_required"):
        server = scripted(discover=NOT_FOUND, tools=[tool("slow", "required")], steps=[
            initialized(TAKES_TASKS), {"result": {"task": task(status)}}, {"silent": True}])
        run = mrtr_here("call", "slow", "--no-input", "--timeout", "60", "--task-timeout", "0.5", "--", *server.command)
        assert run.code == 4, run.stderr
        assert f"task t-1 did not end within --task-timeout 0.5 s (last status: {status})" in run.stderr
        assert ("→ tasks/result" in run.stderr) is (status == "input_required") and "the task is lost" in run.stderr


def test_task_timeout_ends_a_tasks_result_that_asks_without_end(scripted, tmp_path: Path):
    """Each question answered on the tasks/result stream starts --timeout again, but never past the task's
    --task-timeout: a server asking question after question (answered by --answer, then by a match: rule) is
    ended there (exit 4, naming the task), long before it would run out of questions."""
    related = {"_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}}}
    schema = {"type": "object", "properties": {"go": {"type": "boolean"}}}
    questions = [json.dumps({"jsonrpc": "2.0", "id": f"e{n}", "method": "elicitation/create", "params": {
        "mode": "form", "message": f"Go on, step {n}?", "requestedSchema": schema, **related}}) for n in range(60)]
    server = scripted(discover=NOT_FOUND, tools=[tool("slow", "required")], steps=[
        initialized(TAKES_TASKS), {"result": {"task": task("input_required", "Questions")}},
        {"before": questions, "spaced": 0.1, "result": TEXT}])
    rules = tmp_path / "rules.yaml"
    rules.write_text("match:\n  - method: elicitation/create\n    message: 'Go on'\n"
                     "    response: {action: accept, content: {go: true}}\n")
    run = mrtr_here("call", "slow", "--no-input", "--answer", "elicitation#1=decline", "--answers", str(rules),
                    "--timeout", "1", "--task-timeout", "1.5", "--", *server.command)
    assert run.code == 4, run.stderr
    assert "task t-1 did not end within --task-timeout 1.5 s (last status: input_required)" in run.stderr
    assert "✓ elicitation#1 ← decline" in run.stderr and "✓ elicitation#2 ← accept {\"go\":true}" in run.stderr
    assert "done" not in run.stdout and "no response to tasks/result" not in run.stderr
