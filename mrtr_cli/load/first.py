"""Locust before everything else: it monkey-patches ssl, socket and threading (gevent) when imported,
and patching them after httpx or ssl were imported leaves the process half patched. Standard library only
besides Locust itself, so that entry.py may call it before importing anything of mrtr's."""

from __future__ import annotations

INSTALL = "pip install 'mrtr[load]'"
"""How Locust comes: the extra that brings it."""


def import_locust() -> bool:
    """Import Locust (and so patch the process) now; False when it is not installed (`mrtr load`
    then says how to install it)."""
    try:
        import locust  # noqa: F401 - imported for its monkey-patching, first of all
    except ImportError:
        return False
    return True
