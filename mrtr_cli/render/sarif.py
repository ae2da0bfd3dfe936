"""`--sarif FILE` on `check`, `replay` and `proxy`: the run as a SARIF 2.1.0 log, the format GitHub
code scanning (`github/codeql-action/upload-sarif`) and most CI dashboards read.

One result a failure or warning: a failed probe is `error`, a probe's warning `warning` (a MUST's
fail, a SHOULD's warn; a fail of a SHOULD probe on an answer mrtr cannot use is still an error, as it
fails the check), a client's finding its own severity (`info` as `note`); a divergence or a replay
that could not run an `error`. Passes and skipped probes are no results. Each rule carries its spec
page as its help. Every location is a repository path (GitHub refuses URL locations): the
transcript and its round's line for `replay`; for `check` and `proxy` the one `location` file
(sarif_location below). `partialFingerprints` are made from what stays from run to run (rule,
file, round or occurrence), never from server text, ids or times.

Pure functions that build plain dicts, and one writer; standard library only. Server text goes
through text.py's `safe` (control characters become visible escapes).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from mrtr_cli import __version__
from mrtr_cli.check.verdicts import Check
from mrtr_cli.errors import UsageError
from mrtr_cli.protocol.lint_rules import SPEC, Finding
from mrtr_cli.render.annotations import describe_difference
from mrtr_cli.text import safe, safe_line
from mrtr_cli.transcript.compare import Difference
from mrtr_cli.transcript.replay_verdict import ReplayVerdict

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
"""The `$schema` of the log: the OASIS SARIF 2.1.0 schema (errata 01)."""
INFORMATION_URI = "https://github.com/modelcontextprotocol"
"""Where the tool's driver points (the protocol mrtr inspects)."""
SOURCE_ROOT = "%SRCROOT%"
"""The uriBaseId every location is relative to: the repository's root (the folder mrtr runs in)."""
TEXT_LIMIT = 20_000
"""The most characters of one result's message."""
FINGERPRINT = "mrtrResult/v1"
"""The key of the one partial fingerprint each result has."""
LEVELS = {"fail": "error", "warn": "warning", "error": "error", "warning": "warning", "info": "note"}
"""A check's status or a finding's severity -> SARIF's level."""
REPLAY_RULES = {
    "replay-diverged": "The live conversation differs from the recorded one (mrtr replay exit 6).",
    "replay-failed": "The transcript could not be replayed (it did not load, or the server could not be reached).",
}
"""replay's two rules: a divergence and a replay that could not run."""


def sarif_location(given: str | None, config: str | None, command: Sequence[str], flag: str = "--sarif") -> str:
    """The repository path the results of `check` or `proxy` point at: `--sarif-location PATH` when
    given, else the `--config` file, else the stdio server's script (the first word of its command
    that is a file); exit 1 when there is none (a server reached by URL, the demo)."""
    if given is not None:
        return repository_path(given)
    if config is not None:
        return repository_path(config)
    script = next((word for word in command if Path(word).is_file() and not _is_interpreter(word)), None)
    if script is None:
        raise UsageError(f"{flag} needs a file in the repository to point its results at, and this server has none "
                         "(no --config, no stdio server script)", "give --sarif-location PATH (e.g. mcp.json)")
    return repository_path(script)


def repository_path(path: str) -> str:
    """`path` relative to the current folder, with forward slashes; exit 1 when it is outside it
    (GitHub takes only paths inside the checkout)."""
    resolved = Path(os.path.abspath(path))
    try:
        relative = resolved.relative_to(Path.cwd().resolve())
    except ValueError:
        raise UsageError(f"the SARIF location {safe_line(path, 200)} is outside the current folder, and code "
                         "scanning takes only repository paths", "run mrtr from the repository's root, or give "
                         "--sarif-location PATH inside it") from None
    return str(PurePosixPath(*relative.parts))


def check_log(checks: list[Check], location: str, server: str, failure: str | None = None) -> dict[str, Any]:
    """`mrtr check --sarif`: one result a failed or warned probe, its rule the probe; `failure`: the
    run stopped before any probe ran, a tool execution notification that says why."""
    rules = {check.id: _rule(check.id, check.title, check.page, "error" if check.level == "MUST" else "warning")
             for check in checks}
    results = [_result(check.id, LEVELS[check.status], f"{check.title}: {check.seen}", location, None,
                       [check.id, location], server)
               for check in checks if check.status in ("fail", "warn")]
    return _log("mrtr check", list(rules.values()), results, server, failure)


