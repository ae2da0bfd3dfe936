"""`mrtr check`: a checklist of probes of one server; exit 0 when nothing fails, else 2."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

from mrtr_cli.fileio import files
from mrtr_cli.render import json_report
from mrtr_cli.definition.arguments import tool_arguments
from mrtr_cli.commands.common import Context, era_probe_wait, guarded, server_named
from mrtr_cli.commands.conversation_builder import Conversation, Live, build, client_settings, request_params
from mrtr_cli.errors import AuthError, MrtrError, ProtocolError, UsageError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.conversation.lists import unlisted_hint
from mrtr_cli.conversation.preparation import Preparation, prepare_call
from mrtr_cli.definition.options import (AnsweringOptions, CallOptions, OutputOptions, ProbeOptions, ReportOptions,
                                         TargetOptions)
from mrtr_cli.check import authorization, older
from mrtr_cli.check.catalog import skipped_by_request
from mrtr_cli.check.probes import Check, Prober
from mrtr_cli.check.replay_probes import ReplayFlags
from mrtr_cli.check.calls import Calls, calls_document, calls_words
from mrtr_cli.check.principal_probe import OtherPrincipal
from mrtr_cli.check.tool_probes import ALL_TOOL_PROBES, ToolProber, tool_calls
from mrtr_cli.check.named import NamedProber, calls_of, probes_for
from mrtr_cli.check.stream import StreamWatch
from mrtr_cli.check.subscriptions import LISTEN_PROBES, listen_checks
from mrtr_cli.conversation.client import Client
from mrtr_cli.check.verdicts import Probe, by_request, status_counts, verdict, without_http_status
from mrtr_cli.render.check_lines import calls_line, check_lines
from mrtr_cli.targets.target import Target, logs_in_as_machine, parse_headers


def run(tool: CallOptions | None, target: TargetOptions, answering: AnsweringOptions, output: OutputOptions,
        report: ReportOptions = ReportOptions(), named: tuple[CallOptions, ...] = (),
        probes: ProbeOptions = ProbeOptions(), html: str | None = None) -> int:
    """`report`: --junit, --sarif and --sarif-location; `html`: --html FILE, the checklist as a page;
    `named`: the prompt (prompts/get) and resource (resources/read) to probe, if any (check/named.py);
    `probes`: --skip-probe, --state-age, --at-most-once and --other-principal."""
    def body(context: Context) -> ExitCode:
        files.check_writable(report.junit, "--junit")
        files.check_writable(report.sarif, "--sarif")
        files.check_writable(html, "--html")
        location = _sarif_location(report, target)
        started = time.monotonic()
        try:
            skipped = skipped_by_request(probes.skip_probes)
            checks, server, era, budgets = _probe(context, tool, target, answering, named,
                                         Asked(skipped, _replay_flags(probes, tool, named), probes.other_principal))
        except MrtrError as error:  # no probe ran: the report still says why
            _report_for_ci(context, [], time.monotonic() - started, report, location, error.one_line())
            _write_page(html, server_named(target), [], None, error.one_line())
            raise
        checks = by_request(checks, skipped)  # the checks judged from another's exchange, too
        if output.json:
            context.print_json({"version": json_report.VERSION, "server": server, "era": era,
                                "calls": [calls_document(*budget) for budget in budgets],
                                "checks": [c.as_dict() for c in checks], "summary": status_counts(checks)})
        else:
            for line in check_lines(checks, era["line"]):
                context.consoles.out.print(line)
        _report_for_ci(context, checks, time.monotonic() - started, report, location)
        _write_page(html, server_named(target), checks, era["line"])
        failed = [c for c in checks if c.status == "fail"]
        if failed and output.json:
            context.error_line(ExitCode.PROTOCOL, f"{len(failed)} check{'s' if len(failed) != 1 else ''} failed: "
                                                  + ", ".join(c.id for c in failed))
        return ExitCode.PROTOCOL if failed else ExitCode.OK

    return guarded(output, body)


def _sarif_location(report: ReportOptions, target: TargetOptions) -> tuple[str, str] | None:
    """Before any probe: the file the SARIF results point at (render/sarif.py), exit 1 when none,
    and the server they are about."""
    if report.sarif is None:
        return None
    from mrtr_cli.render.sarif import sarif_location

    return sarif_location(report.sarif_location, target.config, target.command), server_named(target)


def _report_for_ci(context: Context, checks: list[Check], elapsed: float, report: ReportOptions,
                   location: tuple[str, str] | None, failure: str | None = None) -> None:
    """The JUnit report (--junit), the SARIF log (--sarif, at `location`), and GitHub Actions
    annotations on stderr when run there; the XML and SARIF code loads only when asked for."""
    from mrtr_cli.render.annotations import check_annotations, error_annotation
    from mrtr_cli.process.workflow_commands import in_github_actions, write_commands

    if report.junit:
        from mrtr_cli.render.junit import check_suite, write_report

        write_report(report.junit, check_suite(checks, elapsed, failure))
    if report.sarif and location is not None:
        from mrtr_cli.render.sarif import check_log, write_log

        write_log(report.sarif, check_log(checks, *location, failure))
    if in_github_actions():
        lines = check_annotations(checks) + ([error_annotation(failure, "mrtr check")] if failure else [])
        write_commands(context.consoles.err.file, lines)


def _write_page(path: str | None, server: str, checks: list[Check], era_line: str | None,
                failure: str | None = None) -> None:
    """--html FILE: the checklist grouped by level (render/html_page.py, loaded only then), titled with the
    server it judges (a page is shared: it must say which server)."""
    if path is None:
        return
    from mrtr_cli.render.html_page import checklist, failure as not_run, page, write_page

    body = [checklist(checks, era_line or "")] if failure is None else [not_run(failure)]
    write_page(path, page(f"mrtr check · {server}", body))


class Asked(NamedTuple):
    """What the probe flags ask: the probes left out (--skip-probe), and the replay probes' flags."""

    skipped: frozenset[str] = frozenset()
    flags: ReplayFlags = ReplayFlags()
    other_principal: tuple[str, ...] = ()
    """--other-principal: the headers of a second identity (check/principal_probe.py)."""


