"""`mrtr load`: MRTR transcripts replayed as Locust users against demo servers over HTTP on
127.0.0.1, every run bounded by --conversations (never by time); TranscriptUser in a locustfile run
by `locust` itself; and mrtr's own start-up never importing Locust or gevent. Each run is a process
of its own: Locust monkey-patches the process that imports it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import PYTHON, ROOT, mrtr
from peers import SHARED_STATE_KEY, free_port, http_server, sdk_instances_over_http

BOOK = str(ROOT / "tests" / "load" / "book_table.yaml")
TWO = str(ROOT / "tests" / "load" / "two_questions.yaml")
"""Recorded with `mrtr call book_table|two_questions --demo --answers examples/... --record`: 4 and 2 rounds."""
DEMO = [PYTHON, "-m", "mrtr_cli", "demo-server", "--http", "127.0.0.1:0"]
STATE_REFUSED = "error -32602 'requestState failed verification: it was altered or not issued by this server'"
WARNINGS_ARE_ERRORS = {"PYTHONWARNINGS": "error"}


@pytest.fixture(scope="module")
def shared_pair():
    """Two demo instances sealing requestState under one key, and a third with a key of its own."""
    with http_server([*DEMO, "--state-key", "shared"]) as a, http_server([*DEMO, "--state-key", "shared"]) as b, \
            http_server(DEMO) as c:
        yield a, b, c


def rows(stdout: str) -> dict[str, int]:
    """The summary's rows: each round's and each conversation's name, and how many it counted."""
    found = {}
    for line in stdout.splitlines()[1:]:
        match = re.match(r"  (\S.*?\S)\s+(\d+)  p50 ", line)
        if match:
            found[match.group(1)] = int(match.group(2))
    return found


def test_instances_sharing_the_state_key_replay_every_conversation_the_same(shared_pair):
    """Round k goes to instance (k-1) mod 2: every retry meets the other instance and is accepted.
    Run with warnings as errors: Locust's monkey-patching came before ssl, socket and threading."""
    a, b, _ = shared_pair
    run = mrtr("load", BOOK, TWO, "--url", a, "--replica", b, "--conversations", "12", "--users", "4",
               "--weight", f"{TWO}=2", env=WARNINGS_ARE_ERRORS)
    assert run.code == 0, run.stderr
    assert run.stdout.startswith("12 conversations (12 same, 0 diverged, 0 failed) in "), run.stdout
    counted = rows(run.stdout)
    assert counted.get("book_table.yaml", 0) + counted.get("two_questions.yaml", 0) == 12, run.stdout
    for name in ("book_table.yaml", "two_questions.yaml"):
        rounds = 4 if name.startswith("book") else 2
        label = name.removesuffix(".yaml")
        assert all(counted.get(f"{label} · round {k}") == counted.get(name) for k in range(1, rounds + 1)), run.stdout
    assert run.stderr == ""


def test_an_instance_with_its_own_key_refuses_every_retry_and_the_refusal_is_named(shared_pair):
    a, _, c = shared_pair
    run = mrtr("load", BOOK, "--url", a, "--replica", c, "--conversations", "5", "--users", "2")
    assert run.code == 6, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("5 conversations (0 same, 5 diverged, 0 failed) in "), run.stdout
    where = c.removeprefix("http://").removesuffix("/mcp")
    assert lines[1].startswith(f"  ✗ 5 × book_table.yaml: the retry went to another instance ({where}) and was "
                               f"refused: {STATE_REFUSED}; "), run.stdout
    assert rows(run.stdout) == {"book_table · round 1": 5, "book_table · round 2": 5, "book_table.yaml": 5}


