"""commands/conversation_builder.py: the one builder of conversations, `again` (the same conversation with one
thing changed), a session of it resumed with another requestState (`Session.resume`), the one writer of
`Outcome` outside the engine, and an engine that never calls back into commands/."""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from conftest import ROOT
from mrtr_cli.answering.questions import Chain
from mrtr_cli.conversation import events
from mrtr_cli.commands.common import make_context
from mrtr_cli.commands.conversation_builder import build
from mrtr_cli.definition.options import AnsweringOptions, OutputOptions, TargetOptions
from mrtr_cli.protocol import meta
from peers import demo_http

PACKAGE = ROOT / "mrtr_cli"
URL = "http://127.0.0.1:1/mcp"


def _built(**options: Any) -> Any:
    return build(make_context(OutputOptions(color="never")), TargetOptions(**options), AnsweringOptions())


def test_again_changes_the_one_thing_it_is_given():
    built = _built(url=URL, headers=("X-Team: a",))
    assert built.server.target.headers == {"X-Team": "a"} and not built.server.options.no_auth

    other = built.again(headers={"X-Team": "b"})
    assert other.server.target.headers == {"X-Team": "b"} and other.server.options.no_auth
    assert (other.settings, other.chain, other.hops) == (built.settings, built.chain, built.hops)

    stored = built.again(auth_stored_only=True)
    assert stored.server.options == built.server.options._replace(auth_stored_only=True)
    assert stored.server.target == built.server.target

    withheld = meta.Capabilities(elicitation=False)
    declared = built.again(capabilities=withheld, version="2025-06-18")
    assert (declared.settings.capabilities, declared.settings.version) == (withheld, "2025-06-18")
    assert (built.settings.capabilities, built.settings.version) != (withheld, "2025-06-18")  # a copy, changed
    assert declared.server == built.server

    answers = Chain([])
    answered = built.again(chain=answers)
    assert answered.chain is answers and (answered.server, answered.settings) == (built.server, built.settings)

    replica = built.again(server=built.server.replica("http://127.0.0.1:2/mcp"))
    assert replica.server.address() == "127.0.0.1:2" and replica.server.options == built.server.options


def test_a_session_resumed_with_another_state_sends_it_and_then_what_the_server_sent():
    """check's forged-field and skipped-step probes: the demo's book_table (three rounds of questions)
    resumed after round 1 with a requestState the server made for another call of it. Round 2's retry
    reaches the server with round 1's answers and exactly that state, said not to be the one received;
    rounds 3 and 4 carry the states the server sent in the resumed conversation, not the recorded ones."""
    params: dict[str, Any] = {"name": "book_table", "arguments": {}}
    sent: list[events.RequestSent] = []
    with demo_http() as url:
        built = build(make_context(OutputOptions(color="never")), TargetOptions(url=url),
                      AnsweringOptions(answers_file=str(ROOT / "examples" / "book_table.yaml")))
        built.context.emit.subscribe(lambda event: sent.append(event) if isinstance(event, events.RequestSent)
                                     and event.method == "tools/call" else None)
        with built.connected() as live:
            recorded = live.session(hopping=False).run("tools/call", params)
            kept = dict(recorded.rounds[0].answers)
            other = live.client.request("tools/call", params).result["requestState"]
            del sent[:]
            resumed = live.session(hopping=False).resume("tools/call", params, recorded.rounds[:1], other)
    assert other != recorded.rounds[0].state and resumed.status == recorded.status == "complete"
    wire = [json.loads(event.text)["params"] for event in sent]
    assert [event.round for event in sent] == [2, 3, 4]
    assert wire[0]["requestState"] == other and wire[0]["inputResponses"] == recorded.rounds[1].params["inputResponses"]
    assert [event.state_as_received for event in sent] == [False, True, True]
    came = [r.state for r in resumed.rounds[1:3]]
    assert [params["requestState"] for params in wire[1:]] == came != [r.state for r in recorded.rounds[1:3]]
    assert [r.number for r in resumed.rounds] == [1, 2, 3, 4] and resumed.result == recorded.result
    assert resumed.rounds[0] is not recorded.rounds[0] and recorded.rounds[0].answers == kept  # answered anew


