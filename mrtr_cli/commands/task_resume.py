"""`mrtr tasks resume ID`: follow a task mrtr made before (or any the server knows) to its end,
answering what it asks as `call` would: the same answering flags, the same timeline and outcome, the
same exit codes, `--record` a new transcript that starts at the resume.

The server is the one the target flags name over HTTP, or the one the id is kept for; a stdio
target is exit 1 (the task died with the process that ran it), an expired or unknown task exit 2
(commands/task_commands.py `locate`). Ctrl-C keeps the id again, as in `call`.
"""

from __future__ import annotations

import time

from mrtr_cli.commands.call import people_to_ask, show_outcome
from mrtr_cli.commands.common import Context, guarded, warn_unused_flags
from mrtr_cli.commands.conversation_builder import build, hold
from mrtr_cli.commands.task_commands import locate
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.config.kept_tasks import KeptTask
from mrtr_cli.definition.options import (AnsweringOptions, CallOptions, OutputOptions, RecordingOptions, TargetOptions,
                                         TaskOptions)


def run(task_id: str, options: TargetOptions, answering: AnsweringOptions, output: OutputOptions,
        recording: RecordingOptions, tasks: TaskOptions) -> int:
    return guarded(output, lambda context: _resume(context, task_id, options, answering, recording, tasks))


def _resume(context: Context, task_id: str, options: TargetOptions, answering: AnsweringOptions,
            recording: RecordingOptions, tasks: TaskOptions) -> ExitCode:
    found = locate(task_id, options, "resume")
    task = found.kept or _unknown_here(task_id, found.url)

    call = CallOptions(task.method, task.name)
    conversation = build(context, found.options, answering, people_to_ask(context, answering), tasks=tasks)
    with hold(conversation, call, recording=recording, tasks=tasks, resuming=task,
              answers_file=answering.answers_file) as outcome:
        warn_unused_flags(context, conversation.flags.unused(), conversation.flags.likely_questions())
        show_outcome(context, outcome)
    return outcome.exit_code(context.output.strict)


def _unknown_here(task_id: str, url: str) -> KeptTask:
    """A task mrtr does not keep (made elsewhere): followed all the same, and kept while it runs."""
    now = time.time()
    return KeptTask(task_id, url, "tools/call", "", "unknown", None, now, now)
