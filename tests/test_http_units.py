"""Unit tests of the HTTP binding: the Value Encoding table, x-mcp-header rules, the SSE parser."""

from __future__ import annotations

import pytest

from mrtr_cli.protocol import headers
from mrtr_cli.errors import ProtocolError
from mrtr_cli.transport import redirects
from mrtr_cli.transport.sse import RETRY_CAP_MS, Event, SseParser


@pytest.mark.parametrize("value,header", [  # the spec's Value Encoding table, row by row
    ("us-west1", "us-west1"),
    ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
    (" padded ", "=?base64?IHBhZGRlZCA=?="),
    ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
    ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
])
def test_value_encoding_table(value, header):
    assert headers.encode_value(value) == header
    assert headers.decode_value(header) == value


@pytest.mark.parametrize("value,header", [
    (42, "42"), (-7, "-7"), (True, "true"), (False, "false"), (3.0, "3"), (None, None), ("", ""),
    ("us west 1", "us west 1"), ("\tindented", "=?base64?CWluZGVudGVk?="), ("a\tb", "=?base64?YQli?="),
    ("line1\r\nline2", "=?base64?bGluZTENCmxpbmUy?="),
])
def test_type_conversion(value, header):
    assert headers.encode_value(value) == header


def test_values_that_cannot_be_headers():
    with pytest.raises(ValueError, match="safe integer range"):
        headers.encode_value(2**53)
    with pytest.raises(ValueError, match="cannot be sent"):
        headers.encode_value([1])
    with pytest.raises(ValueError, match="malformed"):
        headers.decode_value("=?base64?not base64!?=")


def schema(**properties):
    return {"type": "object", "properties": properties}


