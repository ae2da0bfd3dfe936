"""`mrtr shell`: one connection to one server, and commands read at a `mrtr>` prompt.

At a terminal the line editor reads them (line_editor.py: completion, history); a failed command is
said and the prompt comes back; Ctrl-C cancels the call in progress (the client sends
notifications/cancelled, or closes the response stream over HTTP). Not at a terminal, commands come
from stdin one a line, nobody is prompted, and the first command that fails ends the shell with its
exit code: a session can be scripted.
"""

from __future__ import annotations

import shlex
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from mrtr_cli.commands import shell_words as words
from mrtr_cli.commands.common import Context, guarded, make_context, person_at_terminal
from mrtr_cli.commands.shell_session import ShellOptions, ShellSession, opened
from mrtr_cli.errors import MrtrError, UsageError, interruption
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.options import AnsweringOptions, OutputOptions, RecordingOptions, TargetOptions, TaskOptions
from mrtr_cli.protocol.choices import LIST_METHODS

PROMPT = "mrtr> "


class Leave(Exception):
    """`exit`: the shell ends."""


class Shell:
    """The commands of one shell on its session; what `set` and `record` changed."""

    def __init__(self, session: ShellSession, options: ShellOptions, record_dir: str | None) -> None:
        self.session = session
        self.options = options
        self.record_dir: _RecordDir | None = None
        self.last_recorded: str | None = None
        self.parked_names: set[str] = set()
        if record_dir:
            self._record([record_dir])

    def run(self, line: str) -> ExitCode:
        """One command line; its exit code (a failure is said on stderr)."""
        context = make_context(self.options.output)
        try:
            said = words.split(line)
            if not said:
                return ExitCode.OK
            with self.session.telling(context):
                return self._dispatch(context, said)
        except MrtrError as error:
            return context.fail(error)

    def _dispatch(self, context: Context, said: list[str]) -> ExitCode:
        command = said[0]
        handlers: dict[str, Callable[[Context, list[str]], ExitCode]] = {
            "call": self._converse, "read": self._converse, "prompt": self._converse, "list": self._list,
            "discover": self._discover, "answer": self._answer, "record": lambda _, rest: self._record(rest),
            "show": lambda _, rest: self._show(rest), "set": self._set, "unset": self._unset, "help": self._help,
        }
        if command == "exit":
            raise Leave
        if command not in handlers:
            raise UsageError(f"no shell command {command!r}", _unknown_hint(command, [*handlers, "exit"]))
        return handlers[command](context, said if command in words.METHODS else said[1:])

    def _converse(self, context: Context, said: list[str]) -> ExitCode:
        call = words.conversation(said)
        from mrtr_cli.proxy.conversation import subject_of
        from mrtr_cli.proxy.record_dir import transcript_name

        subject = subject_of({"name": call.name} if call.method != "resources/read" else {"uri": call.name})
        record = park = None
        if self.record_dir is not None:
            record = str(self.record_dir.directory / transcript_name(call.method, subject, self.record_dir.taken))
        elif person_at_terminal() and not self.options.recording.record:  # Park writes it there
            from mrtr_cli.commands.line_editor import parked_folder

            park = str(parked_folder() / transcript_name(call.method, subject, self.parked_names))
        code = self.session.converse(call, self.options, record, park)
        self.last_recorded = record or self.options.recording.record or self.last_recorded
        return code

    def _list(self, context: Context, rest: list[str]) -> ExitCode:
        if len(rest) != 1 or rest[0] not in LIST_METHODS:
            raise UsageError("list what?", f"usage: {words.COMMANDS['list'].usage}")
        items = self.session.lists.items(rest[0])
        if context.output.json:
            from mrtr_cli.render import json_report

            context.print_json(json_report.listing_document({LIST_METHODS[rest[0]][1]: items}))
        else:
            from mrtr_cli.render.listing import print_listing

            print_listing(context.consoles.out, rest[0], items)
        return ExitCode.OK

    def _discover(self, context: Context, rest: list[str]) -> ExitCode:
        from mrtr_cli.conversation.era import what_server_said
        from mrtr_cli.render.listing import discovery_lines

        result = what_server_said(self.session.client)
        if context.output.json:
            from mrtr_cli.render import json_report

            context.print_json(json_report.listing_document(result))
        else:
            for line in discovery_lines(result):
                context.consoles.out.print(line)
        return ExitCode.OK

    def _answer(self, context: Context, rest: list[str]) -> ExitCode:
        """`answer`: the paused conversations, numbered; `answer N` or `answer FILE`: one continued here."""
        if len(rest) > 1:
            raise UsageError("answer takes one number or transcript", f"usage: {words.COMMANDS['answer'].usage}")
        from mrtr_cli.commands import answer

        if not rest:
            return self._paused_list(context)
        path = self._paused_file(rest[0])
        if self.session.client.era.handshake:
            raise UsageError("this shell speaks the older era, whose conversations wait in a session, not a file",
                             f"continue {path} with mrtr answer {shlex.quote(path)} (2026-07-28)")
        code = answer.answer_paused(context, path, answer.AnswerOptions(file=path), self.session.server.options,
                                    self.options.answering, self.options.recording, self.session.holding())
        self.session.note_paused(path)  # paused again (or first paused elsewhere): numbered
        self.last_recorded = self.options.recording.record or path
        return code

    def _paused_file(self, said: str) -> str:
        if not said.isdigit():
            return said
        number = int(said)
        if not 1 <= number <= len(self.session.paused):
            counted = len(self.session.paused)
            raise UsageError(f"no paused conversation {number} in this shell ({counted} so far)",
                             "answer alone lists them" if counted else "Park one at a question's review first")
        return self.session.paused[number - 1]

    def _paused_list(self, context: Context) -> ExitCode:
        """Each conversation of this shell still paused: its number, request, questions waiting, state age, file."""
        import datetime

        from mrtr_cli.commands.answer import paused_row

        now = datetime.datetime.now(datetime.timezone.utc)
        rows = [(number, row) for number, row in ((n, paused_row(Path(path), now))
                                                  for n, path in enumerate(self.session.paused, 1)) if row]
        if context.output.json:
            from mrtr_cli.render import json_report

            context.print_json({"version": json_report.VERSION, "paused": [row for _, row in rows]})
            return ExitCode.OK
        for number, row in rows:
            request = f"{row['request']['method']} {row['request']['name']}"
            context.consoles.out.print(f"{number}  {request}  waiting: {', '.join(row['questions']) or '(state only)'}"
                                       f"  state {row['state_age']} old  {row['file']}",
                                       markup=False, highlight=False, soft_wrap=True)
        if not rows:
            context.consoles.err.print("no paused conversation in this shell (Park one at a question's review)",
                                       markup=False, highlight=False)
        return ExitCode.OK

    def _record(self, rest: list[str]) -> ExitCode:
        if len(rest) != 1:
            raise UsageError("record what?", f"usage: {words.COMMANDS['record'].usage}")
        if rest[0] == "off":
            self.record_dir = None
            return ExitCode.OK
        self.record_dir = _RecordDir(rest[0])
        return ExitCode.OK

    def _show(self, rest: list[str]) -> ExitCode:
        if len(rest) > 1:
            raise UsageError("show takes one transcript", f"usage: {words.COMMANDS['show'].usage}")
        path = rest[0] if rest else self.last_recorded
        if path is None:
            raise UsageError("nothing recorded yet to show", "record DIR (or set --record FILE) first, or show FILE")
        from mrtr_cli.commands import show

        return ExitCode(show.run(path, self.options.output))

    def _set(self, context: Context, rest: list[str]) -> ExitCode:
        groups = self.options._asdict()
        if not rest:
            for line in words.set_lines(groups) or ["(nothing set: every option is call's default)"]:
                context.consoles.out.print(line, markup=False, highlight=False)
            return ExitCode.OK
        self.options = ShellOptions(**words.set_options(rest, groups))
        return ExitCode.OK

    def _unset(self, context: Context, rest: list[str]) -> ExitCode:
        if len(rest) != 1:
            raise UsageError("unset what?", f"usage: {words.COMMANDS['unset'].usage}")
        self.options = ShellOptions(**words.unset_option(rest[0], self.options._asdict()))
        return ExitCode.OK

    def _help(self, context: Context, rest: list[str]) -> ExitCode:
        chosen = [words.COMMANDS[name] for name in rest if name in words.COMMANDS] or list(words.COMMANDS.values())
        if rest and len(chosen) != len(rest):
            raise UsageError(f"no shell command {' '.join(rest)!r}", "help lists them")
        for line in help_lines([(command.usage, command.help) for command in chosen], context.consoles.out.width):
            context.consoles.out.print(line, markup=False, highlight=False)
        return ExitCode.OK

    def complete(self, before: str) -> list[str]:
        return list(words.candidates(before, self.session.lists.known))


