"""`--replica URL` and `--restart-between-rounds` (commands/hops.py): the retry sent to another
instance of the server, or to a restarted one, and `mrtr demo-server --state-key KEY` (with
MRTR_DEMO_STATE_KEY), which lets instances accept each other's requestState."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from conftest import ROOT, mrtr_here
from mrtr_cli.cli import run as typer_run
from mrtr_cli.fast_paths import fast_call
from mrtr_cli.conversation.instances import Replicas
from mrtr_cli.definition.options import TargetOptions
from mrtr_cli.targets.target import Endpoint
from mrtr_cli.targets.target_kinds import HttpTarget
from peers import demo_http

BOOK = ("--answers", str(ROOT / "examples" / "book_table.yaml"))
"""book_table asks in rounds 1 to 3 and completes in round 4."""
URL, OTHER = "http://127.0.0.1:1/mcp", "http://127.0.0.1:2/mcp"
STATE_REFUSED = "error -32602 'requestState failed verification: it was altered or not issued by this server'"
SCALE_OUT = ("a server whose requestState is valid only in the process that made it (for example sealed with a key "
             "generated at start-up) cannot be scaled out; share the key across instances")
RESTART = ("a server whose requestState is valid only in the process that made it (for example sealed with a key "
           "generated at start-up) cannot survive a restart or be scaled out; share the key across instances and "
           "keep it across restarts")

NEEDS_HTTP = ("--replica needs a server over HTTP (--url, or a --config entry with a url), and this one is a stdio "
              "process; for a stdio server, give --restart-between-rounds instead")
OLDER = ("{flag} needs the 2026-07-28 era: in the older era a session lives on one instance; leave out --protocol-era "
         "older (or the older --protocol-version), or leave out {flag}")
NOT_HERE = ("{flag} routes the rounds of a conversation, and mrtr {command} holds none; leave {flag} out, or use it "
            "with mrtr call, read, prompt, replay or check")
OVER_HTTP = ("--restart-between-rounds stops and starts a stdio server, and this one is over HTTP; to send the retry "
             "to another instance over HTTP, give --replica URL")
TOGETHER = ("--replica and --restart-between-rounds together; give one: --replica URL for a server over HTTP, "
            "--restart-between-rounds for a stdio server")

RULES = [
    (["call", "t", "--stdio", "server", "--replica", URL], NEEDS_HTTP),
    (["read", "file:///x", "--demo", "--replica", URL], NEEDS_HTTP),
    (["prompt", "p", "--config", "{stdio}", "--server", "s", "--replica", URL], NEEDS_HTTP),
    (["call", "t", "--url", URL, "--replica", "ftp://x"], "--replica 'ftp://x' is not an http(s) URL; e.g. --replica "
                                                         "http://127.0.0.1:8080/mcp"),
    (["call", "t", "--url", URL, "--replica", "http://127.0.0.1:99999/mcp"],
     "--replica 'http://127.0.0.1:99999/mcp' has no valid port (1 to 65535); e.g. --replica http://127.0.0.1:8080/mcp"),
    (["call", "t", "--url", URL, "--restart-between-rounds"], OVER_HTTP),
    (["call", "t", "--config", "{http}", "--server", "s", "--restart-between-rounds"], OVER_HTTP),
    (["call", "t", "--url", URL, "--replica", OTHER, "--restart-between-rounds"], TOGETHER),
    (["call", "t", "--url", URL, "--replica", OTHER, "--protocol-era", "older"], OLDER.format(flag="--replica")),
    (["call", "t", "--demo", "--restart-between-rounds", "--protocol-version", "2025-06-18"],
     OLDER.format(flag="--restart-between-rounds")),
    (["discover", "--url", URL, "--replica", OTHER], NOT_HERE.format(flag="--replica", command="discover")),
    (["list", "tools", "--demo", "--restart-between-rounds"],
     NOT_HERE.format(flag="--restart-between-rounds", command="list")),
]


@pytest.mark.parametrize("args, message", RULES, ids=lambda value: " ".join(value) if isinstance(value, list) else "")
def test_the_hop_flags_rules_are_one_line_and_exit_1_in_both_parsers(args: list[str], message: str, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]):
    """Refused before anything starts (no server listens at these URLs), the same words whichever
    parser read the command line; `discover` and `list` are typer's alone."""
    configs = {"{stdio}": {"command": "server"}, "{http}": {"url": URL}}
    for placeholder, entry in configs.items():
        path = tmp_path / f"{placeholder.strip('{}')}.json"
        path.write_text(json.dumps({"mcpServers": {"s": entry}}), encoding="utf-8")
        args = [str(path) if word == placeholder else word for word in args]
    fast = fast_call.run(args)
    fast_err = capsys.readouterr().err
    assert typer_run(args) == 1
    assert capsys.readouterr().err == f"✗ {message}\n"
    if args[0] in fast_call.METHODS:
        assert (fast, fast_err) == (1, f"✗ {message}\n")
    else:
        assert fast is None


