"""The click classes of mrtr's commands: typer's, with mrtr's own `--help` (cli/help_page.py).

Kept apart from help_page.py so that a run that shows no help loads nothing of the help.
"""

from typing import Any, List, Optional

import typer
import typer.core

from mrtr_cli.definition.option_table import HELP


class HelpCommand(typer.core.TyperCommand):
    """A typer command whose help is mrtr's."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from mrtr_cli.cli.help_page import write_help

        write_help(self, ctx)

    def get_help_option(self, ctx: Any) -> Optional[Any]:
        return _shown_by_mrtr(super().get_help_option(ctx))

    def parse_args(self, ctx: Any, args: List[str]) -> List[str]:
        """click's parse, but words left over get mrtr's message (cli/extra_arguments.py): what to do
        when they spilled out of `--stdio`."""
        if ctx.allow_extra_args or ctx.resilient_parsing:
            return list(super().parse_args(ctx, args))
        words = list(args)  # click's parser takes its words off the list it is given
        ctx.allow_extra_args = True
        try:
            extras = list(super().parse_args(ctx, args))
        finally:
            ctx.allow_extra_args = False
        if extras:
            from mrtr_cli.cli.extra_arguments import STDIO, message

            connects = any(STDIO in getattr(param, "opts", ()) for param in self.params)
            ctx.fail(message(ctx.command_path, words, extras, connects))
        return extras


class HelpGroup(typer.core.TyperGroup):
    """A typer group whose help is mrtr's."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from mrtr_cli.cli.help_page import write_help

        write_help(self, ctx)

    def get_help_option(self, ctx: Any) -> Optional[Any]:
        return _shown_by_mrtr(super().get_help_option(ctx))


def _shown_by_mrtr(option: Optional[Any]) -> Optional[Any]:
    """click's `--help` option, shown by mrtr: click's own wrote the page, then its last empty line
    apart, and a reader gone by then (`mrtr --help | head -1`) was click's exit 1."""
    if option is not None:
        option.callback = _show_help
    return option


HELP_CONTEXT = {"help_option_names": sorted(HELP, key=len)}
"""click's context settings for mrtr and each command family: the help option (option_table.py),
its short name first, as click lists it."""


def _show_help(ctx: Any, param: Any, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from mrtr_cli.cli.help_page import show_help

        ctx.exit(show_help(ctx.command, ctx))


def group_app(group: Any) -> typer.Typer:
    """The typer sub-app of a command family (`mrtr auth`, `mrtr tasks`: a command_table.CommandGroup),
    whose help is mrtr's: each command is added to it with cli/option_groups.command_of."""
    return typer.Typer(name=group.name, help=group.help, no_args_is_help=True,
                       context_settings=HELP_CONTEXT, pretty_exceptions_enable=False,
                       cls=HelpGroup)

