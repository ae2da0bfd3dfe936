"""Replay's judgement: how a live conversation differs from the recorded one. Small named
comparers, each explaining itself."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mrtr_cli.text import safe_line
from mrtr_cli.transcript.paths import JsonPath, inside, reaches, replace
from mrtr_cli.transcript.rounds import (QUESTION_FIELDS, asked_in, asked_in_flight, comparable, roots_beside,
                                       unprompted_methods)

IGNORED = "<ignored>"


@dataclass(frozen=True)
class Difference:
    """One way the live conversation differs: where, what, and the two values."""

    round: int | None
    key: str | None
    what: str
    recorded: Any
    live: Any
    question: int | None = None
    """Across eras: the question's place in the conversation (1: the first asked), its key the recorded one."""
    live_key: str | None = None

    def where(self) -> str:
        if self.question is not None:
            return f"question {self.question} (recorded {self.key!r}, live {self.live_key!r})"
        parts = [f"round {self.round}"] if self.round is not None else []
        if self.key is not None:
            parts.append(f"question {self.key!r}")
        return ", ".join(parts) or "conversation"

    def as_dict(self) -> dict[str, Any]:
        shown = {"round": self.round, "key": self.key, "what": self.what, "recorded": self.recorded, "live": self.live}
        across = {"question": self.question, "live_key": self.live_key} if self.question is not None else {}
        return {**shown, **across}


def compare(recorded: dict[str, Any], live: dict[str, Any], ignore: list[JsonPath], strict: bool) -> list[Difference]:
    """Every difference that matters between two transcript documents."""
    old, new = _comparable(recorded, ignore), _comparable(live, ignore)
    differences = []
    if old["outcome"] != new["outcome"]:
        differences.append(Difference(None, None, "outcome", old["outcome"], new["outcome"]))
    elif old["error"] != new["error"]:
        differences.append(Difference(None, None, "error", old["error"], new["error"]))
    if len(old["rounds"]) != len(new["rounds"]):
        differences.append(Difference(None, None, "number of rounds", len(old["rounds"]), len(new["rounds"])))
    for before, after in zip(old["rounds"], new["rounds"]):
        differences += compare_round(before, after, strict)
    return differences + compare_unprompted(old["unprompted"], new["unprompted"])


def compare_unprompted(recorded: list[str], live: list[str]) -> list[Difference]:
    """The requests the server sent of its own accord, by method, as a set: each method the recording
    saw must come again (the replay waits for it). One the live run saw and the recording did not is
    no difference: when such a request comes is the server's choice (server-everything's `roots/list`,
    350 ms after `initialized`), so a recording that ended sooner could not see it, and timing must not
    decide a replay."""
    if all(method in live for method in recorded):
        return []
    return [Difference(None, None, "unprompted requests", recorded, live)]


def compare_round(before: dict[str, Any], after: dict[str, Any], strict: bool) -> list[Difference]:
    number = before["round"]
    kind_before, kind_after = _kind(before), _kind(after)
    if kind_before != kind_after:
        kinds = Difference(number, None, "result type", kind_before, kind_after)
        return [kinds, *_differ(number, None, "error", _error(before), _error(after))]
    differences = []
    if kind_before == "error":
        differences += _differ(number, None, "error code", _code(before), _code(after))
    elif kind_before == "input_required":
        differences += compare_questions(number, asked_in(before), asked_in(after))
    else:
        differences += compare_questions(number, asked_in_flight(before), asked_in_flight(after))
        differences += _differ(number, None, "result", _result(before), _result(after))
    if strict:
        differences += compare_strictly(number, before, after)
    return differences


def compare_questions(number: int, before: dict[str, Any], after: dict[str, Any]) -> list[Difference]:
    if set(before) != set(after):
        return [Difference(number, None, "questions asked", sorted(before), sorted(after))]
    differences = []
    for key in before:
        old, new = before[key], after[key]
        differences += _differ(number, key, "method", old.get("method"), new.get("method"))
        old_params, new_params = old.get("params") or {}, new.get("params") or {}
        for field in QUESTION_FIELDS:
            differences += _differ(number, key, field, old_params.get(field), new_params.get(field))
    return differences


