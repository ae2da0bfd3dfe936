"""What a newcomer meets first: results when they are ready, servers dead at start-up, the older
era's unasked questions (issue 24)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from conformance import reference_server
from conftest import PYTHON, ROOT, mrtr_here
from mrtr_cli.check.catalog import probe_ids
from peers import demo_http, everything_over_http
from pty_session import CTRL_C, ENTER, ESC, UP, Pty, prompt

DONE = {"result": {"resultType": "complete", "content": [{"type": "text", "text": "finished"}]}}
INIT = {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "old", "version": "1"}}}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_result_is_printed_before_a_slow_server_is_stopped(scripted, tmp_path: Path):
    """The server stays 30 s after its stdin closes, deaf to SIGTERM: the result reaches stdout
    while it still runs (before, mrtr printed only once the server had gone: 4 s later, killed)."""
    pidfile = tmp_path / "server.pid"
    server = scripted(steps=[DONE], linger=30, pidfile=str(pidfile))
    process = subprocess.Popen([PYTHON, "-m", "mrtr_cli", "call", "t", "--no-input", *server.args()], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "NO_COLOR": "1"})
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == "finished\n"
        assert alive(int(pidfile.read_text())), "the result came only after the server was stopped"
    finally:
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr
    assert not alive(int(pidfile.read_text()))  # still stopped in the end: SIGKILL after the grace


def test_a_missing_server_file_is_said_once_with_its_stderr(tmp_path: Path):
    run = mrtr_here("call", "x", "--", PYTHON, str(tmp_path / "missing.py"))
    assert run.code == 4
    # gone before the probe was written or after: which is the machine's timing, and both are said so
    assert re.search(r"exited with code 2 while mrtr (waited for|sent) server/discover", run.stderr), run.stderr
    assert "missing.py" in run.stderr and "once more" not in run.stderr
    assert "✗ aborted" not in run.stderr  # no conversation to give a status of: the error alone


def test_the_round_limit_is_said_in_good_english():
    run = mrtr_here("call", "book_table", "--demo", "--answers", "examples/book_table.yaml", "--max-rounds", "1")
    assert run.code == 7 and "the server still wants input after 1 answered round (--max-rounds);" in run.stderr, run.stderr


def test_an_older_server_that_asks_for_roots_unprompted_never_decides_the_outcome(tmp_path: Path):
    """server-filesystem asks roots/list right after notifications/initialized whenever the client
    declares roots; nothing here can answer it, so mrtr declares none, and the call never depends
    on when that request would land (before: exit 7 or 0 by timing; with `-a`, tools/list went first)."""
    (tmp_path / "notes.txt").write_text("hello")
    server = ["--", *reference_server("filesystem", str(tmp_path))]
    for arguments in ((), ("-a", f"path={tmp_path}")):
        run = mrtr_here("call", "list_allowed_directories" if not arguments else "list_directory", *arguments,
                        "--no-input", "-v", *server)
        assert run.code == 0, run.stderr
        assert "roots/list" not in run.stderr  # neither declared (-v shows initialize) nor asked
        assert '"capabilities":{"sampling":{},"elicitation"' in run.stderr.replace(" ", "")


def test_at_a_terminal_a_question_before_the_call_is_no_prompt_and_a_refusal_in_the_call_ends_nothing(
        tmp_path: Path, scripted):
    """Before the call's request: no prompt, an error and a warning (before, a prompt). During it:
    the person is asked; refusing sends the server an error, and the result the server sends still
    counts (before, the call ended with exit 7)."""
    roots = {"jsonrpc": "2.0", "method": "roots/list", "params": {}}
    early = json.dumps({**roots, "id": "early"})
    during = json.dumps({**roots, "id": "during"})
    server = scripted(discover={"error": {"code": -32601, "message": "Method not found"}},
                      on_initialized=[early], steps=[INIT, {**DONE, "before": [during], "sleep": 0.2}],
                      tools=[{"name": "t", "inputSchema": {"type": "object"}}])
    recording = tmp_path / "refused.yaml"
    pty = Pty(tmp_path, "call", "t", "-a", "n=1", "--record", str(recording),
              *server.args())  # -a: tools/list, and the early one, go first
    pty.answer(prompt("Share these roots"), ENTER)  # Refuse: where the pointer starts
    assert pty.finish() == 0, pty.screen
    warned = pty.screen.index("! roots#1 got an error: nothing answered question 'roots#1' of round 0")
    assert warned < pty.screen.index("Share these roots")  # the early one was no prompt
    assert "! roots#2 got an error: question 'roots#2' of round 1, roots/list was refused by interactive" \
        in pty.screen  # refused: the call went on
    assert pty.stdout().strip() == "finished"
    replies = {m["id"]: m for m in server.received() if m.get("id") in ("early", "during")}
    assert replies["early"]["error"]["code"] == -32603 and replies["during"]["error"]["code"] == -32603
    again = mrtr_here("replay", str(recording), "--trust-target")  # no person: roots declared, refused again
    assert again.code == 0 and "same as recorded" in again.stderr, again.stderr


def test_list_at_a_terminal_answers_the_servers_requests_from_the_flags_and_asks_nobody(tmp_path: Path, scripted):
    """`mrtr list` declares roots with --root, as `call` would; what the server then asks is answered
    from the flags (roots/list) or refused (elicitation: no --answers), never by a prompt."""
    roots = json.dumps({"jsonrpc": "2.0", "id": "roots", "method": "roots/list", "params": {}})
    form = json.dumps({"jsonrpc": "2.0", "id": "form", "method": "elicitation/create",
                       "params": {"mode": "form", "message": "Name?", "requestedSchema": {
                           "type": "object", "properties": {"name": {"type": "string"}}}}})
    server = scripted(discover={"error": {"code": -32601, "message": "Method not found"}},
                      on_initialized=[roots, form], steps=[INIT], tools=[{"name": "t", "inputSchema": {"type": "object"}}])
    pty = Pty(tmp_path, "list", "tools", "--root", str(tmp_path), *server.args())
    assert pty.finish() == 0, pty.screen  # a prompt would wait for keys that never come
    assert pty.stdout().splitlines()[-1].strip() == "t"
    assert "nothing answered question 'elicitation#1'" in pty.screen
    replies = {m["id"]: m for m in server.received() if m.get("id") in ("roots", "form")}
    assert replies["roots"]["result"]["roots"] == [{"uri": tmp_path.as_uri(), "name": tmp_path.name}]
    assert replies["form"]["error"]["code"] == -32603


def test_over_http_the_era_is_probed_named_and_the_wrong_path_is_said_plainly():
    """The demo over HTTP: the first lines name the era (the probe is server/discover, as on stdio).
    At the wrong path it answers 404 with a JSON body that is no JSON-RPC response: exit 4 with the
    status, the server's words and the fix; no stream "ended twice", no lint of the body."""
    with demo_http() as url:
        right = mrtr_here("call", "poll_status", "--url", url, "--no-input")
        wrong = mrtr_here("call", "poll_status", "--url", url.removesuffix("mcp"), "--no-input")
        tls = mrtr_here("call", "poll_status", "--url", url.replace("http://", "https://"), "--no-input")
    assert right.code == 0, right.stderr
    assert "era: modern (2026-07-28): the server answered server/discover" in right.stderr
    assert wrong.code == 4, wrong.stderr
    assert "HTTP 404 Not Found with the message 'the MCP endpoint is /mcp', to server/discover and to " \
           "initialize: no MCP endpoint at this URL (or only the deprecated HTTP+SSE transport" in wrong.stderr
    assert wrong.stderr.rstrip().endswith("check --url (the path too: often /mcp)")
    assert "twice" not in wrong.stderr and "not-jsonrpc" not in wrong.stderr
    assert tls.code == 4 and "the server answered in plain HTTP (not TLS)" in tls.stderr  # not "--insecure"
    assert tls.stderr.rstrip().endswith("use http:// in --url (--cacert and --insecure cannot help)")


