"""One conversation run from Python, its outcome as data: the engine of the pytest plugin's `mrtr`
fixture. The same code as `mrtr call`, `read` and `prompt` (commands/conversation_builder.py's
`build` and `hold`), answered by the given answers only: it never prompts.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.commands.common import make_context
from mrtr_cli.commands.conversation_builder import build, hold
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.errors import MrtrError
from mrtr_cli.definition.options import AnsweringOptions, CallOptions, OutputOptions, TargetOptions
from mrtr_cli.render.json_report import conversation


@dataclass(frozen=True)
class Question:
    """One question the server asked: its method, key, message and form schema (None when it has none)."""

    method: str
    key: str
    message: str | None
    schema: dict[str, Any] | None
    round: int


@dataclass(frozen=True)
class ConversationOutcome:
    """How one conversation ended, as `mrtr call --json` tells it, plus the questions in order.

    `exit_code` is docs/exit-codes.md's (0 complete, 5 isError, 7 a question nothing answered, ...);
    `result` the final result (None on an error); `rounds` the --json document's rounds;
    `error` mrtr's one line for a failure (None when there was none)."""

    exit_code: int
    status: str
    result: dict[str, Any] | None
    rounds: list[dict[str, Any]]
    questions: list[Question]
    error: str | None = None
    era: str | None = None
    findings: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Target:
    """Which server: a command (a string split as a shell would, or an argv list), a URL, or the demo."""

    stdio: str | Sequence[str] | None = None
    url: str | None = None
    demo: bool = False
    era: str = "auto"
    timeout: float = 60.0

    def options(self) -> TargetOptions:
        command = tuple(self.stdio) if self.stdio is not None and not isinstance(self.stdio, str) else ()
        stdio = self.stdio if isinstance(self.stdio, str) else None
        return TargetOptions(url=self.url, stdio=stdio, command=command, demo=self.demo, protocol_era=self.era,
                             timeout=self.timeout)


def converse(method: str, name: str, arguments: Mapping[str, Any] | None, target: Target,
             answers: Mapping[str, Any] | None = None) -> ConversationOutcome:
    """Run `method` (tools/call, resources/read, prompts/get) on `name` with `arguments`, answered
    from `answers` (the answers file's shape: `{"answers": {...}, "match": [...]}`)."""
    call = CallOptions(method, name, (), json.dumps(dict(arguments)) if arguments is not None else None)
    context = make_context(OutputOptions(color="never"))
    asked = AskedQuestions()
    context.emit.subscribe(asked)
    answering = AnsweringOptions(answers_given=dict(answers or {}), no_input=True)
    try:
        with hold(build(context, target.options(), answering), call) as outcome:
            pass  # nothing shown: the outcome is the caller's, as data
    except MrtrError as error:  # before anything was sent: no server named, answers that do not fit
        return ConversationOutcome(int(error.exit_code), "aborted", None, [], [], error.one_line())
    return outcome_data(outcome, asked.questions)


def outcome_data(outcome: Outcome, questions: list[Question]) -> ConversationOutcome:
    document = conversation(outcome)
    return ConversationOutcome(int(outcome.exit_code()), outcome.status, outcome.result, document["rounds"],
                               questions, outcome.error.one_line() if outcome.error else None,
                               outcome.era, document["findings"])


class AskedQuestions:
    """An observer of the conversation's events that keeps every question in the order asked: in
    rounds (2026-07-28) or in flight (the older era, keys `elicitation#1`...), the last one too
    when nothing answered it."""

    def __init__(self) -> None:
        self.questions: list[Question] = []

    def __call__(self, event: Any) -> None:
        if not isinstance(event, events.InputRequested):
            return
        for key, request in event.requests.items():
            params = request.get("params")
            params = params if isinstance(params, dict) else {}
            schema = params.get("requestedSchema")
            self.questions.append(Question(str(request.get("method")), key, params.get("message"),
                                           schema if isinstance(schema, dict) else None, event.round))


def replay_transcript(path: str, target: Target, update: bool, ignore: tuple[str, ...]) -> str | None:
    """Replay one transcript as `mrtr replay` does (a target naming no server: the recorded one,
    trusted); None when it replays the same, else what `mrtr replay` prints for it."""
    from mrtr_cli.commands.replay import ReplayOptions, replay_file
    from mrtr_cli.render.replay_report import verdict_lines
    from mrtr_cli.transcript.paths import parse_path

    context = make_context(OutputOptions(color="never"))
    options = ReplayOptions((path,), update=update, ignore=ignore, trust_target=True)
    try:
        paths = [parse_path(text, "--mrtr-ignore") for text in ignore]
    except MrtrError as error:
        return error.one_line()
    verdict = replay_file(context, path, options, paths, target.options(), AnsweringOptions(no_input=True))
    for warning in verdict.warnings:
        warnings.warn(warning.removeprefix("! ").replace("--ignore", "--mrtr-ignore", 1), UserWarning, stacklevel=2)
    if verdict.result == "same":
        return None
    lines = [line.plain for line in verdict_lines(verdict)]
    if update and verdict.result == "diverged":
        lines.append(f"{path} was rewritten from the live run (--mrtr-update)")
    return "\n".join(lines)
