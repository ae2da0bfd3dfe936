"""`mrtr auth ...`: the logins mrtr keeps for servers behind OAuth.

A typer sub-app, added to the main app as `auth`. Each command loads its module when it runs, so
nothing of OAuth (the auth package, platformdirs, authlib) loads with `mrtr --help`. A new
command (`login`) is one more function decorated with `@auth_app.command(cls=HelpCommand)`.
(No `from __future__ import annotations` here: typer reads these annotations at runtime.)
"""

from typing import Annotated, Optional

import typer

from mrtr_cli.cli.help_command import HelpCommand, HelpGroup
from mrtr_cli.cli.option_groups import (AUTH_OPEN, AUTH_TIMEOUT, CACERT, CLIENT_ID, CLIENT_METADATA_URL,
                                        CLIENT_SECRET, COLOR, CONFIG, DEBUG, HEADER, INSECURE, JSON_OUTPUT,
                                        SERVER_NAME, SHOW_SECRETS, VERBOSE, Color)
from mrtr_cli.options import OutputOptions, TargetOptions

auth_app = typer.Typer(
    name="auth",
    help="The logins mrtr keeps for servers behind OAuth: log in, see them, or forget them.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    cls=HelpGroup,
)


def plain_output(json_output: bool, color: Color, debug: bool) -> OutputOptions:
    """The output options of a command that talks to no server."""
    return OutputOptions(json=json_output, color=color.value, debug=debug)


@auth_app.command(cls=HelpCommand)
def status(json_output: JSON_OUTPUT = False, color: COLOR = Color.auto, debug: DEBUG = False) -> None:
    """Which servers mrtr has tokens for: issuer, scopes, expiry, refresh token (never a token)."""
    from mrtr_cli.commands import auth as command

    raise typer.Exit(command.run_status(plain_output(json_output, color, debug)))


LOGOUT_URL = Annotated[Optional[str], typer.Argument(metavar="[URL]", help="The server to log out of.")]
ALL = Annotated[bool, typer.Option("--all", help="Log out of every server.")]


@auth_app.command(cls=HelpCommand)
def logout(url: LOGOUT_URL = None, all_servers: ALL = False, json_output: JSON_OUTPUT = False,
           color: COLOR = Color.auto, debug: DEBUG = False) -> None:
    """Forget the tokens kept for one server (URL), or for every server (--all)."""
    from mrtr_cli.commands import auth as command

    raise typer.Exit(command.run_logout(url, all_servers, plain_output(json_output, color, debug)))


LOGIN_URL = Annotated[Optional[str], typer.Argument(metavar="[URL]", help="The server to log in to (or --config "
                                                   "FILE --server NAME).")]


@auth_app.command(cls=HelpCommand)
def login(url: LOGIN_URL = None, config: CONFIG = None, server: SERVER_NAME = None, header: HEADER = None,
          auth_open: AUTH_OPEN = None, auth_timeout: AUTH_TIMEOUT = 300.0, client_id: CLIENT_ID = None,
          client_secret: CLIENT_SECRET = None, client_metadata_url: CLIENT_METADATA_URL = None,
          cacert: CACERT = None, insecure: INSECURE = False, verbose: VERBOSE = False,
          show_secrets: SHOW_SECRETS = False, json_output: JSON_OUTPUT = False, color: COLOR = Color.auto,
          debug: DEBUG = False) -> None:
    """Log in to a server behind OAuth now (browser, or --auth-open CMD), and keep the login."""
    from mrtr_cli.commands import auth_login as command

    options = TargetOptions(url=url, config=config, server=server, headers=tuple(header or ()), cacert=cacert,
                            insecure=insecure, auth_open=auth_open, auth_timeout=auth_timeout, client_id=client_id,
                            client_secret=client_secret, client_metadata_url=client_metadata_url)
    output = OutputOptions(verbose=verbose, json=json_output, color=color.value, debug=debug,
                           show_secrets=show_secrets)
    raise typer.Exit(command.run_login(options, output))
