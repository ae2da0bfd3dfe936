"""Unit tests of the standard-library core: safe text, JSON-RPC frames, MRTR results, _meta."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtr_cli.errors import ProtocolError
from mrtr_cli.exit_codes import ExitCode, decide
from mrtr_cli.protocol import jsonrpc, meta, mrtr
from mrtr_cli.text import json_escaped, safe, safe_line


@pytest.mark.parametrize("raw,shown", [
    ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
    ("\x1b[2J", "\\x1b[2J"),
    ("a\rb", "a\\rb"),
    ("\x9b31m", "\\x9b31m"),
    ("\u202eabc", "\\u202eabc"),
    ("line\nnext\ttab", "line\nnext\ttab"),
    ("[bold]x[/bold] é 😀", "[bold]x[/bold] é 😀"),
])
def test_safe_shows_control_characters_as_escapes(raw: str, shown: str):
    assert safe(raw) == shown


def test_safe_line_escapes_newlines_and_folds():
    assert safe_line("a\nb\tc") == "a\\nb\\tc"
    assert safe("ab\x1bcdef", 3) == "ab\\x1bcdef"  # a rest shorter than the note is shown whole
    assert safe("ab\x1b" + "c" * 40, 3) == "ab\\x1b… [40 more characters]"
    assert safe_line("x" * 41, 10) == "x" * 10 + "… [31 more characters]"
    assert safe_line("x" * 32, 10) == "x" * 32
    assert safe_line("x" * 300, 10).startswith("xxxxxxxxxx… [290 more")


def test_every_unsafe_character_is_unprintable():
    """The fast paths of text.py skip the pattern for printable text: every character the pattern
    escapes must be one str.isprintable refuses (all of Unicode checked)."""
    from mrtr_cli import text

    for code in range(0x110000):
        char = chr(code)
        if char.isprintable():
            assert not text._UNSAFE_IN_LINE.match(char), hex(code)
    assert safe_line("a\u202eb\tc") == "a\\u202eb\\tc"
    assert json_escaped('{"a":"\u2028"}') == '{"a":"\\u2028"}'


def test_json_escaped_keeps_the_value():
    value = {"s": "\ud800 \u202e \x9b é \n"}
    text = json_escaped(json.dumps(value, ensure_ascii=False))
    assert json.loads(text) == value
    text.encode("utf-8")  # lone surrogates escaped, so this does not raise
    assert "\u202e" not in text and "é" in text


@pytest.mark.parametrize("frame,kind,reason", [
    ("not json", jsonrpc.Malformed, "not JSON"),
    (b"\xff\xfe", jsonrpc.Malformed, "not UTF-8"),
    ("[1]", jsonrpc.Malformed, "batches"),
    ('{"id":1,"result":{}}', jsonrpc.Malformed, '"jsonrpc": "2.0"'),
    ('{"jsonrpc":"2.0","result":{}}', jsonrpc.Malformed, "without an id"),
    ('{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}', jsonrpc.Malformed, "integer code"),
    ('{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}', jsonrpc.Malformed, "both"),
    ('{"jsonrpc":"2.0","id":1,"result":{}}', jsonrpc.Response, None),
    ('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}', jsonrpc.Response, None),
    ('{"jsonrpc":"2.0","method":"notifications/progress","params":{}}', jsonrpc.Notification, None),
    ('{"jsonrpc":"2.0","id":5,"method":"roots/list"}', jsonrpc.Request, None),
])
def test_decode_never_raises(frame, kind, reason):
    message = jsonrpc.decode(frame)
    assert isinstance(message, kind)
    if reason:
        assert reason in message.reason
    assert message.raw == (frame.decode("utf-8", "replace") if isinstance(frame, bytes) else frame)


def test_ids_are_unique():
    ids = jsonrpc.IdSequence()
    assert len({ids.next() for _ in range(1000)}) == 1000


def test_request_meta():
    client = meta.ClientIdentity("mrtr", "1.2")
    built = meta.request_meta("2026-07-28", meta.Capabilities(sampling=False), client, "mrtr-7")
    assert built == {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}, "roots": {},
                                                       "extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "mrtr", "version": "1.2"},
        "progressToken": "mrtr-7",
    }
    assert meta.request_meta("v", meta.Capabilities(), client, "t", "debug")[meta.LOG_LEVEL] == "debug"


def test_capabilities_allow():
    caps = meta.Capabilities(roots=False)
    assert caps.allows("elicitation.form") and caps.allows("elicitation.url") and caps.allows("sampling")
    assert not caps.allows("roots") and not caps.allows("sampling.tools") and not caps.allows("sampling.context")


def test_choose_version():
    assert meta.choose_version(["2025-11-25", "2026-07-28"]) == "2026-07-28"
    assert meta.choose_version(["2025-11-25"]) is None
    assert meta.choose_version("nonsense") is None


def test_read_result():
    assert isinstance(mrtr.read_result("tools/call", {"content": []}), mrtr.Complete)  # absent resultType
    reading = mrtr.read_result("tools/call", {"resultType": "input_required", "requestState": "s"})
    assert reading == mrtr.InputRequired({}, "s")


@pytest.mark.parametrize("method,result,problem", [
    ("tools/call", {"resultType": "partial"}, "unknown resultType 'partial'"),
    ("tools/list", {"resultType": "input_required", "requestState": "s"}, "only tools/call"),
    ("tools/call", {"resultType": "input_required"}, "neither inputRequests nor requestState"),
    ("tools/call", {"resultType": "input_required", "requestState": 7}, "not a string"),
    ("tools/call", {"resultType": "input_required", "inputRequests": {"k": {"method": "ping"}}}, "'ping'"),
    ("tools/call", {"resultType": "input_required", "inputRequests": {"k": {
        "method": "elicitation/create", "params": {"message": "m", "mode": "telepathy"}}}}, "unknown mode"),
    ("tools/call", [], "not a JSON object"),
])
def test_read_result_rejects_what_cannot_be_used(method, result, problem):
    with pytest.raises(ProtocolError, match=problem):
        mrtr.read_result(method, result)


def test_retry_params_are_the_original_plus_answers_and_exact_state():
    original = {"name": "t", "arguments": {"a": 1}}
    assert mrtr.retry_params(original, None, None) == original
    retry = mrtr.retry_params(original, {"k": {"action": "cancel"}}, " state\n")
    assert retry == {**original, "inputResponses": {"k": {"action": "cancel"}}, "requestState": " state\n"}
    assert original == {"name": "t", "arguments": {"a": 1}}


def test_required_capability():
    assert mrtr.required_capability({"method": "elicitation/create", "params": {"message": "m"}}) == "elicitation.form"
    assert mrtr.required_capability({"method": "elicitation/create", "params": {"mode": "url"}}) == "elicitation.url"
    assert mrtr.required_capability({"method": "sampling/createMessage", "params": {"tools": []}}) == "sampling.tools"
    assert mrtr.required_capability({"method": "roots/list"}) == "roots"


@pytest.mark.parametrize("codes,expected", [
    ([], ExitCode.OK),
    ([ExitCode.TOOL_ERROR, ExitCode.PROTOCOL], ExitCode.PROTOCOL),
    ([ExitCode.INCOMPLETE, ExitCode.INTERRUPTED], ExitCode.INTERRUPTED),
    ([ExitCode.AUTH, ExitCode.UNREACHABLE, ExitCode.USAGE], ExitCode.USAGE),
    ([ExitCode.DIVERGED, ExitCode.TOOL_ERROR, ExitCode.INCOMPLETE], ExitCode.INCOMPLETE),
])
def test_exit_code_precedence(codes, expected):
    assert decide(codes) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x2100, exclude_categories=()), max_size=200))
def test_the_fast_ascii_path_agrees_with_the_pattern(text: str):
    from mrtr_cli import text as module

    assert safe(text) == module._UNSAFE_IN_TEXT.sub(module._escape, text)
    assert safe_line(text, None) == module._UNSAFE_IN_LINE.sub(module._escape, text)
    assert safe_line(text, 200) == module._UNSAFE_IN_LINE.sub(module._escape, text)  # a short line's fast path


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_the_encoders_made_once_write_what_json_dumps_writes(value):
    """jsonrpc.encoder builds the C encoder once: the text must be json.dumps's, to the byte (NaN and
    infinities, huge integers, any string at all)."""
    assert jsonrpc.compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert jsonrpc.encoder()(value) == json.dumps(value)


def test_the_encoders_made_once_refuse_what_json_dumps_refuses():
    with pytest.raises(TypeError):
        jsonrpc.compact({"a": object()})
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(RecursionError):
        jsonrpc.compact(deep)


def test_without_the_c_encoder_json_encodes_as_before(monkeypatch):
    monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    value = {"é": [1, 2.5, None, "\u2028"]}
    assert jsonrpc.encoder(ensure_ascii=False, separators=(",", ":"))(value) == jsonrpc.compact(value)
