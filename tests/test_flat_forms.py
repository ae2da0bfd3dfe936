"""The standard-library validator of flat forms gives jsonschema's verdict, in the same words."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mrtr_cli.forms import validation
from mrtr_cli.forms import flat_forms
from mrtr_cli.server.demo import TOOLS
from mrtr_cli.server.demo_tools import ALL_FIELDS, ALL_FIELDS_REQUIRED

SCHEMAS = [
    {"type": "object", "properties": ALL_FIELDS, "required": ALL_FIELDS_REQUIRED},
    {"type": "object", "properties": {
        "n": {"type": "integer", "minimum": -3, "maximum": 3},
        "tags": {"type": "array", "minItems": 2, "maxItems": 3, "uniqueItems": True,
                 "items": {"type": "string", "enum": ["a", "b", "c"]}},
        "s": {"type": "string", "enum": ["x", "y"], "minLength": 1}}, "required": ["n"]},
    {"type": "object", "properties": {  # the bounds jsonschema words differently
        "empty": {"type": "string", "maxLength": 0}, "one": {"type": "string", "minLength": 1},
        "two": {"type": "string", "minLength": 2, "maxLength": 3},
        "none": {"type": "array", "maxItems": 0, "items": {"type": "string", "enum": ["a", "b"]}},
        "some": {"type": "array", "minItems": 1, "items": {"type": "string", "enum": ["a", "b"]}}}},
    {"type": "object", "properties": {  # x-mcp-header is an annotation: no verdict changes
        "city": {"type": "string", "default": "Lisbon", "x-mcp-header": "City", "minLength": 2},
        "n": {"type": "integer", "x-mcp-header": "N"}}, "required": ["city"]},
]
EDGES = {"empty": "A", "one": "", "two": "A", "none": ["a"], "some": []}
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 20) | st.floats(-3, 3, allow_nan=False) | st.sampled_from(
        ["", "A", "Ada", "ada@example.com", "not an email", "https://x.example", "2026-02-30", "2026-01-31",
         "2026-01-01T10:00:00Z", "S", "M", "#ff0000", "free", "cheese", "olives", "mon", "a", "b", "x"]),
    lambda inner: st.lists(inner, max_size=4), max_leaves=6)


@settings(max_examples=400, deadline=None)
@given(schema=st.sampled_from(SCHEMAS), data=st.data())
def test_same_verdict_and_messages_as_jsonschema(schema, data):
    names = list(schema["properties"]) + ["extra"]
    content = data.draw(st.dictionaries(st.sampled_from(names), VALUES, max_size=8))
    assert flat_forms.covers(schema)
    assert sorted(flat_forms.problems(content, schema)) == sorted(validation._jsonschema_problems(content, schema))


def test_same_messages_at_the_edges_of_the_bounds():
    schema = SCHEMAS[2]
    for name, value in EDGES.items():
        content = {name: value}
        assert flat_forms.problems(content, schema) == validation._jsonschema_problems(content, schema) != []


def test_the_demo_servers_tools_are_checked_without_jsonschema():
    for definition, _ in TOOLS.values():
        assert flat_forms.covers(definition["inputSchema"]), definition["name"]


def test_what_it_does_not_cover_goes_to_jsonschema():
    assert not flat_forms.covers({"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}})
    assert not flat_forms.covers({"type": "object", "properties": {"a": {"$ref": "#/x"}}})
    assert not flat_forms.covers({"type": "object", "properties": {"a": {"type": "object"}}})
    assert not flat_forms.covers({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"})
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}}
    assert validation.problems({"a": "y"}, schema) == ['field \'a\' is "y": give text matching the pattern ^x']
