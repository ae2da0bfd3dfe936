"""`mrtr call`, `read` and `prompt` parsed without typer: the commands run most often are spared the
70 ms that typer and its click take to load.

Only the usual shapes are parsed here: each option by a name typer gives it, its value the next word
(or after `=`), the one positional anywhere among them, and the server after `--`. Anything else
(`--help`, a mistake, a word this table does not know, a value that does not convert) makes `parse`
return None, and typer's command line parses the arguments as before, with its own help and its own
messages. tests/test_fast_call.py holds this table to typer's options, and the two parses to one
another. Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from mrtr_cli.protocol.meta import LOG_LEVELS
from mrtr_cli.options import (COLORS, AnsweringOptions, CallOptions, OutputOptions, RecordingOptions, TargetOptions,
                              protocol_version, round_limit, seconds)

METHODS = {"call": "tools/call", "read": "resources/read", "prompt": "prompts/get"}
"""The commands parsed here, and the request each sends."""


class Spec(NamedTuple):
    """One option: the Options group and field it sets, and how."""

    group: str  # target | answering | output | recording | call
    field: str
    kind: str  # flag (sets True) | value (the last one given wins) | many (each one added)
    convert: Callable[[str], Any] = str
    """The value as typer makes it; ValueError when typer would refuse it (typer then says why)."""


def _one_of(*choices: str) -> Callable[[str], str]:
    def convert(text: str) -> str:
        if text not in choices:
            raise ValueError(text)
        return text

    return convert


def _size(text: str) -> int:
    from mrtr_cli.transport.base import parse_size

    return parse_size(text)


OPTIONS: dict[str, Spec] = {
    "--url": Spec("target", "url", "value"),
    "--stdio": Spec("target", "stdio", "value"),
    "--config": Spec("target", "config", "value"),
    "--server": Spec("target", "server", "value"),
    "--demo": Spec("target", "demo", "flag"),
    "-H": Spec("target", "headers", "many"),
    "--header": Spec("target", "headers", "many"),
    "-e": Spec("target", "env", "many"),
    "--env": Spec("target", "env", "many"),
    "--env-file": Spec("target", "env_file", "value"),
    "--cwd": Spec("target", "cwd", "value"),
    "--timeout": Spec("target", "timeout", "value", seconds),
    "--protocol-version": Spec("target", "protocol_version", "value", protocol_version),
    "--cacert": Spec("target", "cacert", "value"),
    "--insecure": Spec("target", "insecure", "flag"),
    "--no-discover": Spec("target", "no_discover", "flag"),
    "--protocol-era": Spec("target", "protocol_era", "value"),
    "--era-probe-wait": Spec("target", "era_probe_wait", "value", seconds),
    "--max-message-size": Spec("target", "max_message_size", "value", _size),
    "--no-auth": Spec("target", "no_auth", "flag"),
    "--auth-stored-only": Spec("target", "auth_stored_only", "flag"),
    "--auth-open": Spec("target", "auth_open", "value"),
    "--auth-timeout": Spec("target", "auth_timeout", "value", seconds),
    "--client-id": Spec("target", "client_id", "value"),
    "--client-secret": Spec("target", "client_secret", "value"),
    "--client-metadata-url": Spec("target", "client_metadata_url", "value"),
    "--answers": Spec("answering", "answers_file", "value"),
    "--answer": Spec("answering", "answers", "many"),
    "--root": Spec("answering", "roots", "many"),
    "--sampling-reply": Spec("answering", "sampling_reply", "value"),
    "--sampler": Spec("answering", "sampler", "value"),
    "--sampling-model": Spec("answering", "sampling_model", "value"),
    "--log-level": Spec("answering", "log_level", "value", _one_of(*LOG_LEVELS)),
    "--no-input": Spec("answering", "no_input", "flag"),
    "--max-rounds": Spec("answering", "max_rounds", "value", round_limit),
    "--no-elicitation": Spec("answering", "no_elicitation", "flag"),
    "--no-sampling": Spec("answering", "no_sampling", "flag"),
    "--no-roots": Spec("answering", "no_roots", "flag"),
    "--save-answers": Spec("answering", "save_answers", "value"),
    "-v": Spec("output", "verbose", "flag"),
    "--verbose": Spec("output", "verbose", "flag"),
    "--json": Spec("output", "json", "flag"),
    "--color": Spec("output", "color", "value", _one_of(*COLORS)),
    "--strict": Spec("output", "strict", "flag"),
    "--show-secrets": Spec("output", "show_secrets", "flag"),
    "--debug": Spec("output", "debug", "flag"),
    "--record": Spec("recording", "record", "value"),
    "--redact": Spec("recording", "redact", "many"),
    "-a": Spec("call", "arguments", "many"),
    "--arg": Spec("call", "arguments", "many"),
    "--args": Spec("call", "args_json", "value"),
}
"""Every option of `call` and `prompt` by each of its names; `read` has all but the `call` group."""

Parsed = tuple[CallOptions, TargetOptions, AnsweringOptions, OutputOptions, RecordingOptions]


def parse(args: list[str]) -> Parsed | None:
    """`mrtr COMMAND ...` (COMMAND one of METHODS) as the commands' Options; None for anything typer
    should parse (help, a mistake, an unusual shape)."""
    args, server = cut_server(args)
    command = args[0] if args else None
    if command not in METHODS:
        return None
    values: dict[str, dict[str, Any]] = {group: {} for group in ("target", "answering", "output", "recording", "call")}
    names: list[str] = []
    words = iter(args[1:])
    for word in words:
        if not word.startswith("-") or word == "-":
            names.append(word)
            continue
        name, equals, attached = word.partition("=")
        spec = OPTIONS.get(name)
        if spec is None or (spec.group == "call" and command == "read") or (equals and not name.startswith("--")):
            return None
        if not _take(values[spec.group], spec, attached if equals else None, words):
            return None
    if len(names) != 1:
        return None
    call = CallOptions(METHODS[command], names[0], **values["call"])
    return (call, TargetOptions(command=tuple(server), **values["target"]), AnsweringOptions(**values["answering"]),
            OutputOptions(**values["output"]), RecordingOptions(**values["recording"]))


def cut_server(args: list[str]) -> tuple[list[str], list[str]]:
    """The arguments before `--`, and the server command after it (cli.run cuts them here too)."""
    if "--" not in args:
        return args, []
    cut = args.index("--")
    return args[:cut], args[cut + 1:]


def _take(group: dict[str, Any], spec: Spec, attached: str | None, words: Any) -> bool:
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
    """Run `mrtr call|read|prompt ...` when `parse` reads it; None when typer should."""
    parsed = parse(args)
    if parsed is None:
        return None
    try:
        from mrtr_cli.commands import call as command

        return int(command.run(*parsed))
    except KeyboardInterrupt as raised:  # Ctrl-C, SIGTERM or SIGHUP before the command's own guard
        from mrtr_cli.errors import interruption

        return int(interruption(raised).exit_code)
