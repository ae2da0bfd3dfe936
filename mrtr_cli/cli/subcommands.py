"""The typer app and its commands: each parses, builds Options, calls one function in commands/.

Each command's name, help, arguments and option groups are its entry in mrtr_cli/definition/command_table.py,
its options mrtr_cli/definition/option_table.py's (`command` builds typer's parameters from them); a function
here receives the arguments by name and each group's Options by the group's name.

Commands load their module when they run. Only the command being run is built into a click
command (`command_for`): building all of them, and the `auth` sub-app, cost every run about 25 ms.
(No `from __future__ import annotations` here: typer reads these annotations at runtime.)
"""

from typing import Any, Callable, Dict, List, Optional

import typer

from mrtr_cli import __version__
from mrtr_cli.cli.help_command import HELP_CONTEXT, HelpGroup
from mrtr_cli.cli.option_groups import command_of, named
from mrtr_cli.definition.command_table import APP, Command, command_named
from mrtr_cli.definition.options import (AnsweringOptions, ArgumentOptions, CallOptions, LoadingOptions, OutputOptions,
                                         PausedOptions, ProbeOptions, ProxyOptions, RecordingOptions, ReplayingOptions,
                                         ReportOptions, ServingOptions, TargetOptions, TaskOptions)

APP_SETTINGS: Dict[str, Any] = dict(
    name="mrtr",
    help=APP.help,
    no_args_is_help=True,
    context_settings=HELP_CONTEXT,
    pretty_exceptions_enable=False,
    cls=HelpGroup,
)
app = typer.Typer(**APP_SETTINGS)


def command(entry: Command) -> Callable[[Callable[..., int]], Any]:
    """Register a function as mrtr's command of `entry` (command_table.py)."""
    return command_of(app, entry)


@command(command_named("call"))
def call(*, tool: str, call: ArgumentOptions, target: TargetOptions, answering: AnsweringOptions,
         tasks: TaskOptions, output: OutputOptions, recording: RecordingOptions) -> int:
    from mrtr_cli.commands import call as command

    return command.run(CallOptions("tools/call", tool, *call), target, answering, output, recording, tasks)


@command(command_named("read"))
def read(*, uri: str, target: TargetOptions, answering: AnsweringOptions, tasks: TaskOptions,
         output: OutputOptions, recording: RecordingOptions) -> int:
    from mrtr_cli.commands import call as command

    return command.run(CallOptions("resources/read", uri), target, answering, output, recording, tasks)


@command(command_named("prompt"))
def prompt(*, name: str, call: ArgumentOptions, target: TargetOptions, answering: AnsweringOptions,
           tasks: TaskOptions, output: OutputOptions, recording: RecordingOptions) -> int:
    from mrtr_cli.commands import call as command

    return command.run(CallOptions("prompts/get", name, *call), target, answering, output, recording, tasks)


@command(command_named("discover"))
def discover(*, target: TargetOptions, answering: AnsweringOptions, tasks: TaskOptions, output: OutputOptions) -> int:
    from mrtr_cli.commands import inspect as command

    return command.run_discover(target, answering, tasks, output)


@command(command_named("list"))
def list_(*, kind: str, target: TargetOptions, answering: AnsweringOptions, tasks: TaskOptions,
          output: OutputOptions) -> int:
    from mrtr_cli.commands import inspect as command

    return command.run_list(kind, target, answering, tasks, output)


@command(command_named("shell"))
def shell(*, target: TargetOptions, answering: AnsweringOptions, tasks: TaskOptions, output: OutputOptions,
          recording: RecordingOptions, proxying: ProxyOptions) -> int:
    from mrtr_cli.commands import shell as command

    return command.run(target, answering, tasks, output, recording, proxying.record_dir)


@command(command_named("demo-server"))
def demo_server(*, serving: ServingOptions) -> int:
    from mrtr_cli.commands import serving as command

    return command.run_demo_server(serving.http, serving.conformance_fixtures, serving.state_key)


@command(command_named("serve"))
def serve_(*, files: List[str], serving: ServingOptions) -> int:
    from mrtr_cli.commands import serving as command

    return command.run_serve(files, serving.http)


@command(command_named("show"))
def show(*, file: str, output: OutputOptions, recording: RecordingOptions) -> int:
    from mrtr_cli.commands import show as command

    return command.run(file, output, recording)