def test_an_older_http_server_is_found_by_the_probe_and_strict_does_not_blame_it_for_the_probe():
    """server-everything refuses the sessionless server/discover with an error whose id is null:
    the refusal an older-era server is expected to send, so no finding at all (before, a red
    error-without-id on every call), and nothing --strict counts (before that, exit 2)."""
    with everything_over_http() as url:
        run = mrtr_here("call", "echo", "-a", "message=hi", "--url", url, "--strict", "--no-input")
    assert run.code == 0, run.stderr
    assert "error-without-id" not in run.stderr and "era probe" not in run.stderr
    assert "era: older (the initialize handshake, 2025-11-25): the server answered server/discover with an error" \
        in run.stderr
    assert "Echo: hi" in run.stdout


def test_record_writes_through_a_link_and_never_over_a_device_a_fifo_or_a_folder(tmp_path: Path):
    """A rename would replace what the path names (as root, `--record /dev/null` replaced the
    system's /dev/null with a file): such a path is refused before anything runs; a symbolic
    link is written through, to its target."""
    folder, fifo = tmp_path / "folder", tmp_path / "pipe.yaml"
    folder.mkdir()
    os.mkfifo(fifo)
    refused = {str(folder): "it is a directory", str(fifo): "it is not a regular file"}
    if os.geteuid() == 0:  # a twin of /dev/null, made where replacing it would harm nothing
        device = tmp_path / "null"
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        refused[str(device)] = "it is not a regular file"
    for path, why in refused.items():
        run = mrtr_here("call", "poll_status", "--demo", "--record", path)
        assert run.code == 1 and f"cannot write --record '{path}': {why}" in run.stderr, run.stderr
        assert not stat.S_ISREG(Path(path).stat().st_mode) and "rounds" not in run.stderr
    (tmp_path / "kept").mkdir()
    (tmp_path / "link.yaml").symlink_to(tmp_path / "kept" / "call.yaml")
    run = mrtr_here("call", "poll_status", "--demo", "--record", str(tmp_path / "link.yaml"))
    assert run.code == 0, run.stderr
    assert (tmp_path / "link.yaml").is_symlink() and "rounds:" in (tmp_path / "kept" / "call.yaml").read_text()
    again = mrtr_here("replay", str(tmp_path / "link.yaml"), "--demo", "--update")
    assert again.code == 0, again.stderr
    assert (tmp_path / "link.yaml").is_symlink()
    answers = tmp_path / "answers.yaml"
    answers.write_text((ROOT / "examples" / "book_table.yaml").read_text())
    over = mrtr_here("call", "book_table", "--demo", "--answers", str(answers), "--record", str(answers))
    assert over.code == 1 and "is the answers file that --answers reads" in over.stderr, over.stderr
    assert answers.read_text() == (ROOT / "examples" / "book_table.yaml").read_text()


