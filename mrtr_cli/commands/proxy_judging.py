"""`mrtr proxy` with the judge of the client beside the proxy's other watchers: each finding on the
timeline as it is found, the summary there at the end (the terminal for --http, the --timeline file
for the shim), `--json FILE` and `--junit FILE` written at exit, and `--strict`'s exit 2."""

from __future__ import annotations

from pathlib import Path

from mrtr_cli.fileio import files
from mrtr_cli.commands.common import Context, guarded
from mrtr_cli.commands.proxy import Captures, ShownTimeline
from mrtr_cli.errors import UsageError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.options import OutputOptions, ProxyOptions, RecordingOptions, ReportOptions
from mrtr_cli.protocol.lint_rules import CLIENT_RULES
from mrtr_cli.proxy.judge import ClientJudge
from mrtr_cli.proxy.watching import Crossed, Watcher
from mrtr_cli.render.client_findings import findings_document, summary_lines
from mrtr_cli.render.styled_line import StyledLine

STRICT_EXIT = ExitCode.PROTOCOL
"""`--strict`: the exit code when the client broke a MUST (2, as `call --strict` for a server)."""


def run(proxying: ProxyOptions, http: str | None, max_message_size: int, report: ReportOptions,
        output: OutputOptions, host_config: tuple[str | None, str | None] = (None, None),
        page: RecordingOptions = RecordingOptions()) -> int:
    """Run the proxy with the judge; the proxy's exit code (the server's, for the shim), or 2 under
    --strict when the client broke a MUST, or 1 when a report cannot be written or an option
    cannot apply (`host_config`: --config and --server, which only --wrap and --unwrap take; `page`:
    --html FILE and --show-state, the conversations and the findings as a page at exit)."""
    from mrtr_cli.commands import proxy

    junit_path = report.junit
    located: list[tuple[str, str]] = []

    def checked_first(context: Context) -> ExitCode:
        given = [name for name, value in zip(("--config", "--server"), host_config) if value is not None]
        if given:
            raise UsageError(f"{' and '.join(given)} name a host's configuration, which only --wrap and --unwrap "
                             "edit", "give --wrap or --unwrap, or drop them")
        proxy.check_values(proxying, junit_path)
        located.extend(_sarif_place(proxying, report))
        _check_page(page, http)
        return _checked(proxying.json_report, junit_path, report.sarif)

    checked = guarded(output, checked_first)
    if checked != ExitCode.OK:
        return checked
    judge = ClientJudge()

    def judged(timeline: ShownTimeline) -> list[Watcher]:
        judge.report_to(timeline)
        return [Summarized(judge, timeline)]

    captures = proxy.Captures() if page.html or page.har else None
    code = proxy.run(proxying, http, max_message_size, output, judged, captures)
    written = guarded(output, lambda context: _reported(judge, proxying.json_report, junit_path))
    if written == ExitCode.OK and captures is not None:
        written = guarded(output, lambda context: _captures_written(judge, captures, page, output.show_secrets))
    if written == ExitCode.OK and report.sarif is not None:
        written = guarded(output, lambda context: _sarif_written(judge, report.sarif or "", *located[0]))
    return written if written != ExitCode.OK else exit_code(judge, proxying.strict, code)


def _checked(json_path: str | None, junit_path: str | None, sarif_path: str | None = None) -> ExitCode:
    """Before the proxy starts: the reports' folders exist and are writable."""
    files.check_writable(json_path, "--json")
    files.check_writable(junit_path, "--junit")
    files.check_writable(sarif_path, "--sarif")
    return ExitCode.OK


def _sarif_place(proxying: ProxyOptions, report: ReportOptions) -> list[tuple[str, str]]:
    """With --sarif: the file its results point at (the stdio server's script, or
    --sarif-location; exit 1 when none) and the server (--to's URL, or the command)."""
    if report.sarif is None:
        return []
    from shlex import join

    from mrtr_cli.render.sarif import sarif_location

    location = sarif_location(report.sarif_location, None, proxying.command)
    return [(location, proxying.to or join(proxying.command))]


def _check_page(page: RecordingOptions, http: str | None) -> None:
    """Before the proxy starts: --html's and --har's folders; --har only over HTTP (exit 1)."""
    files.check_writable(page.html, "--html")
    files.check_writable(page.har, "--har")
    if page.har and http is None:
        raise UsageError("--har writes HTTP exchanges, and the stdio shim has none",
                         "give --http [HOST:]PORT --to URL, or drop --har")


def _captures_written(judge: ClientJudge, captures: Captures, page: RecordingOptions,
                      show_secrets: bool = False) -> ExitCode:
    """--html FILE: the conversations kept (at most a page's), then what the judge found; --har
    FILE: their exchanges (the secret headers as sent with --show-secrets)."""
    if page.html:
        from mrtr_cli.render.html_page import client_findings, conversations, page as whole_page, write_page

        body = [*conversations(captures.documents(), page.show_state, not_kept=captures.more),
                client_findings(judge.findings)]
        write_page(page.html, whole_page("mrtr proxy", body))
    if page.har:
        from mrtr_cli.commands.conversation_builder import write_exchanges

        write_exchanges(page.har, [document for _, document in captures.documents(show_secrets)], show_secrets)
    return ExitCode.OK


def _sarif_written(judge: ClientJudge, path: str, location: str, server: str) -> ExitCode:
    from mrtr_cli.protocol.lint_rules import CLIENT_RULES
    from mrtr_cli.render.sarif import client_log, write_log

    write_log(path, client_log(judge.findings, sorted(CLIENT_RULES), CLIENT_RULES, location, server))
    return ExitCode.OK


def _reported(judge: ClientJudge, json_path: str | None, junit_path: str | None) -> ExitCode:
    if json_path is not None:
        write_json(json_path, judge)
    if junit_path is not None:
        from mrtr_cli.render.junit import client_suite, write_report

        write_report(junit_path, client_suite(judge.findings, sorted(CLIENT_RULES)))
    return ExitCode.OK


def write_json(path: str, judge: ClientJudge) -> None:
    from mrtr_cli.render.json_report import json_pieces

    try:
        with Path(path).open("w", encoding="utf-8") as file:
            file.writelines(json_pieces(findings_document(judge.findings)))
            file.write("\n")
    except OSError as error:
        raise UsageError(f"cannot write the --json report {path}: {error.strerror or error}",
                         "check that its directory exists and is writable") from None


def exit_code(judge: ClientJudge, strict: bool, code: int) -> int:
    """2 under --strict when the client broke a MUST; else the proxy's own code."""
    return int(STRICT_EXIT) if strict and judge.broke_a_must() else code


class Summarized:
    """The judge as the proxy's watcher: at the end, its summary goes to the timeline."""

    def __init__(self, judge: ClientJudge, timeline: ShownTimeline) -> None:
        self.judge = judge
        self.timeline = timeline

    def crossed(self, frame: Crossed) -> None:
        self.judge.crossed(frame)

    def ended(self) -> None:
        self.judge.ended()
        for line in summary_lines(self.judge.findings):
            self.timeline.print(StyledLine(line))
