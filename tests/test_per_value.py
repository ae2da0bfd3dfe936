"""Work remembered per distinct JSON value (protocol/per_value.py), and the answers, lint and
timeline lines that use it: a question asked again as it was gets the same result, a question that
differs in any way (even `1` for `true`) gets its own."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import elicit
from mrtr_cli.answering.questions import Question, Response
from mrtr_cli.answering.scripted import FlagAnswerer
from mrtr_cli.errors import UsageError
from mrtr_cli.protocol import meta, per_value
from mrtr_cli.protocol.lint_rules import check_input_required
from mrtr_cli.protocol.per_value import PerValue
from mrtr_cli.render.question_lines import question_lines, shown_question


def counting() -> tuple[PerValue[Any], list[Any]]:
    calls: list[Any] = []

    def compute(value: Any, *extra: Any) -> Any:
        calls.append((value, *extra))
        return len(calls)

    return PerValue(compute), calls


def test_the_same_value_is_computed_once_and_extras_are_part_of_the_key():
    remembered, calls = counting()
    assert remembered({"a": [1, 2]}, "k") == remembered({"a": [1, 2]}, "k") == 1
    assert remembered({"a": [1, 2]}, "other") == 2
    assert len(calls) == 2


@pytest.mark.parametrize("other", [True, 1.0, "1", None, [1]])
def test_values_equal_to_python_but_not_in_json_are_told_apart(other: Any):
    remembered, calls = counting()
    remembered({"default": 1})
    remembered({"default": other})
    assert len(calls) == 2


def test_key_order_is_part_of_the_value():
    remembered, calls = counting()
    remembered({"a": 1, "b": 2})
    remembered({"b": 2, "a": 1})
    assert len(calls) == 2


def test_a_remembered_none_is_not_computed_again():
    calls: list[Any] = []
    remembered = PerValue(lambda value: calls.append(value))
    remembered({"x": 1})
    remembered({"x": 1})
    assert len(calls) == 1


def test_values_too_large_too_deep_or_not_json_are_computed_every_time():
    remembered, calls = counting()
    big = {"text": "x" * (per_value.MAX_KEY + 1)}
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    for value in (big, deep, {"when": object()}):
        remembered(value)
        remembered(value)
    assert len(calls) == 6


def test_the_number_of_values_kept_is_bounded():
    remembered, calls = counting()
    for number in range(per_value.MAX_ENTRIES * 3):
        remembered({"n": number})
    assert len(remembered._known) <= per_value.MAX_ENTRIES
    remembered({"n": 0})
    assert len(calls) == per_value.MAX_ENTRIES * 3 + 1


def test_flag_answers_of_a_question_asked_again_are_equal_but_never_shared():
    answerer = FlagAnswerer(["step.ok=true"])
    request = elicit("Go on?", {"ok": {"type": "boolean"}})
    first = answerer.answer(Question(1, "step", request, "s"))
    again = answerer.answer(Question(2, "step", elicit("Go on?", {"ok": {"type": "boolean"}}), "s"))
    assert isinstance(first, Response) and isinstance(again, Response)
    assert first.payload == again.payload == {"action": "accept", "content": {"ok": True}}
    assert first.payload is not again.payload and first.payload["content"] is not again.payload["content"]
    assert answerer.unused_flags() == []


def test_a_flag_answer_follows_the_question_when_it_changes():
    answerer = FlagAnswerer(["step.ok=1"])
    as_integer = answerer.answer(Question(1, "step", elicit("Go on?", {"ok": {"type": "integer"}}), "s"))
    as_text = answerer.answer(Question(2, "step", elicit("Go on?", {"ok": {"type": "string"}}), "s"))
    assert isinstance(as_integer, Response) and isinstance(as_text, Response)
    assert as_integer.payload["content"] == {"ok": 1} and as_text.payload["content"] == {"ok": "1"}
    for number in (3, 4):  # a flag that no longer fits is refused, every time it is asked
        with pytest.raises(UsageError):
            answerer.answer(Question(number, "step", elicit("Go on?", {"ok": {"type": "integer", "minimum": 5}}), "s"))


def test_lint_findings_of_a_question_asked_again_are_the_same():
    result = {"resultType": "input_required", "requestState": "1",
              "inputRequests": {"q": elicit("Go on?", {"ok": {"type": "object"}})}}
    first = check_input_required("tools/call", result, meta.Capabilities())
    assert [f.rule for f in first] == ["form-schema-subset"]
    assert check_input_required("tools/call", result, meta.Capabilities()) == first
    withheld = check_input_required("tools/call", result, meta.Capabilities(elicitation=False))
    assert [f.rule for f in withheld] == ["undeclared-capability", "form-schema-subset"]


def test_the_lines_shown_for_a_question_are_its_own_lines():
    request = elicit("Go on?", {"ok": {"type": "boolean", "default": 1}})
    for index, count in ((1, 1), (2, 3)):
        question = Question(4, "step", request, "s", index, count)
        shown = shown_question(request, "step", index, count)
        assert [j.plain for j in shown] == [j.plain for j in question_lines(question)]
    changed = elicit("Go on?", {"ok": {"type": "boolean", "default": True}})
    assert "default true" in shown_question(changed, "step")[0].plain
