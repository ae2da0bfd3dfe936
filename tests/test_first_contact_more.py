"""A command that is no MCP server, said quickly and plainly (issue: a newcomer's first minutes):
mrtr's own request echoed back, text that is not JSON-RPC and then silence, an interpreter given no
script. Each run is bounded well under the --timeout (60 s) these once waited out."""

from __future__ import annotations

from conftest import PYTHON, ROOT, mrtr_here
from mrtr_cli.targets.target_kinds import scriptless

ECHO_LOOP = ["bash", "-c", 'while IFS= read -r line; do printf "%s\\n" "$line"; done']
INIT = {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "old", "version": "1"}}}
DONE = {"result": {"content": [{"type": "text", "text": "done"}]}}


def test_a_command_that_sends_mrtr_its_own_request_back_is_no_server():
    """`cat` once made mrtr report a server/discover request from the server, then wait out
    --era-probe-wait and the whole --timeout on initialize: exit 4 now, at the first echo."""
    for era, command, method in [((), ["cat"], "server/discover"),
                                 (("--protocol-era", "older"), ECHO_LOOP, "initialize")]:
        run = mrtr_here("call", "x", *era, "--", *command)
        assert run.code == 4, run.stderr
        assert run.stderr.endswith(f"✗ the server echoed mrtr's {method} back: the command is not an MCP server; "
                                   "is it the right command? e.g. -- python server.py\n"), run.stderr
        assert "server-request" not in run.stderr  # no finding about a request from the server
        assert run.stderr.count("→") == 1  # nothing sent after the echo: no handshake, no tools/call


def test_text_that_is_not_json_rpc_then_silence_is_no_server_and_a_banner_before_an_answer_still_is(scripted):
    """Only text on stdout, and silence to the probe: initialize is waited for --era-probe-wait as well
    (it once waited the whole --timeout). A server that prints a banner, ignores server/discover and
    answers initialize is still spoken with."""
    program = "import time; print('hello', flush=True); time.sleep(100)"
    run = mrtr_here("call", "x", "--era-probe-wait", "1", "--", PYTHON, "-c", program)
    assert run.code == 4, run.stderr
    assert ("✗ the server wrote only text that is not JSON-RPC on stdout ('hello') and answered neither "
            "server/discover nor initialize within 1 s each: it does not look like an MCP server; is it the right "
            "command? e.g. -- python server.py; if it is an MCP server slow to start, raise --era-probe-wait") \
        in run.stderr
    server = scripted(discover=[{"silent": True, "before": ["Server ready on stdio"]}], steps=[INIT, DONE])
    banner = mrtr_here("call", "t", "--no-input", "--era-probe-wait", "1", *server.args())
    assert banner.code == 0, banner.stderr
    assert "done" in banner.stdout


def test_an_interpreter_given_no_script_is_refused_before_it_starts():
    """`--stdio python server.py`: the quotes forgotten, python would start alone and server.py be the
    tool; such a command never answers (before: 63 s, then a hint), so it is exit 1 at once."""
    script = str(ROOT / "examples" / "my_server.py")
    run = mrtr_here("call", script, "--stdio", "python")
    assert run.code == 1, run.stderr
    assert ("`python` has no script to run: started so, it waits for one on stdin and never answers; quote the "
            'whole command, --stdio "python server.py", or give it last, -- python server.py') in run.stderr
    assert mrtr_here("list", "tools", "--", "uv", "run", "node").code == 1
    assert scriptless(("uv", "run")) is not None
    for command in [("python", "server.py"), ("python3", "-m", "server"), ("npx", "-y", "pkg"), ("./server",)]:
        assert scriptless(command) is None, command
