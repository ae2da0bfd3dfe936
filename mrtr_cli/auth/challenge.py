"""What a 401 or 403 asks for: the `WWW-Authenticate` header's Bearer challenge, parsed.

RFC 6750 and RFC 9728: `resource_metadata` (where the protected resource metadata is), `scope`
(what the request needs) and `error` (`insufficient_scope` asks for more scopes). Standard library only.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_PARAMETER = re.compile(r'\s*([A-Za-z0-9_!#$%&\'*+.^`|~-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]*)\s*,?')
_SCHEME = re.compile(r"\s*([A-Za-z0-9_!#$%&'*+.^`|~-]+)(?:\s+|$)")


class Challenge(NamedTuple):
    """The Bearer challenge of a response (empty values when the header has none)."""

    status: int
    resource_metadata: str | None = None
    scopes: tuple[str, ...] = ()
    error: str | None = None
    description: str | None = None
    header: str | None = None
    """The whole `WWW-Authenticate` header, as the server sent it (shown safely)."""

    @property
    def wants_more_scopes(self) -> bool:
        return self.status == 403 and self.error == "insufficient_scope"


def parse_challenge(status: int, header: str | None) -> Challenge:
    """The Bearer challenge's parameters (another scheme's challenge is ignored)."""
    parameters = bearer_parameters(header or "")
    scope = parameters.get("scope") or ""
    return Challenge(status, parameters.get("resource_metadata") or None, tuple(scope.split()),
                     parameters.get("error") or None, parameters.get("error_description") or None, header)


def bearer_parameters(header: str) -> dict[str, str]:
    """The auth-params of the Bearer challenge in `header` (which may hold several challenges)."""
    found: dict[str, str] | None = None
    position = 0
    while position < len(header):
        parameter = _PARAMETER.match(header, position)
        if parameter is not None and found is not None:
            found.setdefault(parameter.group(1).lower(), _unquote(parameter.group(2)))
            position = parameter.end()
            continue
        if parameter is not None:
            position = parameter.end()  # a parameter of another scheme's challenge
            continue
        scheme = _SCHEME.match(header, position)
        if scheme is None:
            break
        if found is not None:
            break  # the Bearer challenge ended where another begins
        found = {} if scheme.group(1).lower() == "bearer" else None
        position = scheme.end()
    return found or {}


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value
