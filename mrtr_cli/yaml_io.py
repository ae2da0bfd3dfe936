"""YAML in and out: the only module that imports PyYAML (lazily).

Loading is `safe_load` only: no tags, no objects, no code. A broken file gets a one-line error
with its line number. Dumping is plain block style in the caller's key order, with multi-line
strings as literal blocks, so files diff cleanly in git.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mrtr_cli.errors import UsageError


def load_file(path: str | Path, what: str) -> Any:
    """The YAML document in `path`; `what` names it in errors ("answers file", "transcript")."""
    return load_located(path, what).data


def load_located(path: str | Path, what: str) -> Located:
    """The document in `path` and where each of its values stands, for errors with line numbers."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read the {what} {str(path)!r}: {error.strerror}",
                         "check the path") from None
    except UnicodeDecodeError:
        raise UsageError(f"the {what} {str(path)!r} is not UTF-8 text", "save it as UTF-8") from None
    return loads(text, f"{what} {str(path)!r}")


@dataclass(frozen=True)
class Located:
    """A loaded document with its node tree."""

    data: Any
    node: Any

    def line_of(self, path: Sequence[str | int]) -> int | None:
        """The line (from 1) where the value at `path` starts, or None."""
        node = self.node
        for step in path:
            node = _child(node, step)
            if node is None:
                return None
        return node.start_mark.line + 1 if node is not None else None


def _child(node: Any, step: str | int) -> Any:
    value = getattr(node, "value", None)
    if isinstance(step, int) and isinstance(value, list) and node.id == "sequence" and step < len(value):
        return value[step]
    if node is not None and node.id == "mapping":
        return next((child for key, child in value if key.value == step), None)
    return None


def loads(text: str, name: str) -> Located:
    """Parse YAML text safely (no tags, no objects); errors say where."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        return Located(loader.construct_document(node) if node is not None else None, node)
    except yaml.MarkedYAMLError as error:
        raise UsageError(f"{name} is not valid YAML: line {_line(error)}: {error.problem}",
                         "fix the file (tags such as !!python/object are never accepted)") from None
    except yaml.YAMLError as error:
        raise UsageError(f"{name} is not valid YAML: {error}", "fix the file") from None
    finally:
        loader.dispose()


def _line(error: Any) -> int:
    mark = error.problem_mark or error.context_mark
    return mark.line + 1 if mark is not None else 0


def dumps(data: Any) -> str:
    """`data` as readable block-style YAML, keys in the order given."""
    import yaml

    return yaml.dump(data, Dumper=_dumper(), sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)


_DUMPER: Any = None


def _dumper() -> Any:
    global _DUMPER
    if _DUMPER is None:
        import yaml

        class Dumper(yaml.SafeDumper):
            """SafeDumper that writes multi-line strings as literal blocks, and every value in
            full: a transcript is read and edited by people, never with `&id001` / `*id001`."""

            def ignore_aliases(self, data: Any) -> bool:
                return True

        def represent_str(dumper: Any, value: str) -> Any:
            style = "|" if "\n" in value and _literal_safe(value) else None
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

        Dumper.add_representer(str, represent_str)
        _DUMPER = Dumper
    return _DUMPER


def _literal_safe(value: str) -> bool:
    """Literal blocks cannot hold trailing spaces on lines or most control characters exactly."""
    lines = value.split("\n")
    return all(line == line.rstrip(" \t") and line.isprintable() for line in lines)
