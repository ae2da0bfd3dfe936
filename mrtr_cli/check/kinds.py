"""The three requests that may answer with input_required (tools/call, prompts/get,
resources/read), as the conversation probes of `mrtr check` need to tell them apart: how a line
names the target, which fields of a complete result say what it said, and the id and title a
probe has on each. A probe written for the named tool runs on a named prompt or resource with its
id prefixed (`decline-is-no` is `prompt-decline-is-no` on `--prompt`), as the state probes' are.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from mrtr_cli.check.verdicts import Probe


class TargetKind(NamedTuple):
    """One kind of named target."""

    method: str
    subject: str
    """How a line names it: `the tool`, `the prompt`, `the resource`."""
    said: tuple[str, ...]
    """The fields of its complete result that say what it said (compared between two runs)."""
    prefix: str
    """What its probes' ids start with (none for the tool's: their ids predate the others')."""


TOOL = TargetKind("tools/call", "the tool", ("content", "structuredContent"), "")
PROMPT = TargetKind("prompts/get", "the prompt", ("description", "messages"), "prompt-")
RESOURCE = TargetKind("resources/read", "the resource", ("contents",), "resource-")
KINDS = {kind.method: kind for kind in (TOOL, PROMPT, RESOURCE)}


def kind_of(method: str) -> TargetKind:
    return KINDS[method]


def on(kind: TargetKind, probe: Probe) -> Probe:
    """`probe` (a tool's) as it runs on `kind`: its id prefixed, its title naming the method."""
    if kind is TOOL:
        return probe
    id, title, level, page = probe
    return f"{kind.prefix}{id}", f"{title} ({kind.method})", level, page


def base_id(kind: TargetKind, probe: Probe) -> str:
    """The id `probe` has on the tool: what its family keys its own tables by."""
    return probe[0].removeprefix(kind.prefix)


def said(kind: TargetKind, result: dict[str, Any]) -> dict[str, Any]:
    """What a complete result of `kind` says: the fields two runs are compared by."""
    return {field: result.get(field) for field in kind.said}
