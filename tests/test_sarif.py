"""`--sarif FILE` on check, replay and proxy: valid against the OASIS SARIF 2.1.0 JSON schema (kept
here as tests/sarif-schema-2.1.0.json, unchanged from github.com/oasis-tcs/sarif-spec at commit e0583813,
sarif-2.1/schema, under the OASIS IPR policy that repository's LICENSE.md names), one result a
failure or warning at a repository path, the rule's spec page as its help, stable fingerprints,
and exit 1 when no repository path can be named."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from conftest import PYTHON, ROOT, mrtr_here
from test_proxy_judge import DEMO, Proxied, wrong_modern_client
from mrtr_cli.protocol.lint_rules import CLIENT_RULES, SPEC

SCHEMA = json.loads((ROOT / "tests" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
BOOK_TABLE = ROOT / "recordings" / "book_table.yaml"
BOOK = ("--tool", "book_table", "--answers", "examples/book_table.yaml")
BROKEN = "tests/servers/broken_server.py"


def run_of(path: Path) -> dict[str, Any]:
    """The log's one run, after validating the whole file against the schema."""
    log = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    (run,) = log["runs"]
    return dict(run)


def located(result: dict[str, Any]) -> tuple[str, int]:
    (where,) = result["locations"]
    physical = where["physicalLocation"]
    assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    return physical["artifactLocation"]["uri"], physical["region"]["startLine"]


def test_check_gives_one_result_a_failure_at_the_servers_script_with_its_rules_page(tmp_path: Path):
    report = tmp_path / "check.sarif"
    done = mrtr_here("check", "--sarif", str(report), "--", PYTHON, BROKEN, "meta-not-required")
    assert done.code == 2, done.stderr
    run = run_of(report)
    (result,) = run["results"]
    assert result["ruleId"] == "meta-required" and result["level"] == "error"
    assert located(result) == (BROKEN, 1)
    rule = run["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert rule["id"] == "meta-required" and rule["helpUri"] == SPEC + "basic/index#meta"
    assert rule["helpUri"] in rule["help"]["text"]
    assert run["properties"]["server"].endswith(f"{BROKEN} meta-not-required")
    assert run["invocations"] == [{"executionSuccessful": True}]
    again = tmp_path / "again.sarif"
    assert mrtr_here("check", "--sarif", str(again), "--", PYTHON, BROKEN, "meta-not-required").code == 2
    assert run_of(again)["results"][0]["partialFingerprints"] == result["partialFingerprints"]


def test_a_shoulds_warning_is_a_warning_and_skipped_probes_are_no_results(tmp_path: Path):
    report = tmp_path / "check.sarif"
    done = mrtr_here("check", "--sarif", str(report), "--", PYTHON, BROKEN, "no-server-info")
    assert done.code == 0, done.stderr
    results = run_of(report)["results"]
    assert {(r["ruleId"], r["level"]) for r in results} == {("server-info", "warning")}
    assert "header-mismatch" not in {r["ruleId"] for r in results}  # skipped over stdio: no result


def test_a_config_file_is_the_location_and_an_unreachable_server_is_a_failed_execution(tmp_path: Path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"gone": {"url": "http://127.0.0.1:9/mcp"}}}))
    report = tmp_path / "check.sarif"
    done = mrtr_here("check", "--config", "mcp.json", "--server", "gone", "--timeout", "5", "--sarif", str(report),
                     cwd=tmp_path)
    assert done.code == 4, done.stderr
    run = run_of(report)
    assert run["results"] == [] and run["invocations"][0]["executionSuccessful"] is False
    assert run["invocations"][0]["toolExecutionNotifications"][0]["level"] == "error"


def test_no_repository_path_is_exit_1_in_one_line_before_anything_runs(tmp_path: Path):
    report = tmp_path / "r.sarif"
    for command in (["check", "--demo"], ["check", "--url", "http://127.0.0.1:9/mcp"],
                    ["proxy", "--http", "0", "--to", "http://127.0.0.1:9/mcp"]):
        done = mrtr_here(*command, "--sarif", str(report))
        assert done.code == 1 and done.stderr == (
            "✗ --sarif needs a file in the repository to point its results at, and this server has none (no "
            "--config, no stdio server script); give --sarif-location PATH (e.g. mcp.json)\n"), done.stderr
        assert not report.exists()
    done = mrtr_here("check", "--demo", "--sarif", str(report), "--sarif-location", str(tmp_path / "x.json"))
    assert done.code == 1 and "is outside the current folder" in done.stderr and done.stderr.count("\n") == 1


def test_replay_points_each_difference_at_its_round_in_the_transcript(tmp_path: Path):
    shutil.copy(BOOK_TABLE, tmp_path / "same.yaml")
    document = yaml.safe_load(BOOK_TABLE.read_text())
    document["rounds"][1]["received"]["result"]["inputRequests"]["party"]["params"]["message"] = "<b>edited</b>"
    (tmp_path / "edited.yaml").write_text(yaml.safe_dump(document, sort_keys=False))
    (tmp_path / "broken.yaml").write_text("rounds: [")
    report = tmp_path / "replay.sarif"
    done = mrtr_here("replay", "same.yaml", "edited.yaml", "broken.yaml", "--demo", "--sarif", "replay.sarif",
                     cwd=tmp_path)
    assert done.code == 1, done.stderr
    results = run_of(report)["results"]
    assert [(r["ruleId"], located(r)[0]) for r in results] == [("replay-diverged", "edited.yaml"),
                                                               ("replay-failed", "broken.yaml")]
    round_two = next(number for number, text in enumerate((tmp_path / "edited.yaml").read_text().splitlines(), 1)
                     if text.startswith("- round: 2"))
    assert located(results[0])[1] == round_two
    assert "round 2, question 'party': message" in results[0]["message"]["text"]
    assert "<b>edited</b>" in results[0]["message"]["text"]  # text in JSON: a viewer escapes it


def test_replay_refuses_a_transcript_outside_the_repository(tmp_path: Path):
    done = mrtr_here("replay", str(BOOK_TABLE), "--demo", "--sarif", "r.sarif", cwd=tmp_path)
    assert done.code == 1 and "is outside the current folder" in done.stderr
    assert not (tmp_path / "r.sarif").exists()


def test_proxy_gives_one_result_a_finding_of_the_client(tmp_path: Path):
    report = tmp_path / "client.sarif"
    peer = Proxied([PYTHON, "-m", "mrtr_cli", "proxy", "--sarif", str(report), "--sarif-location",
                    "examples/book_table.yaml", "--timeline", str(tmp_path / "timeline.txt"), "--", *DEMO])
    try:
        wrong_modern_client(peer)
    finally:
        peer.close()
    run = run_of(report)
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} == set(CLIENT_RULES)
    levels = sorted(result["level"] for result in run["results"])
    assert levels == ["error"] * 8 + ["warning"] * 2
    assert {located(result) for result in run["results"]} == {("examples/book_table.yaml", 1)}
    fingerprints = [result["partialFingerprints"]["mrtrResult/v1"] for result in run["results"]]
    assert len(set(fingerprints)) == len(fingerprints)  # the same rule twice: two alerts, not one


def test_a_plain_call_does_not_load_the_sarif_writer():
    code = ("import sys\nfrom mrtr_cli.entry import main\n"
            "try:\n    main(['call', 'book_table', '--demo', '--answers', 'examples/book_table.yaml'])\n"
            "except SystemExit:\n    pass\n"
            "print('mrtr_cli.render.sarif' in sys.modules)")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert loaded.stdout.strip().splitlines()[-1] == "False", loaded.stderr