def _replay_flags(probes: ProbeOptions, tool: CallOptions | None, named: tuple[CallOptions, ...]) -> ReplayFlags:
    """--state-age and --at-most-once; exit 1 without --tool, --prompt or --resource: they retry the
    named target's state."""
    given = [flag for flag, value in (("--state-age", probes.state_age is not None),
                                      ("--at-most-once", probes.at_most_once)) if value]
    if given and tool is None and not named:
        raise UsageError(f"{given[0]} in mrtr check retries the named target's requestState, and no tool, prompt or "
                         "resource is named", f"give --tool NAME, --prompt NAME or --resource URI (one that asks), "
                                              f"or leave {given[0]} out")
    return ReplayFlags(probes.state_age, probes.at_most_once)


def _probe(context: Context, tool: CallOptions | None, options: TargetOptions, answering: AnsweringOptions,
           named: tuple[CallOptions, ...], asked: Asked = Asked()
           ) -> tuple[list[Check], dict[str, Any] | None, dict[str, Any], Budgets]:
    conversation = build(context, options, answering)
    hops, target = conversation.hops, conversation.target
    if hops is not None and tool is None:
        raise UsageError(f"{hops.flag} in mrtr check sends the named tool's retries to other instances, and no tool "
                         "is named", f"give --tool NAME (a tool that asks), or leave {hops.flag} out")
    other = _other_principal(conversation, asked.other_principal, tool is not None or bool(named))
    discover_seen = older.DiscoverSeen()
    context.emit.subscribe(discover_seen)
    auth_checks, protected = _authorization(conversation)
    if protected:
        conversation = conversation.again(auth_stored_only=True)  # a kept token is used; no browser, no wait
    try:
        with conversation.connected() as live:  # the older era: exit 1 with the reason
            client = live.client
            budgets = _budgets(tool, named, other is not None, hops is not None, client.era.handshake)
            _say_calls(context, budgets)
            _require_listed(client, tool, named)
            if client.era.handshake:
                checks = [*_older(live, tool, target),
                          *older.skipped(_named_probes(named), client.settings.version)]
            else:
                checks = _modern(context, live, tool, target, named, asked, other and other(client))
            if not target.mirrors_headers:  # over stdio no answer carries an HTTP status to name
                checks = without_http_status(checks)
    except AuthError as error:  # a machine's refused grant is exit 3, as in call: CI must not pass without a token
        if not protected or logs_in_as_machine(target, conversation.server.options):
            raise
        return [*auth_checks, *_not_logged_in(error, tool, named)], None, _era_unknown(error), []  # none called
    speaks_modern = client.era.speaks_modern
    if client.era.handshake and speaks_modern is None:
        speaks_modern = _answers_discover(conversation)
    return [*auth_checks, *checks], client.server_info, _era(client, discover_seen, speaks_modern), budgets


