"""`mrtr shell`'s words: its commands, `set` and `unset` read by `call`'s option table, and what Tab
offers after the words typed so far. No server, no terminal: the lists come in as values.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from mrtr_cli.errors import UsageError
from mrtr_cli.definition.option_table import TABLE, Option
from mrtr_cli.definition.options import CallOptions
from mrtr_cli.protocol.choices import LIST_METHODS


class ShellCommand(NamedTuple):
    usage: str
    help: str


COMMANDS = {
    "call": ShellCommand("call TOOL [KEY=VALUE ...]", "tools/call TOOL, its arguments as -a takes them"),
    "read": ShellCommand("read URI", "resources/read URI"),
    "prompt": ShellCommand("prompt NAME [KEY=VALUE ...]", "prompts/get NAME, its arguments as strings"),
    "list": ShellCommand("list tools|prompts|resources|templates", "a list of the server (kept until its ttlMs "
                         "lapses or the server says it changed)"),
    "discover": ShellCommand("discover", "the server's versions, capabilities and serverInfo (older era: what "
                             "initialize returned)"),
    "answer": ShellCommand("answer [N | FILE.yaml]", "continue the Nth paused conversation of this shell (a question "
                           "parked, or a recorded one that stopped at a question), or a paused transcript, as mrtr "
                           "answer does, on this connection; alone: the paused ones, numbered"),
    "record": ShellCommand("record DIR | record off", "keep each conversation as a transcript in DIR, named as "
                           "mrtr proxy --record-dir names them; off: no more"),
    "show": ShellCommand("show [TRANSCRIPT.yaml]", "a transcript's timeline and result (default: the last one "
                         "this shell recorded)"),
    "set": ShellCommand("set [OPTION ...]", "set answering, tasks, recording or output options as call takes them "
                        "(set --answers FILE, set --max-rounds 5); alone: what is set"),
    "unset": ShellCommand("unset OPTION", "back to the option's default (unset --max-rounds)"),
    "help": ShellCommand("help [COMMAND]", "these lines"),
    "exit": ShellCommand("exit", "leave, stopping the server (or Ctrl-D)"),
}
"""The shell's commands, in the order `help` lists them."""
METHODS = {"call": "tools/call", "read": "resources/read", "prompt": "prompts/get"}
"""The commands that hold a conversation, and the request each sends."""
SETTABLE_GROUPS = ("answering", "tasks", "recording", "output")
SETTABLE: dict[str, Option] = {name: option for option in TABLE if option.group in SETTABLE_GROUPS
                               for name in option.names}
"""Every option `set` takes, by each of its names."""
TARGET_NAMES = {name for option in TABLE if option.group == "target" for name in option.names}


def split(line: str) -> list[str]:
    """The words of a command line, split as a shell would (quotes keep spaces)."""
    try:
        return shlex.split(line, comments=True)  # a script may say why, after a #
    except ValueError as error:
        raise UsageError(f"cannot read the line: {error}", "close the quote") from None


def conversation(words: list[str]) -> CallOptions:
    """`call TOOL k=v ...`, `read URI`, `prompt NAME k=v ...` as the call they make."""
    command, rest = words[0], words[1:]
    if not rest:
        raise UsageError(f"{command} needs a name", f"usage: {COMMANDS[command].usage}")
    name, arguments = rest[0], tuple(rest[1:])
    if command == "read" and arguments:
        raise UsageError("read takes one URI and no arguments", f"usage: {COMMANDS['read'].usage}")
    for argument in arguments:
        if "=" not in argument:
            raise UsageError(f"{argument!r} is not KEY=VALUE", f"usage: {COMMANDS[command].usage}")
    return CallOptions(METHODS[command], name, arguments)


