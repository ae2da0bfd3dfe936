"""`mrtr shell`'s line editor at a terminal: the `mrtr>` prompt, Tab completion and a history kept in
mrtr's configuration folder (0600). The only module besides answering/interactive.py that imports
prompt_toolkit (loaded only when a shell runs at a terminal); what to complete it is told, as a
function of the text before the cursor, so it knows nothing of MCP.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from mrtr_cli.config import config_dir

Candidates = Callable[[str], Iterable[str]]
"""The words that may complete the last word of the text before the cursor."""
HISTORY_FILE = "history"
PARKED_FOLDER = "parked"


def history_path() -> Path:
    """The shell's history file, in mrtr's configuration folder: made 0600 when missing."""
    folder = config_dir.folder(config_dir.SHELL)
    config_dir.make_private_folder(folder)
    path = folder / HISTORY_FILE
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, config_dir.FILE_MODE)
    os.fchmod(descriptor, config_dir.FILE_MODE)  # a file left looser by hand is tightened
    os.close(descriptor)
    return path


def parked_folder() -> Path:
    """Where a conversation parked at a question is kept when nothing records it: the shell folder's `parked`
    (nothing is made)."""
    return config_dir.folder(config_dir.SHELL) / PARKED_FOLDER


def keep_parked(path: Path, text: str) -> None:
    """Write a parked conversation's transcript (0600, its folder 0700). OSError when it cannot be."""
    config_dir.make_private_folder(path.parent)
    config_dir.write_private_file(path, text)


class LineEditor:
    """Reads one command line at a time; `read` raises EOFError for Ctrl-D and KeyboardInterrupt for
    Ctrl-C, as input() does."""

    def __init__(self, candidates: Candidates) -> None:
        import sys

        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory
        from prompt_toolkit.output import create_output

        try:
            history: Any = FileHistory(str(history_path()))
        except OSError:  # a folder mrtr cannot write: a shell without history, not no shell
            history = None
        self._session: Any = PromptSession(history=history, completer=_completer(candidates),
                                           complete_while_typing=False,
                                           output=create_output(stdout=sys.stderr))  # stdout: the results

    def read(self, prompt: str) -> str:
        return str(self._session.prompt(prompt))


def _completer(candidates: Candidates) -> Any:
    from prompt_toolkit.completion import Completer, Completion

    class WordCompleter(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Iterator[Any]:
            before = document.text_before_cursor
            last = before.split(" ")[-1]
            for word in candidates(before):
                yield Completion(word, start_position=-len(last))

    return WordCompleter()
