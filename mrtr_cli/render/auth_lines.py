"""The logins mrtr keeps, as `mrtr auth status` and `mrtr auth logout` show them. Pure functions:
nothing here prints, and no token ever reaches a line."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text

from mrtr_cli.text import safe_line

if TYPE_CHECKING:
    from mrtr_cli.auth.store import Login

_UNITS = ((86400 * 2, 86400, "day"), (3600 * 2, 3600, "hour"), (90, 60, "minute"), (0, 1, "second"))


def duration_words(seconds: float) -> str:
    """`seconds` in the largest unit that reads well: "45 seconds", "12 minutes", "3 days"."""
    seconds = abs(seconds)
    for threshold, size, unit in _UNITS:
        if seconds >= threshold:
            count = int(seconds // size)
            return f"{count} {unit}" + ("" if count == 1 else "s")
    return "0 seconds"


def expiry_words(expires_at: float | None, now: float) -> str:
    """When an access token expires, in plain words, and the UTC time it does."""
    if expires_at is None:
        return "no expiry given by the server"
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(expires_at))
    if expires_at <= now:
        return f"expired {duration_words(now - expires_at)} ago ({when})"
    return f"expires in {duration_words(expires_at - now)} ({when})"


def login_lines(login: Login, now: float) -> list[Text]:
    """One login: its server, then the issuer, client, grant, scopes, expiry and renewal, indented."""
    scopes = " ".join(login.scopes) if login.scopes else "(none granted)"
    fields = (("issuer", login.issuer), ("client", login.client_id), ("grant", grant_words(login.grant_type)),
              ("scopes", scopes), ("access token", expiry_words(login.expires_at, now)), renewal(login))
    lines = [Text(safe_line(login.resource, 300), "mrtr.key")]
    lines += [Text.assemble((f"  {name:<14}", "mrtr.dim"), safe_line(value, 300)) for name, value in fields]
    return lines


def renewal(login: Login) -> tuple[str, str]:
    """What happens when the access token expires: a refresh, a new login, or (a machine) a new grant."""
    if login.grant_type == "client_credentials":
        return "renewed by", "a new grant with the same credentials when it expires"
    if login.refresh_token:
        return "refresh token", "kept: mrtr renews the access token when it expires"
    return "refresh token", "none: log in again when the access token expires"


def grant_words(grant_type: str) -> str:
    """How the login's token was obtained, in words a person reads."""
    if grant_type == "client_credentials":
        return "client_credentials (a machine: its secret or key, no browser)"
    if grant_type == "authorization_code":
        return "authorization_code (through a browser)"
    return grant_type


def no_logins_line(directory: str) -> Text:
    return Text(f"no logins kept (in {safe_line(directory, None)})", "mrtr.dim")


def logout_lines(removed: list[str], unreadable: int, directory: str) -> list[Text]:
    """What `mrtr auth logout` removed: a line per server, and any unreadable token files."""
    lines = [Text(f"logged out of {safe_line(resource, 300)}: its tokens are removed") for resource in removed]
    if unreadable:
        lines.append(Text(f"removed {unreadable} unreadable token file{'s' if unreadable > 1 else ''} too"))
    return lines or [no_logins_line(directory)]
