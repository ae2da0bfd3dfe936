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

from conftest import PYTHON, ROOT, SERVERS, mrtr_here
from mrtr_cli.conversation import events
from mrtr_cli.answering.chain import build_chain
from mrtr_cli.commands.common import make_context
from mrtr_cli.commands.conversation_builder import client_settings, connect
from mrtr_cli.conversation.session import Session
from mrtr_cli.conversation.task_follower import TaskSettings
from mrtr_cli.errors import ProtocolError
from mrtr_cli.definition.options import AnsweringOptions, OutputOptions, TargetOptions
from mrtr_cli.targets.target import Endpoint, resolve_target
from mrtr_cli.protocol import lint_rules, meta, tasks
from peers import ALL_CAPABILITIES, HttpPeer, http_server, request

TASK_SERVER = [PYTHON, str(SERVERS / "task_server.py")]
HOSTILE_SERVER = [PYTHON, str(SERVERS / "hostile_task_server.py")]
CONVERSATION_SCHEMA = json.loads((ROOT / "docs" / "json" / "conversation.schema.json").read_text())
TRANSCRIPT_SCHEMA = json.loads((ROOT / "mrtr_cli" / "transcript" / "schema.json").read_text())


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with http_server([*TASK_SERVER, "http", "0"]) as address:
        yield address


@pytest.fixture(scope="module")
def hostile_url() -> Iterator[str]:
    with http_server([*HOSTILE_SERVER, "http", "0"]) as address:
        yield address


def call(url: str, tool: str, *args: str) -> tuple[int, str, str]:
    run = mrtr_here("call", tool, "--url", url, "--no-input", *args)
    return run.code, run.stdout, run.stderr


def test_each_ending_of_a_task_and_its_exit_code(url: str):
    code, out, err = call(url, "deploy", "-a", "env=prod", "--answer", "confirm.go=true")
    assert (code, out.strip()) == (0, "deployed prod"), err
    created = re.search(r"⧗ task (task-\d+) created · working · poll every 0.1 s · ttl 60 s", err)
    assert created, err
    for line in ("… task working: building", "⧗ task input_required: waiting for a confirmation",
                 "round 2 asks 1 question", "│ Deploy to production?", "✓ confirm ← accept {\"go\":true}  from flag",
                 "→ tasks/update", "← tasks/update acknowledged", "✓ task completed", "✓ complete · 2 rounds"):
        assert line in err, (line, err)
    took = re.search(r"✓ complete · 2 rounds · (\d+) ms", err)
    assert took and int(took.group(1)) >= 400, err  # the task's whole time: its server works 0.5 s at least
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
    shown = mrtr_here("show", str(recorded))
    assert shown.code == 0 and "⧗ task input_required: waiting for a confirmation" in shown.stdout, shown.stderr
    assert "from answers-file" in shown.stdout and "✓ task completed" in shown.stdout
    replayed = mrtr_here("replay", str(recorded), "--url", url)
    assert replayed.code == 0 and "same as recorded" in replayed.stderr, replayed.stdout + replayed.stderr
    diverging = tmp_path / "moon.yaml"
    diverging.write_text(recorded.read_text().replace("Deploy to production?", "Deploy to the moon?")
                         .replace("text: deployed prod", "text: deployed moon"))
    replayed = mrtr_here("replay", str(diverging), "--url", url)
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
    run = mrtr_here("call", "flaky", "-v", "--stdio", f"{PYTHON} {SERVERS / 'task_server.py'} stdio")
    assert (run.code, run.stdout.strip()) == (5, "the tests failed"), run.stderr
    assert "→ tasks/get" in run.stderr and '"extensions":{"io.modelcontextprotocol/tasks":{}}' in run.stderr
    run = mrtr_here("call", "slow", "--task-timeout", "0.3", "--stdio", f"{PYTHON} {SERVERS / 'task_server.py'} stdio")
    assert run.code == 4 and "did not end within --task-timeout 0.3 s" in run.stderr, run.stderr
    assert "the task is lost" in run.stderr and "may still run it" not in run.stderr  # over stdio: only that


