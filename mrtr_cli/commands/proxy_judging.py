"""`mrtr proxy`'s judge of the client, as the command uses it: made with the proxy's other
watchers, its summary at exit, `--json FILE` and `--junit FILE` written, and `--strict`'s exit 2."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mrtr_cli import files
from mrtr_cli.errors import UsageError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.protocol.lint_rules import CLIENT_RULES, Finding
from mrtr_cli.proxy.judge import ClientJudge
from mrtr_cli.render.client_findings import findings_document, summary_lines

STRICT_EXIT = ExitCode.PROTOCOL
"""`--strict`: the exit code when the client broke a MUST (2, as `call --strict` for a server)."""


def check_report_paths(json_path: str | None, junit_path: str | None) -> None:
    """Before the proxy starts: the reports' folders exist and are writable (exit 1 otherwise)."""
    files.check_writable(json_path, "--json")
    files.check_writable(junit_path, "--junit")


def judge_of(report: Callable[[Finding], None] | None = None) -> ClientJudge:
    """The judge, told to `report` each finding as it is found (the live timeline)."""
    return ClientJudge(report)


def finish(judge: ClientJudge, json_path: str | None, junit_path: str | None,
           write_line: Callable[[str], None]) -> None:
    """At exit: the summary through `write_line` (the terminal for --http, the --timeline file for
    the shim), then the reports."""
    for line in summary_lines(judge.findings):
        write_line(line)
    if json_path is not None:
        write_json(json_path, judge.findings)
    if junit_path is not None:
        from mrtr_cli.render.junit import client_suite, write_report

        write_report(junit_path, client_suite(judge.findings, sorted(CLIENT_RULES)))


def write_json(path: str, findings: list[Finding]) -> None:
    from mrtr_cli.render.json_report import json_pieces

    try:
        with Path(path).open("w", encoding="utf-8") as file:
            file.writelines(json_pieces(findings_document(findings)))
            file.write("\n")
    except OSError as error:
        raise UsageError(f"cannot write the --json report {path}: {error.strerror or error}",
                         "check that its directory exists and is writable") from None


def exit_code(judge: ClientJudge, strict: bool, code: int) -> int:
    """The proxy's exit code (the server's, for the shim): 2 under --strict when the client broke a MUST."""
    return int(STRICT_EXIT) if strict and judge.broke_a_must() else code
