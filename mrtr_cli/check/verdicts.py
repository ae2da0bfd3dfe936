"""What a probe of `mrtr check` concludes: a pass, fail, warn or skip with what was seen.

An answer of a shape mrtr cannot use (a resultType that is not one of the two, a result that is
not an object, questions that are not objects, a requestState that is not a string) is a fail
whatever the probe's level, and the line shows what came.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from mrtr_cli.check.rules import CONFORMANCE
from mrtr_cli.conversation.client import Reply
from mrtr_cli.errors import ProtocolError
from mrtr_cli.protocol import lint_rules
from mrtr_cli.protocol.mrtr import COMPLETE, read_result

SPEC = lint_rules.SPEC
Level = Literal["MUST", "SHOULD"]
"""How binding the rule a probe checks is: a MUST that fails is a fail, a SHOULD a warn."""
Probe = tuple[str, str, Level, str]
"""A probe's id, title, level and spec page."""
Status = Literal["pass", "fail", "warn", "skipped"]
"""What a check concludes."""
STATUSES: tuple[Status, ...] = ("pass", "fail", "warn", "skipped")
"""What a check can conclude, in the order the summary counts them."""


@dataclass(frozen=True)
class Check:
    """One probe's verdict."""

    id: str
    title: str
    level: Level
    status: Status
    seen: str
    page: str
    elapsed: float | None = None
    """Seconds spent on the exchanges this probe made (0 when it is judged from the exchange of the
    probe before it; None when it made none); for --junit, not part of --json."""
    group: str | None = None
    """Why this check and others were skipped together: the human checklist shows one line for the
    group (how many, and why); --json and --junit still list each check."""

    def as_dict(self) -> dict[str, Any]:
        """For --json: also the conformance suite's check ids the probe judges (check/rules.py)."""
        return {"id": self.id, "title": self.title, "level": self.level, "status": self.status,
                "seen": self.seen, "page": self.page, "conformance": CONFORMANCE.get(self.id, [])}


def timed(checks: list[Check], seconds: float) -> list[Check]:
    """Checks judged from one group of exchanges that took `seconds`: the time not yet given to
    a check of the group (a group may hold timed groups of its own) goes to the first."""
    untimed = max(seconds - sum(check.elapsed or 0.0 for check in checks), 0.0)
    return [replace(check, elapsed=(check.elapsed or 0.0) + (untimed if index == 0 else 0.0))
            for index, check in enumerate(checks)]


BY_REQUEST = "skipped, by request (--skip-probe)"
"""What a probe left out with `--skip-probe ID` says."""


def by_request(checks: list[Check], skipped: frozenset[str]) -> list[Check]:
    """The checks, those of the probes in `skipped` (--skip-probe) skipped, by request."""
    return [replace(check, status="skipped", seen=BY_REQUEST, group=None) if check.id in skipped else check
            for check in checks]


_HTTP_STATUS = re.compile(r" \(HTTP \d{3}\)")


def without_http_status(checks: list[Check]) -> list[Check]:
    """Checks made over stdio: their titles lose the HTTP status (`(HTTP 400)`) the same rule has over
    HTTP, which no stdio answer carries."""
    return [replace(check, title=_HTTP_STATUS.sub("", check.title)) for check in checks]


def status_counts(checks: list[Check]) -> dict[str, int]:
    """How many checks have each status, in the order of STATUSES."""
    return {status: sum(c.status == status for c in checks) for status in STATUSES}


def verdict(id: str, title: str, level: Level, page: str, ok: bool | None, seen: str) -> Check:
    """pass when ok; else fail for a MUST, warn for a SHOULD; skipped when ok is None."""
    status: Status = "skipped" if ok is None else "pass" if ok else ("fail" if level == "MUST" else "warn")
    return Check(id, title, level, status, seen, SPEC + page)


def seen(reply: Reply) -> str:
    """What a reply was, in a few words; an answer mrtr cannot use says why, and shows it."""
    http = f" (HTTP {reply.status})" if reply.status is not None else ""
    if reply.error is not None:
        return f"error {reply.error.get('code')}: {reply.error.get('message')}{http}"
    problem = shape_problem(reply)
    if problem is not None:
        return f"{problem}: {short(reply.result)}{http}"
    result_type = reply.result.get("resultType", COMPLETE)
    return f"{'an' if result_type[:1] in 'aeiou' else 'a'} {result_type} result{http}"


def asks(reply: Reply | None) -> bool:
    """An input_required result (whatever it asks)."""
    return reply is not None and reply.error is None and isinstance(reply.result, dict) and \
        reply.result.get("resultType") == "input_required"


def completes(reply: Reply | None) -> bool:
    """A complete result (resultType left out means complete)."""
    return reply is not None and reply.error is None and isinstance(reply.result, dict) and \
        reply.result.get("resultType", COMPLETE) == COMPLETE


def shape_problem(reply: Reply) -> str | None:
    """Why a result is one mrtr cannot use (the wrong shape), or None when it can use it."""
    if reply.error is not None:
        return None  # an error frame was already checked: an integer code, a string message
    try:
        read_result(reply.method, reply.result)
    except ProtocolError as problem:
        return problem.message
    return None


def judged(probe: Probe, reply: Reply, ok: bool, detail: str) -> Check:
    """The verdict of a probe on `reply`: fail whatever the level when its shape is unusable."""
    if shape_problem(reply) is not None:
        id, title, level, page = probe
        return Check(id, title, level, "fail", f"{detail}: {seen(reply)}", SPEC + page)
    return verdict(*probe, ok, f"{detail}: {seen(reply)}")


def short(value: Any) -> str:
    """A value as compact JSON, cut at 80 characters."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:80] + "…"


class ProbeFailed(Exception):
    """A probe got no usable response (silence, or a frame mrtr could not read); says what was seen."""

