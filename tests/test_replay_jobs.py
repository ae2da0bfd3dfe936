"""`mrtr replay --jobs N` and `--repeat K`, through the real CLI: the transcripts' order whatever
order they finish in, the exit precedence across workers, --json and --junit, the figures of a
repeated run, the flags it refuses, and Ctrl-C stopping the workers."""

from __future__ import annotations

import json
import pickle
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import jsonschema

from conftest import ROOT, SDK_SERVER, mrtr_here, text_result
from mrtr_cli.errors import HopRefused, Interrupted
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.render.replay_report import verdict_lines
from mrtr_cli.transcript.compare import Difference
from mrtr_cli.transcript.replay_verdict import LoadFigures, ReplayVerdict, folded

RECORDINGS = ROOT / "recordings"
BOOK_TABLE = RECORDINGS / "book_table.yaml"
PARTY = "How many people, and any seating wishes?"
SCHEMA = json.loads((ROOT / "docs" / "json" / "replay.schema.json").read_text())


def edited(tmp_path: Path) -> Path:
    """book_table.yaml with its second question worded otherwise: it diverges (exit 6)."""
    path = tmp_path / "edited.yaml"
    path.write_text(BOOK_TABLE.read_text().replace(PARTY, "How many guests?"))
    return path


def recorded(tmp_path: Path, name: str, *args: str) -> Path:
    path = tmp_path / name
    cut = args.index("--")
    run = mrtr_here(*args[:cut], "--no-input", "--record", str(path), *args[cut:])
    assert run.code == 0 and path.exists(), run.stderr
    return path


def shown_files(stderr: str) -> list[str]:
    """The transcript each ✓/✗ line names, in the order printed."""
    return [line[2:].split(":")[0] for line in stderr.splitlines() if line[:2] in ("✓ ", "✗ ")]


def test_jobs_show_the_transcripts_in_order_with_the_exit_of_a_run_in_turn(tmp_path: Path, scripted):
    """The first transcript is the slowest (its server waits 2 s): the other worker replays the rest
    meanwhile, yet every line, --json entry and JUnit test case comes in the order given, the
    same as without -j, and the exit code is the one precedence gives (1, a file that cannot be
    read, over 6)."""
    slow = recorded(tmp_path, "slow.yaml", "call", "t", "--", *scripted(
        steps=[{"result": text_result("slow"), "sleep": 2}] * 2).command)
    files = [str(slow), str(BOOK_TABLE), str(edited(tmp_path)), str(tmp_path / "missing.yaml"),
             str(RECORDINGS / "poll_status.yaml")]
    in_turn = mrtr_here("replay", *files, "--trust-target", "--json", "--junit", str(tmp_path / "one.xml"))
    at_once = mrtr_here("replay", *files, "--trust-target", "--json", "-j", "2", "--junit", str(tmp_path / "two.xml"))
    assert in_turn.code == at_once.code == 1, at_once.stderr
    document = at_once.json()
    jsonschema.validate(document, SCHEMA)
    assert document["transcripts"] == in_turn.json()["transcripts"]
    assert [t["file"] for t in document["transcripts"]] == files
    assert [t["exit_code"] for t in document["transcripts"]] == [0, 0, 6, 1, 0]
    assert document["load"]["jobs"] == 2 and document["load"]["conversations"] == 5
    assert at_once.error_line()["error"]["message"] == "2 of 5 transcripts did not replay the same"
    cases = [[c.get("name") for c in ElementTree.parse(tmp_path / name).getroot().iter("testcase")]
             for name in ("one.xml", "two.xml")]
    assert cases[0] == cases[1] == files
    shown = mrtr_here("replay", *files, "--trust-target", "-j", "2")
    assert shown.code == 1 and shown_files(shown.stderr) == files, shown.stderr
    assert "5 conversations in " in shown.stdout and " with 2 jobs: " in shown.stdout


def test_an_answer_flag_no_question_used_is_named_after_the_lines_with_or_without_jobs():
    """-j 2 shows each line as soon as it is done, so the warning can only come after them: -j 1 puts
    it there too, and the two runs write the same stderr."""
    files = [str(BOOK_TABLE), str(RECORDINGS / "two_questions.yaml")]
    in_turn, at_once = (mrtr_here("replay", *files, "--demo", "-j", jobs, "--answer", "nobody=accept") for jobs in "12")
    assert in_turn.code == at_once.code == 0, at_once.stderr
    assert in_turn.stderr.splitlines() == at_once.stderr.splitlines() == [
        f"✓ {BOOK_TABLE}: same as recorded (4 rounds)", f"✓ {files[1]}: same as recorded (2 rounds)",
        "! --answer nobody=accept matched no question the server asked"]
    assert in_turn.stdout.startswith("transcript ") and at_once.stdout.startswith("transcript ")


