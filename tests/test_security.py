"""The security audit: what earlier parts built, proven against hostile input, and the bounds."""

from __future__ import annotations

from pathlib import Path

import yaml

from conftest import ROOT, elicit, input_required, mrtr_here, text_result
from servers.http_faults import FaultServer
from test_hostile_text import HOSTILE, SEQUENCES


def test_show_renders_a_hostile_transcript_harmlessly(tmp_path: Path):
    document = yaml.safe_load((ROOT / "recordings" / "two_questions.yaml").read_text())
    asked = document["rounds"][0]["received"]["result"]["inputRequests"]
    asked["name"]["params"]["message"] = HOSTILE
    document["rounds"][-1]["received"]["result"]["content"][0]["text"] = HOSTILE
    document["server"] = {"name": HOSTILE, "version": "1"}
    path = tmp_path / "hostile.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    run = mrtr_here("show", str(path), "--color", "always")
    assert run.code == 0
    for sequence in SEQUENCES:
        assert sequence not in run.stdout + run.stderr
    assert "\\x1b[2J wipe\\rover [bold]markup[/bold]" in run.stdout and run.stdout.count("[bold]markup[/bold]") >= 2


def test_a_network_ref_is_never_fetched(scripted):
    faults = FaultServer().start()
    try:
        form = elicit("x", {"x": {"$ref": f"{faults.url}/schema.json"}})
        server = scripted(steps=[{"result": input_required({"k": form})}, {"result": text_result("ok")}])
        run = mrtr_here(*server.args("call", "t", "--answer", "k.x=1"))
        assert run.code == 1 and "network $refs are never fetched" in run.stderr
        assert faults.received == []
    finally:
        faults.stop()


def test_bounds_on_schemas_enums_and_messages(scripted):
    deep: dict = {"type": "string"}
    for _ in range(50):
        deep = {"type": "object", "properties": {"a": deep}}
    form = {"method": "elicitation/create", "params": {"message": "m", "requestedSchema": deep}}
    server = scripted(steps=[{"result": input_required({"k": form})}])
    run = mrtr_here(*server.args("call", "t", "--answer", "k.a={}"))
    assert run.code == 1 and "beyond what mrtr validates" in run.stderr and "[schema-too-deep]" in run.stderr

    many = elicit("pick", {"c": {"type": "string", "enum": [f"o{i}" for i in range(5000)]}})
    long_message = elicit("y" * 1_000_000, {"n": {"type": "string"}})
    server = scripted(steps=[{"result": input_required({"many": many, "long": long_message})},
                             {"result": text_result("ok")}])
    run = mrtr_here(*server.args("call", "t", "--answer", "many.c=o7", "--answer", "long.n=x"))
    assert run.code == 0, run.stderr
    assert "[enum-too-long]" in run.stderr and "[message-too-long]" in run.stderr
    assert len(run.stderr) < 200_000  # the million-character message is folded, not printed