@pytest.mark.parametrize("input_schema,problem", [
    (schema(a={"type": "string", "x-mcp-header": ""}), "empty"),
    (schema(a={"type": "object", "x-mcp-header": "A"}), "only string, integer and boolean"),
    (schema(a={"type": "array", "x-mcp-header": "A"}), "only string"),
    (schema(a={"type": "null", "x-mcp-header": "A"}), "only string"),
    (schema(a={"type": "number", "x-mcp-header": "A"}), "only string"),
    (schema(a={"x-mcp-header": "A"}), "untyped"),
    (schema(a={"type": "string", "x-mcp-header": "Region"}, b={"type": "string", "x-mcp-header": "Region"}), "twice"),
    (schema(a={"type": "string", "x-mcp-header": "MyField"}, b={"type": "string", "x-mcp-header": "myfield"}), "twice"),
    (schema(a={"type": "string", "x-mcp-header": "My Region"}), "not an HTTP token"),
    (schema(a={"type": "string", "x-mcp-header": "Region:Primary"}), "not an HTTP token"),
    (schema(a={"type": "string", "x-mcp-header": "Région"}), "not an HTTP token"),
    (schema(a={"type": "string", "x-mcp-header": "Region\t1"}), "not an HTTP token"),
    (schema(a={"type": "string", "x-mcp-header": "Region\r\n"}), "not an HTTP token"),
    (schema(a={"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}), "not reachable"),
    (schema(a={"anyOf": [{"type": "string", "x-mcp-header": "A"}]}), "not reachable"),
    ({"type": "object", "$defs": {"d": {"type": "string", "x-mcp-header": "A"}}}, "not reachable"),
    ({"type": "string", "x-mcp-header": "Root"}, "not reachable"),
])
def test_invalid_annotations(input_schema, problem):
    with pytest.raises(ValueError, match=problem):
        headers.header_params(input_schema)


def test_valid_annotations_and_nested_paths():
    input_schema = schema(region={"type": "string", "x-mcp-header": "Region"},
                          opts={"type": "object", "properties": {"n": {"type": ["integer", "null"], "x-mcp-header": "N"}}},
                          query={"type": "string"})
    params = headers.header_params(input_schema)
    assert params == {"Region": ("region",), "N": ("opts", "n")}
    assert headers.param_headers(params, {"region": "eu", "opts": {"n": 5}, "query": "q"}) == {
        "Mcp-Param-Region": "eu", "Mcp-Param-N": "5"}
    assert headers.param_headers(params, {"region": None}) == {}


def test_split_tools_keeps_the_valid_ones():
    tools = [{"name": "good", "inputSchema": schema(r={"type": "string", "x-mcp-header": "R"})},
             {"name": "bad", "inputSchema": schema(r={"type": "number", "x-mcp-header": "R"})}]
    valid, excluded = headers.split_tools(tools)
    assert [t["name"] for t in valid] == ["good"]
    assert excluded[0]["name"] == "bad" and "number" in excluded[0]["reason"]


def test_standard_headers():
    message = {"method": "resources/read", "params": {"uri": "file:///a b/ü.txt"}}
    built = headers.standard_headers(message, "2026-07-28")
    assert built["MCP-Protocol-Version"] == "2026-07-28" and built["Mcp-Method"] == "resources/read"
    assert headers.decode_value(built["Mcp-Name"]) == "file:///a b/ü.txt"
    assert "Mcp-Name" not in headers.standard_headers({"method": "tools/list", "params": {}}, "v")


STREAM = (b"\xef\xbb\xbf: keep-alive comment\r\n\r\n"
          b"event: message\r\nid: 1\r\ndata: {\"a\":\r\ndata:  1}\r\n\r\n"
          b":\n\ndata: second\n\n"
          b"retry: 10\rdata: third\r\r"
          b"event: other\ndata: x\n\n"
          b"data: never finished")
EXPECTED = [Event('{"a":\n 1}', "message", "1"), Event("second", "message", "1"),
            Event("third", "message", "1", 10), Event("x", "other", "1", 10)]


def test_sse_parser_whole_stream():
    parser = SseParser()
    assert parser.feed(STREAM) == EXPECTED
    assert parser.comments == 2


@pytest.mark.parametrize("cut", range(len(STREAM) + 1))
def test_sse_parser_split_at_every_byte(cut: int):
    parser = SseParser()
    assert parser.feed(STREAM[:cut]) + parser.feed(STREAM[cut:]) == EXPECTED


def test_sse_parser_byte_by_byte_and_multibyte_utf8():
    stream = "data: héllo 世界\n\n".encode()
    parser = SseParser()
    events = [e for byte in stream for e in parser.feed(bytes([byte]))]
    assert events == [Event("héllo 世界")]


def test_sse_parser_is_linear_on_a_big_event():
    parser = SseParser()
    payload = b"x" * 5_000_000
    events = []
    for start in range(0, len(payload), 65536):
        events += parser.feed((b"data: " if start == 0 else b"") + payload[start:start + 65536])
    events += parser.feed(b"\n\n")
    assert len(events) == 1 and len(events[0].data) == 5_000_000


def test_sse_parser_splits_lines_at_the_first_colon_even_around_bad_utf8():
    stream = b"data\n\ndata:\xc3: y\n\n\xff: z\ndata:w:v\n\n:\xff comment\nid\xc3\n\n"
    assert SseParser().feed(stream) == [Event(""), Event("\ufffd: y"), Event("w:v")]


@pytest.mark.parametrize("value,retry", [
    ("250", 250), ("0001", 1), ("1000", 1000), ("1001", RETRY_CAP_MS), ("9" * 5000, RETRY_CAP_MS),
    ("²", None), ("٣", None), ("1.5", None), ("-1", None), ("", None),
])
def test_sse_retry_takes_ascii_digits_and_clamps(value: str, retry):
    parser = SseParser()
    assert parser.feed(f"retry: {value}\ndata: x\n\n".encode()) == [Event("x", retry=retry)]


@pytest.mark.parametrize("stream,size", [
    (b"data: abc\n\n", 9),  # one line of 9 bytes
    (b"event: e\r\ndata: a\r\ndata: b\r\n\r\n", 22),  # every line of the event counts, not the line ends
    (b"data: " + b"a" * 10, 16),  # a line not finished yet
])
def test_sse_event_size_limit(stream: bytes, size: int):
    assert SseParser(max_event_size=size).feed(stream) == SseParser().feed(stream)
    for cut in (1, len(stream) // 2, len(stream)):  # however the stream is split
        parser = SseParser(max_event_size=size - 1)
        with pytest.raises(ProtocolError, match=f"an SSE event larger than the limit of {size - 1} bytes"):
            parser.feed(stream[:cut]) + parser.feed(stream[cut:])


def test_sse_event_size_limit_is_per_event():
    parser = SseParser(max_event_size=9)
    events = [e for _ in range(1000) for e in parser.feed(b"data: abc\n\n: hi\n\n")]
    assert len(events) == 1000


@pytest.mark.parametrize("first,second,same", [
    ("http://a.example/mcp", "http://A.example:80/other", True),
    ("https://a.example/mcp", "https://a.example:443/mcp?x", True),
    ("http://127.0.0.1:8080/mcp", "http://127.0.0.1:8081/mcp", False),
    ("http://a.example/mcp", "https://a.example/mcp", False),
    ("http://a.example/mcp", "http://b.a.example/mcp", False),
])
def test_same_origin(first: str, second: str, same: bool):
    assert redirects.same_origin(first, second) is same


@pytest.mark.parametrize("status,location,target", [
    (307, "/v2/mcp", "http://a.example/v2/mcp"),
    (308, "http://b.example:9/mcp", "http://b.example:9/mcp"),
    (307, "", "http://a.example/mcp?q=1"),
])
def test_redirects_followed(status: int, location: str, target: str):
    assert redirects.next_url("http://a.example/mcp?q=1", status, location) == target


@pytest.mark.parametrize("status,location,said", [
    (307, "javascript:alert(1)", "follows only http and https"),
    (307, "file:///etc/passwd", "follows only http and https"),
    (307, "http://:80/no-host", "follows only http and https"),
    (307, "http://a.example:port/", "not a valid URL"),
    (307, "https://a.example/mcp", "from http to https"),
    (301, "/v2", "(HTTP 301), which would make it a GET"),
    (307, "javascript:\x1b[2Jalert(1)", "javascript:\\x1b[2Jalert(1)"),
])
def test_redirects_refused(status: int, location: str, said: str):
    with pytest.raises(ProtocolError) as refused:
        redirects.next_url("http://a.example/mcp", status, location)
    assert said in refused.value.message and "\x1b" not in refused.value.message


class _Body:
    """A streamed response of `size` bytes, as httpx hands it over (chunks of 64 KiB)."""

    url = "http://127.0.0.1/mcp"

    def __init__(self, size: int) -> None:
        self.size = size

    def iter_bytes(self):
        for start in range(0, self.size, 65536):
            yield b"x" * min(65536, self.size - start)


def test_a_big_json_body_is_read_without_a_copy_at_the_end():
    import tracemalloc

    from mrtr_cli.transport.http.streamable_http import HttpExchange
    from mrtr_cli.transport.http.streamable_http import HttpTransport

    transport = HttpTransport("http://127.0.0.1/mcp", {})
    exchange = HttpExchange(transport.connection, transport.session, None, "{}", {})
    tracemalloc.start()
    try:
        body = exchange._read(_Body(8_000_000))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        transport.close()
    assert len(body) == 8_000_000 and peak < 1.5 * len(body)
