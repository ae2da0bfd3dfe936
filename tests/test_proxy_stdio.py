"""`mrtr proxy -- CMD ARGS`, the stdio shim, with real clients and real servers: every byte passes
both ways as it came, the server's stderr and exit code reach the host, a SIGTERM stops the server,
and each conversation is shown in --timeline FILE and kept in --record-dir DIR, where `show`,
`replay` and `serve` read it."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from conftest import PYTHON, ROOT, SDK_SERVER, mrtr_here
from test_demo_sdk_client import answer_form, answer_roots, answer_sampling
from test_hostile_stdio import wait_for

SHIM = [PYTHON, "-m", "mrtr_cli", "proxy"]
DEMO = [PYTHON, "-m", "mrtr_cli", "demo-server"]


def test_every_byte_passes_both_ways_and_the_host_gets_the_servers_stderr_and_exit_code(tmp_path: Path):
    timeline = tmp_path / "timeline.log"
    frames = (b'{"jsonrpc": "2.0",  "id":1,"method":"tools/call","params":{"name":"caf\\u00e9","arguments":{}}}\n'
              b'{"id":2,"jsonrpc":"2.0","method":"ping"}\r\n'
              b"\n"
              b"not json \xff\xfe at all\n"
              + b'{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"' + b"x" * 4096 + b'"}}\n'
              + b'{"jsonrpc":"2.0","id":3,"method":"ping"}')  # the last one without its newline
    server = ["sh", "-c", "cat; echo 'the server says bye' >&2; exit 3"]
    done = subprocess.run([*SHIM, "--timeline", str(timeline), "--max-message-size", "1K", "--", *server],
                          input=frames, capture_output=True, timeout=60, cwd=ROOT)
    assert done.stdout == frames  # cat sent back what it got: both directions, byte for byte
    assert done.stderr.decode() == "the server says bye\n"
    assert done.returncode == 3
    shown = timeline.read_text()
    assert shown.count("a message of 4160 bytes to the server passed through whole") == 1, shown
    assert shown.count("a message of 4160 bytes to the host passed through whole") == 1, shown
    assert "→ tools/call café  id 1" in shown, shown


@pytest.mark.parametrize("how", ["SIGTERM to the shim", "the host closes stdin"])
def test_the_shim_stops_the_servers_process_group(how: str):
    server = ["sh", "-c", "echo $$ >&2; exec sleep 600"]  # reads nothing: only a signal ends it
    with subprocess.Popen([*SHIM, "--", *server], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, cwd=ROOT) as shim:
        assert shim.stderr is not None and shim.stdin is not None
        pid = int(shim.stderr.readline())
        if how == "SIGTERM to the shim":
            shim.send_signal(signal.SIGTERM)
        else:
            shim.stdin.close()
        assert shim.wait(timeout=30) == 143  # mrtr's code for SIGTERM; the server's own, ended by SIGTERM
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # stopped and reaped by the shim before it exited


def test_a_thread_mrtr_starts_blocks_the_signals_so_the_kernel_hands_them_to_the_main_thread():
    """A SIGTERM the kernel gave one of the relay's threads reached its handler only when the shim's main
    thread woke (the test above hung so, one run in about fifty on a loaded machine, while that thread
    waited for its server with no timeout). Every thread mrtr starts blocks the three signals
    (tests/test_layers.py holds that each is started so), and the thread that starts it keeps its own."""
    import threading

    from mrtr_cli.process import signals

    handled = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    seen: list[set[int]] = []
    thread = signals.start(threading.Thread(target=lambda: seen.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))))
    thread.join(30)
    assert seen and handled <= seen[0]
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before and not handled & before


def sdk_calls(server: StdioServerParameters, mode: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def run() -> list[Any]:
        async with Client(server, mode=mode, elicitation_callback=answer_form, sampling_callback=answer_sampling,
                          list_roots_callback=answer_roots) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return anyio.run(run)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_client_of_either_era_converses_through_the_shim_and_each_conversation_is_kept(
        tmp_path: Path, mode: str):
    timeline, record_dir = tmp_path / "timeline.log", tmp_path / "kept"
    shim = StdioServerParameters(command=PYTHON, cwd=str(ROOT), args=[
        "-m", "mrtr_cli", "proxy", "--timeline", str(timeline), "--record-dir", str(record_dir), "--", *DEMO])
    booked, summarized = sdk_calls(shim, mode, [("book_table", {"city": "Oslo"}), ("summarize", {})])
    assert booked.structured_content["received"]["confirm"] == {"confirm": True}
    assert summarized.structured_content["received"]["content"]["text"] == "sdk summary"
    shown = timeline.read_text()
    older = mode == "legacy"
    assert ("asked in flight: elicitation#1" in shown) is older, shown
    assert ("round 3 asks 1 question" in shown) is not older, shown
    assert "✓ confirm ← accept" in shown or "✓ elicitation#3 ← accept" in shown, shown
    assert "from host" in shown and "sdk summary" in shown and shown.count("✓ complete") == 2, shown
    kept = sorted(record_dir.iterdir())
    assert [path.name.split("-", 1)[1] for path in kept] == ["tools-call-book_table.yaml",
                                                             "tools-call-summarize.yaml"]
    for path in kept:
        assert mrtr_here("show", str(path)).code == 0
        replayed = mrtr_here("replay", str(path), "--trust-target")
        assert replayed.code == 0 and "same as recorded" in replayed.stderr, replayed.stderr
    [served] = sdk_calls(StdioServerParameters(command=PYTHON, args=["-m", "mrtr_cli", "serve", str(kept[0])],
                                               cwd=str(ROOT)), "auto", [("book_table", {"city": "Oslo"})])
    assert served.content[0].text == booked.content[0].text  # the host's answers, played back by serve


@pytest.mark.parametrize("era", ["modern", "older"])
def test_mrtr_as_the_client_through_the_shim_to_the_sdk_server(tmp_path: Path, era: str):
    timeline, record_dir = tmp_path / "timeline.log", tmp_path / "kept"
    shim = [*SHIM, "--timeline", str(timeline), "--record-dir", str(record_dir), "-v", "--", *SDK_SERVER]
    direct = mrtr_here("call", "greet", "-a", "greeting=Hi", "--answer", "elicitation#1.name=Ada", "--answer",
                       "__main__:ask_name.name=Ada", "--protocol-era", era, "--no-input", "--", *shim)
    assert direct.code == 0 and "Hi, Ada" in direct.stdout, direct.stderr
    shown = timeline.read_text()
    assert f"era: {era}" in shown and "→ tools/call greet" in shown and "    » " in shown, shown
    [kept] = record_dir.iterdir()
    replayed = mrtr_here("replay", str(kept), "--trust-target")
    assert replayed.code == 0 and "same as recorded" in replayed.stderr, replayed.stderr


def gone(pid: int) -> bool:
    """Whether process `pid` ended (reaped, or a zombie its new parent has yet to reap)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_server_that_exits_leaving_a_child_behind_ends_the_shim_and_the_child(tmp_path: Path):
    """The child holds the server's stdout open: the shim used to wait for it (and leave it behind)."""
    server = ["sh", "-c", "sleep 600 & echo $!; echo 'bye' >&2; exit 5"]
    done = subprocess.run([*SHIM, "--", *server], input=b"", capture_output=True, timeout=60, cwd=ROOT)
    assert done.returncode == 5 and done.stderr == b"bye\n", done.stderr
    child = int(done.stdout)
    assert wait_for(lambda: gone(child)), "the child outlived the shim"  # signalled on the way out: it ends soon after


def test_a_client_that_never_finishes_its_conversations_leaves_at_most_the_cap_open(tmp_path: Path):
    """Past MAX_OPEN conversations waiting for their retry, the oldest ends as abandoned; at the end,
    the rest end aborted, each kept as its transcript."""
    from mrtr_cli.proxy.conversations import MAX_OPEN

    timeline, record_dir = tmp_path / "timeline.log", tmp_path / "kept"
    count = MAX_OPEN + 10
    calls = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"two_questions",'
                     b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
                     b'"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}\n' % n
                     for n in range(1, count + 1))
    done = subprocess.run([*SHIM, "--timeline", str(timeline), "--record-dir", str(record_dir), "--", *DEMO],
                          input=calls, capture_output=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.count(b'"input_required"') == count, done.stderr
    shown = timeline.read_text()
    assert shown.count("✗ aborted") == count and "watcher failed" not in shown, shown[-2000:]
    kept = [path.read_text() for path in record_dir.iterdir()]
    assert len(kept) == count
    abandoned = [text for text in kept if f"more than {MAX_OPEN} conversations were open at once" in text]
    assert len(abandoned) == 10 and all("outcome: aborted" in text for text in kept)