def test_two_demo_instances_over_http_pass_the_hop_only_when_they_share_the_state_key(
        monkeypatch: pytest.MonkeyPatch):
    """Round k goes to instance (k-1) mod n: A and B share a key (A by --state-key, which wins over
    its MRTR_DEMO_STATE_KEY; B by the variable), C keeps its own. A and B pass all four rounds;
    C refuses round 2 when it is the replica, round 3 when it is the second replica (so round 2 went
    to B and passed); each refusal names C's host:port and the cause, exit 2."""
    monkeypatch.setenv("MRTR_DEMO_STATE_KEY", "not the shared key")
    with demo_http(state_key="shared") as a:
        monkeypatch.setenv("MRTR_DEMO_STATE_KEY", "shared")
        with demo_http() as b:
            monkeypatch.delenv("MRTR_DEMO_STATE_KEY")
            with demo_http() as c:
                shared = mrtr_here("call", "book_table", "--url", a, "--replica", b, *BOOK)
                second = mrtr_here("call", "book_table", "--url", a, "--replica", c, *BOOK)
                third = mrtr_here("call", "book_table", "--url", a, "--replica", b, "--replica", c, *BOOK)
    assert shared.code == 0, shared.stderr
    assert "Booked a table for 4 (window, quiet) in Lisbon on 2026-12-24." in shared.stdout
    assert shared.stderr.rstrip().splitlines()[-1].startswith("✓ complete · 4 rounds")
    where = c.removeprefix("http://").removesuffix("/mcp")
    refused = f"✗ the retry went to another instance ({where}) and was refused: {STATE_REFUSED}; {SCALE_OUT}"
    for run, rounds in ((second, 2), (third, 3)):
        assert run.code == 2, run.stderr
        assert f"✗ error · {rounds} rounds" in run.stderr
        assert run.stderr.rstrip().splitlines()[-1] == refused


