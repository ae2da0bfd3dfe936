"""Reading the files a user names (answers files, transcripts, `--config`, `--args @FILE`), and
where a file mrtr writes by renaming goes (`replaced_path`).

Every read is bounded: at most `limit` bytes are read, so `/dev/zero` or an endless pipe
stops with an error instead of filling memory. Text must be UTF-8. JSON is parsed by the
standard library, with the limits of `yaml_loader` (nesting depth, integer digits), and every
error names its place as `FILE:LINE:COLUMN`. Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mrtr_cli.errors import UsageError

MEBIBYTE = 1024 * 1024
MAX_FILE_SIZE = 16 * MEBIBYTE
"""The largest answers file or `--config` mrtr reads."""
MAX_TRANSCRIPT_SIZE = 256 * MEBIBYTE
"""The largest transcript mrtr reads."""
MAX_DEPTH = 100
"""The deepest nesting of lists and mappings in a file mrtr reads."""
MAX_DIGITS = 4300
"""The longest integer (in digits) mrtr reads: Python's own limit for turning text into int."""

_CHUNK = MEBIBYTE


def same_file(one: str, other: str | None) -> bool:
    """Whether two paths name one file (through links too); a path that does not exist is no other's."""
    try:
        return other is not None and os.path.samefile(one, other)
    except OSError:
        return False


def check_writable(path: str | None, flag: str) -> None:
    """Before any work: a report file's folder exists and is writable (`--junit`), so a long run does
    not end on a path it could never write."""
    if path is not None:
        _check_folder(Path(os.path.realpath(path)).parent, path, flag)


def _check_folder(folder: Path, path: str, flag: str) -> None:
    """The folder a file is written into exists and is writable."""
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        why = "is not writable" if folder.is_dir() else "does not exist"
        raise UsageError(f"cannot write {flag} {path!r}: its folder {why}", "pick another path")


def replaced_path(path: str, flag: str) -> Path:
    """Where a file written aside and renamed into place (`--record`, `replay --update`) goes:
    through a symbolic link to its target, never over a directory, a device (`/dev/null`), a FIFO
    or a socket, which a rename would replace; its folder must exist and be writable."""
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise UsageError(f"cannot write {flag} {path!r}: {error.strerror}", "pick another path") from None
    if mode is not None and not stat.S_ISREG(mode):
        what = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise UsageError(f"cannot write {flag} {path!r}: it is {what}", "name a file, e.g. conversation.yaml")
    _check_folder(target.parent, path, flag)
    return target