def test_a_task_known_by_its_id_alone_is_followed_to_its_end(url: str):
    """Session.follow_task, the entry point for a task mrtr did not just make (resume): a task another
    client made is asked for by id, its question answered, its result read, as a call would."""
    peer = HttpPeer(url)
    try:
        extension = {**ALL_CAPABILITIES, "extensions": tasks.declaration()}
        made = peer.exchange(request(1, "tools/call", {"name": "deploy", "arguments": {"env": "eu"}}, extension))
    finally:
        peer.close()
    task_id = made[0]["result"]["taskId"]
    seen: list[object] = []
    options = TargetOptions(url=url)
    context = make_context(OutputOptions(color="never"))
    context.emit.subscribe(seen.append)
    chain, _ = build_chain(AnsweringOptions(answers=("confirm.go=true",)), 10)
    with connect(context, Endpoint(resolve_target(options), options), client_settings(options, chain=chain)) as client:
        outcome = Session(client, chain, tasks=TaskSettings(poll_interval=0.05)).follow_task(task_id)
    assert outcome.status == "complete" and outcome.result["content"][0]["text"] == "deployed eu"
    assert outcome.task is not None and outcome.task.task_id == task_id and outcome.task.statuses[-1][0] == "completed"
    assert [(r.number, sorted(r.requests), r.answers["confirm"].source) for r in outcome.rounds] == [(1, ["confirm"], "flag")]
    changes = [e for e in seen if isinstance(e, events.TaskStatusChanged)]
    assert changes[0].task_id == task_id and changes[-1].status == "completed"


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


def test_a_hostile_task_server_cannot_keep_mrtr_asking_nor_grow_its_memory(hostile_url: str, tmp_path: Path):
    """A task asking a new question on every tasks/get ends at --max-rounds (exit 7) or at --task-timeout
    (exit 4), whichever comes first; a task saying a new huge statusMessage on every poll is followed with
    each message cut and the statuses kept bounded, in --json and in the transcript."""
    code, _, err = call(hostile_url, "asks_forever", "--root", "/tmp", "--max-rounds", "3")
    assert code == 7 and "still asks for input at round 4, past --max-rounds 3" in err, err
    assert "created · working · poll every 0.1 s" in err  # the server's 0 ms, as mrtr polls it
    assert err.count("→ tasks/update") == 2 and err.count("← tasks/update acknowledged") == 2
    code, _, err = call(hostile_url, "asks_forever", "--root", "/tmp", "--max-rounds", "100000",
                        "--task-timeout", "0.5")
    assert code == 4 and "did not end within --task-timeout 0.5 s (last status: input_required)" in err, err

    recorded = tmp_path / "chatty.yaml"
    code, out, err = call(hostile_url, "chatty", "--json", "--poll-interval", "0.01", "--record", str(recorded))
    document = json.loads(out)
    jsonschema.validate(document, CONVERSATION_SCHEMA)
    assert code == 0 and document["result"]["content"][0]["text"] == "done", err
    statuses = document["task"]["statuses"]
    assert len(statuses) == 50 and document["task"]["statuses_left_out"] == 12 and statuses[-1]["status"] == "completed"
    assert max(len(status.get("message", "")) for status in statuses) == tasks.MESSAGE_LIMIT
    assert "poll every 0.01 s" in err and "\x1b" not in err and "\\x1b]0;PWNED" in err  # escapes shown
    transcript = yaml.safe_load(recorded.read_text())
    jsonschema.validate(transcript, TRANSCRIPT_SCHEMA)
    assert len(transcript["task"]["statuses"]) == 50 and transcript["task"]["statuses_left_out"] == 12


