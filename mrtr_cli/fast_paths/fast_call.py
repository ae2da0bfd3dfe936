"""`mrtr call`, `read` and `prompt` parsed without typer: the commands run most often are spared the
70 ms that typer and its click take to load. And `mrtr demo-server`'s options, which `--demo`
starts once per run.

Only the usual shapes are parsed here: each option by a name typer gives it, its value the next word
(or after `=`), the one positional anywhere among them, and the server after `--`. The options are
mrtr_cli/definition/option_table.py's, which typer's parameters are built from too. Anything else (`--help`, a
mistake, a word the table does not know, a value that does not convert) makes `parse` return None,
and typer's command line parses the arguments as before, with its own help and its own messages.
tests/test_fast_call.py holds the two parses to one another. Standard library only.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.definition.option_table import TABLE, Option, of_group
from mrtr_cli.definition.options import (AnsweringOptions, CallOptions, OutputOptions, RecordingOptions, ServingOptions,
                                         TargetOptions, TaskOptions)

METHODS = {"call": "tools/call", "read": "resources/read", "prompt": "prompts/get"}
"""The commands parsed here, and the request each sends."""

GROUPS = ("target", "answering", "tasks", "output", "recording", "call")
"""The option groups of these commands (mrtr_cli/definition/option_table.py); `read` has all but `call`."""

OPTIONS: dict[str, Option] = {name: option for option in TABLE if option.group in GROUPS for name in option.names}
"""Every option of `call` and `prompt` by each of its names."""

Parsed = tuple[CallOptions, TargetOptions, AnsweringOptions, OutputOptions, RecordingOptions, TaskOptions]


def parse(args: list[str]) -> Parsed | None:
    """`mrtr COMMAND ...` (COMMAND one of METHODS) as the commands' Options; None for anything typer
    should parse (help, a mistake, an unusual shape)."""
    args, server = cut_server(args)
    command = args[0] if args else None
    if command not in METHODS:
        return None
    options = OPTIONS if command != "read" else {name: o for name, o in OPTIONS.items() if o.group != "call"}
    read = _read(args[1:], options)
    if read is None or len(read[1]) != 1:
        return None
    values, names = read
    call = CallOptions(METHODS[command], names[0], **values.get("call", {}))
    return (call, TargetOptions(command=tuple(server), **values.get("target", {})),
            AnsweringOptions(**values.get("answering", {})), OutputOptions(**values.get("output", {})),
            RecordingOptions(**values.get("recording", {})), TaskOptions(**values.get("tasks", {})))


def parse_demo_server(args: list[str]) -> ServingOptions | None:
    """`mrtr demo-server [--http [HOST:]PORT] [--conformance-fixtures] [--state-key KEY]`'s options (`args` after the
    command's name), read by the same rules from its entry in the command table; None as for `parse`."""
    from mrtr_cli.definition.command_table import command_named

    entry = command_named("demo-server")
    options = {name: option for group, fields in entry.groups for option in of_group(group, fields)
               for name in option.names}
    read = _read(args, options)
    if read is None or read[1]:
        return None
    return ServingOptions(**read[0].get("serving", {}))


ShellParsed = tuple[TargetOptions, AnsweringOptions, TaskOptions, OutputOptions, RecordingOptions, "str | None"]


def parse_shell(args: list[str]) -> ShellParsed | None:
    """`mrtr shell ...` (`args` after the command's name) as its Options and --record-dir, read by the same
    rules from its entry in the command table; None as for `parse`."""
    from mrtr_cli.definition.command_table import command_named

    args, server = cut_server(args)
    entry = command_named("shell")
    options = {name: option for group, fields in entry.groups for option in of_group(group, fields)
               for name in option.names}
    read = _read(args, options)
    if read is None or read[1]:
        return None
    values = read[0]
    return (TargetOptions(command=tuple(server), **values.get("target", {})),
            AnsweringOptions(**values.get("answering", {})), TaskOptions(**values.get("tasks", {})),
            OutputOptions(**values.get("output", {})), RecordingOptions(**values.get("recording", {})),
            values.get("proxying", {}).get("record_dir"))


def _read(words: list[str], options: dict[str, Option]) -> tuple[dict[str, dict[str, Any]], list[str]] | None:
    """The values of `options` among `words` by group and field, and the other words (positionals);
    None when typer should decide (a word no option has, `-x=1`, a value that does not convert)."""
    values: dict[str, dict[str, Any]] = {}
    positionals: list[str] = []
    remaining = iter(words)
    for word in remaining:
        if not word.startswith("-") or word == "-":
            positionals.append(word)
            continue
        name, equals, attached = word.partition("=")
        spec = options.get(name)
        if spec is None or (equals and not name.startswith("--")):
            return None
        if not _take(values.setdefault(spec.group, {}), spec, attached if equals else None, remaining):
            return None
    return values, positionals


def cut_server(args: list[str]) -> tuple[list[str], list[str]]:
    """The arguments before `--`, and the server command after it (cli.run cuts them here too)."""
    if "--" not in args:
        return args, []
    cut = args.index("--")
    return args[:cut], args[cut + 1:]


def _take(group: dict[str, Any], spec: Option, attached: str | None, words: Any) -> bool:
    """Set `spec`'s field from its value (`attached`, or the next word); False when typer should decide."""
    if spec.kind == "flag":
        group[spec.field] = True
        return attached is None
    text = attached if attached is not None else next(words, None)
    if text is None or (attached is None and text.startswith("-")):
        return False
    try:
        value = spec.convert(text)
    except ValueError:
        return False
    if spec.kind == "many":
        group[spec.field] = (*group.get(spec.field, ()), value)
    else:
        group[spec.field] = value
    return True


def run(args: list[str]) -> int | None:
    """Run `mrtr call|read|prompt|shell ...` when `parse` (`parse_shell`) reads it; None when typer should."""
    if args[:1] == ["shell"]:
        return _run_shell(args[1:])
    parsed = parse(args)
    if parsed is None:
        return None
    try:
        from mrtr_cli.commands import call as command

        return int(command.run(*parsed))
    except KeyboardInterrupt as raised:  # Ctrl-C, SIGTERM or SIGHUP before the command's own guard
        from mrtr_cli.errors import interruption

        return int(interruption(raised).exit_code)


def _run_shell(args: list[str]) -> int | None:
    parsed = parse_shell(args)
    if parsed is None:
        return None
    try:
        from mrtr_cli.commands import shell

        return int(shell.run(*parsed))
    except KeyboardInterrupt as raised:
        from mrtr_cli.errors import interruption

        return int(interruption(raised).exit_code)