@command(command_named("replay"))
def replay(*, files: List[str], call: ArgumentOptions, replaying: ReplayingOptions, report: ReportOptions,
           target: TargetOptions, answering: AnsweringOptions, tasks: TaskOptions, output: OutputOptions,
           recording: RecordingOptions) -> int:
    from mrtr_cli.commands import replay as command

    options = command.ReplayOptions(tuple(files), call.arguments, strict=output.strict, junit=report.junit,
                                    sarif=report.sarif, html=recording.html, show_state=recording.show_state,
                                    har=recording.har,
                                    poll_interval=tasks.poll_interval, task_timeout=tasks.task_timeout,
                                    **replaying._asdict())
    return command.run(options, target, answering, output)


@command(command_named("answer"))
def answer(*, file: Optional[str], paused: PausedOptions, call: ArgumentOptions, replaying: ReplayingOptions,
           target: TargetOptions, answering: AnsweringOptions, output: OutputOptions,
           recording: RecordingOptions) -> int:
    from mrtr_cli.commands import answer as command

    options = command.AnswerOptions(file, paused.list_dir, call.arguments, replaying.trust_target)
    return command.run(options, target, answering, output, recording)


@command(command_named("load"))
def load(*, files: Optional[List[str]], call: ArgumentOptions, loading: LoadingOptions, replaying: ReplayingOptions,
         target: TargetOptions, answering: AnsweringOptions, output: OutputOptions) -> int:
    from mrtr_cli.load import command

    return command.run(tuple(files or ()), call.arguments, loading, replaying.ignore, target, answering, output)


@command(command_named("check"))
def check(*, probes: ProbeOptions, call: ArgumentOptions, report: ReportOptions, target: TargetOptions,
          answering: AnsweringOptions, output: OutputOptions, recording: RecordingOptions) -> int:
    from mrtr_cli.commands import check as command

    called = CallOptions("tools/call", probes.tool, *call) if probes.tool else None
    prompt_args = ((), None) if probes.tool else call  # -a and --args are the tool's when one is named
    named_requests = command.named_requests(probes.prompt, probes.resource, *prompt_args)
    return command.run(called, target, answering, output, report, named_requests, probes, recording.html)


@command(command_named("proxy"))
def proxy(*, proxying: ProxyOptions, serving: ServingOptions, target: TargetOptions, report: ReportOptions,
          output: OutputOptions, recording: RecordingOptions) -> int:
    if proxying.wrap or proxying.unwrap:
        from mrtr_cli.commands import proxy_wrap

        return proxy_wrap.run(proxying, serving.http, target.config, target.server, output, report.junit,
                              report.sarif)
    from mrtr_cli.commands import proxy_judging

    return proxy_judging.run(proxying, serving.http, target.max_message_size, report, output,
                             (target.config, target.server), recording)


@command(command_named("help"))
def help_(*, command: Optional[List[str]]) -> int:
    from mrtr_cli.fast_paths import fast_help

    return fast_help.run_help(command or [])


AUTH = "auth"
"""The sub-app of `mrtr auth ...` (cli/auth_app.py), loaded only when it is run or listed."""
TASKS = "tasks"
"""The sub-app of `mrtr tasks ...` (cli/tasks_app.py), loaded only when it is run or listed."""


def command_for(args: List[str]) -> Any:
    """The click group that runs `args`, holding only the command they name; every command (and
    the `auth` and `tasks` groups) when they name none, or one mrtr does not know, so that help and errors list them all."""
    name = next((arg for arg in args if not arg.startswith("-")), None)
    chosen = [info for info in app.registered_commands if _command_name(info) == name]
    runs = typer.Typer(**APP_SETTINGS)
    runs.registered_callback = app.registered_callback
    runs.registered_commands = chosen or ([] if name in (AUTH, TASKS) else list(app.registered_commands))
    if not chosen and name != TASKS:
        from mrtr_cli.cli.auth_app import auth_app

        runs.add_typer(auth_app, name=AUTH)
    if not chosen and name != AUTH:
        from mrtr_cli.cli.tasks_app import tasks_app

        runs.add_typer(tasks_app, name=TASKS)
    return typer.main.get_command(runs)


def _command_name(info: Any) -> str:
    """A command's name as typer gives it: its own, or its function's with dashes."""
    name: str = info.name or info.callback.__name__.lower().replace("_", "-")
    return name


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mrtr {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(version: named("--version", callback=_version, is_eager=True) = False) -> None:
    """mrtr: an inspector for MCP Multi Round-Trip Requests (MCP 2026-07-28)."""
