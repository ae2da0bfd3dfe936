"""Showing how a conversation ended: the result on stdout, the status line (and error) on stderr."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from mrtr_cli.render import json_report
from mrtr_cli.commands.common import Context
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.render import formatters as fmt
from mrtr_cli.render.console import write_long
from mrtr_cli.conversation.session import Outcome


def show_outcome(context: Context, outcome: Outcome) -> ExitCode:
    """The result (with --json: the document), the status, and the exit code it makes."""
    code = outcome.exit_code(context.output.strict)
    if context.output.json:
        context.print_json(json_report.conversation(outcome))
    print_outcome(context, outcome, result=not context.output.json)
    if code != ExitCode.OK and context.output.json:
        context.error_line(code, outcome.error.one_line() if outcome.error else _why(code))
    return code


def print_outcome(context: Context, outcome: Outcome, result: bool = True, status: Console | None = None) -> None:
    """The result on stdout; the status line and any error on `status` (default: stderr)."""
    status = status or context.consoles.err
    if result and outcome.result is not None:
        for text in fmt.result_texts(outcome.result):
            _print_result(context, text)
    status.print(_status_line(outcome))
    if outcome.error is not None:
        for line in fmt.error_lines(outcome.error):
            status.print(line)


BIG = 1_000_000
"""Result text longer than this goes to stdout as it is (already safe), without rich's layout."""


def _print_result(context: Context, piece: Text | str) -> None:
    if len(piece) > BIG:
        write_long(context.consoles.out.file, piece if isinstance(piece, str) else piece.plain)
        context.consoles.out.file.write("\n")
    else:
        context.consoles.out.print(fmt.as_text(piece))


def _status_line(outcome: Outcome) -> Text:
    rounds = len(outcome.rounds)
    took = sum(r.reply.elapsed_ms for r in outcome.rounds)
    detail = f" · {rounds} round{'s' if rounds != 1 else ''} · {took:.0f} ms" if rounds else ""
    if outcome.status == "complete" and outcome.exit_code() == ExitCode.TOOL_ERROR:
        return Text(f"✗ complete, but the tool reported an error (isError){detail}", "mrtr.error")
    style = "mrtr.complete" if outcome.status == "complete" else "mrtr.error"
    return Text(f"{'✓' if outcome.status == 'complete' else '✗'} {outcome.status}{detail}", style)


def _why(code: ExitCode) -> str:
    if code == ExitCode.TOOL_ERROR:
        return "the tool reported an error (isError: true)"
    return "the server broke a MUST of the spec (--strict)"
