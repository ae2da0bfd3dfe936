"""The command line: parse, build typed options, call one function, return its exit code.

The only package that imports typer (and the click it runs on). option_groups.py builds typer's
parameters from mrtr_cli/definition/option_table.py and mrtr_cli/definition/command_table.py, where each option and each
command is declared once; subcommands.py holds the app and its commands. A usual `--help`, `call`,
`read`, `prompt` or `demo-server` never comes here (fast_paths/fast_help.py, fast_call.py); help after
a mistake, and every message about one, still does.
"""

import sys
from typing import Any, List, Tuple

import typer

from mrtr_cli.cli.option_groups import click_module
from mrtr_cli.cli.subcommands import app, command_for
from mrtr_cli.fast_paths.fast_call import cut_server

__all__ = ["app", "run"]


def run(args: List[str]) -> int:
    """Parse `args` and run the command. Everything after `--` is the server to spawn: it travels
    with this run as the click context's `obj`, which the target group's builder reads
    (`options_of(..., server_command=True)`)."""
    args, server_command = cut_server(args)
    command = command_for(args)
    click = click_module()
    try:
        return int(command.main(args=args, prog_name="mrtr", standalone_mode=False, obj=server_command) or 0)
    except click.exceptions.ClickException as error:
        return _usage_error(*_message(error, args), _json_output(args))
    except typer.Abort as abort:  # click turns a KeyboardInterrupt it sees into Abort
        from mrtr_cli.errors import interruption

        return int(interruption(abort.__context__).exit_code)


def _json_output(args: List[str]) -> bool:
    """Whether `args` ask for JSON output: `--json`, except `mrtr proxy --json FILE` (the judge's report)."""
    name = next((arg for arg in args if not arg.startswith("-")), None)
    return "--json" in args and name != "proxy"


def _message(error: Any, args: List[str]) -> Tuple[str, str]:
    """What click says went wrong, and the help to see: the command's, when click knows which
    command it was parsing. `mrtr` or `mrtr auth` alone has shown its help already (click's message
    is that help, which mrtr's wrote to stdout itself): the line says what is missing."""
    if type(error).__name__ == "NoArgsIsHelpError":
        return "missing command: name one of the commands listed above", error.ctx.command_path
    context = getattr(error, "ctx", None)
    if context is None and type(error).__name__ == "BadOptionUsage" and error.option_name:
        return _no_value(error.option_name, args), " ".join(["mrtr", *_command_path(args)])
    return _said(error), context.command_path if context is not None else "mrtr"


def _no_value(name: str, args: List[str]) -> str:
    """click's parser found option `name` last, its value missing (click knows no command then)."""
    from mrtr_cli.definition.option_table import BY_NAME

    option = BY_NAME.get(name)
    shape = option.metavar if option is not None and option.metavar else "VALUE"
    return f"{name} is missing its value: write {name} {shape}"


def _command_path(args: List[str]) -> List[str]:
    """The command `args` name (`auth login`), as far as the command table knows it."""
    from mrtr_cli.definition.command_table import find

    words = [arg for arg in args if not arg.startswith("-")]
    return next(words[:count] for count in range(len(words), -1, -1) if find(words[:count]) is not None)


def _said(error: Any) -> str:
    """click's message; a bad value of an option as `--timeout: 'abc' is not a number of seconds`."""
    click = click_module()
    exceptions = click.exceptions
    bad_value = isinstance(error, exceptions.BadParameter) and not isinstance(error, exceptions.MissingParameter)
    option = getattr(error, "param", None)
    if bad_value and option is not None and getattr(option, "param_type_name", None) == "option" and option.opts:
        return f"{max(option.opts, key=len)}: {error.message}"
    return str(error.format_message())


def _usage_error(message: str, command_path: str, as_json: bool) -> int:
    from mrtr_cli.render import json_report
    from mrtr_cli.exit_codes import ExitCode

    line = f"mrtr: {message.strip()} (see {command_path} --help)"
    print(line, file=sys.stderr)
    if as_json:
        print(json_report.error_line(ExitCode.USAGE, line), file=sys.stderr)
    return int(ExitCode.USAGE)
