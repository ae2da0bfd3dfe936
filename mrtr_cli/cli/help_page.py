"""mrtr's own `--help` as typer's command line shows it: what cli/help_command.py's click classes
hand to render/help.py. (A usual `--help` is drawn without typer, by fast_paths/fast_help.py, from the
same tables; tests/test_help_fast.py holds the two pages equal.)

typer's rich help (typer.rich_utils) imports rich.markdown and rich.traceback and lays out a rich
table per panel: most of what `mrtr --help` cost. `help_page` collects what that showed, from the
same click parameters and in the same order: the usage line, the command's help, a panel per
`rich_help_panel` (Arguments first, then Options, then the others as they first appear), and for
a group its commands. Help text is shown as written (typer read it as rich markup, which dropped
a "[default: ...]").
"""

import inspect
import sys
from typing import Any, Dict, List, Tuple

import typer.core

from mrtr_cli.render.help import (ARGUMENTS, COMMANDS, OPTIONS, HelpPage, Panel, Row, argument_name, argument_usage,
                                  bounds, show, split_help, usage, write)


def write_help(command: Any, ctx: Any) -> None:
    """Write the help to stdout, as typer's did."""
    write(help_page(command, ctx), sys.stdout)


def show_help(command: Any, ctx: Any) -> int:
    """`--help`: the page and its last empty line; the exit code (render/help.py's `show`)."""
    return show(help_page(command, ctx))


def help_page(command: Any, ctx: Any) -> HelpPage:
    description, details = split_help(inspect.cleandoc(command.help or ""))
    panels = _parameter_panels(command, ctx)
    if isinstance(command, typer.core.TyperGroup):
        panels.extend(_command_panels(command, ctx))
    return HelpPage(usage(ctx.command_path, _usage_pieces(command, ctx)), description, details, panels)


def _usage_pieces(command: Any, ctx: Any) -> List[str]:
    """`[OPTIONS]` and each argument (`TOOL`, `[URL]`), or a group's `COMMAND [ARGS]...`."""
    if isinstance(command, typer.core.TyperGroup):
        return ["[OPTIONS]", "COMMAND", "[ARGS]..."]
    arguments = [param for param in command.get_params(ctx) if isinstance(param, typer.core.TyperArgument)]
    return ["[OPTIONS]", *(argument_usage(param.name or "", param.metavar, param.required, param.nargs != 1)
                           for param in arguments)]


def _parameter_panels(command: Any, ctx: Any) -> List[Panel]:
    arguments: Dict[str, List[Any]] = {ARGUMENTS: []}
    options: Dict[str, List[Any]] = {OPTIONS: []}
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        if isinstance(param, typer.core.TyperArgument):
            arguments.setdefault(param.rich_help_panel or ARGUMENTS, []).append(param)
        elif isinstance(param, typer.core.TyperOption):
            options.setdefault(param.rich_help_panel or OPTIONS, []).append(param)
    groups = [*arguments.items(), *options.items()]
    return [Panel(title, [_parameter_row(param, ctx) for param in params]) for title, params in groups if params]


def _parameter_row(param: Any, ctx: Any) -> Row:
    """Required mark, long names, short names (an argument's name), type or metavar, then help."""
    argument = isinstance(param, typer.core.TyperArgument)
    name = argument_name(param.name or "", param.metavar) if argument else ""
    long = ",".join(opt for opt in param.opts if "--" in opt)
    short = ",".join(name or opt for opt in param.opts if "--" not in opt)
    cells = (("*" if param.required else "", "red"), (long, "bold cyan"), (short, "" if argument else "bold green"),
             (_type_text(param, ctx), "bold yellow"))
    return Row(cells, _parameter_help(param, ctx))


def _type_text(param: Any, ctx: Any) -> str:
    """An option's metavar, or an argument's choices (`<tools|prompts|...>`)."""
    if isinstance(param, typer.core.TyperArgument):
        return param.type.get_metavar(param=param, ctx=ctx) or ""
    shown = param.make_metavar(ctx=ctx)
    return shown if "bool" not in shown.lower() else ""


def _parameter_help(param: Any, ctx: Any) -> Tuple[Tuple[str, str], ...]:
    """The help text (its line breaks as spaces), then a number's bounds, `[default: ...]` and
    `[required]`."""
    items = [(" ".join(param.help.split()), "")] if param.help else []
    if hasattr(param.type, "_describe_range") and not isinstance(param, typer.core.TyperArgument):
        items.append((bounds(param.type.min, param.type.max), "dim"))  # click's IntRange, FloatRange
    default = param._extract_default_help_str(ctx=ctx)
    shows_text = isinstance(param.show_default, str)
    if shows_text or (default is not None and (param.show_default or ctx.show_default)):
        text = param._get_default_string(ctx=ctx, show_default_is_str=shows_text, default_value=default)
        items += [(f"[default: {text}]", "dim")] if text else []
    if param.required:
        items.append(("[required]", "dim red"))
    return tuple(items)


def _command_panels(group: typer.core.TyperGroup, ctx: Any) -> List[Panel]:
    panels: Dict[str, List[Row]] = {COMMANDS: []}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is not None and not command.hidden:
            summary = split_help(inspect.cleandoc(command.short_help or command.help or ""))[0]
            row = Row(((command.name or "", "bold cyan"),), ((summary, ""),))
            panels.setdefault(getattr(command, "rich_help_panel", None) or COMMANDS, []).append(row)
    return [Panel(title, rows) for title, rows in panels.items() if rows]