def compare_strictly(number: int, before: dict[str, Any], after: dict[str, Any]) -> list[Difference]:
    """--strict: notifications, findings, HTTP status and content type too."""
    differences = []
    for field in ("status", "content_type"):
        differences += _differ(number, None, field, before["received"].get(field), after["received"].get(field))
    differences += _differ(number, None, "notifications", _notes(before), _notes(after))
    differences += _differ(number, None, "findings", before.get("findings", []), after.get("findings", []))
    return differences


def _differ(number: int, key: str | None, what: str, old: Any, new: Any) -> list[Difference]:
    return [] if old == new else [Difference(number, key, what, old, new)]


def _comparable(document: dict[str, Any], ignore: list[JsonPath]) -> dict[str, Any]:
    """Rounds without what legitimately changes between runs (ids, requestState, _meta, timings)."""
    rounds = []
    target = document.get("target")
    over_http = isinstance(target, dict) and target.get("transport") == "http"
    before_format_3 = document.get("mrtr_transcript", 3) < 3 and not over_http  # HTTP ties roots/list to the call
    for index, entry in enumerate(document.get("rounds", [])):
        view = comparable(roots_beside(entry) if before_format_3 else entry)
        for path in ignore:
            reached = inside(path, index)
            if reached is not None:
                replace(view, reached, IGNORED)
        rounds.append(view)
    error = document.get("error")
    unprompted = unprompted_methods([roots_beside(entry) if before_format_3 else entry
                                     for entry in document.get("rounds", [])])
    return {"outcome": document.get("outcome", "aborted"), "rounds": rounds, "unprompted": unprompted,
            "error": error.get("kind") if isinstance(error, dict) else None}


def matched_nothing(document: dict[str, Any], ignore: list[JsonPath]) -> list[JsonPath]:
    """The `--ignore` paths that reach no value in any round of `document`, as replay compares
    them: each is a path a user meant for something else (paths start at `$.rounds[*]`)."""
    views = [comparable(entry) for entry in document.get("rounds", [])]

    def matched(path: JsonPath) -> bool:
        return any(within is not None and reaches(view, within)
                   for index, view in enumerate(views) for within in [inside(path, index)])

    return [path for path in ignore if not matched(path)]


def unmatched_warning(path: JsonPath, file: str) -> str:
    """`! --ignore '$.result.time' matched nothing in time.yaml; ...`, with the path likely meant."""
    meant = {"result": ["rounds", "*", "received"], "received": ["rounds", "*"]}.get(str(path[0]))
    hint = (f"did you mean {_written([*meant, *path])!r}?" if meant is not None
            else "e.g. '$.rounds[*].received.result.content'")
    said = f"! --ignore {_written(path)!r} matched nothing in {file}; paths start at $.rounds[*] ({hint})"
    return safe_line(said, None)


def _written(path: JsonPath) -> str:
    """A path as --ignore takes it, a wildcard as `[*]`."""
    return "$" + "".join(f".{step}" if isinstance(step, str) and step != "*" else f"[{step}]" for step in path)


def _kind(entry: dict[str, Any]) -> str:
    if "error" in entry["received"]:
        return "error"
    result = entry["received"].get("result")
    return str(result.get("resultType", "complete")) if isinstance(result, dict) else "none"


def _error(entry: dict[str, Any]) -> Any:
    """The error a round ended in (None: it did not), so a user sees why it failed."""
    return entry["received"].get("error")


def _code(entry: dict[str, Any]) -> Any:
    return entry["received"]["error"].get("code")


def _result(entry: dict[str, Any]) -> Any:
    return entry["received"].get("result")


def _notes(entry: dict[str, Any]) -> list[Any]:
    """Notifications without their progress tokens (those change with every request)."""
    notes: list[Any] = json.loads(json.dumps(entry["received"].get("notifications", [])))
    for note in notes:
        (note.get("params") or {}).pop("progressToken", None)
    return notes
