"""docs/check-rules.md's "Probes with no suite check" stays true: every probe of `mrtr check` that
judges no conformance check id (check/rules.py CONFORMANCE) has a row there with its level, the
spec's sentence and its page; no row names a probe mrtr has not. And check/catalog.py, which
`--skip-probe` reads, lists every probe the check/ modules declare."""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import Any

import mrtr_cli.check
from conftest import ROOT
from mrtr_cli.check.catalog import ALL_PROBES, probe_ids
from mrtr_cli.check.rules import CONFORMANCE

HEADING = "## Probes with no suite check"
COLUMNS = "| Probe id | Level | What it checks | Spec sentence | Page |"
ROW = re.compile(r"^\| `([a-z0-9-]+)` \| (MUST|SHOULD) \| ([^|]+) \| ([^|]+) \| `([^`|]+)` \|$")


def probes_in(value: Any) -> list[tuple[str, str, str, str]]:
    """The probes a module-level value is or holds: a probe, a list of them, a NamedTuple or dict of them."""
    if isinstance(value, tuple) and len(value) == 4 and all(isinstance(part, str) for part in value) \
            and value[2] in ("MUST", "SHOULD"):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [probe for item in value for probe in probes_in(item)]
    return []


def declared_probes() -> dict[str, tuple[str, str, str, str]]:
    """Every probe the modules of check/ declare, by id."""
    found: dict[str, tuple[str, str, str, str]] = {}
    for module_info in pkgutil.iter_modules(mrtr_cli.check.__path__):
        module = importlib.import_module(f"mrtr_cli.check.{module_info.name}")
        for name in dir(module):
            if name.isupper():
                found.update({probe[0]: probe for probe in probes_in(getattr(module, name))})
    return found


def table() -> dict[str, tuple[str, str, str, str]]:
    """The section's rows, by probe id: level, what it checks, the sentence, the page."""
    text = (ROOT / "docs" / "check-rules.md").read_text()
    assert HEADING in text, f"docs/check-rules.md has no {HEADING!r}"
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    assert COLUMNS in section
    lines = [line for line in section.splitlines() if line.startswith("| `")]
    rows = {m.group(1): m.groups()[1:] for m in map(ROW.match, lines) if m}
    assert len(rows) == len(lines), [line for line in lines if not ROW.match(line)]
    return rows


def test_the_catalog_lists_every_probe_check_declares_and_nothing_else():
    assert set(probe_ids()) == set(declared_probes())
    assert len(probe_ids()) == len({probe for probe in ALL_PROBES})  # an id is never two probes


def test_every_probe_without_a_suite_check_has_a_row_and_every_row_a_probe_of_that_level_and_page():
    probes, rows = declared_probes(), table()
    missing = sorted(id for id in probes if not CONFORMANCE.get(id) and id not in rows)
    assert missing == [], f"add rows to docs/check-rules.md {HEADING!r} for: {missing}"
    unknown = sorted(set(rows) - set(probes))
    assert unknown == [], f"rows of {HEADING!r} name no probe of mrtr: {unknown}"
    for id, (level, what, sentence, page) in rows.items():
        assert level == probes[id][2], f"{id}: the row says {level}, the probe {probes[id][2]}"
        assert page == probes[id][3], f"{id}: the row's page {page}, the probe's {probes[id][3]}"
        quoted = '"' in sentence or sentence.startswith("the same sentence as `")  # the spec's words, or a row's
        assert len(what.strip()) > 10 and quoted, f"{id}: quote the spec's sentence"