def _unknown_hint(command: str, known: list[str]) -> str:
    """What a mistyped shell command was likely meant as: `tools` is `list tools`, `lst` is `list`."""
    if command == "mrtr":  # a line copied from a hint or the manual
        return "type it without mrtr: the shell's commands are mrtr's (list tools, call NAME)"
    import difflib  # only for a mistake: the shell's start-up stays as it was

    kinds = difflib.get_close_matches(command, list(LIST_METHODS), n=1)
    if kinds:  # `tools`, or `tols`: a list's name typed as a command
        return f"list {kinds[0]} lists them"
    close = difflib.get_close_matches(command, known, n=1)
    return f"did you mean {close[0]}? help lists them" if close else "help lists them"


def help_lines(rows: list[tuple[str, str]], columns: int) -> list[str]:
    """`help`'s two columns, each description wrapped under itself; on a terminal too narrow for two columns
    each description goes under its usage."""
    width = max(len(usage) for usage, _ in rows)
    indent = 2 + width + 2
    lines: list[str] = []
    for usage, description in rows:
        if columns - indent >= 30:
            lines += textwrap.wrap(description, columns, initial_indent=f"  {usage:<{width}}  ",
                                   subsequent_indent=" " * indent)
        else:
            lines += [f"  {usage}", *textwrap.wrap(description, columns, initial_indent=" " * 6,
                                                   subsequent_indent=" " * 6)]
    return lines


