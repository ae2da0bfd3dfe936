"""The `_meta` of every request, the reserved keys, and the capabilities mrtr declares.

Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mrtr_cli.protocol.choices import LIST_METHODS as LIST_METHODS  # what `mrtr list` lists
from mrtr_cli.protocol.choices import LOG_LEVELS as LOG_LEVELS  # the levels of notifications/message
from mrtr_cli.protocol import tasks

PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
"""Reserved `_meta` key: the protocol version of this request (required)."""
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
"""Reserved `_meta` key: the client's capabilities for this request (required)."""
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
"""Reserved `_meta` key: the client's name and version."""
LOG_LEVEL = "io.modelcontextprotocol/logLevel"
"""Reserved `_meta` key: the lowest log level the server may send for this request."""
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
"""Reserved result `_meta` key: the server's name and version."""
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
"""The `_meta` key a listen stream's notifications carry its subscription id under (the listen request's id)."""
SUBSCRIPTION_ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
"""The first message of a subscriptions/listen stream: the notification types the server agreed to."""
PROGRESS_TOKEN = "progressToken"
"""Reserved `_meta` key: opts a request into progress notifications."""

LATEST_VERSION = "2026-07-28"
"""The version mrtr sends unless told otherwise."""
SPOKEN_VERSIONS = ("2026-07-28",)
"""Every protocol version mrtr can speak, oldest first."""


@dataclass(frozen=True)
class Capabilities:
    """Which client capabilities mrtr declares (all of them unless a `--no-*` flag withholds one)."""

    elicitation: bool = True
    sampling: bool = True
    roots: bool = True
    roots_answerable: bool = True
    """Whether something can answer roots/list (`--root`, an answers file, recorded answers, a
    person). The older era declares roots only then: server-filesystem and server-everything ask
    for roots right after the handshake, unprompted, and must not ask into nothing."""
    tasks: bool = True
    """Whether the tasks extension (`io.modelcontextprotocol/tasks`) is declared (`--no-tasks`: not)."""
    elicitation_modes: tuple[str, ...] = ("form", "url")
    """The elicitation modes declared with `elicitation` (`mrtr check` withholds one at a time)."""

    def declared(self) -> dict[str, Any]:
        """The `clientCapabilities` object: never `sampling.tools` or `sampling.context`."""
        declared: dict[str, Any] = {}
        if self.elicitation:
            declared["elicitation"] = {mode: {} for mode in self.elicitation_modes}
        if self.sampling:
            declared["sampling"] = {}
        if self.roots:
            declared["roots"] = {}
        if self.tasks:
            declared["extensions"] = tasks.declaration()
        return declared

    def allows(self, capability: str) -> bool:
        """Whether a dotted capability (`elicitation.url`, `sampling.tools`, `roots`) is declared."""
        top, _, sub = capability.partition(".")
        if top == "elicitation":
            return self.elicitation and (sub or "form") in self.elicitation_modes
        if top == "sampling":
            return self.sampling and sub == ""
        return top == "roots" and self.roots


WITHHOLDING_FLAGS = {"elicitation": "--no-elicitation", "sampling": "--no-sampling", "roots": "--no-roots"}
"""The flag that withholds each top-level capability, for error messages."""


@dataclass(frozen=True)
class ClientIdentity:
    """What goes in `clientInfo`."""

    name: str
    version: str

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version}


def request_meta(
    version: str,
    capabilities: Capabilities,
    client: ClientIdentity,
    progress_token: str,
    log_level: str | None = None,
) -> dict[str, Any]:
    """The `_meta` object of one request; `logLevel` only when the user asked for logs."""
    meta: dict[str, Any] = {
        PROTOCOL_VERSION: version,
        CLIENT_CAPABILITIES: capabilities.declared(),
        CLIENT_INFO: client.as_dict(),
        PROGRESS_TOKEN: progress_token,
    }
    if log_level is not None:
        meta[LOG_LEVEL] = log_level
    return meta


def server_info(result: Any) -> dict[str, Any] | None:
    """The `serverInfo` a result carries in its `_meta`, if it is an object."""
    if not isinstance(result, dict) or not isinstance(result.get("_meta"), dict):
        return None
    info = result["_meta"].get(SERVER_INFO)
    return info if isinstance(info, dict) else None


def choose_version(supported: Any) -> str | None:
    """The newest version mrtr speaks that the server lists (the caller retries it once)."""
    if not isinstance(supported, list):
        return None
    return next((version for version in reversed(SPOKEN_VERSIONS) if version in supported), None)
