"""The click classes of mrtr's commands: typer's, with mrtr's own `--help` (cli/help_page.py).

Kept apart from help_page.py so that a run that shows no help loads nothing of the help.
"""

from typing import Any

import typer.core


class HelpCommand(typer.core.TyperCommand):
    """A typer command whose help is mrtr's."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from mrtr_cli.cli.help_page import write_help

        write_help(self, ctx)


class HelpGroup(typer.core.TyperGroup):
    """A typer group whose help is mrtr's."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from mrtr_cli.cli.help_page import write_help

        write_help(self, ctx)
