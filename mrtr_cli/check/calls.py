"""How many calls of the named target `mrtr check` makes at most: tools/call of the tool named with
`--tool`, prompts/get of `--prompt`, resources/read of `--resource`. A check says it once the era is
known (the older era sends the tool one call and probes nothing else) and before any call of a named
target, so a user knows what side effects to expect before any is had.

Each family of probes declares its own count beside its probes, as a `CALLS` table: probe id ->
`Calls`. A probe that sends single requests counts them; one that runs the whole conversation again
counts conversations, each at most `ROUNDS` + 1 calls (check's Session answers at most `ROUNDS`
input_required rounds). A new probe adds its line to its module's table, and the tables that apply
are listed where the probes are run (tool_probes.tool_calls, named.calls_of, older.TOOL_CALLS).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

ROUNDS = 10
"""The rounds of one conversation check drives, at most (Session's default `max_rounds`), so its calls."""


class Calls(NamedTuple):
    """What one probe (or the conversation itself) sends of the named target, at most."""

    requests: int = 0
    """Single requests: one call each."""
    conversations: int = 0
    """Whole conversations: up to ROUNDS calls each."""


def total(tables: Iterable[dict[str, Calls]]) -> Calls:
    """Every declared count of `tables`, summed."""
    counts = [calls for table in tables for calls in table.values()]
    return Calls(sum(c.requests for c in counts), sum(c.conversations for c in counts))


def at_most(calls: Calls) -> int:
    return calls.requests + calls.conversations * (ROUNDS + 1)  # a conversation's ROUNDS retries and its first call


def calls_document(kind: str, name: str, calls: Calls) -> dict[str, object]:
    """One entry of `calls` in `check --json`: the numbers of calls_words, for target `name` of `kind`
    (tool, prompt or resource)."""
    return {"target": kind, "name": name, "at_most": at_most(calls), "single_calls": calls.requests,
            "conversations": calls.conversations, "conversation_calls_at_most": ROUNDS + 1}


def calls_words(subject: str, calls: Calls) -> str:
    """`tool book_table at most 73 times (7 single calls, 6 conversations of at most 11 calls)`."""
    parts = [f"{calls.requests} single call{'s' if calls.requests != 1 else ''}"] if calls.requests else []
    if calls.conversations:
        parts.append(f"{calls.conversations} conversation{'s' if calls.conversations != 1 else ''} of at most "
                     f"{ROUNDS + 1} calls")
    return f"{subject} at most {at_most(calls)} times ({', '.join(parts)})"
