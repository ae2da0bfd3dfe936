"""`mrtr auth status` and `mrtr auth logout`: the logins mrtr keeps, shown and forgotten.

Neither talks to a server. Tokens, client secrets and refresh tokens are never shown, in any
output: the status names the server, the authorization server, the scopes and the expiry.
"""

from __future__ import annotations

import time
from typing import Any

from mrtr_cli.auth.store import Login, TokenStore
from mrtr_cli.commands.common import Context, guarded
from mrtr_cli.errors import UsageError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.options import OutputOptions
from mrtr_cli.render import auth_lines

VERSION = 1


def run_status(output: OutputOptions) -> int:
    """Show every login kept: which servers, which scopes, until when."""

    def body(context: Context) -> ExitCode:
        tokens, now = TokenStore(), time.time()
        logins = tokens.logins()
        if output.json:
            context.print_json(status_document(tokens, logins, now))
            return ExitCode.OK
        if not logins:
            context.consoles.out.print(auth_lines.no_logins_line(str(tokens.directory)))
        for number, login in enumerate(logins):
            if number:
                context.consoles.out.print()
            for line in auth_lines.login_lines(login, now):
                context.consoles.out.print(line)
        return ExitCode.OK

    return guarded(output, body)


def run_logout(url: str | None, everything: bool, output: OutputOptions) -> int:
    """Forget the login for `url`, or every login with `everything`."""

    def body(context: Context) -> ExitCode:
        tokens = TokenStore()
        chosen = _chosen(url, everything)
        removed, unreadable = (_remove_one(tokens, chosen), 0) if chosen else _remove_all(tokens)
        if output.json:
            context.print_json({"version": VERSION, "removed": removed, "unreadable_files_removed": unreadable})
            return ExitCode.OK
        for line in auth_lines.logout_lines(removed, unreadable, str(tokens.directory)):
            context.consoles.out.print(line)
        return ExitCode.OK

    return guarded(output, body)


def _chosen(url: str | None, everything: bool) -> str | None:
    """The one URL to log out of, or None for all; neither or both is a usage error."""
    if everything and url:
        raise UsageError("give a server URL or --all, not both", "mrtr auth logout URL, or mrtr auth logout --all")
    if not everything and not url:
        raise UsageError("which server? give its URL, or --all", "mrtr auth status lists the logins kept")
    return url


def _remove_one(tokens: TokenStore, url: str) -> list[str]:
    """The resource logged out of (as kept, else as given); no login kept is a usage error."""
    login = tokens.load(url)
    if not tokens.remove(url):
        raise UsageError(f"no login is kept for {url}", "mrtr auth status lists the logins kept")
    return [login.resource if login else url]


def _remove_all(tokens: TokenStore) -> tuple[list[str], int]:
    """The resources logged out of, and how many unreadable token files went with them."""
    resources = [login.resource for login in tokens.logins()]
    removed = tokens.remove_all()
    return resources, max(0, removed - len(resources))


def status_document(tokens: TokenStore, logins: list[Login], now: float) -> dict[str, Any]:
    """The `--json` document of `mrtr auth status`."""
    return {"version": VERSION, "directory": str(tokens.directory),
            "logins": [_login_view(login, now) for login in logins]}


def _login_view(login: Login, now: float) -> dict[str, Any]:
    return {"resource": login.resource, "issuer": login.issuer, "client_id": login.client_id,
            "scopes": list(login.scopes), "expires_at": _iso(login.expires_at),
            "expired": login.expired(now, margin=0), "obtained_at": _iso(login.obtained_at),
            "refresh_token": login.refresh_token is not None, "grant_type": login.grant_type}


def _iso(moment: float | None) -> str | None:
    return None if moment is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))