def replay_log(verdicts: list[ReplayVerdict], line_of: Callable[[str, Difference], int | None],
               server: str) -> dict[str, Any]:
    """`mrtr replay --sarif`: one result a difference of a diverged transcript, at its round's line;
    one a transcript that could not replay, at its first line."""
    results = []
    for verdict in verdicts:
        path = repository_path(verdict.file)
        if verdict.result == "diverged":
            results += [_result("replay-diverged", "error", describe_difference(difference), path,
                                line_of(verdict.file, difference), [path, difference.where(), difference.what],
                                server) for difference in verdict.differences]
        elif verdict.result == "failed":
            message = verdict.error.one_line() if verdict.error else "did not replay"
            results.append(_result("replay-failed", "error", message, path, 1, [path], server))
    rules = [_rule(rule, text, None, "error") for rule, text in REPLAY_RULES.items()]
    return _log("mrtr replay", rules, results, server)


def client_log(findings: Sequence[Finding], rules: Iterable[str], pages: dict[str, tuple[str, str]],
               location: str, server: str) -> dict[str, Any]:
    """`mrtr proxy --sarif`: one result a finding of the client's judge; its fingerprint counts the
    findings of its rule before it (the same behaviour again gives the same fingerprints)."""
    described = [_rule(rule, rule.replace("-", " "), _page(pages[rule][1]), LEVELS[pages[rule][0]]) for rule in rules]
    seen: dict[str, int] = {}
    results = []
    for found in findings:
        seen[found.rule] = seen.get(found.rule, 0) + 1
        results.append(_result(found.rule, LEVELS.get(found.severity, "note"), found.message, location, None,
                               [found.rule, location, str(seen[found.rule])], server))
    return _log("mrtr proxy", described, results, server)


def write_log(path: str, log: dict[str, Any]) -> None:
    """Write the log to `path` as UTF-8 JSON; an unwritable path is exit 1."""
    try:
        Path(path).write_text(json.dumps(log, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write the SARIF log {path}: {error.strerror or error}",
                         "check that its directory exists and is writable") from None


def _log(name: str, rules: list[dict[str, Any]], results: list[dict[str, Any]], server: str,
         failure: str | None = None) -> dict[str, Any]:
    """The log of one run: the tool and its rules, the results (each pointing at its rule by
    index), and whether the run itself worked."""
    index = {rule["id"]: number for number, rule in enumerate(rules)}
    for result in results:
        result["ruleIndex"] = index[result["ruleId"]]
    invocation: dict[str, Any] = {"executionSuccessful": failure is None}
    if failure is not None:
        invocation["toolExecutionNotifications"] = [{"level": "error", "message": {"text": safe(failure, TEXT_LIMIT)}}]
    run = {"tool": {"driver": {"name": "mrtr", "version": __version__, "informationUri": INFORMATION_URI,
                               "rules": rules}},
           "automationDetails": {"id": f"{name}/"}, "invocations": [invocation], "results": results,
           "properties": {"server": server}}
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _rule(id: str, title: str, page: str | None, level: str) -> dict[str, Any]:
    """A rule: its id, its title, and its spec page as its help (GitHub shows the help beside the alert)."""
    rule: dict[str, Any] = {"id": id, "shortDescription": {"text": safe_line(title, 500)},
                            "defaultConfiguration": {"level": level}}
    if page:
        rule["helpUri"] = page
        rule["help"] = {"text": f"See the specification: {page}", "markdown": f"See [the specification]({page})."}
    return rule


def _result(rule: str, level: str, message: str, path: str, line: int | None, stable: list[str],
            server: str) -> dict[str, Any]:
    """One result at `path` (line 1 when the line is not known: GitHub wants a region)."""
    region = {"startLine": line if line is not None and line > 0 else 1}
    fingerprint = hashlib.sha256("\x1f".join([rule, *stable]).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return {"ruleId": rule, "level": level, "message": {"text": safe(message, TEXT_LIMIT) or rule},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": path, "uriBaseId": SOURCE_ROOT},
                                                "region": region}}],
            "partialFingerprints": {FINGERPRINT: fingerprint}, "properties": {"server": server}}


def _page(page: str) -> str:
    return page if page.startswith("https://") else SPEC + page


def _is_interpreter(word: str) -> bool:
    """A word of a stdio command that runs the script rather than being it (python, node, uv)."""
    return Path(word).name.split(".")[0].rstrip("0123456789") in ("python", "node", "uv", "npx", "deno", "bun")