def test_at_replays_consent_prompt_escape_says_no_and_ctrl_c_aborts(tmp_path: Path, scripted):
    server = scripted(steps=[DONE, DONE, DONE])
    path = tmp_path / "t.yaml"
    assert mrtr_here("call", "t", "--record", str(path), *server.args()).code == 0
    wide = 1000  # the question names the server's command, tmp_path's length: no row may cut "Run it" in two
    said_no = Pty(tmp_path, "replay", str(path), columns=wide)
    said_no.answer("Run it", ESC)
    assert said_no.finish() == 1 and "would run the recorded command" in said_no.screen
    aborted = Pty(tmp_path, "replay", str(path), columns=wide)
    aborted.answer("Run it", CTRL_C)
    assert aborted.finish() == 130  # before: answered no, exit 1


def named_warns(path: Path) -> set[str]:
    """The probe ids a server's docstring names in its paragraphs about warns."""
    paragraphs = path.read_text().split('"""')[1].split("\n\n")
    named = {id for paragraph in paragraphs if "warn" in paragraph for id in re.findall(r"`([a-z0-9-]+)`", paragraph)}
    return named & set(probe_ids())


def test_the_example_server_passes_check_and_a_tool_call_that_errors_judges_nothing_silently():
    """examples/my_server.py is a model to copy: mrtr check finds no broken MUST in it, and warns only
    what its first lines name. Without the tool's arguments its call is an error: check fails as call
    does (before: every rule skipped, exit 0)."""
    server = ("--", PYTHON, str(ROOT / "examples" / "my_server.py"))
    passed = mrtr_here("check", "--tool", "greet", "-a", "greeting=Hi", "--answer", "name.name=Ada", "--json", *server)
    assert passed.code == 0 and passed.json()["summary"]["fail"] == 0, passed.stdout
    warned = {check["id"] for check in passed.json()["checks"] if check["status"] == "warn"}
    assert warned == named_warns(ROOT / "examples" / "my_server.py")
    errored = mrtr_here("check", "--tool", "greet", "--answer", "name.name=Ada", *server)
    assert errored.code == 2, errored.stdout
    assert "the tool's own call was answered with error -32602" in errored.stdout



