"""What only a real mrtr process shows: a signal (Ctrl-C, SIGTERM, SIGHUP) ending a run in order, a
reader of stdout that goes away (exit 141), the exit through `python -m mrtr_cli`, and a terminal's
wrapping through a pty. Everything else about a run is tested in-process (conftest.mrtr_here)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pexpect
import pytest
import yaml

from conftest import PYTHON, ROOT, input_required, mrtr, mrtr_here, text_result
from test_hostile_stdio import process_alive, wait_for
from test_output_rules import DESCRIPTION, LISTED, LONG_NAME, TEMPLATE
from test_replay_jobs import BOOK_TABLE, recorded
from test_stdio_pipes import BIG_STATE, FORM


def test_130_ctrl_c_cancels_and_exits(scripted):
    server = scripted(steps=[{"silent": True}])
    process = subprocess.Popen([PYTHON, "-m", "mrtr_cli", *server.args("call", "t", "--json")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               env={**os.environ, "NO_COLOR": "1"})
    deadline = time.monotonic() + 20
    while not server.calls() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.calls(), "the request never reached the server"
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=20)
    assert process.returncode == 130
    assert json.loads(stdout)["outcome"] == "aborted"
    assert json.loads(stderr.strip().splitlines()[-1])["error"]["code"] == "interrupted"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not any(
            m.get("method") == "notifications/cancelled" for m in server.received()):
        time.sleep(0.05)
    assert any(m.get("method") == "notifications/cancelled" for m in server.received())


@pytest.mark.parametrize("output", [["--json"], []])
def test_141_a_reader_that_goes_away_ends_mrtr_quietly(scripted, output: list[str]):
    server = scripted(steps=[{"big": 2_000_000}])
    command = [PYTHON, "-m", "mrtr_cli", *server.args("call", "t", *output)]
    environment = {**os.environ, "NO_COLOR": "1"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=environment)
    assert process.stdout is not None and process.stdout.read(1)
    process.stdout.close()  # as `| head -c 1` does
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 141, stderr
    assert b"unexpected failure" not in stderr and b"Traceback" not in stderr and b"Exception" not in stderr


@pytest.mark.parametrize("args, code", [(["--version"], 0), (["call", "t", "--no-such-flag"], 1)])
def test_the_process_exits_with_the_code_and_its_objects_frozen_from_the_collector(args: list[str], code: int):
    """`python -m mrtr_cli` freezes its objects before exiting (entry.console), so shutting down
    skips the collector's passes over every loaded library; the exit code is main's."""
    probe = ("import gc, runpy, sys\n"
             f"sys.argv = ['mrtr', *{args!r}]\n"
             "try:\n    runpy.run_module('mrtr_cli', run_name='__main__')\n"
             "except SystemExit as exit:\n    print('exit', exit.code, 'frozen', gc.get_freeze_count() > 0)\n")
    done = subprocess.run([PYTHON, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.splitlines()[-1] == f"exit {code} frozen True", done.stdout + done.stderr


def test_a_signal_stops_a_write_blocked_on_a_server_that_reads_nothing(scripted, tmp_path: Path):
    pidfile = tmp_path / "server.pid"
    server = scripted(pidfile=str(pidfile), steps=[{"result": input_required({"n": FORM}, BIG_STATE), "pause": 60}])
    process = subprocess.Popen([PYTHON, "-m", "mrtr_cli", *server.args("call", "t", "--answer", "n.name=Ada",
                                                                       "--json", "--timeout", "60")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert wait_for(lambda: len(server.calls()) == 1 and pidfile.exists())
        time.sleep(1.5)  # round 2's write fills the pipe and waits
        assert process.poll() is None
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
        assert process.returncode == 143, stderr[-2000:]
        assert json.loads(stderr.strip().splitlines()[-1])["error"]["code"] == "terminated"
        assert wait_for(lambda: not process_alive(int(pidfile.read_text())), 10), "the server outlived mrtr"
    finally:
        process.kill()
        process.communicate(timeout=10)


def test_ctrl_c_stops_the_workers_and_their_servers_and_exits_130(tmp_path: Path, scripted):
    pidfile = tmp_path / "server.pid"
    server = scripted(steps=[{"result": text_result("recorded")}])
    hang = recorded(tmp_path, "hang.yaml", "call", "t", "--", *server.command)
    Path(server.path).write_text(json.dumps({"pidfile": str(pidfile), "log": str(server.log),
                                             "steps": [{"hang": 60}]}))
    process = subprocess.Popen([PYTHON, "-m", "mrtr_cli", "replay", str(hang), str(BOOK_TABLE), "-j", "2",
                                "--trust-target"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT, env={**os.environ, "NO_COLOR": "1"})
    try:
        assert wait_for(lambda: pidfile.exists() and len(server.calls()) == 2), "the replay never reached the server"
        pid = int(pidfile.read_text())
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
        assert process.returncode == 130, stderr
        assert stderr.splitlines()[0] == f"✗ {hang}: interrupted by the user", stderr
        assert wait_for(lambda: not process_alive(pid), 5), "the server outlived its worker"
        assert "Traceback" not in stderr
    finally:
        process.kill()
        if pidfile.exists() and process_alive(int(pidfile.read_text())):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)


@pytest.mark.parametrize("sig,code,label", [(signal.SIGTERM, 143, "terminated"), (signal.SIGHUP, 129, "hangup")])
def test_a_signal_stops_the_server_finishes_the_transcript_and_exits(scripted, tmp_path: Path, sig, code, label):
    pidfile, record = tmp_path / "server.pid", tmp_path / "t.yaml"
    server = scripted(pidfile=str(pidfile), steps=[{"hang": 60}])
    process = subprocess.Popen([PYTHON, "-m", "mrtr_cli", *server.args("call", "t", "--json", "--record", str(record))],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               env={**os.environ, "NO_COLOR": "1"})
    try:
        assert wait_for(lambda: server.calls() and pidfile.exists()), "the request never reached the server"
        pid = int(pidfile.read_text())
        process.send_signal(sig)
        stdout, stderr = process.communicate(timeout=20)
        assert process.returncode == code, stderr
        error_line, document = json.loads(stderr.strip().splitlines()[-1]), json.loads(stdout)
        assert error_line["error"]["code"] == label and document["outcome"] == "aborted"
        jsonschema.validate(error_line, json.loads((ROOT / "docs/json/error-line.schema.json").read_text()))
        jsonschema.validate(document, json.loads((ROOT / "docs/json/conversation.schema.json").read_text()))
        assert wait_for(lambda: not process_alive(pid), 5), "the server outlived mrtr"
        document = yaml.safe_load(record.read_text())
        assert document["outcome"] == "aborted" and document["error"]["kind"] == label
        assert mrtr_here("show", str(record), "--json").json()["outcome"] == "aborted"
    finally:
        process.kill()
        if pidfile.exists() and process_alive(int(pidfile.read_text())):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)


@pytest.mark.parametrize("kind,name", [("tools", LONG_NAME), ("templates", TEMPLATE)])
def test_list_on_a_terminal_wraps_descriptions_never_names(scripted, kind, name):
    server = scripted(**LISTED)
    environment = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    child = pexpect.spawn(PYTHON, ["-m", "mrtr_cli", *server.args("list", kind, "--color", "never")], cwd=str(ROOT),
                          env={**environment, "TERM": "xterm", "NO_COLOR": "1"}, encoding="utf-8", timeout=20,
                          dimensions=(40, 140))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    lines = [line for line in child.before.replace("\r", "").splitlines() if line.strip()]
    table = lines[next(i for i, line in enumerate(lines) if line.startswith(("name ", "uriTemplate "))):]
    assert table[1].startswith(name + "  ")  # whole, on the row's first line
    assert all(len(line.rstrip()) <= 140 for line in table)
    words = " ".join(table).split()
    assert len(table) > 3 and DESCRIPTION not in "".join(table)  # the description wrapped under its column
    assert set(DESCRIPTION.split()) <= set(words)
    assert "resourceId" in "".join(table)


def test_a_small_result_to_a_reader_gone_is_141():
    """rich's Console ended the run with exit 1 (its own SystemExit) when stdout's reader had gone."""
    server = f"{sys.executable} {ROOT / 'benchmarks' / 'server.py'}"
    command = [sys.executable, "-m", "mrtr_cli", "call", "ask", "--answer", "step.ok=true", "--stdio", server]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                               env={**os.environ, "NO_COLOR": "1"})
    assert process.stdout is not None
    process.stdout.close()  # as `| true` does, before the result is written
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 141, stderr
    assert b"Traceback" not in stderr


def test_an_answer_a_served_recording_did_not_give_gets_advice_about_the_answer():
    """A `serve` answer mismatch once ended `check the name and the arguments`."""
    run = mrtr("call", "book_table", "--answers", "examples/book_table.yaml", "--answer", "date.date=2031-01-01",
               "--no-input", "--", PYTHON, "-m", "mrtr_cli", "serve", "recordings/book_table.yaml")
    assert run.code == 2, run.stderr
    assert run.stderr.rstrip().endswith(
        'content.date is "2031-01-01", recorded "2026-12-24"; the server plays back a recording, which answered '
        "'date' otherwise: give the recorded answer (--answer, --answers), or serve a recording of this answer too")
    assert "check the name and the arguments" not in run.stderr
