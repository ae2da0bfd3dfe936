"""The era as one strategy (conversation/eras.py): what each era computes, in process; and the HTTP
session that sends the headers it is given (transport/http/http_session.py)."""

from __future__ import annotations

from typing import Any

import pytest

from mrtr_cli.conversation.eras import ModernEra, OlderEra, era_named
from mrtr_cli.protocol import jsonrpc, meta
from mrtr_cli.transport.base import Headers
from mrtr_cli.transport.http.http_session import HttpSession

IDENTITY = meta.ClientIdentity("mrtr", "1.0")
CALL = jsonrpc.request(3, "tools/call", {"name": "book", "arguments": {"region": "eu", "n": 2},
                                         "_meta": {meta.PROTOCOL_VERSION: "2026-07-28"}})


def test_a_modern_request_mirrors_its_body_in_its_headers():
    headers = ModernEra("2026-07-28").headers(CALL, {"Region": ("region",), "Missing": ("absent",)})
    assert headers == Headers({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "book",
                               "Mcp-Param-Region": "eu"})


def test_only_a_tools_call_sends_its_mirrored_arguments():
    read = jsonrpc.request(4, "resources/read", {"uri": "demo://x", "region": "eu"})
    assert ModernEra("2026-07-28").headers(read, {"Region": ("region",)}).own == {
        "MCP-Protocol-Version": meta.LATEST_VERSION, "Mcp-Method": "resources/read", "Mcp-Name": "demo://x"}


def test_the_handshake_belongs_to_the_session_it_opens():
    initialize = jsonrpc.request(1, "initialize", {"protocolVersion": "2025-11-25"})
    assert ModernEra("2026-07-28").headers(initialize) == Headers({}, {})


def test_an_older_era_message_names_the_version_and_the_session():
    older = OlderEra("2025-06-18")
    assert older.headers(CALL, {"Region": ("region",)}) == Headers({}, {"MCP-Protocol-Version": "2025-06-18"})
    assert older.notice_headers() == older.headers(CALL)


def test_a_modern_notice_names_no_version():
    assert ModernEra("2026-07-28").notice_headers() == Headers({}, {})


def test_each_era_fills_meta_its_way():
    params = {"name": "book"}
    capabilities = meta.Capabilities()
    modern = ModernEra("2026-07-28").request_params(params, "p1", capabilities, IDENTITY, None)
    older = OlderEra("2025-11-25").request_params(params, "p1", capabilities, IDENTITY, None)
    assert modern["_meta"][meta.PROTOCOL_VERSION] == "2026-07-28" and modern["_meta"][meta.PROGRESS_TOKEN] == "p1"
    assert older == {"name": "book", "_meta": {meta.PROGRESS_TOKEN: "p1"}}


TASKS = {"capabilities": {"tasks": {"requests": {"tools": {"call": {}}}}}, "serverInfo": {"name": "s", "version": "2"}}


def test_only_the_older_era_asks_for_tasks_and_knows_the_server_from_the_handshake():
    assert OlderEra("2025-11-25", TASKS).takes_tool_tasks() and OlderEra.asks_for_tasks
    assert not OlderEra("2025-11-25", {}).takes_tool_tasks()
    assert not ModernEra("2026-07-28", TASKS).takes_tool_tasks() and not ModernEra.asks_for_tasks
    assert OlderEra("2025-11-25", TASKS).server_identity() == {"name": "s", "version": "2"}
    assert ModernEra("2026-07-28", TASKS).server_identity() is None


@pytest.mark.parametrize("answerable, modern, older", [(True, True, True), (False, True, False)])
def test_the_older_era_declares_roots_only_when_they_can_be_answered(answerable: bool, modern: bool, older: bool):
    capabilities = meta.Capabilities(roots=True, roots_answerable=answerable)
    assert ModernEra("2026-07-28").declares_roots(capabilities) is modern
    assert OlderEra("2025-11-25").declares_roots(capabilities) is older


def test_what_names_an_era_is_asked_through_the_strategy():
    assert era_named("older") is OlderEra and era_named("modern") is ModernEra
    assert era_named(None) is ModernEra  # a format 1 transcript knew only 2026-07-28
    assert OlderEra.describe("2025-06-18") == "the initialize handshake, 2025-06-18"
    assert ModernEra.describe("2026-07-28") == "2026-07-28"


class Unused:
    """A connection the session must not touch: no message here opens its GET stream."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the connection was used ({name})")


def test_the_http_session_adds_its_id_only_to_messages_of_the_session():
    session = HttpSession(Unused())  # type: ignore[arg-type]
    session.session_id = "abc"
    assert session.join(Headers({"Mcp-Method": "tools/list"})) == {"Mcp-Method": "tools/list"}
    assert session.join(Headers({}, {})) == {"Mcp-Session-Id": "abc"}
    assert not session.opened and session.listening is None