def test_a_restarted_demo_refuses_the_retry_unless_its_key_is_kept(scripted):
    """`--demo --restart-between-rounds`: each retry meets a fresh process, which accepts the
    requestState only when MRTR_DEMO_STATE_KEY (inherited by the spawned demo) outlives the
    restart. A server that proves to speak the older era is refused before the call is sent."""
    fresh = mrtr_here("call", "book_table", "--demo", "--restart-between-rounds", *BOOK)
    kept = mrtr_here("call", "book_table", "--demo", "--restart-between-rounds", *BOOK, env={"MRTR_DEMO_STATE_KEY": "k"})
    assert fresh.code == 2, fresh.stderr
    reported = mrtr_here("call", "book_table", "--demo", "--restart-between-rounds", *BOOK, "--json")
    jsonschema.validate(reported.json(), json.loads((ROOT / "docs/json/conversation.schema.json").read_text()))
    assert reported.code == 2 and reported.json()["error"]["hop"] == {
        "message": f"the retry went to a restarted server and was refused: {STATE_REFUSED}", "hint": RESTART}
    assert fresh.stderr.rstrip().splitlines()[-1] == (f"✗ the retry went to a restarted server and was refused: "
                                                       f"{STATE_REFUSED}; {RESTART}")
    assert kept.code == 0, kept.stderr
    assert "Booked a table for 4 (window, quiet) in Lisbon on 2026-12-24." in kept.stdout
    handshake = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                 "serverInfo": {"name": "old", "version": "1"}}
    older = scripted(discover={"error": {"code": -32601, "message": "Method not found"}}, steps=[{"result": handshake}])
    proven = mrtr_here(*older.args("call", "t", "--restart-between-rounds"))
    assert proven.code == 1, proven.stderr
    assert proven.stderr.rstrip().splitlines()[-1] == (
        "✗ --restart-between-rounds needs the 2026-07-28 era: in the older era a session lives on one instance, "
        "and this server speaks the older era (its initialize handshake); leave --restart-between-rounds out for "
        "this server")
    assert older.calls() == []


class Opened:
    """A transport that only says it was opened and closed (Replicas asks nothing else of it)."""

    def __init__(self, url: str) -> None:
        self.url, self.closed = url, False

    def close(self) -> None:
        self.closed = True


def test_replicas_are_opened_when_first_needed_named_by_host_and_port_and_closed_but_the_first():
    home = Opened(URL)
    target = HttpTarget(URL, {"X-Team": "a"})
    replicas = (target.replica("https://replica.example/mcp"),)
    opened: list[str] = []

    class Server(Endpoint):
        """An endpoint whose transport only says it was opened (the replicas open it themselves)."""

        def open(self) -> Opened:  # type: ignore[override]
            opened.append(self.target.url)  # type: ignore[attr-defined]
            return Opened(self.target.url)  # type: ignore[attr-defined]

    servers = [Server(each, TargetOptions()) for each in (target, *replicas)]
    instances = Replicas(home, servers[0], tuple(servers[1:]))  # type: ignore[arg-type]
    first, second, third = (instances.for_round(number) for number in (1, 2, 3))
    assert (first.position, first.name, first.words) == (0, "127.0.0.1:1", "the first instance (127.0.0.1:1)")
    assert (second.position, second.name, second.words) == (1, "replica.example:443",
                                                            "another instance (replica.example:443)")
    assert third.transport is home and instances.for_round(4).transport is second.transport
    assert replicas[0].headers == {"X-Team": "a"} and opened == ["https://replica.example/mcp"]
    instances.close()
    assert second.transport.closed and not home.closed  # type: ignore[attr-defined]


def test_a_replay_sends_each_retry_to_a_restarted_server_and_diverges_when_it_is_refused(tmp_path: Path):
    """`mrtr replay --restart-between-rounds`: the recording (one process, four rounds) replays
    against a server restarted before each retry; without a kept key round 2 is refused, which
    the replay reports as a divergence naming the hop (exit 6); with the key it matches."""
    recording = tmp_path / "book.yaml"
    recorded = mrtr_here("call", "book_table", "--demo", *BOOK, "--record", str(recording))
    assert recorded.code == 0, recorded.stderr
    refused = mrtr_here("replay", str(recording), "--restart-between-rounds")
    reported = mrtr_here("replay", str(recording), "--restart-between-rounds", "--json")
    assert reported.code == 6 and reported.json()["transcripts"][0]["result"] == "diverged"
    assert reported.json()["transcripts"][0]["error"].startswith("the retry went to a restarted server and was refused")
    kept = mrtr_here("replay", str(recording), "--restart-between-rounds", env={"MRTR_DEMO_STATE_KEY": "k"})
    assert refused.code == 6, refused.stdout + refused.stderr
    assert "the retry went to a restarted server and was refused" in refused.stdout + refused.stderr
    assert kept.code == 0, kept.stdout + kept.stderr
    before = recording.read_bytes()
    assert mrtr_here("replay", str(recording), "--restart-between-rounds", "--update").code == 6
    assert recording.read_bytes() == before  # a refused hop is no new recording