def set_options(words: list[str], groups: dict[str, Any]) -> dict[str, Any]:
    """`groups` (each settable group's Options by its name) with the options `words` give set, read as
    `call` reads them; a usage error naming the word that is not one."""
    changed = dict(groups)
    remaining = iter(words)
    for word in remaining:
        name, equals, attached = word.partition("=")
        option = _settable(name)
        if option.kind == "flag":
            if equals:
                raise UsageError(f"{name} is a flag and takes no value", f"set {name}")
            value: Any = True
        else:
            text = attached if equals else next(remaining, None)
            if text is None:
                raise UsageError(f"{name} needs a value ({option.metavar or 'VALUE'})",
                                 f"set {name} {option.metavar or 'VALUE'}")
            try:
                value = option.convert(text)
            except ValueError as error:
                raise UsageError(f"{name} {text}: {error}", f"give {name} a {option.metavar or 'value'}") from None
        current = changed[option.group]
        if option.kind == "many":
            value = (*getattr(current, option.field), value)
        changed[option.group] = current._replace(**{option.field: value})
    return changed


def unset_option(name: str, groups: dict[str, Any]) -> dict[str, Any]:
    """`groups` with the option `name` (`--max-rounds` or `max-rounds`) back to its default."""
    option = _settable(name if name.startswith("-") else f"--{name}")
    return {**groups, option.group: groups[option.group]._replace(**{option.field: option.default})}


def _settable(name: str) -> Option:
    if name in TARGET_NAMES:
        raise UsageError(f"{name} is a target option: this shell is connected to its server for good",
                         "start another mrtr shell with it")
    option = SETTABLE.get(name)
    if option is None:
        raise UsageError(f"no option {name!r} to set", "set and unset take call's answering, tasks, recording "
                         "and output options (mrtr call --help)")
    return option


def set_lines(groups: dict[str, Any]) -> list[str]:
    """What is set, one option a line as `set` takes it."""
    lines = []
    for option in TABLE:
        if option.group not in SETTABLE_GROUPS:
            continue
        value = getattr(groups[option.group], option.field)
        if value == option.default:
            continue
        name = option.names[-1]
        if option.kind == "flag":
            lines.append(name)
        elif option.kind == "many":
            lines.extend(f"{name} {shlex.quote(str(each))}" for each in value)
        else:
            lines.append(f"{name} {shlex.quote(str(value))}")
    return lines


Listed = Callable[[str], list[Any]]
"""The items of the server's list of a kind (tools, prompts, resources), as kept."""


def candidates(before: str, listed: Listed) -> Iterable[str]:
    """What may complete the last word of `before` (the line up to the cursor)."""
    words = before.split(" ")
    last, done = words[-1], [word for word in words[:-1] if word]
    if not done:
        return _starting(last, COMMANDS)
    command = done[0]
    if command in ("help",) and len(done) == 1:
        return _starting(last, COMMANDS)
    if command == "list" and len(done) == 1:
        return _starting(last, LIST_METHODS)
    if command in ("set", "unset"):
        return _starting(last, sorted({name for name in SETTABLE if name.startswith("--")}))
    if command in METHODS and len(done) == 1:
        return _starting(last, _names(command, listed))
    if command in ("call", "prompt") and len(done) >= 2:
        return _argument_words(last, _arguments(command, done[1], listed))
    return []


def _starting(last: str, words: Iterable[str]) -> list[str]:
    return [word for word in words if word.startswith(last)]


def _names(command: str, listed: Listed) -> list[str]:
    kind, field = {"call": ("tools", "name"), "prompt": ("prompts", "name"), "read": ("resources", "uri")}[command]
    return [item[field] for item in listed(kind) if isinstance(item, dict) and isinstance(item.get(field), str)]


def _arguments(command: str, name: str, listed: Listed) -> dict[str, list[str]]:
    """The argument names of tool or prompt `name`, each with its enum values (none: any)."""
    for item in listed("tools" if command == "call" else "prompts"):
        if not isinstance(item, dict) or item.get("name") != name:
            continue
        if command == "prompt":
            return {argument["name"]: [] for argument in item.get("arguments") or []
                    if isinstance(argument, dict) and isinstance(argument.get("name"), str)}
        properties = (item.get("inputSchema") or {}).get("properties") or {}
        return {key: [str(value) for value in (schema.get("enum") or [])] if isinstance(schema, dict) else []
                for key, schema in properties.items() if isinstance(key, str)}
    return {}


def _argument_words(last: str, arguments: dict[str, list[str]]) -> list[str]:
    key, equals, value = last.partition("=")
    if not equals:
        return [f"{name}=" for name in arguments if name.startswith(last)]
    return [f"{key}={choice}" for choice in arguments.get(key, []) if choice.startswith(value)]
