"""Every `--help` (and `-h`) drawn without typer, click or rich: `mrtr --help`, `mrtr call --help`,
`mrtr auth login -h`, from the tables typer's commands are built from (command_table.py and
option_table.py), laid out by render/help.py.

Only `mrtr [COMMAND...] --help` itself is answered here; anything else (the flag among other
arguments, a command mrtr does not know) makes `run` return None, and typer's command line answers
as before. The page is the one cli/help_page.py collects from typer's click command, row for row:
tests/test_help_fast.py holds the two equal. Standard library only, besides mrtr's own.
"""

from __future__ import annotations

import sys

from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.command_table import Argument, Command, CommandGroup, find
from mrtr_cli.definition.option_table import HELP, HELP_TEXT, PANELS, Option, of_group
from mrtr_cli.render.help import (ARGUMENTS, COMMANDS, OPTIONS, HelpPage, Panel, Row, argument_name, argument_usage,
                                  bounds, show, split_help, usage)

def _typers_own(name: str, help: str, short: str = "") -> Row:
    return Row((("", "red"), (name, "bold cyan"), (short, "bold green"), ("", "bold yellow")), ((help, ""),))


HELP_ROW = _typers_own(HELP[0], HELP_TEXT, HELP[1])
"""click's own help option, last among every command's options."""
COMPLETION_ROWS = (_typers_own("--install-completion", "Install completion for the current shell."),
                   _typers_own("--show-completion", "Show completion for the current shell, to copy it or customize "
                               "the installation."))
"""The options typer adds to `mrtr` itself, after mrtr's own."""


def run(args: list[str]) -> int | None:
    """Show the help `args` ask for (`call --help`); None when they ask for anything else."""
    if not args or args[-1] not in HELP:
        return None
    found = find(args[:-1])
    if found is None:
        return None
    return show(help_page(found, args[:-1]))


def run_help(words: list[str]) -> int:
    """`mrtr help [COMMAND...]`: the page `mrtr COMMAND... --help` shows; one word that names no
    command is a topic of the manual (commands/help_topics.py); anything else mrtr does not know is a
    usage error with the names it is close to."""
    found = find(words)
    if found is not None:
        return show(help_page(found, words))
    topics: list[str] = []
    if len(words) == 1:
        from mrtr_cli.commands import help_topics

        code = help_topics.run(words[0])
        if code is not None:
            return code
        topics = help_topics.names()
    print(f"mrtr: {_unknown(words, topics)}", file=sys.stderr)
    return int(ExitCode.USAGE)


def _unknown(words: list[str], topics: list[str]) -> str:
    """What is wrong with `mrtr help WORDS`: the first word that names no command (nor, alone, a
    topic), the commands and topics it is close to, and the help that lists them."""
    import difflib  # only for a mistake: the help itself stays quick

    known = next(words[:count] for count in range(len(words), -1, -1) if find(words[:count]) is not None)
    group, path, word = find(known), " ".join(["mrtr", *known]), words[len(known)]
    if not isinstance(group, CommandGroup):
        return f"{' '.join(known)} has no subcommands, and {word!r} is none (see {path} --help)"
    commands = {command.name: " ".join([*known, command.name]) for command in group.commands}
    close = difflib.get_close_matches(word.lower(), [*commands, *topics], n=2)
    meant = f"; did you mean {' or '.join(repr(commands.get(name, name)) for name in close)}?" if close else ""
    what = "command or help topic" if topics else "command"
    listed = f"; topics: {', '.join(topics)}" if topics else ""
    return f"no {what} {' '.join([*known, word])!r}{meant} (see {path} --help{listed})"


def help_page(found: Command | CommandGroup, path: list[str]) -> HelpPage:
    """The help of the command or group `mrtr PATH` names."""
    description, details = split_help(found.help)
    panels = _parameter_panels(found, not path)
    if isinstance(found, CommandGroup):
        pieces = ["[OPTIONS]", "COMMAND", "[ARGS]..."]
        panels.append(Panel(COMMANDS, [_command_row(command) for command in found.commands]))
    else:
        pieces = ["[OPTIONS]", *map(_argument_usage, found.arguments)]
    return HelpPage(usage(" ".join(["mrtr", *path]), pieces), description, details, panels)


def _parameter_panels(found: Command | CommandGroup, root: bool) -> list[Panel]:
    """The Arguments panel, then Options (with typer's and click's own options at its end), then
    the other panels as their first option comes."""
    panels: dict[str, list[Row]] = {OPTIONS: []}
    for option in (option for group, fields in found.groups for option in of_group(group, fields)):
        panels.setdefault(PANELS.get(option.group, OPTIONS), []).append(_option_row(option))
    panels[OPTIONS] += [*(COMPLETION_ROWS if root else ()), HELP_ROW]
    arguments = found.arguments if isinstance(found, Command) else ()
    shown = [Panel(ARGUMENTS, [_argument_row(argument) for argument in arguments])] if arguments else []
    return shown + [Panel(title, rows) for title, rows in panels.items()]


def _option_row(option: Option) -> Row:
    """Long names, short names, metavar (and a number's bounds), then the help and the default."""
    long = ",".join(name for name in option.names if "--" in name)
    short = ",".join(name for name in option.names if "--" not in name)
    cells = (("", "red"), (long, "bold cyan"), (short, "bold green"), (_option_type(option), "bold yellow"))
    default = _default_text(option)
    reader = option.reader
    shown_bounds = ((bounds(reader.low, reader.high), "dim"),) if reader.number is not None else ()
    shown_default = ((f"[default: {default}]", "dim"),) if default else ()
    return Row(cells, ((" ".join(option.help.split()), ""), *shown_bounds, *shown_default))


def _option_type(option: Option) -> str:
    return "" if option.kind == "flag" else option.metavar or _choices(option.choices)


def _default_text(option: Option) -> str:
    """The default as the help shows it (none for a flag or a list): as it would be typed."""
    default = option.default
    if option.kind != "value" or default is None:
        return ""
    return option.reader.text(default) if option.reader.text else str(default)


def _choices(choices: tuple[str, ...]) -> str:
    return f"<{'|'.join(choices)}>" if choices else "<str>"


def _argument_row(argument: Argument) -> Row:
    """The required mark, the argument's name, its type, then its help."""
    required = (("*" if argument.required else "", "red"),)
    choices = _choices(argument.choices) if argument.choices else ""
    cells = (*required, ("", "bold cyan"), (argument_name(argument.name, argument.metavar), ""),
             (choices, "bold yellow"))
    required_mark = (("[required]", "dim red"),) if argument.required else ()
    return Row(cells, ((" ".join(argument.help.split()), ""), *required_mark))


def _argument_usage(argument: Argument) -> str:
    return argument_usage(argument.name, argument.metavar, argument.required, argument.many)


def _command_row(command: Command | CommandGroup) -> Row:
    return Row(((command.name, "bold cyan"),), ((split_help(command.help)[0], ""),))
