"""`mrtr auth login`: log in to a server behind OAuth now, and keep the login for later runs.

It asks the server once without a token, for its challenge (where its metadata is, which scopes),
then runs the authorization flow (auth/flow.py) as a 401 would, showing each step as it happens,
and keeps the login (auth/store.py). Every later command sends the kept token first.
"""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.commands.common import Context, guarded
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.options import OutputOptions, TargetOptions
from mrtr_cli.protocol import meta
from mrtr_cli.protocol.headers import standard_headers
from mrtr_cli.targets.target import login_authorizer, resolve_target
from mrtr_cli.text import safe_line
from mrtr_cli.transport.base import AuthNote, WireInfo

PROBE = {"jsonrpc": "2.0", "id": 0, "method": "server/discover",
         "params": {"_meta": {meta.PROTOCOL_VERSION: meta.LATEST_VERSION, meta.CLIENT_CAPABILITIES: {}}}}
"""What mrtr sends without a token to hear the server's challenge: a well-formed server/discover,
so that a server that asks for no authorization answers it."""
VERSION = 1


def run_login(options: TargetOptions, output: OutputOptions) -> int:
    """Log in to the server the options name (--url, or --config and --server)."""

    def body(context: Context) -> ExitCode:
        target = resolve_target(options._replace(no_auth=False))
        transport = target.open(options, output.verbose, output.show_secrets)
        try:
            authorizer = login_authorizer(target, options, output.show_secrets, transport)
            status, challenge = _challenge(transport)
            steps = authorizer.answer(status, challenge)
            while True:
                try:
                    _show(context, next(steps))
                except StopIteration:
                    break
        finally:
            transport.close()
        login = authorizer.login
        if output.json:
            context.print_json({"version": VERSION, "resource": login.resource, "issuer": login.issuer,
                                "scopes": login.scopes, "expires_at": login.expires_at,
                                "grant_type": login.grant_type})
        else:
            context.consoles.out.print(f"logged in to {safe_line(login.resource, 300)} (scopes: "
                                       f"{safe_line(' '.join(login.scopes) or 'none', 300)})")
        return ExitCode.OK

    return guarded(output, body)


def _challenge(transport: Any) -> tuple[int, str | None]:
    """The server's answer to a request without a token: its status (a 403 is taken as a 401: no
    token was sent) and WWW-Authenticate. Any other status is the flow's to judge: a server that
    publishes protected resource metadata may be logged in to all the same."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               **standard_headers(PROBE, meta.LATEST_VERSION),
               **{k: v for k, v in transport.extra_headers.items() if k.lower() != "authorization"}}
    reply = transport.fetch("POST", transport.url, headers, json.dumps(PROBE).encode("utf-8"))
    return 401 if reply.status == 403 else reply.status, reply.headers.get("www-authenticate")


def _show(context: Context, item: Any) -> None:
    """One step, on the timeline as it happens (the HTTP of it with -v)."""
    if isinstance(item, AuthNote):
        context.emit(events.AuthorizationStep(item.step, item.text, item.fields))
    elif isinstance(item, WireInfo):
        context.emit(events.WireNote(item.direction, item.text, item.fields))