def test_one_poll_interval_is_waited_after_each_tasks_update(hostile_url: str):
    """In process, the session's sleep counted: between two rounds of a task that asks on every look, mrtr
    waits a poll interval (it does not poll again at once)."""
    slept: list[float] = []
    options = TargetOptions(url=hostile_url)
    context = make_context(OutputOptions(color="never"))
    chain, _ = build_chain(AnsweringOptions(roots=("/tmp",)), 10)
    with connect(context, Endpoint(resolve_target(options), options), client_settings(options, chain=chain)) as client:
        session = Session(client, chain, max_rounds=4, sleep=slept.append, tasks=TaskSettings(poll_interval=0.05))
        outcome = session.run("tools/call", {"name": "asks_forever", "arguments": {}})
    assert outcome.status == "incomplete" and outcome.exit_code() == 7
    updates = [r for r in outcome.rounds if r.result_type == "input_required" and r.answers]
    assert len(updates) == 3 and slept == [0.05] * (1 + len(updates))  # after the creation, then after each update


def test_task_ids_mrtr_cannot_print_or_keep_and_a_task_it_cannot_follow(hostile_url: str, tmp_path: Path):
    env = {"MRTR_CONFIG_DIR": str(tmp_path / "config")}
    run = mrtr_here("call", "odd_poll", "--url", hostile_url, "--no-input", env=env)
    started = re.search(r"pollIntervalMs 1.5, not a whole number of milliseconds; the server may have started task "
                        r"(task-\d+): mrtr sent tasks/cancel for it$", run.stderr.strip())
    assert run.code == 2 and started, run.stderr
    got = mrtr_here("tasks", "get", started.group(1), "--url", hostile_url, "--json", env=env)
    assert got.json()["task"]["status"] == "cancelled", got.stderr  # the cancel reached the server

    run = mrtr_here("call", "control_id", "--url", hostile_url, "--no-input", "--task-timeout", "0.3", env=env)
    assert run.code == 4 and "its id has control characters: see `mrtr tasks list --json`" in run.stderr, run.stderr
    assert "mrtr tasks resume" not in run.stderr  # an escaped id would name another task
    [kept] = mrtr_here("tasks", "list", "--json", env=env).json()["tasks"]
    assert kept["task_id"] == "x$(touch pwned)\n\x1b[2J'; rm -rf ~ #"
    listed = mrtr_here("tasks", "list", env=env).stdout
    assert "(its id has control characters" in listed and "mrtr tasks resume" not in listed

    run = mrtr_here("call", "long_id", "--url", hostile_url, "--no-input", "--task-timeout", "0.3", env=env)
    assert run.code == 4 and "its id could not be kept: the id is 1010 characters long, longer than the 1000" \
        in run.stderr, run.stderr
    assert [task["name"] for task in mrtr_here("tasks", "list", "--json", env=env).json()["tasks"]] == ["control_id"]


FOLLOWING = re.compile(r"⧗ following task (task-\d+) by notifications/tasks \(subscriptions/listen\); polling every "
                       r"10 s as a backstop")


