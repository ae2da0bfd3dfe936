"""`mrtr proxy --wrap` and `--unwrap`: put `mrtr proxy` in a host's configuration, and take it out.

The host's file is Claude Desktop's (`mcpServers`), VS Code's mcp.json (`servers`, with comments)
or VS Code's settings (`mcp.servers`). Wrapping one stdio entry is a splice of that entry's text:
its `command` becomes mrtr (an absolute path) and its `args` become `proxy [--record-dir DIR]
[--timeline FILE] -- COMMAND ARGS...`, the original command and arguments copied as they were
written (`${VAR}` included); every other character of the file stays as it was. Before the file
changes the first time, the whole of it is copied to FILE.mrtr-backup (never overwritten: it stays
the file as it was before mrtr first touched it), and the entry's original text is kept in
FILE.mrtr-wrapped.json, which `--unwrap` splices back (whatever happened to the other entries).
Nothing here runs the proxy.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from mrtr_cli.fileio import files
from mrtr_cli.errors import UsageError
from mrtr_cli.fileio.jsonc_spans import JsoncError, Node, parse, string_value, value_of

BACKUP_SUFFIX = ".mrtr-backup"
"""FILE.mrtr-backup: the whole file as it was before the first wrap (a later wrap keeps it)."""
KEPT_SUFFIX = ".mrtr-wrapped.json"
"""FILE.mrtr-wrapped.json: each wrapped entry's original text, by server name."""
HTTP_TYPES = ("http", "sse", "streamable-http", "streamableHttp")
WHAT = "--config file"


class Wrapping(NamedTuple):
    """What the wrapped entry runs: mrtr's absolute path, and the proxy's own options."""

    mrtr: str
    record_dir: str | None = None
    timeline: str | None = None

    def proxy_args(self) -> list[str]:
        """`proxy [--record-dir DIR] [--timeline FILE] --`, paths made absolute."""
        args = ["proxy"]
        if self.record_dir is not None:
            args += ["--record-dir", os.path.abspath(self.record_dir)]
        if self.timeline is not None:
            args += ["--timeline", os.path.abspath(self.timeline)]
        return [*args, "--"]


class Edited(NamedTuple):
    """A file's new text (the same text when nothing changed), the entry's text before, and why."""

    text: str
    original_entry: str
    note: str


def entry_node(text: str, name: str, path: str) -> Node:
    """The value of server `name` in the file's servers object."""
    try:
        root = parse(text)
    except JsoncError as error:
        raise UsageError(f"{files.place(path, text, error.offset)}: the {WHAT} is not JSON: {error}",
                         "fix the file (comments and trailing commas are allowed)") from None
    servers = _servers(root)
    if servers is None:
        raise UsageError(f"{path}: the {WHAT} has no mcpServers, servers or mcp.servers object",
                         "name a host's MCP configuration file")
    entry = servers.member(name)
    if entry is None or entry.kind != "object":
        names = ", ".join(key for key, _ in servers.members) or "none"
        raise UsageError(f"no server {name!r} in {path}", f"servers in the file: {names}")
    return entry


def _servers(root: Node) -> Node | None:
    for found in (root.member("mcpServers"), root.member("servers"), _inner(root.member("mcp"), "servers")):
        if found is not None and found.kind == "object":
            return found
    return None


def _inner(node: Node | None, key: str) -> Node | None:
    return node.member(key) if node is not None and node.kind == "object" else None


def is_wrapped(entry: dict[str, Any]) -> bool:
    """Whether an entry already runs `mrtr proxy`."""
    command, args = entry.get("command"), entry.get("args")
    name = Path(command).name.lower() if isinstance(command, str) else ""
    return name in ("mrtr", "mrtr.exe") and isinstance(args, list) and args[:1] == ["proxy"]


def wrap_text(text: str, name: str, wrapping: Wrapping, path: str) -> Edited:
    """The file's text with server `name` run through `mrtr proxy`."""
    node = entry_node(text, name, path)
    original = text[node.start:node.end]
    entry = value_of(text, node)
    if is_wrapped(entry):
        return Edited(text, original, f"{name!r} already runs through mrtr proxy: nothing changed")
    _check_stdio(entry, name, path)
    new_entry = _wrapped_entry(text, node, wrapping)
    return Edited(text[:node.start] + new_entry + text[node.end:], original,
                  f"{name!r} now runs through {wrapping.mrtr} proxy")


def _check_stdio(entry: dict[str, Any], name: str, path: str) -> None:
    if "url" in entry or entry.get("type") in HTTP_TYPES:
        raise UsageError(f"{path}: server {name!r} is an HTTP server, which --wrap cannot wrap",
                         "point the host at `mrtr proxy --http [HOST:]PORT --to URL` instead")
    args = entry.get("args", [])
    if not isinstance(entry.get("command"), str) or not isinstance(args, list) \
            or not all(isinstance(arg, str) for arg in args):
        raise UsageError(f"{path}: server {name!r} has no command, or args that are not a list of strings",
                         "--wrap wraps a stdio entry: a command and its args")


