"""`mrtr auth ...`: the logins mrtr keeps for servers behind OAuth.

A typer sub-app, added to the main app as `auth`. Each command loads its module when it runs, so
nothing of OAuth (the auth package, platformdirs, authlib) loads with `mrtr --help`. A new
command is an entry of `AUTH` in mrtr_cli/definition/command_table.py (its help, arguments and option groups)
and one more function here decorated with `@command_of(auth_app, command_named("auth NAME"))`.
(No `from __future__ import annotations` here: typer reads these annotations at runtime.)
"""

from typing import Optional

from mrtr_cli.cli.help_command import group_app
from mrtr_cli.cli.option_groups import command_of
from mrtr_cli.definition.command_table import AUTH, command_named
from mrtr_cli.definition.options import LogoutOptions, OutputOptions, TargetOptions

auth_app = group_app(AUTH)


@command_of(auth_app, command_named("auth status"))
def status(*, output: OutputOptions) -> int:
    from mrtr_cli.commands import auth as command

    return command.run_status(output)


@command_of(auth_app, command_named("auth logout"))
def logout(*, url: Optional[str], logout: LogoutOptions, output: OutputOptions) -> int:
    from mrtr_cli.commands import auth as command

    return command.run_logout(url, logout.all_servers, output)


@command_of(auth_app, command_named("auth login"))
def login(*, url: Optional[str], target: TargetOptions, output: OutputOptions) -> int:
    from mrtr_cli.commands import auth_login as command

    return command.run_login(target._replace(url=url), output)
