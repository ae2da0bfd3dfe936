"""A host nobody here wrote: the MCP Inspector's CLI launches `mrtr proxy` as its stdio server, in
front of an npm reference server (server-everything), for a call without questions."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import PYTHON, ROOT, mrtr_here
from conformance import inspector_cli, reference_server


def test_the_inspector_cli_calls_a_tool_through_the_shim(tmp_path: Path):
    timeline, kept = tmp_path / "timeline.log", tmp_path / "kept"
    shim = [PYTHON, "-m", "mrtr_cli", "proxy", "--timeline", str(timeline), "--record-dir", str(kept), "--",
            *reference_server("everything", "stdio")]
    done = subprocess.run([*inspector_cli(), "--method", "tools/call", "--tool-name", "echo", "--tool-arg",
                           "message=through the shim", "--", *shim], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout[done.stdout.index("{"):])
    assert result["content"] == [{"type": "text", "text": "Echo: through the shim"}]
    shown = timeline.read_text()
    assert "era: older (the initialize handshake" in shown and '→ tools/call echo {"message":"through the shim"}' \
        in shown and "← complete · round 1" in shown, shown
    [transcript] = kept.iterdir()
    shown_again = mrtr_here("show", str(transcript))
    assert shown_again.code == 0 and "Echo: through the shim" in shown_again.stdout, shown_again.stderr
