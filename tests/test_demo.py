"""mrtr completes every demo tool with scripted answers; the demo says what reached it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, mrtr_here as mrtr


def demo(*args: str) -> dict:
    run = mrtr(*args, "--demo", "--json")
    assert run.code in (0, 5), run.stderr
    return run.json()


def received(document: dict) -> dict:
    return document["result"]["structuredContent"]["received"]


def test_book_table_three_rounds_with_sealed_state():
    document = demo("call", "book_table", "-a", "city=Porto", "--answers", "examples/book_table.yaml")
    assert received(document) == {"date": {"date": "2026-12-24"}, "party": {"size": 4, "seating": ["window", "quiet"]},
                                  "confirm": {"confirm": True}}
    assert [r["resultType"] for r in document["rounds"]] == ["input_required"] * 3 + ["complete"]
    assert "Booked a table for 4 (window, quiet) in Porto on 2026-12-24" in document["result"]["content"][0]["text"]


def test_all_fields_defaults_fill_and_null_leaves_out():
    profile = received(demo("call", "all_fields", "--answers", "examples/all_fields.yaml"))
    assert profile["guests"] == 1 and profile["size"] == "M"  # defaults filled
    assert "newsletter" not in profile  # null leaves the field out despite its default
    assert profile["height"] == 1.65 and profile["toppings"] == ["cheese", "basil"] and profile["color"] == "#0000ff"


def test_connect_account_url_mode():
    document = demo("call", "connect_account", "--answers", "examples/connect_account.yaml")
    assert received(document) == {"connect": {"action": "accept"}}
    question = document["rounds"][0]["questions"]["connect"]
    assert question["response"] == {"action": "accept"}


def test_summarize_sampling():
    reply = received(demo("call", "summarize", "-a", "text=hello", "--answers", "examples/summarize.yaml"))
    assert reply["model"] == "by-hand" and reply["content"]["text"].startswith("MRTR lets a server")


def test_workspace_roots():
    roots = received(demo("call", "workspace_roots", "--root", "/tmp", "--root", "file:///srv"))
    assert roots == [{"uri": "file:///tmp", "name": "tmp"}, {"uri": "file:///srv", "name": "srv"}]


def test_poll_status_state_only_rounds_back_off_visibly():
    run = mrtr("call", "poll_status", "--demo")
    assert run.code == 0, run.stderr
    assert "Job export-42 finished after 3 polls." in run.stdout
    assert run.stderr.count("only requestState: retrying in") == 2
    assert "retrying in 50 ms" in run.stderr and "retrying in 100 ms" in run.stderr


def test_two_questions_in_one_round():
    document = demo("call", "two_questions", "--answers", "examples/two_questions.yaml")
    assert received(document) == {"name": {"name": "Ada"}, "color": {"color": "blue"}}
    assert len(document["rounds"]) == 2


def test_always_fails_is_exit_5():
    run = mrtr("call", "always_fails", "--demo", "--answers", "examples/always_fails.yaml")
    assert run.code == 5
    assert "you said: checking exit code 5" in run.stdout


def test_prompt_and_resources():
    prompt = demo("prompt", "release_notes", "-a", "version=2.0", "--answers", "examples/release_notes.yaml")
    assert prompt["result"]["messages"][0]["content"]["text"].startswith("Write the release notes of version 2.0 for users")
    vault = demo("read", "vault://recipes", "--answers", "examples/vault.yaml")
    assert vault["result"]["contents"][0]["text"] == "vault entry recipes: the demo secret is 'mrtr-recipes'."
    readme = demo("read", "demo://readme")
    assert len(readme["rounds"]) == 1 and "book_table" in readme["result"]["contents"][0]["text"]


def test_match_rules_and_a_decline():
    document = demo("call", "book_table", "--answers", "examples/match_rules.yaml")
    assert received(document)["confirm"] == {"action": "decline"}
    assert "No booking made: you chose decline at the confirm question" in document["result"]["content"][0]["text"]


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_decline_and_cancel_reach_the_demo(action: str):
    document = demo("call", "two_questions", "--answer", f"name={action}", "--answer", "color.color=red")
    assert document["result"]["structuredContent"]["received"] == {"name": {"action": action}}


def test_an_invalid_answer_from_a_client_is_refused_by_the_demo(scripted):
    # mrtr validates scripted answers itself (exit 1); the demo refuses an invalid one with -32602 too.
    from mrtr_cli.server.app import Call, RpcError
    from mrtr_cli.server.demo import DemoApp

    call = Call("tools/call", "two_questions", {}, {"color": {"action": "accept", "content": {"color": "pink"}}},
                None, {"elicitation": {}})
    with pytest.raises(RpcError, match="does not match the requested schema"):
        DemoApp().handle(call)


def test_the_readmes_first_command_runs():
    readme = (ROOT / "README.md").read_text()
    command = re.search(r"\.venv/bin/(mrtr call book_table --demo --answers examples/book_table.yaml)\n", readme)
    assert command, "the README lost its first command"
    run = mrtr(*command.group(1).split()[1:])
    assert run.code == 0, run.stderr
    assert "Booked a table for 4 (window, quiet) in Lisbon on 2026-12-24" in run.stdout


MANUAL = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
"""Where a reader finds shell examples: the README and every page of the manual."""


def shell_examples() -> list[str]:
    """Every `mrtr ...` line of the sh blocks of the README and the manual that needs no server of yours: the
    demo or examples/."""
    blocks = [block for page in MANUAL for block in re.findall(r"```sh\n(.*?)```", page.read_text(encoding="utf-8"),
                                                                 re.S)]
    lines = [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()]
    return list(dict.fromkeys(line for line in lines if line.startswith("mrtr ")
                              and ("--demo" in line or "examples/" in line) and "|" not in line))


@pytest.mark.parametrize("line", shell_examples())
def test_the_manuals_examples_run_verbatim(line: str, tmp_path):
    """As a user runs them after the set-up (`. .venv/bin/activate`): mrtr and python on PATH, in a
    folder of their own beside examples/ and recordings/."""
    for shipped in ("examples", "recordings"):
        (tmp_path / shipped).symlink_to(ROOT / shipped)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PATH": path, "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_manual_has_examples_to_run():
    assert len(shell_examples()) >= 15
