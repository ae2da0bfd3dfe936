"""`mrtr load` and `TranscriptUser`: MRTR conversations as Locust users (the `mrtr[load]` extra).

This package alone imports Locust and gevent. Locust monkey-patches the standard library when it is
imported, so it must come before anything that imports ssl, socket, threading or httpx: `mrtr load`
imports it first of all (entry.py calls first.py), and a user's locustfile run by `locust` has it
imported by Locust itself. Importing this package imports neither: `TranscriptUser` loads on first use.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """`from mrtr_cli.load import TranscriptUser`, loaded (with Locust) only when asked for."""
    if name == "TranscriptUser":
        from mrtr_cli.load.users import TranscriptUser

        return TranscriptUser
    raise AttributeError(name)
