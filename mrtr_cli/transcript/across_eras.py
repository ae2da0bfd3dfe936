"""Replay across eras, the migration check: a conversation recorded in one era (2026-07-28 or the
older `initialize` era) compared with a live run in the other.

What is compared is what a person sees: the questions in the order asked (method, mode, message,
form schema as the spec defines it, URL, and a sampling request's messages), the answer each got, the outcome and the final
result. Keys, ids, requestState, the number of rounds and the era itself are not differences: an
older-era server asks in flight under synthetic keys (`elicitation#1`), a modern one in rounds
under its own. The result is compared without `_meta` and the fields only 2026-07-28 has
(`resultType`, `ttlMs`, `cacheScope`), and its `structuredContent` only when both sides have one
(versions before 2025-06-18 have none).
Only the first question that differs is reported: every question after it follows from it.
A `roots/list` is compared apart, as whether the server asked for roots at all: over stdio an
older-era server's is unprompted (conversation/server_requests.py), kept beside the round.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mrtr_cli.transcript.compare import IGNORED, Difference, compare
from mrtr_cli.transcript.task_record import compare_tasks
from mrtr_cli.transcript.paths import JsonPath, replace
from mrtr_cli.transcript.rounds import AskedQuestion, final_result, question_sequence, roots_asked

FORM_KEYWORDS = ("type", "properties", "required")
"""What the spec defines of a form's requestedSchema, and so what a client shows. Across eras only
these are compared: an SDK may add annotations in one era's path (the PyPI `mcp` SDK's MCPServer
adds a top-level `title` to the older era's schema only), which ask the person nothing different."""
MODERN_ONLY = ("ttlMs", "cacheScope")
"""Result fields of 2026-07-28 that an older-era result never has (`resultType` is gone already)."""


def era_of(document: dict[str, Any]) -> str:
    """The era a transcript document was recorded in; format 1 knew only 2026-07-28."""
    return str(document.get("era", "modern"))


def compare_conversations(recorded: dict[str, Any], live: dict[str, Any], ignore: list[JsonPath],
                          strict: bool) -> list[Difference]:
    """Replay's comparison: round by round in the same era (`compare`), with the task the server made
    of the request (`compare_tasks`), else across eras."""
    if era_of(recorded) == era_of(live):
        return compare(recorded, live, ignore, strict) + compare_tasks(recorded.get("task"), live.get("task"))
    return compare_across_eras(recorded, live, ignore)


def compare_across_eras(recorded: dict[str, Any], live: dict[str, Any],
                        ignore: Sequence[JsonPath] = ()) -> list[Difference]:
    """Every difference that matters between conversations of two eras; of `ignore`, the paths
    under `$.rounds[*].received.result` apply to the final result (rounds do not match across eras)."""
    differences = _outcomes(recorded, live)
    old, new = question_sequence(recorded.get("rounds", [])), question_sequence(live.get("rounds", []))
    differences += _first_different_question(old, new)
    if len(old) != len(new):
        differences.append(Difference(None, None, "number of questions", len(old), len(new)))
    roots = (roots_asked(recorded.get("rounds", [])), roots_asked(live.get("rounds", [])))
    if roots[0] != roots[1]:  # compared apart: when an older-era server asks it over stdio is timing
        differences.append(Difference(None, None, "roots asked", *roots))
    differences += _results(recorded.get("rounds", []), live.get("rounds", []), _in_results(ignore))
    return differences


def _in_results(ignore: Sequence[JsonPath]) -> list[JsonPath]:
    """The part inside a round's result of each path that reaches into one (`[]`: the whole result)."""
    return [path[4:] for path in ignore
            if path[0] == "rounds" and len(path) >= 4 and path[2:4] == ["received", "result"]]


def _ignoring(result: dict[str, Any] | None, ignore: list[JsonPath]) -> dict[str, Any] | None:
    """A copy of the final result with what `ignore` reaches made `<ignored>`."""
    if result is None or not ignore:
        return result
    if [] in ignore:
        return {"result": IGNORED}
    shown: dict[str, Any] = json.loads(json.dumps(result))
    for path in ignore:
        replace(shown, path, IGNORED)
    return shown


def _outcomes(recorded: dict[str, Any], live: dict[str, Any]) -> list[Difference]:
    outcomes = (recorded.get("outcome", "aborted"), live.get("outcome", "aborted"))
    if outcomes[0] != outcomes[1]:
        return [Difference(None, None, "outcome", *outcomes)]
    kinds = tuple((d.get("error") or {}).get("kind") for d in (recorded, live))
    return [Difference(None, None, "error", *kinds)] if kinds[0] != kinds[1] else []


def _first_different_question(old: list[AskedQuestion], new: list[AskedQuestion]) -> list[Difference]:
    for number, (before, after) in enumerate(zip(old, new), 1):
        differences = _question(number, before, after)
        if differences:
            return differences
    return []


def _question(number: int, before: AskedQuestion, after: AskedQuestion) -> list[Difference]:
    def differ(what: str, old: Any, new: Any) -> list[Difference]:
        return [] if old == new else [Difference(None, before.key, what, old, new, number, after.key)]

    if before.method != after.method:
        return differ("method", before.method, after.method)
    old_fields, new_fields = _shown(before.fields), _shown(after.fields)
    differences = [d for name in old_fields for d in differ(name, old_fields[name], new_fields.get(name))]
    return differences + differ("answer", before.response, after.response)


def _shown(fields: dict[str, Any]) -> dict[str, Any]:
    """A question's defining fields, its form schema cut to what the spec defines (FORM_KEYWORDS)."""
    schema = fields.get("requestedSchema")
    if not isinstance(schema, dict):
        return fields
    return {**fields, "requestedSchema": {key: schema[key] for key in FORM_KEYWORDS if key in schema}}


def _results(old_rounds: list[dict[str, Any]], new_rounds: list[dict[str, Any]],
             ignore: list[JsonPath]) -> list[Difference]:
    before, after = _ignoring(final_result(old_rounds), ignore), _ignoring(final_result(new_rounds), ignore)
    if before is not None and after is not None:
        left_out = MODERN_ONLY + (() if "structuredContent" in before and "structuredContent" in after
                                  else ("structuredContent",))
        before, after = _without(before, left_out), _without(after, left_out)
    if before is None and after is None:
        codes = [_error_code(rounds) for rounds in (old_rounds, new_rounds)]
        return [] if codes[0] == codes[1] else [Difference(None, None, "error code", *codes)]
    if before == after:
        return []
    return [Difference(None, None, "result", _or_error(before, old_rounds), _or_error(after, new_rounds))]


def _or_error(result: dict[str, Any] | None, rounds: list[dict[str, Any]]) -> Any:
    """A conversation's result, else the error its last round ended in (so the report says why)."""
    if result is not None or not rounds or "error" not in rounds[-1]["received"]:
        return result
    return {"error": rounds[-1]["received"]["error"]}


def _without(result: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {key: value for key, value in result.items() if key not in names}


def _error_code(rounds: list[dict[str, Any]]) -> Any:
    error = rounds[-1]["received"].get("error") if rounds else None
    return error.get("code") if isinstance(error, dict) else None