def read_text(path: str, what: str, limit: int = MAX_FILE_SIZE) -> str:
    """The UTF-8 text of the file at `path`, read only up to `limit` bytes."""
    data = _read_bounded(path, what, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        text = data[:error.start].decode("utf-8")
        raise UsageError(f"{place(path, text, len(text))}: the {what} is not UTF-8 text "
                         f"(byte 0x{data[error.start]:02x})", "save it as UTF-8") from None


def _read_bounded(path: str, what: str, limit: int) -> bytes:
    try:
        with open(path, "rb") as file:
            chunks: list[bytes] = []
            size = 0
            while size <= limit:
                chunk = file.read(min(_CHUNK, limit + 1 - size))
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
                size += len(chunk)
    except OSError as error:
        raise UsageError(f"{path}: cannot read the {what}: {error.strerror or error}", "check the path") from None
    raise UsageError(f"{path}: the {what} is larger than {_size(limit)}, the most mrtr reads",
                     "check that this is the right file")


def _size(limit: int) -> str:
    return f"{limit // MEBIBYTE} MiB" if limit >= MEBIBYTE else f"{limit} bytes"


def place(path: str, text: str, offset: int) -> str:
    """`FILE:LINE:COLUMN` (from 1) of the character at `offset` in `text`."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"{path}:{line}:{column}"


def spot(where: Sequence[str | int]) -> str:
    """A path inside a document, as `answers.workspace.roots` or `rounds[3].sent`."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in where).lstrip(".") or "the document"


def load_json(path: str, what: str, limit: int = MAX_FILE_SIZE) -> Any:
    """The JSON document in the file at `path`."""
    return parse_json(read_text(path, what, limit), path, what)


def parse_json(text: str, name: str, what: str) -> Any:
    """`text` as JSON; `name` (a path, or e.g. `--args`) and `what` say where an error is."""
    try:
        value = json.loads(text, parse_int=_integer)
    except json.JSONDecodeError as error:
        raise UsageError(f"{place(name, text, error.pos)}: the {what} is not valid JSON: {error.msg}",
                         "fix the JSON") from None
    except (_TooLong, RecursionError):
        value = _limit_problem(text) or (0, f"nests deeper than {MAX_DEPTH} levels")
        raise UsageError(f"{place(name, text, value[0])}: the {what} {value[1]}", "fix the JSON") from None
    problem = _limit_problem(text)
    if problem is not None:
        raise UsageError(f"{place(name, text, problem[0])}: the {what} {problem[1]}", "fix the JSON")
    return value


_COMMENTS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMAS = re.compile(r'"(?:[^"\\\n]|\\.)*"|,(?=\s*[\]}])')
"""A JSON string (kept whole, so `//` or `,]` inside it is text), then a comment, or a comma with only
spacing before the closing bracket (read once the comments are spaces)."""


def without_comments(text: str) -> str:
    """JSON with comments (VS Code's mcp.json) as plain JSON of the same length: `//` and `/* */`
    comments and trailing commas become spaces, newlines stay, so every offset (and a line and column
    told from it) is where it was in the file. Text that is no JSON with comments stays broken where it was."""
    def blank(part: re.Match[str]) -> str:
        found = part.group()
        return found if found.startswith('"') else re.sub(r"[^\n]", " ", found)

    return _TRAILING_COMMAS.sub(blank, _COMMENTS.sub(blank, text))


class _TooLong(ValueError):
    """An integer past MAX_DIGITS (found again by `_limit_problem`, which knows where)."""


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise _TooLong(digits)
    return int(digits)


_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{]|[\]}]|(?<![\d.eE+-])-?\d{%d,}' % (MAX_DIGITS + 1))


def _limit_problem(text: str) -> tuple[int, str] | None:
    """Where `text` (valid JSON but for its limits) nests too deep or holds too long an integer."""
    depth = 0
    for token in _TOKENS.finditer(text):
        first = token.group()[0]
        if first in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return token.start(), f"nests deeper than {MAX_DEPTH} levels"
        elif first in "]}":
            depth -= 1
        elif first != '"':
            return token.start(), f"has an integer of more than {MAX_DIGITS} digits"
    return None


def json_offset(text: str, where: Sequence[str | int]) -> int:
    """Where the value at `where` starts in the JSON `text` (as far as the path exists)."""
    decoder, offset = json.JSONDecoder(), _skip_space(text, 0)
    for step in where:
        found = _member(decoder, text, offset, step)
        if found is None:
            break
        offset = found
    return offset


def _member(decoder: json.JSONDecoder, text: str, offset: int, step: str | int) -> int | None:
    """The start of member `step` of the object or array at `offset` (the last one of that key)."""
    opening, found, index = text[offset:offset + 1], None, 0
    if opening not in ("{", "["):
        return None
    offset = _skip_space(text, offset + 1)
    while offset < len(text) and text[offset] not in "]}":
        name = None
        if opening == "{":
            name, offset = decoder.raw_decode(text, offset)
            offset = _skip_space(text, _skip_space(text, offset) + 1)
        if (name if opening == "{" else index) == step:
            found = offset
        offset = _skip_space(text, decoder.raw_decode(text, offset)[1])
        offset, index = _skip_space(text, offset + 1) if text[offset:offset + 1] == "," else offset, index + 1
    return found


def _skip_space(text: str, offset: int) -> int:
    while offset < len(text) and text[offset] in " \t\r\n":
        offset += 1
    return offset


def replace_text(path: str, text: str, flag: str) -> None:
    """Write `text` to a file beside `path` (through a symbolic link: beside its target), readable by its owner
    only, and rename it into place: a reader sees the old file or the new one, never half of one."""
    import tempfile

    target = replaced_path(path, flag)
    descriptor, temporary = tempfile.mkstemp(prefix=".mrtr-", suffix=".yaml", dir=str(target.parent))
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)
    os.chmod(temporary, 0o600)
    os.replace(temporary, target)
