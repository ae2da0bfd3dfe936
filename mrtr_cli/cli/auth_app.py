"""`mrtr auth ...`: the logins mrtr keeps for servers behind OAuth.

A typer sub-app, added to the main app as `auth`. Each command loads its module when it runs, so
nothing of OAuth (the auth package, platformdirs, authlib) loads with `mrtr --help`. A new
command (`login`) is one more function decorated with `@auth_app.command(cls=HelpCommand)`.
Their options are mrtr_cli/option_table.py's, as some of the conversing commands' groups.
(No `from __future__ import annotations` here: typer reads these annotations at runtime.)
"""

from typing import Annotated, Optional

import typer

from mrtr_cli.cli.help_command import HelpCommand, HelpGroup
from mrtr_cli.cli.option_groups import options_of, with_groups
from mrtr_cli.options import OutputOptions, TargetOptions

auth_app = typer.Typer(
    name="auth",
    help="The logins mrtr keeps for servers behind OAuth: log in, see them, or forget them.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    cls=HelpGroup,
)

PLAIN_OUTPUT = options_of("output", "json", "color", "debug")
"""The output options of a command that talks to no server."""


@auth_app.command(cls=HelpCommand)
@with_groups(output=PLAIN_OUTPUT)
def status(*, output: OutputOptions) -> int:
    """Which servers mrtr has tokens for: issuer, scopes, expiry, refresh token (never a token)."""
    from mrtr_cli.commands import auth as command

    return command.run_status(output)


LOGOUT_URL = Annotated[Optional[str], typer.Argument(metavar="[URL]", help="The server to log out of.")]
ALL = Annotated[bool, typer.Option("--all", help="Log out of every server.")]


@auth_app.command(cls=HelpCommand)
@with_groups(output=PLAIN_OUTPUT)
def logout(url: LOGOUT_URL = None, all_servers: ALL = False, *, output: OutputOptions) -> int:
    """Forget the tokens kept for one server (URL), or for every server (--all)."""
    from mrtr_cli.commands import auth as command

    return command.run_logout(url, all_servers, output)


LOGIN_URL = Annotated[Optional[str], typer.Argument(metavar="[URL]", help="The server to log in to (or --config "
                                                   "FILE --server NAME).")]
LOGIN_TARGET = options_of("target", "config", "server", "headers", "auth_open", "auth_timeout", "client_id",
                          "client_secret", "client_metadata_url", "cacert", "insecure")
LOGIN_OUTPUT = options_of("output", "verbose", "show_secrets", "json", "color", "debug")


@auth_app.command(cls=HelpCommand)
@with_groups(target=LOGIN_TARGET, output=LOGIN_OUTPUT)
def login(url: LOGIN_URL = None, *, target: TargetOptions, output: OutputOptions) -> int:
    """Log in to a server behind OAuth now (browser, or --auth-open CMD), and keep the login."""
    from mrtr_cli.commands import auth_login as command

    return command.run_login(target._replace(url=url), output)