@pytest.mark.parametrize("words,said,hint", [
    (["--stdio", "FOO=1 python server.py"], "'FOO=1' would be run as the server's command: mrtr runs no shell",
     'give the environment with -e: -e FOO=1 --stdio "python server.py"'),
    (["--", "FOO=1", "python", "server.py"], "'FOO=1' would be run as the server's command",
     'give the environment with -e: -e FOO=1 --stdio "python server.py"'),
    (["--stdio", "cd srv && python server.py"], "`cd srv &&` needs a shell, and mrtr runs none",
     'give the directory with --cwd: --cwd srv --stdio "python server.py"'),
    (["--url", "127.0.0.1:8000/mcp"], "--url '127.0.0.1:8000/mcp' is not an http(s) URL",
     "give the scheme: --url http://127.0.0.1:8000/mcp"),
], ids=["assignment in --stdio", "assignment after --", "cd and &&", "url without scheme"])
def test_a_command_written_for_a_shell_or_a_url_without_scheme_is_exit_1_with_the_fix(words, said, hint):
    run = mrtr_here("list", "tools", *words)
    assert run.code == 1, run.stderr
    assert run.stderr.startswith(f"✗ {said}") and run.stderr.count("\n") == 1, run.stderr  # one line
    assert run.stderr.strip().endswith(f"; {hint}")


@pytest.mark.parametrize("program", ["./server.py", "server.py"], ids=["not executable", "not on PATH"])
def test_a_script_given_as_the_program_gets_its_interpreter_in_the_hint(tmp_path: Path, program: str):
    (tmp_path / "server.py").write_text("print('never run')\n")
    run = mrtr_here("list", "tools", "--cwd", str(tmp_path), "--stdio", program)
    assert run.code == 4, run.stderr
    assert run.stderr.strip().endswith(f'run it with its interpreter: --stdio "python {program}"'), run.stderr


def test_a_silent_server_is_said_to_be_waited_for_before_the_timeout(scripted):
    """Issue 35: a server that says nothing got no word for a minute. After 5 s of silence (and each
    15 s after) the timeline says what mrtr waits for; a notice is due before the timeout is looked
    at, so with --timeout 6 it is always there, however late mrtr wakes, and the outcome is the
    timeout's alone."""
    server = scripted(steps=[{"silent": True}])
    run = mrtr_here("call", "t", "--no-discover", "--timeout", "6", "--no-input", *server.args())
    assert run.code == 4, run.stderr
    lines = run.stderr.splitlines()
    waited = lines.index("  … waiting for the server to answer tools/call (id 1, 5 s)")
    assert lines[waited + 1] == "  ✗ cancelled request 1 (timed out)"
    assert "no response to tools/call (id 1) within 6 s" in run.stderr
