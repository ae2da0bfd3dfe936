"""`mrtr tasks ...`: the tasks mrtr keeps the ids of.

A typer sub-app, added to the main app as `tasks`, built as cli/auth_app.py is: each command is an
entry of `TASKS` in mrtr_cli/definition/command_table.py and a function here; each loads its module when it runs.
(No `from __future__ import annotations` here: typer reads these annotations at runtime.)
"""

from mrtr_cli.cli.help_command import group_app
from mrtr_cli.cli.option_groups import command_of
from mrtr_cli.definition.command_table import TASKS, command_named
from mrtr_cli.definition.options import AnsweringOptions, OutputOptions, RecordingOptions, TargetOptions, TaskOptions

tasks_app = group_app(TASKS)


@command_of(tasks_app, command_named("tasks list"))
def list_(*, target: TargetOptions, output: OutputOptions) -> int:
    from mrtr_cli.commands import task_commands as command

    return command.run_list(target, output)


@command_of(tasks_app, command_named("tasks get"))
def get(*, task_id: str, target: TargetOptions, output: OutputOptions) -> int:
    from mrtr_cli.commands import task_commands as command

    return command.run_get(task_id, target, output)


@command_of(tasks_app, command_named("tasks resume"))
def resume(*, task_id: str, target: TargetOptions, answering: AnsweringOptions, output: OutputOptions,
           recording: RecordingOptions, tasks: TaskOptions) -> int:
    from mrtr_cli.commands import task_resume as command

    return command.run(task_id, target, answering, output, recording, tasks)


@command_of(tasks_app, command_named("tasks cancel"))
def cancel(*, task_id: str, target: TargetOptions, output: OutputOptions) -> int:
    from mrtr_cli.commands import task_commands as command

    return command.run_cancel(task_id, target, output)
