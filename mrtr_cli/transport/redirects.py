"""Which HTTP redirects mrtr follows, and where the user's headers may go.

A 307 or 308 keeps the method and the body, so mrtr sends the same POST again to the new URL.
A 301, 302 or 303 would turn the POST into a GET (which opens an SSE stream, not an answer):
mrtr stops and names the new URL instead. Only http and https, never from one to the other,
at most MAX_REDIRECTS in a row. The user's -H headers (`Authorization` among them) go only to
the origin of --url. Standard library only.
"""

from __future__ import annotations

from urllib.parse import SplitResult, urljoin, urlsplit

from mrtr_cli.errors import ProtocolError
from mrtr_cli.text import safe_line

MAX_REDIRECTS = 5
FOLLOWED = (307, 308)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_CHECK_URL = "check --url"


def next_url(url: str, status: int, location: str) -> str:
    """Where a redirect from `url` leads; `ProtocolError` when mrtr does not follow it."""
    parts = _resolve(url, location, status)
    target = parts.geturl()
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ProtocolError(f"the server redirected to {safe_line(location, 200)} (HTTP {status}): mrtr follows "
                            "only http and https URLs", _CHECK_URL)
    scheme = urlsplit(url).scheme
    if parts.scheme != scheme:
        raise ProtocolError(f"the server redirected to {safe_line(target, 200)} (HTTP {status}), from {scheme} to "
                            f"{parts.scheme}: mrtr does not follow a change of scheme",
                            "if that is the MCP endpoint, pass it as --url")
    if status not in FOLLOWED:
        raise ProtocolError(f"the server redirected the POST to {safe_line(target, 200)} (HTTP {status}), which "
                            "would make it a GET; mrtr follows only 307 and 308",
                            "if that is the MCP endpoint, pass it as --url")
    return target


def invalid_location(location: str, status: int) -> ProtocolError:
    """The error for a Location that is not a URL."""
    return ProtocolError(f"the server redirected to {safe_line(location, 200)} (HTTP {status}), which is not a "
                         "valid URL", _CHECK_URL)


def too_many(url: str) -> ProtocolError:
    """The error for a chain of redirects that does not end."""
    return ProtocolError(f"more than {MAX_REDIRECTS} redirects from {safe_line(url, 200)}", _CHECK_URL)


def same_origin(first: str, second: str) -> bool:
    """Whether two URLs share scheme, host and port (the user's headers may go to both)."""
    return _origin(urlsplit(first)) == _origin(urlsplit(second))


def _origin(parts: SplitResult) -> tuple[str, str, int | None]:
    return parts.scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(parts.scheme)


def _resolve(url: str, location: str, status: int) -> SplitResult:
    try:
        parts = urlsplit(urljoin(url, location))
        parts.port  # a port that is not a number raises here
    except ValueError:
        raise invalid_location(location, status) from None
    return parts