def _other_principal(conversation: Conversation, given: tuple[str, ...],
                     named: bool) -> Callable[[Client], OtherPrincipal] | None:
    """The second identity of --other-principal: this conversation again with its headers, on a
    client that shares the first one's settings once it is made; refused without --tool, --prompt or
    --resource (`named`), and for a server over stdio. Its values are never shown (no -v, no --show-secrets) and no kept OAuth token
    is sent with them."""
    if not given:
        return None
    if not named:
        raise UsageError("--other-principal in mrtr check sends the named target's requestState as a second "
                         "identity, and no tool, prompt or resource is named",
                         "give --tool NAME, --prompt NAME or --resource URI (one that asks), or leave "
                         "--other-principal out")
    headers = parse_headers(given, "--other-principal")
    second = conversation.again(headers=headers)

    def made(client: Client) -> OtherPrincipal:
        return OtherPrincipal(tuple(headers), second.again(settings=client.settings).client)

    return made


NAMED_WORD = {"prompts/get": "prompt", "resources/read": "resource"}
"""How the first line names a named target (its method would read as a call already sent)."""


Budgets = list[tuple[str, str, Calls]]
"""Each named target (its kind and name) and at most how many calls it receives: the calls line's numbers,
and `calls` in --json."""


def _say_calls(context: Context, budgets: Budgets) -> None:
    """The calls line, once the era is known: at most how many calls each named target will receive
    (check/calls.py)."""
    if budgets:
        context.consoles.err.print(calls_line([calls_words(f"{kind} {name}", calls) for kind, name, calls in budgets]))


def _budgets(tool: CallOptions | None, named: tuple[CallOptions, ...], other: bool, hopping: bool,
             handshake: bool) -> Budgets:
    """The budgets of the era the checks run in: in the older era the tool's call is made once and nothing
    else is probed."""
    if handshake:
        return [("tool", tool.name, older.TOOL_CALLS)] if tool is not None else []
    budgets = [("tool", tool.name, tool_calls(other, hopping))] if tool is not None else []
    return budgets + [(NAMED_WORD[request.method], request.name, calls_of(request.method, other))
                      for request in named]


def _require_listed(client: Client, tool: CallOptions | None, named: tuple[CallOptions, ...]) -> None:
    """A --tool, --prompt or --resource the server does not list is exit 1 before any probe runs:
    every probe of it would only be skipped, and a typo would pass."""
    for request in (tool, *named) if tool is not None else named:
        hint = unlisted_hint(client, request.method, request.name)
        if hint is not None:
            raise UsageError(hint)


def _authorization(conversation: Conversation) -> tuple[list[Check], bool]:
    """The authorization probes (check/authorization.py), and whether the server is behind OAuth."""
    if not conversation.target.may_want_oauth:
        return [], False  # the spec's authorization is for HTTP: over stdio there is nothing to probe
    from mrtr_cli.transport.http.streamable_http import HttpTransport

    transport = conversation.server.changed(no_auth=True).open()
    assert isinstance(transport, HttpTransport), "only an HTTP target may want OAuth"
    try:
        url = transport.describe()
        try:
            status, header = authorization.unauthorized_answer(transport.fetch, url, transport.extra_headers)
        except ProtocolError as error:  # an answer mrtr could not read: the other probes will say more
            return authorization.skipped(f"not probed: the answer to a request without a token: {error.message}"), \
                False
        return authorization.authorization_checks(transport.fetch, url, status, header), status == 401
    finally:
        transport.close()


