"""The message for words a command has no place for, and what to do when they spilled out of
`--stdio` (`mrtr call greet --stdio python server.py` gave `--stdio` the word `python` alone, and
left `server.py` over) or are a server's command given without `--` before it (`mrtr call greet
python server.py`). cli/help_command.py's commands call `message` when click's parse leaves words
over; the fast parser (fast_paths/fast_call.py) leaves such a command line to typer.
"""

import shlex
from typing import List, Optional

from mrtr_cli.text import safe_line

STDIO = "--stdio"
SERVER_FLAGS = ("--url", STDIO, "--config", "--demo")
"""The flags that name the server a command talks to (definition/option_table.py)."""


def message(command_path: str, words: List[str], extras: List[str], connects: bool = False) -> str:
    """What is said when `extras` are over among a command's `words` (the words after its name);
    `connects`: the command talks to a server (it takes `--stdio`)."""
    hint = _stdio_hint(command_path, words, extras)
    if hint is not None:
        return hint
    said = f"Got unexpected extra argument(s) ({' '.join(safe_line(extra) for extra in extras)})"
    return said + (_dashes_hint(command_path, words, extras) if connects else "")


def _dashes_hint(command_path: str, words: List[str], extras: List[str]) -> str:
    """What to do when `extras` end the command line and no flag names a server: they may be the
    server's command, which goes after `--`; "" otherwise."""
    named = any(word == flag or word.startswith(flag + "=") for word in words for flag in SERVER_FLAGS)
    if named or words[len(words) - len(extras):] != extras:
        return ""
    instead = _after_dashes(command_path, words[:len(words) - len(extras)], extras)
    return f"; if they are the server's command, put it after -- ({instead})"


def _after_dashes(command_path: str, kept: List[str], server: List[str]) -> str:
    """The command line with the server's command after `--`, each word quoted as a shell needs it."""
    return " ".join([command_path, *map(_shown, kept), "--", *map(_shown, server)])


def _stdio_hint(command_path: str, words: List[str], extras: List[str]) -> Optional[str]:
    """The line that says to quote the server's command or put it after `--`, when `extras` are the
    words right after `--stdio`'s value (the command line then says which words are the server's);
    None otherwise."""
    stdio = _stdio_words(words)
    if not stdio:
        return None
    first_after, value = _after_stdio(words, stdio)
    spilled = range(first_after, first_after + len(extras))
    if words[first_after:first_after + len(extras)] != extras:
        return None
    server = [value, *extras]
    kept = [word for index, word in enumerate(words) if index not in spilled and index not in stdio]
    instead = _after_dashes(command_path, kept, server)
    return (f"{STDIO} takes the whole command as one argument: quote it ({STDIO} {_quoted(shlex.join(server))}) "
            f"or put it after -- ({instead})")


def _after_stdio(words: List[str], indexes: List[int]) -> tuple[int, str]:
    """Where the words after `--stdio`'s value start, and that value (`--stdio CMD` or `--stdio=CMD`),
    from the indexes `_stdio_words` found."""
    if len(indexes) == 1:
        return indexes[0] + 1, words[indexes[0]].partition("=")[2]
    return indexes[1] + 1, words[indexes[1]]


def _stdio_words(words: List[str]) -> List[int]:
    """The indexes of the last `--stdio` and its value: [i, i + 1], [i] for `--stdio=CMD`, or []."""
    for index in range(len(words) - 1, -1, -1):
        if words[index].startswith(STDIO + "="):
            return [index]
        if words[index] == STDIO and index + 1 < len(words):
            return [index, index + 1]
    return []


def _quoted(command: str) -> str:
    """The command in double quotes, as a newcomer would type it; in shell quotes when it holds a
    character double quotes would not keep."""
    if any(char in command for char in '"$`\\!'):
        return safe_line(shlex.quote(command))
    return f'"{safe_line(command)}"'


def _shown(word: str) -> str:
    return safe_line(shlex.quote(word))