def test_locust_is_imported_before_httpx_and_anything_of_mrtr(shared_pair):
    """-X importtime lists each import as it ends: Locust (which patched the process) before httpx,
    ssl's users and mrtr's own modules after the entry point."""
    a, b, _ = shared_pair
    done = subprocess.run([PYTHON, "-X", "importtime", "-W", "error", "-m", "mrtr_cli", "load", BOOK, "--url", a,
                           "--replica", b, "--conversations", "1", "--users", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    names = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    first = {name: names.index(name) for name in ("locust", "httpx", "mrtr_cli.process.signals", "mrtr_cli.cli")}
    assert first["locust"] < min(first["httpx"], first["mrtr_cli.process.signals"], first["mrtr_cli.cli"]), first


def test_a_call_never_imports_locust_or_gevent():
    code = ("import sys\nfrom mrtr_cli.entry import main\n"
            f"main(['call', 'book_table', '--demo', '--answers', {str(ROOT / 'examples' / 'book_table.yaml')!r}])\n"
            "main(['discover', '--demo', '--json'])\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('locust', 'gevent')))")
    done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.splitlines()[-1] == "[]", done.stdout + done.stderr


def test_without_locust_load_says_how_to_install_it():
    code = ("import sys\nsys.modules['locust'] = None  # as if not installed: importing it raises ImportError\n"
            "from mrtr_cli.entry import main\n"
            f"sys.exit(main(['load', {BOOK!r}, '--url', 'http://127.0.0.1:1/mcp']))")
    done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          env={**__import__("os").environ, "NO_COLOR": "1"})
    assert done.returncode == 1
    assert done.stderr == ("✗ mrtr load runs its users on Locust, which is not installed; install the extra: "
                           "pip install 'mrtr[load]'\n")


def test_a_stdio_server_or_none_is_refused_and_a_server_not_there_is_exit_4(tmp_path: Path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"s": {"command": "server"}}}), encoding="utf-8")
    stdio = mrtr("load", BOOK, "--config", str(config), "--server", "s")
    assert stdio.code == 1
    assert stdio.stderr.startswith("✗ mrtr load loads a server over HTTP, and this one is a stdio process")
    none = mrtr("load", BOOK)
    assert (none.code, none.stderr) == (1, "✗ mrtr load needs the server's URL: it loads a server over HTTP, never "
                                           "the recorded one; give --url URL (and --replica URL for each other "
                                           "instance)\n")
    gone = mrtr("load", BOOK, "--url", f"http://127.0.0.1:{free_port()}/mcp", "--conversations", "1")
    assert gone.code == 4, gone.stderr
    assert gone.stderr.startswith("✗ cannot reach http://127.0.0.1:")
    weight = mrtr("load", BOOK, "--url", "http://127.0.0.1:1/mcp", "--weight", "other.yaml=2")
    assert weight.code == 1 and weight.stderr.startswith("✗ --weight 'other.yaml=2' is not FILE=N")


