"""docs/check-rules.md stays true: every check id of the suite's 2026-07-28 MRTR, caching,
header and stateless server scenarios has a row, each row's probes exist in mrtr, and each probe's
`conformance` ids name rows that say that probe covers them."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from conformance import SPEC_VERSION, cache_dir, run_server_scenario, suite_command
from conftest import ROOT, SPEC
from mrtr_cli.check import (authorization, exact_headers, generic, named, older, probes, stream,
                             subscriptions, tool_probes, tool_rounds)
from mrtr_cli.check.rules import CONFORMANCE
from peers import demo_http

ROW = re.compile(r"^\| `([a-z0-9-]+)` \|[^|]*\|[^|]*\| (probe|none): (.*) \|$")
CLASS_NAME = re.compile(r"this\.name=`([a-z0-9-]+)`")
LITERAL_ID = re.compile(r"[`'\"](sep-\d+-[a-z0-9-]+|wire-schema-valid)[`'\"]")
EMITTED_ONLY = ["server-stateless", "http-header-validation"]
"""Scenarios whose ids are partly built at run time: run against the demo to see them."""


def wanted(name: str) -> bool:
    return name.startswith("input-required-result-") or name in ("caching", "http-header-validation",
                                                                  "server-stateless")


def scenarios() -> list[str]:
    listed = subprocess.run([*suite_command(), "list", "--server", "--spec-version", SPEC_VERSION],
                            capture_output=True, text=True, timeout=60).stdout
    names = [line.strip()[2:].split(" [")[0] for line in listed.splitlines() if line.strip().startswith("- ")]
    return [name for name in names if wanted(name)]


def source_ids(names: list[str]) -> set[str]:
    """The literal check ids in each scenario's class in the installed suite."""
    suite_command()
    bundle = (cache_dir() / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js").read_text()
    found: set[str] = set()
    for match in CLASS_NAME.finditer(bundle):
        if match.group(1) in names:
            start, end = bundle.rfind("=class", 0, match.start()), bundle.find("=class", match.end())
            found |= set(LITERAL_ID.findall(bundle[start:end if end > 0 else None]))
    return found


@pytest.fixture(scope="module")
def suite_ids() -> set[str]:
    names = scenarios()
    assert len(names) >= 17, names
    ids = source_ids(names)
    with demo_http() as url:
        for name in EMITTED_ONLY:
            ids |= {check["id"] for check in run_server_scenario(url, name)[1]}
    return ids


def rows() -> dict[str, tuple[str, str]]:
    text = (ROOT / "docs" / "check-rules.md").read_text()
    return {m.group(1): (m.group(2), m.group(3)) for m in map(ROW.match, text.splitlines()) if m}


def mrtr_probe_ids() -> set[str]:
    modules = (probes, generic, older, authorization, exact_headers, named, tool_rounds, stream, subscriptions,
               tool_probes)
    tables = [getattr(module, name) for module in modules for name in dir(module)
              if name.endswith(("_PROBE", "_PROBES"))]
    probes_in = [probe for table in tables for probe in (table if isinstance(table, list) else [table])]
    return {probe[0] for probe in probes_in if isinstance(probe, tuple) and len(probe) == 4}


def test_every_suite_check_id_is_covered_or_explained(suite_ids: set[str]):
    assert len(suite_ids) >= 62
    missing = sorted(suite_ids - set(rows()))
    assert missing == [], f"add these to docs/check-rules.md: {missing}"
    for id, (kind, text) in rows().items():
        assert kind == "probe" and re.findall(r"`([a-z0-9-]+)`", text) or kind == "none" and len(text) > 20, id


def test_every_probe_the_doc_names_exists_and_agrees_with_its_conformance_field():
    known = mrtr_probe_ids()
    for id, (kind, text) in rows().items():
        named = set(re.findall(r"`([a-z0-9-]+)`", text)) if kind == "probe" else set()
        assert named <= known, f"{id}: no such probe {named - known}"
        assert all(id in CONFORMANCE.get(probe, []) for probe in named), f"{id}: {named} vs check/rules.py"
    for probe, ids in CONFORMANCE.items():
        assert probe in known, probe
        for id in ids:
            kind, text = rows()[id]
            assert kind == "probe" and f"`{probe}`" in text, f"{probe} claims {id}; the doc disagrees"


COUNTING = re.compile(r"^Counting: (\d+) distinct ids; (\d+) covered by a probe, (\d+) not \((\d+) suite-internal, "
                      r"(\d+) fixture-only, (\d+) not probed yet\)\.$", re.M)


def test_the_counting_line_counts_the_rows():
    counted = [int(n) for n in COUNTING.search((ROOT / "docs" / "check-rules.md").read_text()).groups()]
    kinds = [text for kind, text in rows().values() if kind == "none"]
    assert counted == [len(rows()), len(rows()) - len(kinds), len(kinds),
                       sum(text.startswith("suite-internal") for text in kinds),
                       sum(text.startswith("fixture-only") for text in kinds),
                       sum(text.startswith("not probed yet") for text in kinds)]


def test_every_probe_id_is_in_the_json_schema_of_check():
    schema = json.loads((ROOT / "docs" / "json" / "check.schema.json").read_text())
    assert mrtr_probe_ids() <= set(schema["properties"]["checks"]["items"]["properties"]["id"]["enum"])


def test_the_shipped_spec_schema_is_the_spec_s():
    assert (ROOT / "mrtr_cli" / "check" / "schema-2026-07-28.json").read_bytes() == (SPEC / "schema.json").read_bytes()