class _RecordDir:
    """`record DIR`: the folder (made now) and the names its transcripts took."""

    def __init__(self, directory: str) -> None:
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UsageError(f"record {directory}: cannot make the directory: {error.strerror}",
                             "name a directory mrtr can write") from None
        self.taken: set[str] = set()


def run(target: TargetOptions, answering: AnsweringOptions, tasks: TaskOptions, output: OutputOptions,
        recording: RecordingOptions, record_dir: str | None) -> int:
    options = ShellOptions(answering, tasks, recording, output)

    def body(context: Context) -> ExitCode:
        with opened(context, target, options) as session:
            shell = Shell(session, options, record_dir)
            if person_at_terminal():
                return _at_terminal(shell, context)
            return _scripted(shell, sys.stdin)

    return guarded(output, body)


def _scripted(shell: Shell, lines: Any) -> ExitCode:
    """Commands from `lines`, one a line; the first that fails ends the shell with its code."""
    for line in lines:
        try:
            code = shell.run(line)
        except Leave:
            return ExitCode.OK
        if code != ExitCode.OK:
            return code
    return ExitCode.OK


def _at_terminal(shell: Shell, context: Context) -> ExitCode:
    """Commands typed at the prompt until `exit` or Ctrl-D; Ctrl-C cancels what runs, not the shell."""
    from mrtr_cli.commands.line_editor import LineEditor

    editor = LineEditor(shell.complete)
    for line in _typed(editor):
        try:
            shell.run(line)
        except Leave:
            break
        except KeyboardInterrupt as raised:  # between a conversation's steps: said, and back to the prompt
            context.fail(interruption(raised))
    return ExitCode.OK


def _typed(editor: Any) -> Iterator[str]:
    """The lines typed, until Ctrl-D."""
    while True:
        try:
            yield editor.read(PROMPT)
        except KeyboardInterrupt:
            continue  # Ctrl-C at the prompt: a new line, as a shell does
        except EOFError:
            return