def test_a_task_followed_by_its_notifications_and_the_streams_that_fall_back_to_polling(url: str):
    """Over HTTP mrtr opens subscriptions/listen for the task: acknowledged, the task is followed by its
    notifications/tasks (one tasks/get to catch up, then only the 10 s backstop), its question answered with
    tasks/update; refused, acknowledged without the id, or ended early, mrtr polls as it would have; a hostile
    stream is linted, bounded and never fatal; --poll-interval opens no stream; stdio opens none."""
    work = ("-a", "env=prod", "-a", "work=0.5", "--answer", "confirm.go=true", "--json")
    code, out, err = call(url, "deploy", *work)
    notified = json.loads(out)
    assert (code, notified["result"]["content"][0]["text"]) == (0, "deployed prod"), err
    following = FOLLOWING.search(err)
    assert following and following.group(1) == notified["task"]["id"], err
    assert err.count("→ tasks/update") == 1 and "✓ task completed" in err
    assert "sent no task notifications" not in err
    statuses = [(s["status"], s.get("message")) for s in notified["task"]["statuses"]]
    assert ("working", "testing") in statuses and statuses[-1] == ("completed", None), statuses  # told, not polled
    code, out, err = call(url, "deploy", *work, "-a", "listen=refuse")
    polled = json.loads(out)
    assert (code, polled["result"]["content"][0]["text"]) == (0, "deployed prod"), err
    assert "… polling every 0.1 s: the server sent no task notifications (it refused subscriptions/listen: error " \
           "-32601)" in err and not FOLLOWING.search(err)
    assert notified["task"]["polls"] <= 2 < 5 < polled["task"]["polls"], (notified["task"], polled["task"])

    code, out, err = call(url, "deploy", "-a", "listen=decline", "--answer", "confirm.go=true")
    assert (code, out.strip()) == (0, "deployed staging") and "(the server acknowledged the stream without the " \
        "task's id)" in err, err
    code, out, err = call(url, "deploy", "-a", "listen=end", "--answer", "confirm.go=true")
    assert (code, out.strip()) == (0, "deployed staging"), err
    assert FOLLOWING.search(err) and "… polling every 0.1 s: the server sent no task notifications (the stream " \
        "ended: the server ended the stream)" in err
    assert err.index("(the stream ended") < err.index("⧗ task input_required")  # polling found the question

    code, out, err = call(url, "deploy", "-a", "listen=hostile", "--answer", "confirm.go=true", "--json", "-v")
    hostile = json.loads(out)
    assert (code, hostile["result"]["content"][0]["text"]) == (0, "deployed staging"), err
    assert sorted(f["rule"] for f in hostile["findings"]) == \
        ["not-jsonrpc", "task-notification-invalid", "task-notification-unknown", "task-stream-progress"]
    assert "notifications/subscriptions/acknowledged" in err and "« {not json" in err  # -v shows the stream
    assert max(len(s.get("message", "")) for s in hostile["task"]["statuses"]) == tasks.MESSAGE_LIMIT

    code, _, err = call(url, "flaky", "--poll-interval", "0.05", "-v")
    assert code == 5 and "subscriptions/listen" not in err and "polling every" not in err, err
    run = mrtr_here("call", "deploy", "-v", "--answer", "confirm.go=true",
               "--stdio", f"{PYTHON} {SERVERS / 'task_server.py'} stdio")
    assert run.code == 0 and "subscriptions/listen" not in run.stderr and "→ tasks/get" in run.stderr, run.stderr


def test_a_notified_task_records_and_replays_as_a_polled_one(url: str, tmp_path: Path):
    """The transcript of a task followed by notifications holds the same task part as a polled one (the input
    round, the result; its statuses, with none a poll missed); replayed while polling (--poll-interval) or by
    notifications, it is the same."""
    recorded, polled = tmp_path / "notified.yaml", tmp_path / "polled.yaml"
    for path, how in ((recorded, "notify"), (polled, "refuse")):
        code, out, err = call(url, "deploy", "-a", "env=eu", "-a", f"listen={how}", "--answer", "confirm.go=true",
                              "--record", str(path))
        assert (code, out.strip()) == (0, "deployed eu"), err
    notified_task, polled_task = (yaml.safe_load(path.read_text())["task"] for path in (recorded, polled))
    jsonschema.validate(yaml.safe_load(recorded.read_text()), TRANSCRIPT_SCHEMA)
    for part in ("inputs", "result"):
        assert notified_task[part] == polled_task[part], part
    told = iter(notified_task["statuses"])  # a poll may miss a short status; a notification misses none
    assert all(status in told for status in polled_task["statuses"]), (notified_task, polled_task)
    for flags in ((), ("--poll-interval", "0.05")):
        replayed = mrtr_here("replay", str(recorded), "--url", url, *flags)
        assert replayed.code == 0 and "same as recorded" in replayed.stderr, replayed.stdout + replayed.stderr
