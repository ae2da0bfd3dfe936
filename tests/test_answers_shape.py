"""The answers file's shape checked without jsonschema (answering/answers_shape.py): the same verdict
as jsonschema on documents at the schema's edges, and no jsonschema import for a file that is right."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from mrtr_cli.forms import validation
from mrtr_cli.answering.answers_file import SCHEMA
from mrtr_cli.answering.answers_shape import certainly_fits

ANSWERS_SCHEMA = validation.packaged_schema(SCHEMA)

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.floats(allow_nan=False, width=16),
                    st.sampled_from(["", "accept", "file:///tmp", "x"]))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner,
                                                                                            max_size=2), max_leaves=4)
"""Any value the YAML loader builds, kept small."""


@st.composite
def mostly(draw: st.DrawFn, good: st.SearchStrategy[Any]) -> Any:
    """A value of the right shape most of the time, and now and then any other value."""
    return draw(JSON) if draw(st.integers(0, 9)) == 0 else draw(good)


def some_of(draw: st.DrawFn, keys: dict[str, st.SearchStrategy[Any]]) -> Any:
    """A mapping with some of `keys`, now and then a key the schema does not name; or now and then any other value."""
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON)
    mapping = draw(st.fixed_dictionaries({}, optional=keys))
    if draw(st.integers(0, 9)) == 0:
        mapping[draw(st.sampled_from(["extra", "Answers", "uri", "text", ""]))] = draw(JSON)
    return mapping


@st.composite
def root_entries(draw: st.DrawFn) -> Any:
    return some_of(draw, {"uri": mostly(st.just("file:///srv")), "name": mostly(st.text(max_size=2))})


@st.composite
def answers(draw: st.DrawFn) -> Any:
    return some_of(draw, {
        "action": st.sampled_from(["accept", "decline", "cancel"] * 3 + ["Accept", "", True, 1, None, ["accept"]]),
        "content": mostly(st.dictionaries(st.text(max_size=2), JSON, max_size=2) | st.lists(JSON, max_size=2)),
        "text": mostly(st.text(max_size=2) | st.integers(-9, 9) | st.floats() | st.booleans()),
        "model": mostly(st.text(max_size=2)),
        "roots": mostly(st.lists(root_entries(), max_size=3))})


@st.composite
def rules(draw: st.DrawFn) -> Any:
    methods = ["elicitation/create", "sampling/createMessage", "roots/list"] * 3 + ["ping", "", 1, None]
    messages = st.text(max_size=2) | st.integers(-9, 9) | st.floats() | st.booleans() | st.none()
    return some_of(draw, {"method": st.sampled_from(methods), "message": messages, "response": answers()})


@st.composite
def documents(draw: st.DrawFn) -> Any:
    return some_of(draw, {"answers": mostly(st.none() | st.dictionaries(st.text(max_size=3), answers(), max_size=3)),
                          "match": mostly(st.none() | st.lists(rules(), max_size=3))})


@settings(max_examples=300)
@given(document=documents())
def test_well_formed_exactly_when_jsonschema_finds_no_error(document: Any):
    well_formed = validation.document_problem(document, ANSWERS_SCHEMA) is None
    event("well-formed" if well_formed else "broken")
    assert certainly_fits(document, ANSWERS_SCHEMA) == well_formed


def test_a_keyword_it_does_not_know_is_left_to_jsonschema():
    assert certainly_fits([1], {"type": "array"}) and certainly_fits({"a": 1}, {"$ref": "#/$defs/x", "$defs": {
        "x": {"type": "object", "properties": {"a": {"enum": [1]}}}}})
    assert not certainly_fits([1], {"type": "array", "minItems": 1})
    assert not certainly_fits("a", {"$ref": "https://example.com/schema.json"})
    assert not certainly_fits("a", {"type": "text"})
    assert not certainly_fits(True, {"enum": [1]}) and not certainly_fits([1], {"enum": [[1]]})


def test_a_well_formed_answers_file_is_read_without_jsonschema_a_broken_one_with_it(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("answers:\n  k: [1]\n")
    code = ("import sys; from mrtr_cli.answering.answers_file import load_answers_file; "
            "from mrtr_cli.errors import UsageError\n"
            "for path in sys.argv[1:]:\n"
            "    try: load_answers_file(path); print('read', 'jsonschema' in sys.modules)\n"
            "    except UsageError as error: print(error.one_line(), 'jsonschema' in sys.modules)\n")
    run = subprocess.run([sys.executable, "-c", code, "examples/book_table.yaml", "examples/match_rules.yaml",
                          str(broken)], capture_output=True, text=True, cwd=ROOT, check=True)
    said = (f"{broken}:2:6: answers.k: expected an answer: a mapping with content:, action:, text: or roots:, "
            "found a list; fix the answers file (see mrtr help answers-files)")
    assert run.stdout.splitlines() == ["read False", "read False", f"{said} True"]
