"""Server strings cannot drive the terminal: control sequences and markup show as plain text."""

from __future__ import annotations

import json

import pytest

from conftest import elicit, input_required, mrtr_here, text_result

HOSTILE = "\x1b]0;pwned title\x07 \x1b[2J wipe\rover [bold]markup[/bold] \u202eevil"
SEQUENCES = ("\x1b]0;", "\x07", "\x1b[2J", "\r", "\u202e")
VISIBLE = ("\\x1b]0;pwned title\\x07", "\\x1b[2J wipe\\rover", "[bold]markup[/bold]", "\\u202eevil")


def assert_harmless(output: str) -> None:
    for sequence in SEQUENCES:
        assert sequence not in output, f"{sequence!r} reached the terminal"


@pytest.mark.parametrize("flags", [[], ["-v"]])
def test_hostile_question_and_result(scripted, flags):
    form = elicit(HOSTILE, {"x" + HOSTILE: {"type": "string", "title": HOSTILE}})
    key = "k" + HOSTILE
    server = scripted(steps=[{"result": input_required({key: form}, state=HOSTILE)},
                             {"result": text_result(HOSTILE, structuredContent={"s": HOSTILE})}])
    run = mrtr_here(*server.args("call", "t", "--color", "always", *flags, "--answers", write_answers(server, key)))
    assert run.code == 0, run.stderr
    assert_harmless(run.stdout + run.stderr)
    for visible in VISIBLE:
        assert visible in run.stderr
        assert visible in run.stdout
    assert server.calls()[1]["params"]["requestState"] == HOSTILE  # escaped for display, echoed exactly


def write_answers(server, key: str) -> str:
    path = server.path.parent / "answers.json"
    path.write_text(json.dumps({"answers": {key: {"content": {"x" + HOSTILE: "fine"}}}}))
    return str(path)


def test_hostile_error_message(scripted):
    server = scripted(steps=[{"error": {"code": -32000, "message": HOSTILE}}])
    run = mrtr_here(*server.args("call", "t", "--color", "always", "--json"))
    assert run.code == 2
    assert_harmless(run.stderr)
    assert "\\x1b[2J" in run.stderr and "[bold]markup[/bold]" in run.stderr
    assert run.json()["error"]["message"] == HOSTILE  # --json keeps the data exactly, as JSON escapes


def test_hostile_stderr_of_a_dying_server(scripted):
    server = scripted(steps=[{"exit": 1, "stderr": HOSTILE + "\n"}])
    run = mrtr_here(*server.args("call", "t", "--color", "always"))
    assert run.code == 4
    assert_harmless(run.stderr)
    assert "[bold]markup[/bold]" in run.stderr


def test_hostile_garbage_on_stdout_in_verbose_mode(scripted):
    server = scripted(steps=[{"before": [HOSTILE], "result": text_result("ok")}])
    run = mrtr_here(*server.args("call", "t", "-v", "--color", "always"))
    assert run.code == 0
    assert_harmless(run.stderr)
    assert "[not-jsonrpc]" in run.stderr and "is not a JSON-RPC message: not JSON" in run.stderr
    assert "ignored: " in run.stderr and "\\x1b]0;pwned title" in run.stderr