def _not_logged_in(error: AuthError, tool: CallOptions | None, named: tuple[CallOptions, ...]) -> list[Check]:
    """The other probes, skipped: without a usable token nothing else can be asked."""
    why = f"not probed: {error.one_line()}"
    probes = [*older.MODERN_PROBES, *(ALL_TOOL_PROBES if tool is not None else []), *_named_probes(named)]
    return [verdict(*probe, None, why) for probe in probes]


def _era_unknown(error: AuthError) -> dict[str, Any]:
    return {"era": None, "version": None, "speaks_2026_07_28": None,
            "line": "era: not known (the server wants authorization and mrtr has no usable token)"}


def _modern(context: Context, live: Live, tool: CallOptions | None, target: Target, named: tuple[CallOptions, ...],
            asked: Asked = Asked(), other: OtherPrincipal | None = None) -> list[Check]:
    """The checks of a 2026-07-28 server (check/probes.py; with a tool, check/tool_probes.py); every
    conversation a probe runs whole is one of `live`'s sessions, answered by its chain."""
    client, instances, chain = live.client, live.instances, live.conversation.chain
    prober = Prober(client, live.session, over_http=target.mirrors_headers, skipped=asked.skipped)
    watch = StreamWatch(client.settings.log_level)
    context.emit.subscribe(prober)
    context.emit.subscribe(watch)
    checks = prober.safe_checks()
    tool_prober = None
    if tool is not None:
        prepared = prepare_call(client, target, tool.method, tool.name, needs_schema=True)
        arguments = tool_arguments(tool.arguments, tool.args_json, prepared.schema)
        tool_prober = ToolProber(prober, chain, tool.name, arguments, prepared.mirrored, instances, asked.flags,
                                 other)
        checks += tool_prober.checks()
    named_probers = [NamedProber(prober, chain, request.method, request_params(request, Preparation()), asked.flags,
                                 other) for request in named]
    after = [check for named_prober in named_probers for check in named_prober.checks()]
    after += prober.run(LISTEN_PROBES, lambda: listen_checks(prober))  # it ends with a stream cancelled
    if tool_prober is not None or named_probers:  # the probes that wait go last, the rest filling their waits
        watch.validate_so_far()
    if tool_prober is not None:
        checks += tool_prober.waiting_checks()
    after += [check for named_prober in named_probers for check in named_prober.waiting_checks()]
    return checks + after + watch.checks()


def named_requests(prompt: str | None, resource: str | None, arguments: tuple[str, ...] = (),
                   args_json: str | None = None) -> tuple[CallOptions, ...]:
    """The prompt and resource `--prompt` and `--resource` name, the prompt with its arguments."""
    prompts = [CallOptions("prompts/get", prompt, arguments, args_json)] if prompt else []
    return tuple(prompts + ([CallOptions("resources/read", resource)] if resource else []))


def _named_probes(named: tuple[CallOptions, ...]) -> list[Probe]:
    return [probe for request in named for probe in probes_for(request.method)]


def _answers_discover(conversation: Conversation) -> bool:
    """--protocol-era older skipped server/discover: send it on a connection of its own (waiting
    --era-probe-wait), so the era line still says whether the server also speaks 2026-07-28."""
    options = conversation.server.options
    with conversation.again(settings=client_settings(options._replace(protocol_version=None))).client() as client:
        try:
            client.discover(timeout=era_probe_wait(options.era_probe_wait))
            return True
        except MrtrError:
            return False


def _older(live: Live, tool: CallOptions | None, target: Target) -> list[Check]:
    """The checks of an initialize-handshake-era server (check/older.py)."""
    client = live.client
    checks = older.safe_checks(client)
    if tool is not None:
        prepared = prepare_call(client, target, tool.method, tool.name, needs_schema=True)
        arguments = tool_arguments(tool.arguments, tool.args_json, prepared.schema)
        checks += older.tool_checks(client, live.session, live.conversation.chain, tool.name, arguments, prepared.mirrored)
    return checks


def _era(client: Client, discover_seen: older.DiscoverSeen, speaks_modern: bool | None) -> dict[str, Any]:
    """The era the checks were made in, and whether the server also speaks 2026-07-28."""
    modern = not client.era.handshake
    return {"era": client.era.name, "version": client.settings.version,
            "speaks_2026_07_28": True if modern else speaks_modern,
            "line": older.era_line(client.era, discover_seen, speaks_modern)}
