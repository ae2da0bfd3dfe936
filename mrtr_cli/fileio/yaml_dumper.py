"""YAML out: one of the two modules that import PyYAML (lazily; yaml_loader.py reads).

Dumping is plain block style in the caller's key order, with multi-line strings as literal
blocks, so files diff cleanly in git; libyaml's emitter writes it when installed and when it
writes the same bytes (yaml_emitters.py; about ten times faster), pure Python otherwise.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from mrtr_cli.fileio.yaml_emitters import emitters_agree, style_of, written_as_is

USE_LIBYAML = True
"""Whether to write with libyaml's emitter when it is there (tests turn it off to check the pure
dumper)."""


def dumps(data: Any) -> str:
    """`data` as readable block-style YAML, keys in the order given. libyaml's emitter writes it
    when installed (and USE_LIBYAML is on) and when it writes the same bytes (`emitters_agree`);
    pure Python otherwise. Long texts that YAML writes as they are (`written_as_is`) are set
    aside first and put back in the written text, so no emitter walks them."""
    aside: list[str] = []
    small = _set_aside(data, aside) if isinstance(data, (dict, list)) else data
    if not aside:
        return _emit(data)
    pieces = _emit(small).split(_SET_ASIDE)
    if len(pieces) != len(aside) + 1:
        return _emit(data)  # a text of the document holds _SET_ASIDE itself
    joined = [pieces[0]]
    for value, piece in zip(aside, pieces[1:]):
        joined += (value, piece)
    return "".join(joined)


_DOCUMENT_END = "...\n"
"""The line an emitter ends its text with after a literal block that keeps its trailing line
breaks (`|+`, a text ending in a blank line): without it, a parser could not tell where the
document ends. Nothing else of a mapping or a list starts a line with `...`: a text that does is
quoted or indented."""


def dumps_part(data: dict[str, Any] | list[Any]) -> str:
    """`data` as YAML text that the next part of the same document may follow: the recorder writes
    a transcript as parts dumped one at a time (the header's keys, each round as a one-item list,
    the ending's keys), each of which an emitter writes as a document of its own. Only a mapping
    or a list that holds something is written in block style from the first column, with no
    `---` (which comes only before a lone scalar or with directives); and the `...` that would
    end the document in the middle of the file is left out."""
    if not isinstance(data, (dict, list)) or not data:
        raise ValueError("only a mapping or a list that holds something is a part of a document")
    text = dumps(data)
    return text[:-len(_DOCUMENT_END)] if text.endswith("\n" + _DOCUMENT_END) else text


def _emit(data: Any) -> str:
    """`data` written by libyaml's emitter where it writes what the pure one does, else by the pure one."""
    import yaml

    fast = USE_LIBYAML and emitters_agree(data)
    return yaml.dump(data, Dumper=_dumpers()[fast], sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)


SET_ASIDE_LENGTH = 65_536
"""Texts at least this long that YAML writes as they are are set aside while dumping."""
_SET_ASIDE = "mrtrSetAside7f3a9c"
"""What stands for a text set aside while dumping: plain, one line, and read as text."""


def _set_aside(value: Any, aside: list[str]) -> Any:
    """`value` with each long text written as it is replaced by _SET_ASIDE (kept in `aside`, in
    the order the emitters write them); mappings and lists are copied, keys kept."""
    if isinstance(value, dict):
        return {key: _set_aside(item, aside) for key, item in value.items()}
    if isinstance(value, list):
        return [_set_aside(item, aside) for item in value]
    if isinstance(value, str) and len(value) >= SET_ASIDE_LENGTH and written_as_is(value):
        aside.append(value)
        return _SET_ASIDE
    return value


def load_emitters() -> None:
    """Load the YAML library and make the dumpers now, before a conversation: a Ctrl-C that lands
    in the middle of an import leaves the module half made, and every later dump would fail."""
    _dumpers()


@lru_cache(maxsize=1)
def _dumpers() -> dict[bool, Any]:
    """The dumper classes: {True: libyaml's emitter (when installed), False: pure Python}."""
    import yaml

    pure = _dumper_class(yaml.SafeDumper)
    return {False: pure, True: _dumper_class(yaml.CSafeDumper) if yaml.__with_libyaml__ else pure}


def _dumper_class(base: Any) -> Any:
    class Dumper(base):  # a base chosen at run time (libyaml's or the pure one)
        """A safe dumper that writes multi-line strings as literal blocks, and every value in
        full: a transcript is read and edited by people, never with `&id001` / `*id001`."""

        def ignore_aliases(self, data: Any) -> bool:
            return True

    def represent_str(dumper: Any, value: str) -> Any:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style_of(value))

    Dumper.add_representer(str, represent_str)
    return Dumper
