"""Unit tests of scripted answering: flags, forms, validation, answers files, coercion."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import elicit
from mrtr_cli.forms import validation
from mrtr_cli.forms import formats
from mrtr_cli.answering.answers_file import AnswersFileAnswerer, load_answers_file
from mrtr_cli.answering.chain import build_chain
from mrtr_cli.forms.fields import Field, form_fields
from mrtr_cli.forms.validation import check_value, complete_form
from mrtr_cli.answering.questions import Chain, Question, Response
from mrtr_cli.answering.scripted import (
    FlagAnswerer,
    RootsAnswerer,
    SamplingReplyAnswerer,
    root_entry,
)
from mrtr_cli.definition.arguments import prompt_arguments, tool_arguments
from mrtr_cli.forms.coercion import coerce_text, declared_types
from mrtr_cli.errors import IncompleteError, UsageError
from mrtr_cli.definition.options import AnsweringOptions

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 2},
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "day": {"type": "string", "format": "date"},
        "when": {"type": "string", "format": "date-time"},
        "size": {"type": "integer", "minimum": 1, "maximum": 12, "default": 2},
        "ratio": {"type": "number"},
        "ok": {"type": "boolean", "default": False},
        "color": {"type": "string", "enum": ["red", "green"]},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 2},
    },
    "required": ["name"],
}


def question(key: str = "k", request: dict | None = None) -> Question:
    return Question(1, key, request or {"method": "elicitation/create",
                                        "params": {"message": "m", "requestedSchema": SCHEMA}}, "server")


def test_flags_set_fields_typed_by_the_schema_and_defaults_fill_the_rest():
    flags = FlagAnswerer(["k.name=Ada", "k.size=4", "k.ok=yes", "k.ratio=0.5", 'k.tags=["a","b"]', "k.color=red"])
    response = flags.answer(question())
    assert response == Response({"action": "accept", "content": {
        "name": "Ada", "size": 4, "ok": True, "ratio": 0.5, "tags": ["a", "b"], "color": "red"}})
    assert flags.unused_flags() == []


def test_flag_keys_may_hold_dots_and_colons():
    flags = FlagAnswerer(["__main__:ask.v1.name=Ada", "other.x=1"])
    assert flags.answer(question("__main__:ask.v1")).payload["content"]["name"] == "Ada"
    assert flags.unused_flags() == ["--answer other.x=1"]


def test_flag_actions():
    assert FlagAnswerer(["k=decline"]).answer(question()) == Response({"action": "decline"})
    assert FlagAnswerer(["k=cancel"]).answer(question()) == Response({"action": "cancel"})
    url = {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://x"}}
    assert FlagAnswerer(["k=accept"]).answer(question(request=url)) == Response({"action": "accept"})


def test_a_value_where_an_action_belongs_is_refused_with_the_flag_it_meant():
    url = {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://x"}}
    cases = [(question(), "to set a field, write --answer k.FIELD=Ada; its fields: name, email, site, day, when, "
                          "size, ratio, ok, color, tags"),
             (question(request=url), "write --answer k=accept (or decline, cancel)"),
             (question("a b"), "to set a field, write --answer 'a b.FIELD=Ada'; its fields: name, email, site, day, "
                               "when, size, ratio, ok, color, tags")]
    for asked, fix in cases:
        flags = FlagAnswerer([f"{asked.key}=Ada"])
        with pytest.raises(UsageError) as raised:
            flags.answer(asked)
        assert raised.value.hint == fix
        assert flags.unused_flags() == []  # it named the question: not "matched no question" as well


def test_a_field_the_form_does_not_have_is_refused_unless_the_form_takes_more():
    with pytest.raises(UsageError) as raised:
        FlagAnswerer(["k.nmae=Ada"]).answer(question())
    assert raised.value.one_line() == ("--answer k.nmae=Ada: the form of question 'k' has no field 'nmae'; its fields: "
                                       "name, email, site, day, when, size, ratio, ok, color, tags")
    open_form = {"type": "object", "properties": {}, "additionalProperties": True}
    request = {"method": "elicitation/create", "params": {"message": "m", "requestedSchema": open_form}}
    assert FlagAnswerer(["k.extra=1"]).answer(question(request=request)).payload["content"] == {"extra": 1}


def test_a_field_whose_value_is_an_action_word_is_still_a_field():
    flags = FlagAnswerer(["k.name=cancel"])
    assert flags.answer(question()).payload == {"action": "accept", "content": {"name": "cancel", "size": 2, "ok": False}}


def test_a_multi_select_takes_one_bare_choice_or_choices_joined_by_commas_else_a_json_array():
    flags = FlagAnswerer(["k.name=Ada", "k.tags=a"])
    assert flags.answer(question()).payload["content"]["tags"] == ["a"]
    assert FlagAnswerer(["k.name=Ada", "k.tags=a, b"]).answer(question()).payload["content"]["tags"] == ["a", "b"]
    for given in ("c", "a,c", "[a"):
        with pytest.raises(UsageError) as raised:
            FlagAnswerer(["k.name=Ada", f"k.tags={given}"]).answer(question())
        assert raised.value.message.startswith(f"--answer 'k.tags={given}': field 'tags' takes a JSON array of its "
                                               "choices (a, b)")
        assert raised.value.hint == """write --answer 'k.tags=["a","b"]' or --answer k.tags=a,b"""


@pytest.mark.parametrize("raw, problem", [
    ("=Ada", "--answer '=Ada' has no question key"),
    (".name=Ada", "--answer '.name=Ada' has no question key"),
    ("k.=Ada", "--answer 'k.=Ada' has no field after the '.'"),
    ("k.name", "--answer 'k.name' has no '='"),
])
def test_a_flag_without_a_key_or_a_field_is_refused_when_read(raw, problem):
    with pytest.raises(UsageError) as raised:
        FlagAnswerer([raw])
    assert raised.value.message == problem


def test_what_was_likely_meant_when_nothing_answered(tmp_path: Path):
    path = tmp_path / "a.yaml"
    path.write_text("answers:\n  kk:\n    content: {name: Ada}\n")
    chain, flags = build_chain(AnsweringOptions(answers_file=str(path), answers=("kj.name=Bo", "x.name=Cy")), 5)
    with pytest.raises(IncompleteError) as raised:
        chain.answer(question("kjj"))
    assert raised.value.hint == "--answer kj.name=Bo names question 'kj'; did you mean question 'kjj'? write " \
                                "--answer kjj.name=Bo"
    assert flags.unused() == ["--answer x.name=Cy"]  # the error named that flag: no warning as well
    with pytest.raises(IncompleteError) as raised:
        chain.answer(question("k"))
    assert raised.value.hint == "the answers file has an entry 'kk'; did you mean 'k'?"
    with pytest.raises(IncompleteError) as raised:
        chain.answer(question("other"))
    assert raised.value.hint == ("pass --answer other.FIELD=VALUE, write an entry 'other' in the answers file, or "
                                 "run at a terminal without --no-input")
    chain, _ = build_chain(AnsweringOptions(), 5, person="replay at a terminal with --interactive")
    with pytest.raises(IncompleteError) as raised:
        chain.answer(question("party"))
    assert raised.value.hint == ("pass --answer party.FIELD=VALUE or --answers FILE, or replay at a terminal with "
                                 "--interactive")


def test_a_flag_another_source_made_needless_names_the_question_it_was_likely_meant_for():
    flags = FlagAnswerer(["prty.size=3", "zzz.size=1"])
    assert flags.answer(question("party")) is None  # another answerer answers it
    assert flags.unused_flags() == ["--answer prty.size=3", "--answer zzz.size=1"]
    assert flags.likely_questions() == {"--answer prty.size=3": "party"}


def test_null_leaves_a_field_out(tmp_path: Path):
    path = tmp_path / "a.yaml"
    path.write_text("answers:\n  k:\n    content: {name: Ada, size: null}\n")
    answer = AnswersFileAnswerer(load_answers_file(str(path)), "m").answer(question())
    assert answer.payload["content"] == {"name": "Ada", "ok": False}


WORDED = {
    "type string": ({"type": "string"}, 3, "field 'f' is 3: give text"),
    "type number": ({"type": "number"}, "x", 'field \'f\' is "x": give a number'),
    "type integer": ({"type": "integer"}, 1.5, "field 'f' is 1.5: give a whole number"),
    "type boolean": ({"type": "boolean"}, "yes", 'field \'f\' is "yes": give true or false'),
    "minLength": ({"type": "string", "minLength": 2}, "A", 'field \'f\' is "A": give text of at least 2 characters'),
    "minLength 1": ({"type": "string", "minLength": 1}, "", 'field \'f\' is "": give text, not empty'),
    "maxLength": ({"type": "string", "maxLength": 3}, "ABCD", 'field \'f\' is "ABCD": give text of at most 3 characters'),
    "both lengths": ({"type": "string", "minLength": 2, "maxLength": 3}, "A",
                     'field \'f\' is "A": give text of 2 to 3 characters'),
    "format email": ({"type": "string", "format": "email"}, "not-an-email",
                     'field \'f\' is "not-an-email": give an email address like name@example.com'),
    "format uri": ({"type": "string", "format": "uri"}, "no scheme",
                   'field \'f\' is "no scheme": give a URI like https://example.com/page'),
    "format date": ({"type": "string", "format": "date"}, "30/02/2026",
                    'field \'f\' is "30/02/2026": give a date like 2026-12-24 (year-month-day)'),
    "format date, no such day": ({"type": "string", "format": "date"}, "2026-02-30",
                                 'field \'f\' is "2026-02-30": not a real date'),
    "format date-time": ({"type": "string", "format": "date-time"}, "2026-01-01 19:30",
                         'field \'f\' is "2026-01-01 19:30": give a date and time like 2026-12-24T19:30:00Z'),
    "format date-time, no such hour": ({"type": "string", "format": "date-time"}, "2026-01-01 25:00:00Z",
                                       'field \'f\' is "2026-01-01 25:00:00Z": not a real date and time'),
    "minimum": ({"type": "integer", "minimum": 1}, 0, "field 'f' is 0: give a whole number of at least 1"),
    "maximum": ({"type": "number", "maximum": 2.5}, 3, "field 'f' is 3: give a number of at most 2.5"),
    "both bounds": ({"type": "integer", "minimum": 1, "maximum": 12}, 13,
                    "field 'f' is 13: give a whole number from 1 to 12"),
    "enum": ({"type": "string", "enum": ["S", "M"]}, "XL", 'field \'f\' is "XL": choose one of: S, M'),
    "oneOf": ({"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]},
              "blue", 'field \'f\' is "blue": choose one of: #f00 (Red), #0f0 (Green)'),
    "minItems": ({"type": "array", "minItems": 1, "items": {"type": "string", "enum": ["a", "b"]}}, [],
                 "field 'f' is []: choose at least 1"),
    "maxItems": ({"type": "array", "maxItems": 1, "items": {"type": "string", "enum": ["a", "b"]}}, ["a", "b"],
                 'field \'f\' is ["a", "b"]: choose at most 1'),
    "both counts": ({"type": "array", "minItems": 2, "maxItems": 3, "items": {"enum": ["a", "b", "c", "d"]}},
                    ["a"], 'field \'f\' is ["a"]: choose 2 to 3'),
    "items enum": ({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}, ["z"],
                   'field \'f\' holds "z": choose only from: a, b'),
    "items anyOf": ({"type": "array", "items": {"anyOf": [{"const": "1", "title": "One"}]}}, ["2"],
                    'field \'f\' holds "2": choose only from: 1 (One)'),
    "uniqueItems": ({"type": "array", "uniqueItems": True, "items": {"enum": ["a", "b"]}}, ["a", "a"],
                    'field \'f\' is ["a", "a"]: choose each option at most once'),
    "pattern": ({"type": "string", "pattern": "^[a-z]+$"}, "ABC",
                'field \'f\' is "ABC": give text matching the pattern ^[a-z]+$'),
}


@pytest.mark.parametrize("constraint", list(WORDED))
def test_each_constraint_is_worded_for_people(constraint):
    field, value, line = WORDED[constraint]
    with pytest.raises(UsageError) as raised:
        complete_form("k", {"type": "object", "properties": {"f": field}}, {"f": value})
    assert raised.value.message == f"the answer to 'k' is invalid: {line}"
    prompt = Field("f", field, True)
    with pytest.raises(ValueError) as typed:
        check_value(prompt, value)
    assert str(typed.value) == line.split(": ", 1)[1]  # the prompt says the same, the value being on screen


def test_server_text_in_a_message_is_made_safe():
    field = {"type": "string", "enum": ["\x1b[2J", "ok"]}
    with pytest.raises(UsageError) as raised:
        complete_form("k", {"type": "object", "properties": {"f\x1b]0;x": field}}, {"f\x1b]0;x": "no"})
    assert "\x1b" not in raised.value.message and "choose one of: \\x1b[2J, ok" in raised.value.message


def test_many_choices_are_counted_not_listed():
    field = {"type": "string", "enum": [f"c{n}" for n in range(50)]}
    with pytest.raises(UsageError, match=r"choose one of: c0, c1, .*c9, … \(50 in all\)"):
        complete_form("k", {"type": "object", "properties": {"f": field}}, {"f": "no"})


@pytest.mark.parametrize("value", ["2026-01-01T10:00:00Z", "2026-01-01t10:00:00.5+02:00", "2016-12-31T23:59:60Z"])
def test_date_times_that_are_valid(value):
    assert formats.is_date_time(value)


def test_network_refs_are_never_fetched():
    schema = {"type": "object", "properties": {"x": {"$ref": "https://example.invalid/schema.json"}}}
    problems = validation.problems({"x": 1}, schema)
    assert problems and "never fetched" in problems[0] and "example.invalid" in problems[0]


def test_missing_required_field():
    with pytest.raises(UsageError, match="field 'name' is required but missing"):
        complete_form("k", SCHEMA, {})


def test_field_kinds_and_options():
    schema = {"type": "object", "properties": {
        "a": {"type": "string", "oneOf": [{"const": "x", "title": "Ex"}]},
        "b": {"type": "string", "enum": ["p", "q"], "enumNames": ["Pea", "Queue"]},
        "c": {"type": "array", "items": {"anyOf": [{"const": "1", "title": "One"}]}},
        "d": {"type": "object"},
    }}
    a, b, c, d = form_fields(schema)
    assert (a.kind, a.options()) == ("choice", [("x", "Ex")])
    assert (b.kind, b.options()) == ("choice", [("p", "Pea"), ("q", "Queue")])
    assert (c.kind, c.options()) == ("choices", [("1", "One")])
    assert d.kind == "unknown" and isinstance(d, Field)


def test_answers_file_by_key_then_by_match(tmp_path: Path):
    path = tmp_path / "a.yaml"
    path.write_text(
        "answers:\n  llm:\n    text: Hello!\n  ws:\n    roots: [{uri: 'file:///tmp', name: tmp}]\n"
        "match:\n  - method: elicitation/create\n    message: '(?i)github'\n    response: {content: {name: octocat}}\n")
    answerer = AnswersFileAnswerer(load_answers_file(str(path)), "human")
    sampling = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}
    assert answerer.answer(question("llm", sampling)).payload == {
        "role": "assistant", "content": {"type": "text", "text": "Hello!"}, "model": "human", "stopReason": "endTurn"}
    assert answerer.answer(question("ws", {"method": "roots/list"})).payload == {
        "roots": [{"uri": "file:///tmp", "name": "tmp"}]}
    github = elicit("Your GitHub user?", {"name": {"type": "string"}})
    assert answerer.answer(question("anything", github)).payload == {"action": "accept", "content": {"name": "octocat"}}
    assert answerer.answer(question("other", elicit("no", {"x": {"type": "string"}}))) is None


@pytest.mark.parametrize("content,message", [
    ("- a list\n", "a.yaml:1:1: the document: expected a mapping with answers: and match:, found a list"),
    ("answer: {}\n", "a.yaml:1:9: unknown key 'answer' (did you mean 'answers'?)"),
    ("match:\n  - method: ping\n    response: {}\n", "a.yaml:2:13: match[0].method: expected one of"),
    ("match:\n  - method: roots/list\n    message: '('\n    response: {}\n",
     "a.yaml:3:14: match[0].message is not a valid regular expression"),
    ("answers:\n  k: [1]\n", "a.yaml:2:6: answers.k: expected an answer: a mapping"),
    ("answers: {\n", "a.yaml:2:1: the answers file is not valid YAML"),
    ("!!python/object/apply:os.system ['echo hi']\n", "a.yaml:1:1: the answers file is not valid YAML: could not "
     "determine a constructor for the tag 'tag:yaml.org,2002:python/object/apply:os.system'; remove the tag"),
])
def test_answers_file_errors(tmp_path: Path, content: str, message: str):
    path = tmp_path / "a.yaml"
    path.write_text(content)
    with pytest.raises(UsageError) as caught:
        load_answers_file(str(path))
    assert message in caught.value.one_line()


def test_roots_and_sampling_reply():
    assert root_entry("/tmp/../tmp") == {"uri": "file:///tmp", "name": "tmp"}
    assert root_entry("file:///srv") == {"uri": "file:///srv", "name": "srv"}
    with pytest.raises(UsageError, match="not a file URI"):
        root_entry("https://example.com/")
    assert RootsAnswerer(["/tmp"]).answer(question("r", {"method": "roots/list"})).payload["roots"][0]["uri"] == "file:///tmp"
    sampling = question("s", {"method": "sampling/createMessage", "params": {"messages": []}})
    assert SamplingReplyAnswerer("hi", "m").answer(sampling).payload["content"]["text"] == "hi"
    assert SamplingReplyAnswerer("hi", "m").answer(question()) is None


def test_the_chain_names_the_question_nothing_answered():
    with pytest.raises(IncompleteError, match="nothing answered question 'k' of round 1"):
        Chain([FlagAnswerer([])]).answer(question())


@pytest.mark.parametrize("text,types,value", [
    ("01234", {"string"}, "01234"),
    ("3", {"integer"}, 3),
    ("3", {"number"}, 3),
    ("2.5", {"number", "null"}, 2.5),
    ("true", {"boolean"}, True),
    ('["a"]', {"array"}, ["a"]),
    ('{"a":1}', {"object"}, {"a": 1}),
    ("3", set(), 3),
    ("Ada", set(), "Ada"),
    ('"quoted"', {"string", "integer"}, "quoted"),
])
def test_coercion(text, types, value):
    assert coerce_text(text, types) == value


def test_declared_types():
    assert declared_types({"type": ["string", "null"]}) == {"string", "null"}
    assert declared_types({"anyOf": [{"type": "integer"}, {"type": "string"}]}) == {"integer", "string"}
    assert declared_types(None) == set()


def test_tool_and_prompt_arguments(tmp_path: Path):
    schema = {"properties": {"zip": {"type": "string"}, "n": {"type": "integer"}}}
    assert tool_arguments(("zip=01234", "n=3", "x=[1]"), '{"n": 1, "y": true}', schema) == {
        "zip": "01234", "n": 3, "x": [1], "y": True}
    args_file = tmp_path / "args.json"
    args_file.write_text('{"zip": "9"}')
    assert tool_arguments((), f"@{args_file}", schema) == {"zip": "9"}
    with pytest.raises(UsageError, match="wants argument 'n' as an integer, and 'three' is not an integer"):
        tool_arguments(("n=three",), None, schema)
    with pytest.raises(UsageError, match="not a JSON object"):
        tool_arguments((), "[1]", None)
    assert prompt_arguments(("n=3",), '{"m": 4}') == {"m": "4", "n": "3"}
