"""Tasks that outlive their call: Ctrl-C in a pseudo-terminal keeps the task id (HTTP), `mrtr tasks
list|get|resume|cancel` come back to it, `--cancel-on-interrupt` cancels it, and a stdio task is
said to be lost. Against tests/servers/task_server.py (the extension's specification) over HTTP."""

from __future__ import annotations

import re
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from conftest import PYTHON, ROOT, SERVERS, mrtr_here
from mrtr_cli.conversation import events
from mrtr_cli.commands.task_keeper import TaskKeeper
from mrtr_cli.config.kept_tasks import KeptTask, TaskStore
from peers import http_server
from pty_session import CTRL_C, Pty, words

TASK_SERVER = [PYTHON, str(SERVERS / "task_server.py")]
CREATED = r"task (task-\d+) created"


@pytest.fixture(scope="module")
def task_url() -> Iterator[str]:
    with http_server([*TASK_SERVER, "http", "0"]) as url:
        yield url


def config(tmp_path: Path) -> dict[str, str]:
    return {"MRTR_CONFIG_DIR": str(tmp_path / "config")}


def interrupted(tmp_path: Path, *args: str) -> tuple[Pty, str, int]:
    """`mrtr call deploy ARGS` in a terminal, Ctrl-C once its task is made: the session, the task id, the exit code."""
    session = Pty(tmp_path, "call", "deploy", *args, env=config(tmp_path))
    session.expect(CREATED)
    task_id = re.search(CREATED, session.screen).group(1)
    session.press(CTRL_C)
    return session, task_id, session.finish()


def test_ctrl_c_keeps_the_task_and_tasks_resume_answers_it_to_its_end(tmp_path: Path, task_url: str):
    session, task_id, code = interrupted(tmp_path, "-a", "work=2", "-a", "env=staging", "--url", task_url)
    screen = " ".join(words(session.rows()))
    assert code == 130, session.screen
    assert f"task {task_id} goes on on the server (not cancelled)" in screen
    assert f"mrtr tasks resume {task_id} --url {task_url}" in screen

    folder = tmp_path / "config" / "tasks"
    [kept_file] = list(folder.glob("*.json"))
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and stat.S_IMODE(kept_file.stat().st_mode) == 0o600
    assert stat.S_IMODE((folder / ".lock").stat().st_mode) == 0o600  # held around each read-modify-write
    listed = mrtr_here("tasks", "list", "--json", env=config(tmp_path))
    [kept] = listed.json()["tasks"]
    assert (kept["task_id"], kept["server"], kept["name"]) == (task_id, task_url, "deploy")
    assert kept["status"] in ("working", "input_required") and kept["expires_at"]
    shown = mrtr_here("tasks", "list", env=config(tmp_path))
    assert task_id in shown.stdout and "tools/call deploy" in shown.stdout

    record = tmp_path / "resumed.yaml"
    resumed = Pty(tmp_path, "tasks", "resume", task_id, "--answer", "confirm.go=true", "--record", str(record),
                  env=config(tmp_path))
    assert resumed.finish() == 0, resumed.screen
    assert resumed.stdout().strip() == "deployed staging"
    assert "confirm" in resumed.screen and "task completed" in resumed.screen
    recorded = record.read_text()  # a new transcript, from the resume on: the task, its question, its result
    assert f"id: {task_id}" in recorded and "source: flag" in recorded and "text: deployed staging" in recorded
    assert yaml.safe_load(recorded)["task"]["resumed"] is True
    replayed = mrtr_here("replay", str(record), "--url", task_url, env=config(tmp_path))
    assert replayed.code == 1 and "this transcript starts at a resume (mrtr tasks resume --record): it has no " \
        "request to send again" in replayed.stderr, replayed.stderr
    shown = mrtr_here("show", str(record)).stdout  # in order: the question after the status that asked it
    assert "created" not in shown and shown.index("? confirm") < shown.index("✓ task completed"), shown
    assert mrtr_here("tasks", "list", "--json", env=config(tmp_path)).json()["tasks"] == []

    got = mrtr_here("tasks", "get", task_id, "--url", task_url, "--json", env=config(tmp_path))
    assert got.code == 0 and got.json()["task"]["status"] == "completed", got.stderr