def test_repeat_counts_every_run_and_gives_the_round_latency_against_the_sdk_server_and_the_demo(tmp_path: Path):
    greet = recorded(tmp_path, "greet.yaml", "call", "greet", "-a", "greeting=Hi",
                     "--answer", "__main__:ask_name.name=Ada", "--", *SDK_SERVER)
    files = [str(greet), str(BOOK_TABLE), str(edited(tmp_path))]
    run = mrtr_here("replay", *files, "--trust-target", "--repeat", "3", "-j", "2", "--json")
    assert run.code == 6, run.stderr
    document = run.json()
    jsonschema.validate(document, SCHEMA)
    load, transcripts = document["load"], document["transcripts"]
    assert [t["runs"] for t in transcripts] == [{"count": 3, "same": 3, "diverged": 0, "failed": 0, "shown": 1},
                                                {"count": 3, "same": 3, "diverged": 0, "failed": 0, "shown": 1},
                                                {"count": 3, "same": 0, "diverged": 3, "failed": 0, "shown": 1}]
    assert (load["jobs"], load["repeat"], load["conversations"]) == (2, 3, 9)
    assert (load["same"], load["diverged"], load["failed"]) == (6, 3, 0)
    assert load["rounds"] == 3 * sum(t["rounds"] for t in transcripts) == 3 * (2 + 4 + 4)
    latency = load["round_ms"]
    assert 0 < latency["p50"] <= latency["p95"] <= latency["p99"]
    assert load["wall_seconds"] > 0
    assert abs(load["conversations_per_second"] - 9 / load["wall_seconds"]) < 0.05 * load["conversations_per_second"]
    one_by_one = mrtr_here("replay", str(BOOK_TABLE), "--demo", "--repeat", "2")
    assert one_by_one.code == 0, one_by_one.stderr
    assert one_by_one.stderr.splitlines()[0] == f"✓ {BOOK_TABLE}: same as recorded (4 rounds), 2 runs: 2 same"
    figures = one_by_one.stdout.splitlines()
    assert figures[0].startswith("2 conversations in ") and "with 1 job: " in figures[0]
    assert figures[0].endswith("a second (2 same, 0 diverged, 0 failed)")
    assert figures[1].startswith("round latency over 8 rounds: p50 ")


def test_the_flags_jobs_and_repeat_refuse(tmp_path: Path):
    cases = {("-j", "65"): "--jobs: '65' is not a number of jobs from 1 to 64",
             ("-j", "0"): "--jobs: '0' is not a number of jobs from 1 to 64",
             ("--repeat", "0"): "--repeat: '0' is not a number of runs from 1 to 100000",
             ("-j", "2", "--interactive"): "--jobs cannot be used with --interactive: no person answers",
             ("-j", "2", "--update"): "--jobs cannot be used with --update: a transcript is rewritten from one",
             ("--repeat", "2", "--update"): "--repeat cannot be used with --update",
             ("-j", "2", "-v"): "--jobs cannot be used with --verbose: the timelines"}
    for args, said in cases.items():
        run = mrtr_here("replay", str(BOOK_TABLE), "--demo", *args)
        assert run.code == 1 and len(run.stderr.strip().splitlines()) == 1, (args, run.stderr)
        assert said in run.stderr and ("see mrtr replay --help" in run.stderr or "; replay with" in run.stderr), \
            run.stderr
    assert "replay without --jobs to answer at the terminal" in mrtr_here("replay", str(BOOK_TABLE), "-j", "2",
                                                                     "--interactive").stderr


def test_a_verdict_crosses_a_process_boundary_and_runs_fold_into_one():
    refused = HopRefused("tools/call", {"code": -32602, "message": "bad state"}, "another instance", "share the key")
    try:
        pickle.loads(pickle.dumps(refused))
    except TypeError:
        pass  # why a worker sends its verdicts' errors as plain text
    else:
        raise AssertionError("HopRefused unpickles now: portable() may be simpler")
    diverged = ReplayVerdict("a.yaml", ExitCode.DIVERGED, [Difference(2, "party", "message", "x", "y")],
                             cause=refused, rounds=2, round_ms=[1.0, 2.0])
    stopped = ReplayVerdict("a.yaml", ExitCode.INTERRUPTED, error=Interrupted(), elapsed=1.0)
    back = [pickle.loads(pickle.dumps(verdict.portable())) for verdict in (diverged, stopped)]
    assert [v.as_dict() for v in back] == [diverged.as_dict(), stopped.as_dict()]
    assert [line.plain for line in verdict_lines(back[0])] == [line.plain for line in verdict_lines(diverged)]
    same = ReplayVerdict("a.yaml", rounds=2, elapsed=0.5)
    one = folded([same, back[0], same])
    assert one.runs == {"count": 3, "same": 2, "diverged": 1, "failed": 0} and one.shown_run == 2
    assert [line.plain for line in verdict_lines(one)][:2] == [
        "✗ a.yaml: diverged from the recording (1 difference)", "    3 runs: 2 same, 1 diverged; shown: run 2"]
    assert folded([same, back[0], back[1]]).shown_run == 3  # Ctrl-C decides over a divergence
    figures = LoadFigures(2, 1, {"same": 1, "diverged": 0, "failed": 0}, 2.0, [float(n) for n in range(100, 0, -1)])
    assert figures.percentiles() == {"p50": 50.0, "p95": 95.0, "p99": 99.0}
    assert figures.as_dict()["conversations_per_second"] == 0.5
