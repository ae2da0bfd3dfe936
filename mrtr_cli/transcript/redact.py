"""Redaction before anything is written: secret headers always, and whatever the user names.

`--redact NAME` hides a header of that name (case-insensitive) and a tool or prompt argument of
that name, together with any `Mcp-Param-*` header that mirrors the argument. `--redact $.PATH`
hides the value at a JSON path of the transcript (`$.rounds[*].received.result.token`).
Standard library only.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.protocol.headers import PARAM_PREFIX, SECRET_HEADERS, decode_value, encode_value
from mrtr_cli.transcript.paths import JsonPath, inside, parse_path, replace, show_path

MARK = "[redacted]"
"""What a redacted value becomes."""


@dataclass
class Redaction:
    """What to hide, and what was hidden (for the transcript's `redacted:` list)."""

    names: list[str] = field(default_factory=list)
    paths: list[JsonPath] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)

    @classmethod
    def from_flags(cls, flags: list[str] | tuple[str, ...]) -> Redaction:
        names = [flag for flag in flags if not flag.startswith("$")]
        return cls(names, [parse_path(flag, "--redact") for flag in flags if flag.startswith("$")])

    @classmethod
    def from_transcript(cls, redacted: list[str]) -> Redaction:
        """The redaction a transcript's `redacted:` list describes (to keep it on --update)."""
        names = [item.split(" ", 1)[1] for item in redacted if item.startswith(("argument ", "header "))]
        return cls.from_flags(names + [item for item in redacted if item.startswith("$")])

    def params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Request params with each named argument hidden."""
        arguments = params.get("arguments")
        if not isinstance(arguments, dict) or not any(name in arguments for name in self.names):
            return params
        hidden = {k: (MARK if k in self.names else v) for k, v in arguments.items()}
        for name in self.names:
            if name in arguments:
                self._note(f"argument {name}")
        return {**params, "arguments": hidden}

    def headers(self, headers: dict[str, str], arguments: Any) -> dict[str, str]:
        """Headers with secrets, named headers and headers mirroring hidden arguments hidden."""
        secret_values = self._argument_texts(arguments)
        return {name: self._header(name, value, secret_values) for name, value in headers.items()}

    def credentials(self, headers: dict[str, str]) -> dict[str, str]:
        """The credentials among `headers` (Authorization, cookies) that only the secret rule hides, none a
        --redact name hides: what `--har` with `--show-secrets` shows as sent. Never in a transcript."""
        named = {name.lower() for name in self.names}
        return {name: value for name, value in headers.items()
                if name.lower() in SECRET_HEADERS and name.lower() not in named}

    def _header(self, name: str, value: str, secret_values: set[str]) -> str:
        lowered = name.lower()
        if lowered in SECRET_HEADERS or lowered in (n.lower() for n in self.names):
            self._note(f"header {name}")
            return MARK
        if lowered.startswith(PARAM_PREFIX.lower()) and _decoded(value) in secret_values:
            self._note(f"header {name}")
            return MARK
        return value

    def _argument_texts(self, arguments: Any) -> set[str]:
        if not isinstance(arguments, dict):
            return set()
        texts = set()
        for name in self.names:
            try:
                encoded = encode_value(arguments.get(name))
            except ValueError:
                continue
            if encoded is not None:
                texts.add(_decoded(encoded))
        return texts

    def document(self, part: dict[str, Any], round_index: int | None = None) -> dict[str, Any]:
        """A header (round_index None) or one round, with the JSON paths that reach it hidden."""
        if not self.paths:
            return part
        part = copy.deepcopy(part)
        for path in self.paths:
            reached = inside(path, round_index)
            if reached is not None and replace(part, reached, MARK):
                self._note(show_path(path))
        return part

    def _note(self, what: str) -> None:
        if what not in self.hidden:
            self.hidden.append(what)


def _decoded(value: str) -> str:
    try:
        return decode_value(value)
    except ValueError:
        return value