def test_cancelling_forgetting_and_the_tasks_no_one_can_come_back_to(tmp_path: Path, task_url: str):
    session, cancelled_id, code = interrupted(tmp_path, "-a", "work=60", "--url", task_url, "--cancel-on-interrupt")
    assert code == 130 and "tasks/cancel sent and acknowledged" in " ".join(words(session.rows())), session.screen
    assert mrtr_here("tasks", "list", "--json", env=config(tmp_path)).json()["tasks"] == []
    followed = mrtr_here("tasks", "resume", cancelled_id, "--url", task_url, "--no-input", env=config(tmp_path))
    assert followed.code == 2 and f"task {cancelled_id} was cancelled" in followed.stderr

    _, kept_id, code = interrupted(tmp_path, "-a", "work=60", "--url", task_url)
    assert code == 130
    cancel = mrtr_here("tasks", "cancel", kept_id, "--json", env=config(tmp_path))  # the server: the one it is kept for
    assert cancel.code == 0 and cancel.json()["forgotten"] is True, cancel.stderr
    assert mrtr_here("tasks", "list", "--json", env=config(tmp_path)).json()["tasks"] == []

    unknown = mrtr_here("tasks", "get", "task-nope", "--url", task_url, env=config(tmp_path))
    assert unknown.code == 2 and "does not know task task-nope" in unknown.stderr.splitlines()[-1]
    unknown = mrtr_here("tasks", "resume", "task-nope", "--url", task_url, "--no-input", env=config(tmp_path))
    assert unknown.code == 2 and unknown.stderr.splitlines()[-1].endswith("; check the id and the server")  # never kept
    nowhere = mrtr_here("tasks", "resume", "abc", "--url", "http://127.0.0.1:1/mcp", "--no-input", env=config(tmp_path))
    assert nowhere.code == 4 and "goes on" not in nowhere.stderr and "come back" not in nowhere.stderr, nowhere.stderr

    long_ago = time.time() - 120
    store = TaskStore(tmp_path / "config" / "tasks")
    store.keep(KeptTask("task-old", task_url, "tools/call", "deploy", "working", None, long_ago, long_ago, 60_000))
    store.keep(KeptTask("task-gone", task_url, "tools/call", "deploy", "working", None, time.time(), time.time()))
    gone = mrtr_here("tasks", "resume", "task-gone", "--no-input", env=config(tmp_path))
    assert gone.code == 2 and gone.stderr.splitlines()[-1] == (
        "✗ the server does not know task task-gone (it may have expired): tasks/get said 'Failed to retrieve task: "
        "Task not found'; its id is forgotten"), gone.stderr
    late = mrtr_here("tasks", "resume", "task-old", env=config(tmp_path))
    assert late.code == 2 and "task task-old expired" in late.stderr, late.stderr
    assert mrtr_here("tasks", "list", "--json", env=config(tmp_path)).json()["tasks"] == []


def test_a_task_of_a_stdio_server_is_lost_with_it(tmp_path: Path):
    server = " ".join([*TASK_SERVER, "stdio"])
    session, task_id, code = interrupted(tmp_path, "-a", "work=60", "--stdio", server)
    assert code == 130
    assert f"task {task_id} lived in the stdio server, which mrtr stops now: the task is lost" in \
        " ".join(words(session.rows()))
    assert not (tmp_path / "config" / "tasks").exists()
    resumed = mrtr_here("tasks", "resume", task_id, "--stdio", server, env=config(tmp_path))
    assert resumed.code == 1
    assert "a task of a stdio server lived in the process mrtr started for the call" in resumed.stderr


def test_the_store_keeps_what_it_can_trust_and_bounds_what_a_server_said(tmp_path: Path):
    store = TaskStore(tmp_path / "tasks")
    keeper = TaskKeeper("https://Example.com/mcp/", "tools/call", "deploy", store)
    keeper(events.TaskCreated(3, "t-1", "working", "x" * 5000, 100, 2**80))
    [kept] = store.tasks_of("https://example.com/mcp")  # one server, however its URL is written
    assert len(kept.status_message) == 1000 and kept.ttl_ms is None  # a silly ttl is no ttl
    keeper(events.TaskStatusChanged("t-1", "input_required", None))
    assert store.find("t-1")[0].status == "input_required"
    keeper(events.OutcomeReached(None))
    assert store.find("t-1")  # not terminal: kept for resume
    keeper(events.TaskStatusChanged("t-1", "completed", None))
    keeper(events.OutcomeReached(None))
    assert store.every_task() == []  # terminal and shown: dropped

    path = store.path_for("https://example.com/mcp")
    for hostile in ('{"version": 1, "tasks": [{"task_id": 5}]}', "[]", "not json", '{"version": 2, "tasks": []}'):
        path.write_text(hostile)
        assert store.every_task() == []
    store.keep(KeptTask("t-2", "https://example.com/mcp", "tools/call", "deploy", "working", None, 1.0, 1.0))
    assert [task.task_id for task in store.every_task()] == ["t-2"]
    path.rename(tmp_path / "elsewhere.json")
    path.symlink_to(tmp_path / "elsewhere.json")
    assert store.every_task() == []  # reached through a symbolic link: not ours to trust


KEEPER = """
import sys, time
from pathlib import Path
from mrtr_cli.config.kept_tasks import KeptTask, TaskStore
store, which = TaskStore(Path(sys.argv[1])), sys.argv[2]
for number in range(15):
    store.keep(KeptTask(f"t-{which}-{number}", "http://example.com/mcp", "tools/call", "x", "working", None,
                        time.time(), time.time()))
"""


def test_calls_keeping_ids_at_once_lose_none(tmp_path: Path):
    """Six processes keep 15 ids each for one server at once: each read-modify-write holds the folder's lock."""
    folder = tmp_path / "tasks"
    keepers = [subprocess.Popen([PYTHON, "-c", KEEPER, str(folder), str(which)], cwd=ROOT) for which in range(6)]
    assert [keeper.wait(timeout=60) for keeper in keepers] == [0] * 6
    assert len(TaskStore(folder).tasks_of("http://example.com/mcp")) == 90
