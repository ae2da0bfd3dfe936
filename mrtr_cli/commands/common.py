"""What every command that talks to a server shares: consoles, events, failing."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mrtr_cli.answering.questions import Answerer
from mrtr_cli.errors import MrtrError, UsageError, interruption
from mrtr_cli.conversation.events import Broadcast
from mrtr_cli.exit_codes import ExitCode, pipe_closed
from mrtr_cli.definition.options import (ERA_PROBE_WAIT, ERA_PROBE_WAIT_VARIABLE, OutputOptions, TargetOptions,
                                         seconds)
from mrtr_cli.render.console import Consoles, make_consoles, write_long
from mrtr_cli.render.diagnostics import error_lines, missing_arguments_warning, warning_line
from mrtr_cli.render.timeline import Timeline

if TYPE_CHECKING:
    from mrtr_cli.conversation.era import EraFlags


@dataclass
class Context:
    """One command's consoles, output options and event broadcast."""

    consoles: Consoles
    output: OutputOptions
    emit: Broadcast
    timeline: Timeline

    def fail(self, error: MrtrError) -> ExitCode:
        """Show a failure on stderr (and the JSON error line with --json); return its code."""
        for line in error_lines(error):
            self.consoles.err.print(line)
        if self.output.json:
            self.error_line(error.exit_code, error.one_line())
        return error.exit_code

    def error_line(self, code: ExitCode, message: str) -> None:
        from mrtr_cli.render import json_report  # --json only

        self.consoles.err.file.write(json_report.error_line(code, message) + "\n")

    def print_json(self, document: dict[str, Any]) -> None:
        from mrtr_cli.render import json_report  # --json only

        out = self.consoles.out.file
        for piece in json_report.json_pieces(document):
            write_long(out, piece)
        out.write("\n")


def warn_unused_flags(context: Context, flags: list[str], likely: dict[str, str] | None = None) -> None:
    """A warning on stderr for each answer flag that no question used (`likely`: the question a
    flag was likely meant for)."""
    from mrtr_cli.answering.chain import unused_warning  # answering loads only for commands that answer

    for flag in flags:
        context.consoles.err.print(warning_line(unused_warning(flag, (likely or {}).get(flag))))


def warn_missing_arguments(context: Context, tool: str, names: list[str]) -> None:
    """A warning on stderr, before the call is sent, for the required arguments it leaves out."""
    if names:
        context.consoles.err.print(missing_arguments_warning(tool, names))


def make_context(output: OutputOptions) -> Context:
    consoles = make_consoles(output.color)
    timeline = Timeline(consoles.err, verbose=output.verbose)
    emit = Broadcast([timeline])
    return Context(consoles, output, emit, timeline)


@dataclass
class Command:
    """One run of a command under `guarded`: its context, and the exit code its block sets."""

    context: Context
    code: int | None = None

    @property
    def exit_code(self) -> int:
        """The code the block set, or its failure's."""
        assert self.code is not None, "a command's block sets its exit code"
        return self.code


def guarded(output: OutputOptions, body: Callable[[Context], int]) -> int:
    """A command whose body is a function of its own, run under `guarding`: its exit code."""
    with guarding(output) as command:
        command.code = body(command.context)
    return command.exit_code


@contextmanager
def guarding(output: OutputOptions) -> Iterator[Command]:
    """A command's run: the block sets `Command.code`; every failure in it becomes a one-line message and the
    exit code. A context, so a body written in the block runs in its command's own frame (commands/call.py)."""
    command = Command(make_context(output))
    try:
        yield command
        sys.stdout.flush()  # here, where a closed pipe is caught, not later at exit
    except MrtrError as error:
        command.code = int(command.context.fail(error))
    except KeyboardInterrupt as raised:
        command.code = int(command.context.fail(interruption(raised)))
    except BrokenPipeError:  # stdout's reader went away (`| head`): nothing more to say, and nowhere
        command.code = pipe_closed()
    except Exception as error:  # noqa: BLE001 - the last line of defence: a message, not a traceback
        if output.debug:
            import traceback  # only with --debug

            traceback.print_exc()
        command.code = int(command.context.fail(MrtrError(f"unexpected failure: {type(error).__name__}: {error}",
                                                          "run again with --debug for the traceback, and report it")))


def era_flags(options: TargetOptions) -> EraFlags:
    """The era flags of `options`, as conversation/era.py takes them."""
    from mrtr_cli.conversation.era import EraFlags

    return EraFlags(options.protocol_era, options.protocol_version, options.no_discover,
                    era_probe_wait(options.era_probe_wait))


def era_probe_wait(given: float | None) -> float:
    """--era-probe-wait (`given`), else MRTR_ERA_PROBE_WAIT, else 3 s; a variable that is no number of seconds
    is a usage error."""
    if given is not None:
        return given
    variable = os.environ.get(ERA_PROBE_WAIT_VARIABLE)
    if not variable:
        return ERA_PROBE_WAIT
    try:
        return seconds(variable)
    except ValueError as error:
        raise UsageError(f"{ERA_PROBE_WAIT_VARIABLE}: {error}", f"set it to a number of seconds, or unset it "
                         f"for the default ({ERA_PROBE_WAIT:g})") from None


def person_at_terminal() -> bool:
    """Whether a person can be asked: stdin and stderr are terminals."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def person_answerer(context: Context, sampling_model: str) -> Answerer:
    """The person at the terminal, asked on stderr; a sampling reply names `sampling_model`."""
    from mrtr_cli.answering.interactive import InteractiveAnswerer  # questionary loads only to ask a person
    from mrtr_cli.render.prompts import Presenter

    return InteractiveAnswerer(Presenter(context.consoles.err), sampling_model)


def server_named(target: TargetOptions, otherwise: str = "mrtr demo") -> str:
    """The server the results are about, for a report's `properties` (render/sarif.py): its URL, `--config`'s entry,
    the stdio command, the demo, or `otherwise` (replay without target flags: each transcript's own)."""
    if target.url:
        return target.url
    if target.config:
        return f"{target.config}: {target.server}" if target.server else target.config
    if target.command:
        return shlex.join(target.command)
    return "mrtr demo" if target.demo else otherwise