def _wrapped_entry(text: str, node: Node, wrapping: Wrapping) -> str:
    """The entry's text with its command and args replaced (args added when it had none)."""
    command = node.member("command")
    args = node.member("args")
    assert command is not None
    written = [text[command.start:command.end]] + [text[item.start:item.end] for item in (args.items if args else ())]
    new_args = "[" + ", ".join([*(_json(arg) for arg in wrapping.proxy_args()), *written]) + "]"
    edits = [(command.start, command.end, _json(wrapping.mrtr))]
    edits.append((args.start, args.end, new_args) if args else (command.end, command.end, f', "args": {new_args}'))
    return _spliced(text, node, edits)


def _spliced(text: str, node: Node, edits: list[tuple[int, int, str]]) -> str:
    """The node's text with each (start, end) span of the file replaced, the last first."""
    entry = text[node.start:node.end]
    for start, end, replacement in sorted(edits, reverse=True):
        entry = entry[:start - node.start] + replacement + entry[end - node.start:]
    return entry


def _json(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def unwrap_text(text: str, name: str, original_entry: str | None, path: str) -> Edited:
    """The file's text with server `name` as it was before --wrap (its kept text; without one, rebuilt
    from the wrapped args)."""
    node = entry_node(text, name, path)
    current = text[node.start:node.end]
    entry = value_of(text, node)
    if not is_wrapped(entry):
        return Edited(text, current, f"{name!r} does not run through mrtr proxy: nothing changed")
    restored = original_entry if original_entry is not None else _rebuilt(text, node, f"{path}: server {name!r}")
    return Edited(text[:node.start] + restored + text[node.end:], current, f"{name!r} restored")


def _rebuilt(text: str, node: Node, where: str) -> str:
    """An entry whose kept text is lost: its command and args from after the proxy's `--`."""
    args, command = node.member("args"), node.member("command")
    assert args is not None and command is not None
    strings = [string_value(text, item) if item.kind == "string" else None for item in args.items]
    server = args.items[strings.index("--") + 1:] if "--" in strings else ()
    if not server:
        raise UsageError(f"{where} runs mrtr proxy with no server command after --", "edit the entry by hand")
    rest = "[" + ", ".join(text[item.start:item.end] for item in server[1:]) + "]"
    return _spliced(text, node, [(command.start, command.end, text[server[0].start:server[0].end]),
                                 (args.start, args.end, rest)])


def wrap_file(path: str, name: str, wrapping: Wrapping) -> str:
    """Wrap server `name` in the file at `path`: the backup and the kept entry first, then the file.
    What happened, in a line."""
    text = files.read_text(path, WHAT)
    edited = wrap_text(text, name, wrapping, path)
    if edited.text == text:
        return edited.note
    target = files.replaced_path(path, "--config")
    kept = read_kept(target)
    kept[name] = edited.original_entry
    backup = Path(f"{target}{BACKUP_SUFFIX}")
    kept_before = backup.exists()
    if not kept_before:
        _write(backup, text)
    _write_kept(target, kept)
    _write(target, edited.text)
    return f"{edited.note}; the file as it was {'before the first wrap ' if kept_before else ''}is in {backup}"


def unwrap_file(path: str, name: str) -> str:
    """Restore server `name` in the file at `path` as it was before --wrap. What happened, in a line."""
    text = files.read_text(path, WHAT)
    target = files.replaced_path(path, "--config")
    kept = read_kept(target)
    edited = unwrap_text(text, name, kept.get(name), path)
    if edited.text != text:
        _write(target, edited.text)
    if kept.pop(name, None) is not None:
        _write_kept(target, kept)
    return edited.note


def kept_path(target: Path) -> Path:
    return Path(f"{target}{KEPT_SUFFIX}")


def read_kept(target: Path) -> dict[str, str]:
    """The original texts of the entries wrapped in the file at `target` (none when there is no record)."""
    if not kept_path(target).exists():
        return {}
    document = files.load_json(str(kept_path(target)), "record of wrapped entries")
    servers = document.get("servers") if isinstance(document, dict) else None
    if not isinstance(servers, dict) or not all(isinstance(text, str) for text in servers.values()):
        raise UsageError(f"{kept_path(target)}: not a record of wrapped entries", "remove it, then --unwrap rebuilds "
                         "each entry from its arguments")
    return dict(servers)


def _write_kept(target: Path, kept: dict[str, str]) -> None:
    if not kept:
        kept_path(target).unlink(missing_ok=True)
        return
    _write(kept_path(target), json.dumps({"version": 1, "servers": kept}, ensure_ascii=False, indent=2) + "\n")


def _write(path: Path, text: str) -> None:
    """Write a file whole: into a file beside it, then renamed over it (its mode kept)."""
    aside = path.with_name(f".{path.name}.mrtr-writing")
    try:
        aside.write_bytes(text.encode("utf-8"))
        if path.exists():
            os.chmod(aside, path.stat().st_mode & 0o7777)
        os.replace(aside, path)
    except OSError as error:
        aside.unlink(missing_ok=True)
        raise UsageError(f"cannot write {path}: {error.strerror or error}", "check the folder's permissions") from None