def outcome_writes(source: str) -> list[int]:
    """The lines of `source` that build an `Outcome` or set one of its fields (`outcome.error = ...`, or
    `event.outcome.findings = ...` in an observer told of one)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Outcome":
            found.append(node.lineno)
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            for element in target.elts if isinstance(target, ast.Tuple) else [target]:
                if isinstance(element, ast.Attribute) and _an_outcome(element.value):
                    found.append(node.lineno)
    return sorted(set(found))


def _an_outcome(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "outcome" or \
        isinstance(node, ast.Attribute) and node.attr == "outcome"


OUTCOME_WRITERS = {
    "commands/conversation_builder.py": "a command's conversation: before it is sent, failed outside the session, "
                                        "told better after it",
    "conversation/session.py": "the engine: the rounds, the result, the findings its linter told",
    "transcript/model.py": "an outcome read back from its transcript",
    "proxy/conversation.py": "mrtr proxy's outcome of a conversation it watched between a host and a server",
}
"""Who writes an `Outcome`, and why: no observer of events among them (the linter is asked for its findings)."""


def test_only_the_builder_and_the_engine_write_a_command_s_outcome():
    writers = {str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
               if outcome_writes(path.read_text(encoding="utf-8"))}
    assert writers == set(OUTCOME_WRITERS)
    assert outcome_writes("outcome = Outcome(m, p)\noutcome.status, outcome.error = s, e\noutcome.advice += a\n"
                          "other.error = e\nevent.outcome.findings = f\n") == [1, 2, 3, 5]


BELOW_THE_COMMANDS = tuple(str(PACKAGE / name) for name in ("conversation", "answering", "transcript", "transport",
                                                            "protocol", "targets"))
"""The engine and what it stands on: none of it calls a function of commands/ (observers are reached through
events.py, which is neither)."""


def climbs_into_the_commands(run: Callable[[], Any]) -> tuple[Any, set[str]]:
    """What `run` returns, and each function of commands/ called directly from below the commands while it ran."""
    commands = str(PACKAGE / "commands")
    climbs: set[str] = set()

    def watch(frame: FrameType, event: str, _: Any) -> None:
        caller = frame.f_back
        if event == "call" and caller is not None and caller.f_code.co_filename.startswith(BELOW_THE_COMMANDS) \
                and frame.f_code.co_filename.startswith(commands):
            climbs.add(f"{Path(caller.f_code.co_filename).name} -> {Path(frame.f_code.co_filename).name}:"
                       f"{frame.f_code.co_name}")

    sys.setprofile(watch)
    try:
        return run(), climbs
    finally:
        sys.setprofile(None)


def test_the_engine_never_calls_back_into_the_commands():
    """A conversation whose rounds restart the stdio server in between: every function the engine
    calls directly is the engine's, the target's or below, never one of commands/ (the restarts open
    the endpoint themselves)."""
    built = build(make_context(OutputOptions(color="never")), TargetOptions(demo=True, restart_between_rounds=True),
                  AnsweringOptions(answers_file=str(ROOT / "examples" / "book_table.yaml"), no_input=True))
    with built.connected() as live:
        outcome, climbs = climbs_into_the_commands(
            lambda: live.session().run("tools/call", {"name": "book_table", "arguments": {}}))
    assert [round.instance.name for round in outcome.rounds if round.instance is not None][:2] == \
        ["first start", "restart 1"]
    assert climbs == set()


def test_a_replay_answers_from_its_recording_without_calling_back_into_the_commands():
    """The recorded answerer asks the live client's era itself (`RecordedAnswerer.follow`)."""
    from mrtr_cli.commands.from_python import Target, replay_transcript

    replayed, climbs = climbs_into_the_commands(
        lambda: replay_transcript(str(ROOT / "recordings" / "two_questions.yaml"), Target(demo=True), False, ()))
    assert replayed is None and climbs == set()


def test_the_climb_rule_sees_the_engine_call_a_function_of_the_commands():
    from mrtr_cli.commands.common import person_at_terminal
    from mrtr_cli.conversation.instances import RestartingServer

    class Stopped:
        def close(self) -> None:
            pass

    restarting = RestartingServer(Stopped(), person_at_terminal)  # type: ignore[arg-type]
    assert climbs_into_the_commands(restarting.restart)[1] == {"instances.py -> common.py:person_at_terminal"}