def test_check_compares_the_tools_conversation_on_one_instance_and_hopping():
    """check's `retry-on-another-instance` (a SHOULD): skipped with the reason without either flag;
    a warn naming both endings when a restarted demo refuses the retry; a pass when the key is kept;
    with a hop flag but no --tool, exit 1 before any probe."""
    args = ("check", "--demo", "--tool", "book_table", *BOOK, "--json")
    alone, refused = mrtr_here(*args), mrtr_here(*args, "--restart-between-rounds")
    kept = mrtr_here(*args, "--restart-between-rounds", env={"MRTR_DEMO_STATE_KEY": "k"})
    verdicts = [{c["id"]: c for c in run.json()["checks"]}["retry-on-another-instance"] for run in (alone, refused, kept)]
    assert [v["status"] for v in verdicts] == ["skipped", "warn", "pass"], [run.stderr for run in (alone, refused)]
    assert verdicts[0]["seen"] == "not probed: give --replica URL or --restart-between-rounds"
    assert verdicts[1]["seen"] == ("on one instance: complete in 4 rounds; with --restart-between-rounds: error in 2 "
                                   f"rounds (the retry went to a restarted server and was refused: {STATE_REFUSED})")
    assert verdicts[2]["seen"] == "on one instance: complete in 4 rounds; with --restart-between-rounds: complete in 4 rounds"
    assert verdicts[0]["level"] == "SHOULD" and (alone.code, refused.code, kept.code) == (0, 0, 0)
    toolless = mrtr_here("check", "--demo", "--restart-between-rounds")
    assert toolless.code == 1
    assert toolless.stderr.strip() == (
        "✗ --restart-between-rounds in mrtr check sends the named tool's retries to other instances, and no tool is "
        "named; give --tool NAME (a tool that asks), or leave --restart-between-rounds out")


def test_the_hop_flags_meet_an_older_era_check_an_unreachable_replica_and_odd_keys(scripted, tmp_path: Path):
    """check with a hop flag against a server that proves older is exit 1 before any probe; a
    replica nobody listens at leaves the hop probe not probed (no verdict on the server); the demo's
    key may be any bytes, and an empty --state-key is exit 1."""
    handshake = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                 "serverInfo": {"name": "old", "version": "1"}}
    older = scripted(discover={"error": {"code": -32601, "message": "Method not found"}}, steps=[{"result": handshake}],
                     tools=[{"name": "t", "inputSchema": {"type": "object"}}])
    proven = mrtr_here(*older.args("check", "--tool", "t", "--restart-between-rounds"))
    assert proven.code == 1 and "--restart-between-rounds needs the 2026-07-28 era" in proven.stderr, proven.stderr
    with demo_http() as url:
        nobody = mrtr_here("check", "--url", url, "--replica", URL, "--tool", "book_table", *BOOK, "--json")
    hop = {c["id"]: c for c in nobody.json()["checks"]}["retry-on-another-instance"]
    assert hop["status"] == "skipped" and hop["seen"].startswith("not probed: on one instance: complete in 4 rounds; "
                                                                 "with --replica: aborted in 1 round (cannot reach "
                                                                 f"{URL}")
    odd = mrtr_here("call", "book_table", "--demo", "--restart-between-rounds", *BOOK,
               env={"MRTR_DEMO_STATE_KEY": "k\udcff".encode("utf-8", "surrogateescape").decode("latin-1")})
    assert odd.code == 0, odd.stderr
    empty = mrtr_here("demo-server", "--state-key", "")
    assert empty.code == 1
    assert empty.stderr == "✗ --state-key is empty; give the key every instance shares, or leave --state-key out\n"
