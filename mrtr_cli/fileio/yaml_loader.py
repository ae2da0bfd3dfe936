"""YAML in: one of the two modules that import PyYAML (lazily; yaml_dumper.py writes).

Loading accepts JSON's values only (null, booleans, numbers, text, lists and mappings): no tags,
no objects, no code. Keys are always text, as written (`1:` is the key "1"), and so are dates
(`2026-12-24` is the text "2026-12-24"; an impossible date such as `2026-02-30` is an error).
libyaml parses when it is installed (about ten times faster), pure Python otherwise. Before any
value is built, the node tree is measured: nesting deeper than `files.MAX_DEPTH`, or aliases that
repeat more than `MAX_ALIAS_REPEATS` values (a "billion laughs"), are refused. Every error is one
line, `FILE:LINE:COLUMN: what is wrong`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from mrtr_cli.fileio import files
from mrtr_cli.errors import UsageError

MAX_ALIAS_REPEATS = 100_000
"""How many values aliases (`*name`) may repeat in one document, counting every value inside."""
USE_LIBYAML = True
"""Whether to parse with libyaml when it is there (tests turn it off to check the pure loader)."""


def load_file(path: str | Path, what: str, limit: int = files.MAX_FILE_SIZE) -> Any:
    """The YAML document in `path`; `what` names it in errors ("answers file", "transcript")."""
    return load_located(path, what, limit).data


def load_located(path: str | Path, what: str, limit: int = files.MAX_FILE_SIZE) -> Located:
    """The document in `path` and where each of its values stands, for errors with line numbers."""
    return loads(files.read_text(str(path), what, limit), str(path), what)


class Located(NamedTuple):
    """A loaded document with its node tree."""

    data: Any
    node: Any

    def place_of(self, path: Sequence[str | int]) -> tuple[int, int] | None:
        """(line, column), from 1, of the value at `path`, or of its nearest parent that exists."""
        node = self.node
        for step in path:
            child = _child(node, step)
            if child is None:
                break
            node = child
        return (node.start_mark.line + 1, node.start_mark.column + 1) if node is not None else None


def _child(node: Any, step: str | int) -> Any:
    value = getattr(node, "value", None)
    if isinstance(step, int) and isinstance(value, list) and node.id == "sequence" and step < len(value):
        return value[step]
    if node is not None and node.id == "mapping":
        return next((child for key, child in reversed(value or []) if key.value == step), None)
    return None


def loads(text: str, path: str, what: str) -> Located:
    """Parse YAML text safely; an error names `path` (a file name), the line and the column."""
    import yaml

    try:
        return _build(text)
    except _Refused as refused:
        raise UsageError(f"{_at(path, refused.mark)}: the {what} {refused.problem}", refused.hint) from None
    except yaml.reader.ReaderError:
        raise _unreadable(text, path, what) from None
    except yaml.MarkedYAMLError as error:
        raise _invalid(error, path, what) from None
    except yaml.YAMLError as error:
        raise UsageError(f"{path}: the {what} is not valid YAML: {error}", "fix the file") from None


def _build(text: str) -> Located:
    """Compose the node tree, measure it, then build the values."""
    loader = _loaders()[USE_LIBYAML](text)
    try:
        node = loader.get_single_node()
        if node is None:
            return Located(None, None)
        _measure(node)
        return Located(loader.construct_document(node), node)
    finally:
        loader.dispose()


def _invalid(error: Any, path: str, what: str) -> UsageError:
    """The error for a document that is not YAML, or holds a tag (`!!python/object`, `!!set`)."""
    import yaml

    problem = ", ".join(part for part in (error.context, error.problem) if part)
    tagged = isinstance(error, yaml.constructor.ConstructorError)
    return UsageError(f"{_at(path, error.problem_mark or error.context_mark)}: the {what} is not valid YAML: "
                      f"{problem}", "remove the tag: tags such as !!python/object are never accepted" if tagged
                      else "fix the file")


def _at(path: str, mark: Any) -> str:
    return f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else path


@lru_cache(maxsize=1)
def _not_yaml() -> re.Pattern[str]:
    """A character YAML does not allow (compiled when first needed: the set costs milliseconds)."""
    return re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _unreadable(text: str, path: str, what: str) -> UsageError:
    """The error for a character YAML does not allow (a control character, NUL)."""
    found = _not_yaml().search(text)
    if found is None:
        return UsageError(f"{path}: the {what} holds a character YAML does not allow", "remove it")
    return UsageError(f"{files.place(path, text, found.start())}: the {what} holds the control character "
                      f"U+{ord(found.group()):04X}, which YAML does not allow", "remove it, or write it as an escape "
                      "in a double-quoted string")


class _Refused(Exception):
    """A document mrtr will not build: where, what is wrong, what to do."""

    def __init__(self, mark: Any, problem: str, hint: str = "fix the file") -> None:
        super().__init__(problem)
        self.mark, self.problem, self.hint = mark, problem, hint


def _measure(root: Any) -> None:
    """Refuse a node tree that nests too deep or that aliases blow up, before building it.

    The walk follows aliases as the built document would (a node shared through an alias is
    visited each time), so it stops as soon as aliases have repeated MAX_ALIAS_REPEATS values.
    """
    seen: set[int] = set()
    repeats, stack = 0, [(root, 1, None)]
    while stack:
        node, depth, repeated = stack.pop()
        if id(node) in seen:
            repeats, repeated = repeats + 1, repeated or node
            if repeats > MAX_ALIAS_REPEATS:
                raise _Refused(repeated.start_mark, f"repeats more than {MAX_ALIAS_REPEATS} values through aliases "
                                                    "(such as the value here)", "write the values out, or use fewer aliases")
        else:
            seen.add(id(node))
        if node.id == "scalar":
            continue
        if depth > files.MAX_DEPTH:
            raise _Refused(node.start_mark, f"nests deeper than {files.MAX_DEPTH} levels")
        children = node.value if node.id == "sequence" else [part for pair in node.value for part in pair]
        stack.extend((child, depth + 1, repeated) for child in children)


_JSON_TAGS = ("null", "bool", "int", "float", "str", "seq", "map", "timestamp")
_INT_LIMIT = 10 ** files.MAX_DIGITS
"""The smallest integer of more than MAX_DIGITS decimal digits."""


@lru_cache(maxsize=1)
def _loaders() -> dict[bool, Any]:
    """The loader classes: {True: libyaml's (when usable), False: pure Python}."""
    import yaml
    from yaml import resolver

    constructor = _constructor_class()
    pure = _pure_loader_class(constructor)
    return {False: pure, True: _libyaml_loader(yaml, constructor, resolver.Resolver) or pure}


def _constructor_class() -> Any:
    """SafeConstructor for JSON's values: keys as text, dates as text, errors with a place."""
    from yaml import constructor

    class Constructor(constructor.SafeConstructor):
        """SafeConstructor for JSON's values: keys as text, dates as text, errors with a place."""

        yaml_constructors = {tag: build for tag, build in constructor.SafeConstructor.yaml_constructors.items()
                             if tag is None or tag.rpartition(":")[2] in _JSON_TAGS}

        def construct_object(self, node: Any, deep: bool = False) -> Any:
            try:
                return super().construct_object(node, deep)
            except (ValueError, OverflowError) as error:
                raise _Refused(node.start_mark, _value_problem(node, error), "quote it to keep it as text") from None

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[str, Any]:
            self.flatten_mapping(node)
            mapping = {}
            for key, value in node.value:
                if key.id != "scalar":
                    raise _Refused(key.start_mark, "has a key that is a list or a mapping", "keys must be text")
                mapping[key.value] = self.construct_object(value, deep=deep)
            return mapping

        def construct_yaml_timestamp(self, node: Any) -> str:
            super().construct_yaml_timestamp(node)  # only to check the date is real
            return str(node.value)

        def construct_yaml_int(self, node: Any) -> int:
            """Past MAX_DIGITS decimal digits, however written: hex, octal, binary and base 60 have no limit."""
            value = super().construct_yaml_int(node)
            if abs(value) >= _INT_LIMIT:
                raise ValueError("too many digits")
            return value

    Constructor.yaml_constructors["tag:yaml.org,2002:timestamp"] = Constructor.construct_yaml_timestamp
    Constructor.yaml_constructors["tag:yaml.org,2002:int"] = Constructor.construct_yaml_int
    return Constructor


def _pure_loader_class(constructor: Any) -> Any:
    """The pure-Python loader, whose composer refuses deep nesting before Python's recursion limit does."""
    from yaml import composer, events, parser, reader, resolver, scanner

    class Composer(composer.Composer):
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            nesting = self.check_event(events.SequenceStartEvent, events.MappingStartEvent)
            self.depth += nesting
            try:
                if self.depth > files.MAX_DEPTH:
                    raise _Refused(self.peek_event().start_mark, f"nests deeper than {files.MAX_DEPTH} levels")
                return super().compose_node(parent, index)
            finally:
                self.depth -= nesting

    class PureLoader(reader.Reader, scanner.Scanner, parser.Parser, Composer, constructor, resolver.Resolver):
        def __init__(self, stream: str) -> None:
            reader.Reader.__init__(self, stream)
            for part in (scanner.Scanner, parser.Parser, Composer, constructor, resolver.Resolver):
                part.__init__(self)

    return PureLoader


def _libyaml_loader(yaml: Any, constructor: Any, resolver: Any) -> Any:
    """libyaml's parser and composer with our constructor; None without libyaml 0.2.5 or later
    (earlier versions have no nesting limit, and their composer recurses in C)."""
    if not yaml.__with_libyaml__ or yaml._yaml.get_version() < (0, 2, 5):
        return None

    class LibyamlLoader(yaml._yaml.CParser, constructor, resolver):
        def __init__(self, stream: str) -> None:
            yaml._yaml.CParser.__init__(self, stream)
            constructor.__init__(self)
            resolver.__init__(self)

    return LibyamlLoader


def _value_problem(node: Any, error: Exception) -> str:
    kind = node.tag.rpartition(":")[2]
    if kind == "int":
        return f"holds an integer of more than {files.MAX_DIGITS} digits"
    if kind == "timestamp":
        return f"holds {node.value!r}, which is not a real date or time ({error})"
    return f"holds {node.value[:40]!r}, which cannot be read ({error})"