def test_a_users_locustfile_runs_transcript_users_under_locust_itself(shared_pair, tmp_path: Path):
    """`from mrtr_cli.load import TranscriptUser` in a locustfile, configured by class attributes,
    run by Locust's own CLI headless; its report names each round and the conversation."""
    a, b, _ = shared_pair
    locustfile = tmp_path / "locustfile.py"
    locustfile.write_text("from mrtr_cli.load import TranscriptUser\n\n\n"
                          "class Booking(TranscriptUser):\n"
                          f"    transcripts = [{BOOK!r}]\n    url = {a!r}\n    replicas = [{b!r}]\n"
                          "    conversations = 4\n", encoding="utf-8")
    locust = str(Path(PYTHON).parent / "locust")
    done = subprocess.run([locust, "-f", str(locustfile), "--headless", "-u", "2", "-r", "2", "--only-summary"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    table = done.stdout + done.stderr
    for name in ("book_table · round 1", "book_table · round 4", "book_table.yaml"):
        assert re.search(rf"{re.escape(name)}\s+4\s+0\(0\.00%\)", table), table[-3000:]


def test_json_follows_its_schema_and_locust_writes_its_csv_and_html_reports(shared_pair, tmp_path: Path):
    import jsonschema

    a, _, c = shared_pair
    prefix, html = tmp_path / "run", tmp_path / "run.html"
    run = mrtr("load", BOOK, "--url", a, "--replica", c, "--conversations", "3", "--users", "3", "--json",
               "--csv", str(prefix), "--html", str(html))
    assert run.code == 6, run.stderr
    document = run.json()
    jsonschema.validate(document, json.loads((ROOT / "docs/json/load.schema.json").read_text(encoding="utf-8")))
    assert (document["conversations"], document["same"], document["diverged"], document["failed"]) == (3, 0, 3, 0)
    assert [(r["type"], r["name"], r["count"]) for r in document["requests"]] == [
        ("tools/call", "book_table · round 1", 3), ("tools/call", "book_table · round 2", 3),
        ("conversation", "book_table.yaml", 3)]
    assert json.loads(run.stderr) == {"error": {"code": "diverged",
                                                "message": "3 of 3 conversations did not replay the same"}}
    stats = (tmp_path / "run_stats.csv").read_text(encoding="utf-8").splitlines()
    assert stats[0].startswith("Type,Name,Request Count,Failure Count")
    assert "conversation,book_table.yaml,3,3," in "\n".join(stats)
    assert "was refused" in (tmp_path / "run_failures.csv").read_text(encoding="utf-8")
    report = html.read_text(encoding="utf-8")
    assert "book_table.yaml" in report and "round 2" in report  # its JSON escapes the middle dot


def test_a_master_and_two_workers_count_every_conversation_and_their_totals_add_up(shared_pair):
    """Locust's distributed mode on 127.0.0.1: the workers take no transcripts and no URL (the master
    sends them), each ends its share of --conversations, and the master's summary counts them all."""
    a, b, _ = shared_pair
    port = str(free_port())
    worker = [PYTHON, "-m", "mrtr_cli", "load", "--worker", "--master-host", "127.0.0.1", "--master-port", port]
    workers = [subprocess.Popen(worker, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
               for _ in range(2)]
    try:
        master = mrtr("load", BOOK, TWO, "--url", a, "--replica", b, "--master", "--expect-workers", "2",
                      "--master-bind-port", port, "--users", "4", "--conversations", "11")
        finished = [process.communicate(timeout=60) for process in workers]
    finally:
        for process in workers:
            process.kill() if process.poll() is None else None
    assert master.code == 0, master.stderr
    assert master.stdout.startswith("11 conversations (11 same, 0 diverged, 0 failed) in "), master.stdout
    counts = []
    for process, (stdout, stderr) in zip(workers, finished):
        assert process.returncode == 0, stderr
        counts.append(int(re.match(r"(\d+) conversations \(\1 same, 0 diverged, 0 failed\)", stdout).group(1)))
    assert sorted(counts) == [5, 6]
    master_rows, worker_rows = rows(master.stdout), [rows(stdout) for stdout, _ in finished]
    assert all(master_rows[name] == sum(w.get(name, 0) for w in worker_rows) for name in master_rows), finished


def test_processes_runs_local_workers_under_a_master(shared_pair):
    a, b, _ = shared_pair
    run = mrtr("load", BOOK, "--url", a, "--replica", b, "--processes", "2", "--users", "2", "--conversations", "6")
    assert run.code == 0, run.stderr
    assert run.stdout.startswith("6 conversations (6 same, 0 diverged, 0 failed) in "), run.stdout
    assert rows(run.stdout)["book_table · round 4"] == 6


def test_a_worker_takes_no_transcripts_and_needs_its_master():
    given = mrtr("load", BOOK, "--worker", "--master-host", "127.0.0.1")
    assert (given.code, given.stderr) == (1, "✗ a --worker takes no transcripts, --url, --config or --replica: its "
                                             "master sends them; give them to `mrtr load --master`; a worker takes "
                                             "its own -H and login flags\n")
    alone = mrtr("load", "--worker")
    assert (alone.code, alone.stderr) == (1, "✗ --worker needs the master's host; give --master-host HOST (and "
                                             "--master-port PORT)\n")


def test_web_serves_locusts_ui_on_127_0_0_1_and_the_users_start_from_it(shared_pair):
    import httpx

    a, b, _ = shared_pair
    port = free_port()
    process = subprocess.Popen([PYTHON, "-m", "mrtr_cli", "load", BOOK, "--url", a, "--replica", b, "--web",
                                "--web-port", str(port), "--conversations", "3"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               env={**__import__("os").environ, "NO_COLOR": "1"})
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # said once the UI listens
        assert line == f"Locust's web UI: http://127.0.0.1:{port}/ (start the users there)\n"
        started = httpx.post(f"http://127.0.0.1:{port}/swarm", data={"user_count": "2", "spawn_rate": "2"})
        assert started.json()["success"] is True
        stdout, stderr = process.communicate(timeout=60)
    finally:
        process.kill() if process.poll() is None else None
    assert process.returncode == 0, stderr
    assert stdout.startswith("3 conversations (3 same, 0 diverged, 0 failed) in "), stdout


@pytest.mark.parametrize("state_key", [SHARED_STATE_KEY, None], ids=["shared key", "a key each"])
def test_the_sdks_mcpserver_over_http_as_two_instances(state_key: str | None, tmp_path: Path):
    """The PyPI `mcp` SDK's MCPServer (tests/servers/sdk_server.py), a transcript recorded against it:
    sharing SDK_STATE_KEY every conversation replays the same; with a key each, every retry is refused."""
    transcript = str(tmp_path / "greet.yaml")
    with sdk_instances_over_http(state_key) as (a, b):
        recorded = mrtr("call", "greet", "-a", "greeting=Hi", "--answer", "__main__:ask_name.name=Ada", "--url", a,
                        "--record", transcript)
        assert recorded.code == 0, recorded.stderr
        run = mrtr("load", transcript, "--url", a, "--replica", b, "--conversations", "4", "--users", "2")
    if state_key:
        assert run.code == 0, run.stdout + run.stderr
        assert run.stdout.startswith("4 conversations (4 same, 0 diverged, 0 failed) in "), run.stdout
        assert rows(run.stdout) == {"greet · round 1": 4, "greet · round 2": 4, "greet.yaml": 4}
    else:
        assert run.code == 6, run.stdout + run.stderr
        assert run.stdout.startswith("4 conversations (0 same, 4 diverged, 0 failed) in "), run.stdout
        where = b.removeprefix("http://").removesuffix("/mcp")
        assert f"✗ 4 × greet.yaml: the retry went to another instance ({where}) and was refused: " in run.stdout


def interrupted_at_the_web_ui(*args: str) -> tuple[int, str, str]:
    """`mrtr load ARGS --web` sent Ctrl-C once it says where its web UI is: its exit code, stdout, stderr."""
    process = subprocess.Popen([PYTHON, "-m", "mrtr_cli", "load", *args, "--web", "--web-port", str(free_port())],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               env={**__import__("os").environ, "NO_COLOR": "1"})
    try:
        assert process.stderr is not None
        assert process.stderr.readline().startswith("Locust's web UI: ")
        process.send_signal(__import__("signal").SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        process.kill() if process.poll() is None else None
    return process.returncode, stdout, stderr


def test_ctrl_c_ends_the_run_with_the_summary_and_130(shared_pair):
    """Interrupted while the web UI waits for someone to start the users: nothing ran, and it says so."""
    a, _, _ = shared_pair
    code, stdout, stderr = interrupted_at_the_web_ui(BOOK, "--url", a)
    assert code == 130, stderr
    assert stdout.startswith("0 conversations (0 same, 0 diverged, 0 failed) in "), stdout
    assert stderr == ""


def test_run_time_reads_durations_as_locust_writes_them(shared_pair):
    from mrtr_cli.definition.options import duration

    assert [duration(text) for text in ("30s", "5m", "1h", "2.5")] == [30.0, 300.0, 3600.0, 2.5]
    with pytest.raises(ValueError, match="is not a duration: give seconds, or a number with s, m or h"):
        duration("5 minutes")
    a, b, _ = shared_pair
    run = mrtr("load", BOOK, "--url", a, "--replica", b, "--run-time", "1s", "--users", "2")
    assert run.code == 0, run.stderr  # however many conversations a second held, each the same
    assert re.match(r"(\d+) conversations \(\1 same, 0 diverged, 0 failed\) in ", run.stdout), run.stdout
    wrong = mrtr("load", BOOK, "--url", a, "--run-time", "soon")
    assert wrong.code == 1 and "'soon' is not a duration" in wrong.stderr


def test_weight_names_a_transcript_given_and_a_weight_of_1_or_more(shared_pair):
    """Weight 0 is refused (a transcript never picked is one not given); each refusal is one line."""
    a, _, _ = shared_pair
    for text in (f"{TWO}=0", f"{TWO}=x", f"{TWO}", f"{TWO}.other=2"):
        run = mrtr("load", BOOK, TWO, "--url", a, "--conversations", "1", "--weight", text)
        assert (run.code, run.stderr) == (1, f"✗ --weight {text!r} is not FILE=N with FILE one of the transcripts "
                                             "and N 1 or more; give --weight TRANSCRIPT.yaml=3, naming the "
                                             "transcript as it is given\n"), text


def test_weights_reach_the_users_plan_and_the_master_sends_them():
    """In a process of its own (Locust patches it): the plan's weights are the --weight given, 1 else,
    and a worker's plan from its master's message keeps them."""
    script = f"""
import locust, tempfile, pathlib
from mrtr_cli.load.running import plan_of
from mrtr_cli.load.distributed import plan_message, plan_from_message
from mrtr_cli.definition.options import AnsweringOptions, LoadingOptions, TargetOptions
target = TargetOptions(url="http://127.0.0.1:1/mcp")
plan = plan_of(({BOOK!r}, {TWO!r}), (), LoadingOptions(weights=({TWO + "=3"!r},)), (), target, AnsweringOptions())
sent = plan_from_message(plan_message(plan, target.url, None), pathlib.Path(tempfile.mkdtemp()), target,
                         AnsweringOptions())
print([(t.name, t.weight) for t in plan.transcripts], [(t.name, t.weight) for t in sent.transcripts])
"""
    done = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    weights = [("book_table.yaml", 1), ("two_questions.yaml", 3)]
    assert done.stdout == f"{weights} {weights}\n"


def test_a_weighted_transcript_is_replayed_about_that_many_times_as_often(shared_pair):
    """A real run of 200 conversations with --weight TWO=4: each conversation picks its transcript at random by
    the weights, so two_questions.yaml comes about 4 times as often as book_table.yaml (counted, the bounds
    wide: about 160 and 40, each bound more than four standard deviations away)."""
    a, _, _ = shared_pair
    run = mrtr("load", BOOK, TWO, "--url", a, "--conversations", "200", "--users", "8", "--weight", f"{TWO}=4",
               timeout=120)
    assert run.code == 0, run.stderr
    counted = rows(run.stdout)
    book, two = counted.get("book_table.yaml", 0), counted.get("two_questions.yaml", 0)
    assert book + two == 200, run.stdout
    assert 10 <= book <= 65 and two > 2 * book, run.stdout  # unweighted it would be about 100 each


def test_a_login_is_obtained_once_and_shared_by_every_user(tmp_path: Path):
    """Against the tests' OAuth server (tests/servers/oauth_server.py), a machine logging in with the client
    credentials grant: with no token kept, 20 conversations by 5 users cost one grant (the server counts each
    access token it issues), and the secret is in no output."""
    import shutil

    from peers import oauth_http

    secret, grants = "load-secret-7d2e", tmp_path / "grants.txt"
    grants.write_text("")
    config = tmp_path / "config"
    env = {"MRTR_CLIENT_SECRET": secret, "MRTR_CONFIG_DIR": str(config)}
    machine = ("--client-credentials", "--client-id", "load-bot")
    recorded = tmp_path / "whoami.yaml"
    with oauth_http("--machine-client", f"load-bot:{secret}", "--grants-file", str(grants)) as url:
        call = mrtr("call", "whoami", "--url", url, *machine, "--record", str(recorded), env=env)
        assert call.code == 0, call.stderr
        assert grants.read_text().splitlines() == ["load-bot"]
        shutil.rmtree(config)  # no token kept: the run must log in
        run = mrtr("load", str(recorded), "--url", url, *machine, "--conversations", "20", "--users", "5",
                   env=env, timeout=120)
    assert run.code == 0, run.stderr
    assert run.stdout.startswith("20 conversations (20 same, 0 diverged, 0 failed) in "), run.stdout
    assert grants.read_text().splitlines() == ["load-bot"] * 2  # the call's, and one for the whole run
    assert secret not in run.stdout + run.stderr + recorded.read_text()


def test_think_and_spawn_rate_reach_locust():
    """The user class's wait_time is --think; the runner starts users at --spawn-rate (default: --users)."""
    script = f"""
import locust
from mrtr_cli.commands.common import make_context
from mrtr_cli.load.running import plan_of, start, user_class
from mrtr_cli.definition.options import AnsweringOptions, LoadingOptions, OutputOptions, TargetOptions
from locust.env import Environment
for loading in (LoadingOptions(users=3, think=0.25, spawn_rate=1.5), LoadingOptions(users=3)):
    plan = plan_of(({BOOK!r},), (), loading, (), TargetOptions(url="http://127.0.0.1:1/mcp"), AnsweringOptions())
    environment = Environment(user_classes=[user_class(plan)])
    runner = environment.create_local_runner()
    started = []
    runner.start = lambda users, spawn_rate, **_: started.append((users, spawn_rate))  # no user sends anything
    start(make_context(OutputOptions(color="never")), environment, loading)
    print(user_class(plan)(environment).wait_time(), started)
"""
    done = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "0.25 [(3, 1.5)]\n0.0 [(3, 3)]\n"


def test_think_and_spawn_rate_are_taken_and_their_bad_values_are_one_line(shared_pair):
    a, b, _ = shared_pair
    run = mrtr("load", BOOK, "--url", a, "--replica", b, "--conversations", "2", "--users", "2", "--think", "0.01",
               "--spawn-rate", "100")
    assert run.code == 0, run.stderr
    assert run.stdout.startswith("2 conversations (2 same, 0 diverged, 0 failed) in "), run.stdout
    for option, value in (("--think", "-1"), ("--think", "soon"), ("--spawn-rate", "0"), ("--spawn-rate", "x")):
        wrong = mrtr("load", BOOK, "--url", a, "--conversations", "1", option, value)
        assert wrong.code == 1 and wrong.stderr.count("\n") == 1, wrong.stderr  # the parser's line, as for any option
        assert wrong.stderr.startswith(f"mrtr: {option}: {value!r} is not a number of "), wrong.stderr
        assert wrong.stderr.endswith(" (see mrtr load --help)\n"), wrong.stderr


def test_ctrl_c_right_after_the_masters_line_ends_it_with_the_summary_and_130(shared_pair):
    """--processes: the master's web UI line comes once its worker is connected; a Ctrl-C then is caught."""
    a, _, _ = shared_pair
    code, stdout, stderr = interrupted_at_the_web_ui(BOOK, "--url", a, "--processes", "1")
    assert code == 130, stderr
    assert stdout.startswith("0 conversations (0 same, 0 diverged, 0 failed) in "), stdout


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="Linux alone signals a parent's death")
def test_a_killed_masters_local_workers_die_with_it(shared_pair):
    """--processes: killed outright (no handler runs), the master leaves no worker behind: the kernel
    ends each (prctl PR_SET_PDEATHSIG). Their ends are awaited on pidfds, bounded, never slept on."""
    import os
    import select
    import signal

    a, _, _ = shared_pair
    port = free_port()
    master = subprocess.Popen([PYTHON, "-m", "mrtr_cli", "load", BOOK, "--url", a, "--processes", "2", "--web",
                               "--web-port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                              env={**os.environ, "NO_COLOR": "1"})
    workers: list[int] = []
    try:
        assert master.stderr is not None
        assert master.stderr.readline().startswith("Locust's web UI: ")  # said once both workers are connected
        children = Path(f"/proc/{master.pid}/task/{master.pid}/children").read_text().split()
        workers = [int(pid) for pid in children]
        assert len(workers) == 2, children
        ends = [os.pidfd_open(pid) for pid in workers]
        master.kill()
        master.communicate(timeout=30)  # and its pipes closed
        for end in ends:
            ready, _, _ = select.select([end], [], [], 30)
            assert ready, "a worker outlived its killed master"
            os.close(end)
    finally:
        master.kill() if master.poll() is None else None
        for pid in workers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
