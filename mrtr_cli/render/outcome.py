"""How a conversation ended, as mrtr shows it: the result on stdout, the status line (and any
error) on stderr, or on stdout for `show`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrtr_cli.conversation.eras import era_named
from mrtr_cli.conversation.session import Outcome
from mrtr_cli.errors import UsageError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.render.console import AnyConsole, Consoles, write_long
from mrtr_cli.render.diagnostics import error_lines, warning_line
from mrtr_cli.render.result_texts import result_texts
from mrtr_cli.render.styled_line import StyledLine
from mrtr_cli.text import safe_line

if TYPE_CHECKING:
    from rich.text import Text

BIG = 1_000_000
"""Result text longer than this goes to stdout as it is (already safe), without rich's layout."""


def print_outcome(consoles: Consoles, outcome: Outcome, result: bool = True, status: AnyConsole | None = None) -> None:
    """The result on stdout; the status line and any error on `status` (default: stderr)."""
    status = status or consoles.err
    if result and outcome.result is not None:
        for text in result_texts(outcome.result):
            _print_result(consoles.out, text)
    if not _only_the_error(outcome):
        status.print(status_line(outcome))
    if outcome.error is not None:
        for line in error_lines(outcome.error):
            status.print(line)
    for advice in outcome.advice:
        status.print(warning_line(f"! {safe_line(advice, 1000)}"))


def _only_the_error(outcome: Outcome) -> bool:
    """A usage error (a bad `-a`, `--args`, `--answer`), or a failure before any round (a server
    that could not start): the status line would only repeat it (`✗ aborted`), so the error alone."""
    return outcome.error is not None and (isinstance(outcome.error, UsageError) or not outcome.rounds)


def _print_result(out: AnyConsole, piece: Text | str) -> None:
    """A piece of the result; a `str` piece is already safe, and never read as markup."""
    if len(piece) > BIG:
        write_long(out.file, piece if isinstance(piece, str) else piece.plain)
        out.file.write("\n")
    else:
        out.print(StyledLine(piece) if isinstance(piece, str) else piece)


def status_line(outcome: Outcome) -> StyledLine:
    """`✓ complete · 3 rounds · 12 ms`, or what went wrong instead."""
    rounds = len(outcome.rounds) + (outcome.unanswered_round is not None)
    took = sum(r.reply.elapsed_ms for r in outcome.rounds)
    if outcome.task is not None and outcome.task.elapsed_ms is not None:
        took = outcome.task.elapsed_ms  # the task's whole time, its polls and waits too, answering aside
    unanswered = ", the last unanswered" if outcome.unanswered_round is not None else ""
    detail = f" · {rounds} round{'s' if rounds != 1 else ''}{unanswered} · {took:.0f} ms{_excluded(outcome)}" \
        if rounds else ""
    if outcome.status == "complete" and outcome.exit_code() == ExitCode.TOOL_ERROR:
        return StyledLine(f"✗ complete, but the tool reported an error (isError){detail}", "mrtr.error")
    style = "mrtr.complete" if outcome.status == "complete" else "mrtr.error"
    return StyledLine(f"{'✓' if outcome.status == 'complete' else '✗'} {outcome.status}{detail}", style)


def _excluded(outcome: Outcome) -> str:
    """What the time leaves out: answering the server's questions, in either era (a round's time runs
    from its request to its response, less the waits for an answer in flight; a task's, from the call
    to its end, less its input rounds' answering). An older-era task's time (2025-11-25, its questions
    asked on tasks/result) still holds the answering: no claim is made for it."""
    older_task = outcome.task is not None and era_named(outcome.era).asks_for_tasks
    return ", answering excluded" if any(r.answers for r in outcome.rounds) and not older_task else ""


def failure_message(outcome: Outcome, code: ExitCode) -> str:
    """Why the outcome makes exit code `code`, in one line (the --json error line)."""
    if outcome.error is not None:
        return outcome.error.one_line()
    if code == ExitCode.TOOL_ERROR:
        return "the tool reported an error (isError: true)"
    return "the server broke a MUST of the spec (--strict)"
