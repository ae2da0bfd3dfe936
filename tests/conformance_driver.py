"""The conformance suite's client under test: maps each scenario to mrtr invocations.

The suite runs `exec python tests/conformance_driver.py URL` with MCP_CONFORMANCE_SCENARIO
(and, for some scenarios, MCP_CONFORMANCE_CONTEXT) in the environment. Everything the
scenario checks is done by mrtr itself, run as a user would: `python -m mrtr_cli ...`.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

SAMPLE = {"string": "us-west1", "integer": 1, "number": 1, "boolean": True}


def mrtr(*args: str) -> subprocess.CompletedProcess[str]:
    """mrtr with no era flag, in both eras' scenarios: its own probe tells them apart (the older
    era's `initialize` scenario server answers any request)."""
    done = subprocess.run([sys.executable, "-m", "mrtr_cli", *args], capture_output=True, text=True,
                          timeout=60)
    sys.stderr.write(done.stderr)
    return done


def listed(url: str, kind: str, key: str) -> list[dict[str, Any]]:
    done = mrtr("list", kind, "--url", url, "--json")
    return json.loads(done.stdout)[key] if done.returncode == 0 else []


def required_arguments(tool: dict[str, Any]) -> str:
    schema = tool.get("inputSchema") or {}
    properties = schema.get("properties") or {}
    return json.dumps({name: SAMPLE.get(properties.get(name, {}).get("type"), "x")
                       for name in schema.get("required", [])})


def call_every_tool(url: str) -> list[int]:
    return [mrtr("call", tool["name"], "--args", required_arguments(tool), "--url", url,
                 "--answer", "confirm.confirmed=true", "--no-input").returncode
            for tool in listed(url, "tools", "tools")]


def standard_headers(url: str) -> list[int]:
    codes = call_every_tool(url)
    codes += [mrtr("read", r["uri"], "--url", url, "--no-input").returncode
              for r in listed(url, "resources", "resources")]
    codes += [mrtr("prompt", p["name"], "--url", url, "--no-input").returncode
              for p in listed(url, "prompts", "prompts")]
    return codes


def custom_headers(url: str) -> list[int]:
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT", "{}"))
    listed(url, "tools", "tools")
    return [mrtr("call", call["name"], "--args", json.dumps(call["arguments"]), "--url", url).returncode
            for call in context.get("toolCalls", [])]


def request_metadata(url: str) -> list[int]:
    return [mrtr("discover", "--url", url).returncode, mrtr("list", "tools", "--url", url).returncode]


def echo_schema(url: str) -> list[int]:
    """Send the focal tool's inputSchema back, as listed, to the echo tool."""
    tools = {tool["name"]: tool for tool in listed(url, "tools", "tools")}
    focal = tools.get("json_schema_2020_12_tool", {}).get("inputSchema")
    return [mrtr("call", "json_schema_echo", "--args", json.dumps({"schema": focal}), "--url", url).returncode]


BROWSER = shlex.join([sys.executable, str(Path(__file__).with_name("headless_browser.py"))])
"""--auth-open for the auth/* scenarios: the tests' headless browser approves at once."""
REFUSED = {"auth/resource-mismatch", "auth/iss-supported-missing", "auth/iss-wrong-issuer", "auth/iss-unexpected",
           "auth/iss-normalized", "auth/metadata-issuer-mismatch"}
"""The auth/* scenarios where mrtr must refuse to log in (exit 3)."""


def auth_flags(scenario: str) -> list[str]:
    """How a person would log in for the scenario: the headless browser, and the client the
    suite pre-registered (MCP_CONFORMANCE_CONTEXT) or the metadata document it expects."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT", "{}"))
    flags = ["--auth-open", BROWSER, "--auth-timeout", "20"]
    if context.get("client_id"):
        flags += ["--client-id", context["client_id"]]
    if context.get("client_secret"):
        flags += ["--client-secret", context["client_secret"]]
    if scenario == "auth/basic-cimd":
        flags += ["--client-metadata-url", "https://conformance-test.local/client-metadata.json"]
    return flags


def machine_login(url: str, key_folder: str) -> int:
    """A client credentials scenario, as a CI job would run it: the secret in MRTR_CLIENT_SECRET, or
    the suite's private key (a PEM string in its context) in a 0600 file; no browser."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT", "{}"))
    flags = ["--client-credentials", "--client-id", context["client_id"], "--no-auth-store"]
    env = {**os.environ, "MRTR_CLIENT_SECRET": context.get("client_secret", "")}
    if context.get("private_key_pem"):
        key = Path(key_folder, "client.pem")
        key.touch(mode=0o600)
        key.write_text(context["private_key_pem"])
        flags += ["--client-assertion-key", str(key)]
        env.pop("MRTR_CLIENT_SECRET")
    done = subprocess.run([sys.executable, "-m", "mrtr_cli", "call", "test-tool", "--url", url, "--no-input",
                           *flags], capture_output=True, text=True, timeout=60, env=env)
    sys.stderr.write(done.stderr)
    return done.returncode


def authorized(url: str) -> list[int]:
    """Call the scenario server's tool, logging in on the way (exit 3 expected where mrtr must refuse)."""
    scenario = os.environ["MCP_CONFORMANCE_SCENARIO"]
    if scenario.startswith("auth/client-credentials"):
        with tempfile.TemporaryDirectory() as folder:
            return [machine_login(url, folder)]
    code = mrtr("call", "test-tool", "--url", url, "--no-input", *auth_flags(scenario)).returncode
    if scenario in REFUSED:
        return [0 if code == 3 else 1]
    return [code]


SCENARIOS = {
    "initialize": lambda url: [mrtr("list", "tools", "--url", url).returncode],
    "elicitation-sep1034-client-defaults": lambda url: [
        mrtr("call", "test_client_elicitation_defaults", "--url", url, "--answer", "elicitation#1=accept",
             "--no-input").returncode],
    "sse-retry": lambda url: [mrtr("call", "test_reconnection", "--url", url, "--no-input").returncode],
    "json-schema-2020-12-preservation": echo_schema,
    "sep-2322-client-request-state": call_every_tool,
    "request-metadata": request_metadata,
    "tools_call": lambda url: [mrtr("call", "add_numbers", "-a", "a=2", "-a", "b=3", "--url", url).returncode],
    "http-standard-headers": standard_headers,
    "http-custom-headers": custom_headers,
    "http-invalid-tool-headers": call_every_tool,
    "json-schema-ref-no-deref": lambda url: [mrtr("list", "tools", "--url", url).returncode],
}


def main(url: str) -> int:
    scenario = os.environ["MCP_CONFORMANCE_SCENARIO"]
    codes = authorized(url) if scenario.startswith("auth/") else SCENARIOS[scenario](url)
    return 0 if codes and all(code in (0, 5) for code in codes) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1]))
