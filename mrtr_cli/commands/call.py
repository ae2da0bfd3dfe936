"""`mrtr call`, `mrtr read`, `mrtr prompt`: one request and its whole MRTR conversation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrtr_cli.answering.chain import AnswerFlags
from mrtr_cli.answering.questions import Answerer
from mrtr_cli.conversation.older_tasks import as_task
from mrtr_cli.conversation.preparation import Preparation, missing_arguments, prepare_call
from mrtr_cli.commands.common import Context, guarded, person_answerer, person_at_terminal, warn_missing_arguments, \
    warn_unused_flags
from mrtr_cli.commands.conversation_builder import Conversation, Finish, Live, build, hold, request_params
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.options import (AnsweringOptions, CallOptions, OutputOptions, RecordingOptions, TargetOptions,
                                         TaskOptions)
from mrtr_cli.render.outcome import failure_message, print_outcome
from mrtr_cli.conversation.eras import era_named
from mrtr_cli.conversation.session import Outcome, Session
from mrtr_cli.targets.target import Target

if TYPE_CHECKING:
    from mrtr_cli.config.kept_tasks import KeptTask  # loaded only where a task is kept or resumed


def run(call: CallOptions, target: TargetOptions, answering: AnsweringOptions, output: OutputOptions,
        recording: RecordingOptions, tasks: TaskOptions = TaskOptions()) -> int:
    def body(context: Context) -> ExitCode:
        conversation = build(context, target, answering, people_to_ask(context, answering), tasks=tasks)
        outcome = hold_conversation(conversation, call, recording, finisher(context, answering, recording.record),
                                    tasks, answers_file=answering.answers_file)
        return outcome.exit_code(context.output.strict)

    return guarded(output, body)


def finisher(context: Context, answering: AnsweringOptions, record: str | None = None) -> Finish:
    """What `call` does with its outcome: the unused answer flags warned of, --save-answers written,
    how to continue a paused conversation said (from `record`, its transcript), the outcome shown."""
    def finish(outcome: Outcome, flags: AnswerFlags) -> None:
        warn_unused_flags(context, flags.unused(), flags.likely_questions())
        if answering.save_answers:
            from mrtr_cli.answering.save import save_answers

            save_answers(answering.save_answers, outcome.rounds)
        say_how_to_continue(outcome, record)
        show_outcome(context, outcome)

    return finish


def hold_conversation(conversation: Conversation, call: CallOptions, recording: RecordingOptions | None = None,
                      finish: Finish | None = None, tasks: TaskOptions = TaskOptions(),
                      resuming: KeptTask | None = None, answers_file: str | None = None) -> Outcome:
    """One request and its whole conversation (commands/conversation_builder.py `hold`), answered by the
    conversation's chain; every failure is kept in the outcome, which `finish` gets. `tasks`: how a task
    the server makes of it is followed (and, in the older era, whether the call asks for one).
    `resuming`: no request is sent, the task it names (made by `call`) is followed instead."""
    def talk(live: Live) -> Outcome:
        if resuming is not None:
            return live.session().follow_task(resuming.task_id, call.method, request_params(call, Preparation()))
        return _send(conversation.context, live.session(), conversation.target, call, tasks.task)

    return hold(conversation, call, talk, recording=recording, answers_file=answers_file, finish=finish,
                tasks=tasks, resuming=resuming)


def _send(context: Context, session: Session, target: Target, call: CallOptions, as_a_task: bool) -> Outcome:
    """The request, prepared (its arguments typed by the schema; in the older era, made a task when the tool
    requires it or `as_a_task` asks), and its whole conversation."""
    prepared = prepare_call(session.client, target, call.method, call.name, needs_schema=bool(call.arguments))
    params = as_task(session.client, call.method, request_params(call, prepared), prepared.task_support, as_a_task)
    warn_missing_arguments(context, call.name, missing_arguments(prepared.schema, params.get("arguments")))
    return session.run(call.method, params, prepared.mirrored)


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
