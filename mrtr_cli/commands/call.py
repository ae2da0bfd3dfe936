"""`mrtr call`, `mrtr read`, `mrtr prompt`: one request and its whole MRTR conversation."""

from __future__ import annotations

from mrtr_cli.answering.chain import AnswerFlags
from mrtr_cli.answering.questions import Answerer
from mrtr_cli.commands.common import Context, guarding, person_answerer, person_at_terminal, warn_unused_flags
from mrtr_cli.commands.conversation_builder import build, hold
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.options import (AnsweringOptions, CallOptions, OutputOptions, RecordingOptions, TargetOptions,
                                         TaskOptions)
from mrtr_cli.render.outcome import failure_message, print_outcome
from mrtr_cli.conversation.eras import era_named
from mrtr_cli.conversation.session import Outcome


def run(call: CallOptions, target: TargetOptions, answering: AnsweringOptions, output: OutputOptions,
        recording: RecordingOptions, tasks: TaskOptions = TaskOptions()) -> int:
    with guarding(output) as command:
        context = command.context
        conversation = build(context, target, answering, people_to_ask(context, answering), tasks=tasks)
        with hold(conversation, call, recording=recording, tasks=tasks,
                  answers_file=answering.answers_file) as outcome:
            finish(context, outcome, conversation.flags, answering, recording.record)
        command.code = outcome.exit_code(context.output.strict)
    return command.exit_code


def finish(context: Context, outcome: Outcome, flags: AnswerFlags, answering: AnsweringOptions,
           record: str | None = None) -> None:
    """What `call` does with its outcome: the unused answer flags warned of, --save-answers written,
    how to continue a paused conversation said (from `record`, its transcript), the outcome shown."""
    warn_unused_flags(context, flags.unused(), flags.likely_questions())
    if answering.save_answers:
        from mrtr_cli.answering.save import save_answers

        save_answers(answering.save_answers, outcome.rounds)
    say_how_to_continue(outcome, record)
    show_outcome(context, outcome)


def say_how_to_continue(outcome: Outcome, record: str | None) -> None:
    """A 2026-07-28 conversation that stopped at a question (exit 7) can be answered later from its transcript:
    the hint names the `mrtr answer` command, or says to record it (an older-era one waits in its session, and
    a task on its server: neither is continued from a file)."""
    error = outcome.error
    if error is None or error.exit_code != ExitCode.INCOMPLETE or outcome.task is not None \
            or era_named(outcome.era).handshake:
        return
    if not outcome.rounds or outcome.rounds[-1].result_type != "input_required":
        return
    import shlex

    error.hint += (f"; to answer it later: mrtr answer {shlex.quote(record)}" if record else
                   "; add --record FILE to be able to continue it later with mrtr answer FILE")


def people_to_ask(context: Context, answering: AnsweringOptions) -> list[Answerer]:
    """The interactive answerer, when a person can be asked."""
    if answering.no_input or not person_at_terminal():
        return []
    context.timeline.prompts_show_questions = True
    return [person_answerer(context, answering.sampling_model)]


def show_outcome(context: Context, outcome: Outcome) -> ExitCode:
    """The result (with --json: the document), the status, and the exit code it makes."""
    code = outcome.exit_code(context.output.strict)
    if context.output.json:
        from mrtr_cli.render import json_report  # with the transcript's report view: --json only

        context.print_json(json_report.conversation(outcome))
    print_outcome(context.consoles, outcome, result=not context.output.json)
    if code != ExitCode.OK and context.output.json:
        context.error_line(code, failure_message(outcome, code))
    return code
