"""Which URLs a URL-mode elicitation may open, and what a person must be warned about.

Only https, or http to a loopback host, may be opened; any other scheme (javascript:, file:,
data:, ...) is refused. Hosts in punycode or mixing scripts are flagged (spec, `client/
elicitation`: show the full URL, highlight the domain, warn about ambiguous URIs). Nothing is
ever fetched here. Standard library only.
"""

from __future__ import annotations

import ipaddress
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("localhost",)


@dataclass(frozen=True)
class UrlVerdict:
    """What mrtr makes of a URL a server asks a person to open."""

    url: str
    host: str
    openable: bool
    refusal: str = ""
    warnings: list[str] = field(default_factory=list)


def judge(url: str) -> UrlVerdict:
    """The verdict on `url`: whether it may be opened, and the warnings to show."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return UrlVerdict(url, "", False, "it is not a valid URL")
    scheme = parts.scheme.lower()
    warnings = host_warnings(host) + (["the URL carries a user name or password"] if parts.username else [])
    refusal = _refusal(scheme, host)
    return UrlVerdict(url, host, not refusal, refusal, warnings)


def _refusal(scheme: str, host: str) -> str:
    if scheme == "https" and host:
        return ""
    if scheme == "http" and is_loopback(host):
        return ""
    if scheme == "http":
        return "plain http is opened only for a loopback host (localhost, 127.0.0.1, ::1)"
    return f"{scheme or 'a missing'} scheme is never opened; only https (or http to a loopback host)"


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_warnings(host: str) -> list[str]:
    """Punycode labels, mixed scripts, and non-ASCII hosts that can imitate others."""
    warnings = []
    decoded = _decoded(host)
    if any(label.lower().startswith("xn--") for label in host.split(".")):
        warnings.append(f"the host is punycode: it displays as {decoded!r}")
    scripts = {_script(ch) for ch in decoded if ch.isalpha()}
    if len(scripts - {"COMMON"}) > 1:
        warnings.append(f"the host mixes scripts ({', '.join(sorted(scripts - {'COMMON'}))}): it may imitate another")
    elif not decoded.isascii():
        warnings.append("the host has non-ASCII letters: check it is the one you expect")
    return warnings


def _decoded(host: str) -> str:
    try:
        return host.encode("ascii").decode("idna")
    except (UnicodeError, ValueError):
        return host


def _script(char: str) -> str:
    """A coarse script name from the Unicode character name (LATIN, CYRILLIC, GREEK, ...)."""
    name = unicodedata.name(char, "")
    return name.split(" ")[0] if name else "UNKNOWN"
