"""The schema-to-prompt mapping and its validation, without a terminal (prompt_toolkit pipes)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from conftest import elicit
from mrtr_cli.forms.fields import Field, form_fields, outside_subset
from mrtr_cli.forms.validation import typed_input
from mrtr_cli.answering.interactive import InteractiveAnswerer
from mrtr_cli.answering.questions import Question, Refusal, Response
from mrtr_cli.answering.save import answers_document
from mrtr_cli.answering.url_policy import judge
from mrtr_cli.render.console import make_console
from mrtr_cli.render.prompts import Presenter
from mrtr_cli.conversation.session import Round

ENTER, DOWN, UP, SPACE, ESC = "\r", "\x1b[B", "\x1b[A", " ", "\x1b"
pytestmark = pytest.mark.timeout(20)


@contextmanager
def keys(*per_prompt: str) -> Iterator[Any]:
    """An io factory: the n-th prompt reads the n-th string of keys."""
    with ExitStack() as stack:
        queue = list(per_prompt)

        def factory() -> dict[str, Any]:
            assert queue, "more prompts came than the test typed for"
            pipe = stack.enter_context(create_pipe_input())
            pipe.send_text(queue.pop(0))
            return {"input": pipe, "output": DummyOutput()}

        yield factory
        assert not queue, f"{len(queue)} prompts never came"


def answerer(factory: Any, opened: list[str] | None = None) -> tuple[InteractiveAnswerer, io.StringIO]:
    screen = io.StringIO()
    presenter = Presenter(make_console(screen, "never"))
    record = opened.append if opened is not None else (lambda url: None)
    return InteractiveAnswerer(presenter, "by-hand", factory, record), screen


def ask(request: dict[str, Any], *typed: str, key: str = "k") -> tuple[Any, str]:
    with keys(*typed) as factory:
        person, screen = answerer(factory)
        verdict = person.answer(Question(1, key, request, "demo 1.0", 1, 2))
    return verdict, screen.getvalue()


def test_every_field_kind_maps_to_a_prompt():
    form = elicit("Profile", {
        "name": {"type": "string", "minLength": 2}, "age": {"type": "integer", "minimum": 0},
        "height": {"type": "number"}, "ok": {"type": "boolean", "default": True},
        "size": {"type": "string", "enum": ["S", "M"]},
        "color": {"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "minItems": 1}})
    verdict, screen = ask(form, "Ada" + ENTER, "36" + ENTER, "1.7" + ENTER, ENTER, DOWN + ENTER, DOWN + ENTER,
                          SPACE + DOWN + DOWN + SPACE + ENTER, ENTER)
    assert verdict == Response({"action": "accept", "content": {
        "name": "Ada", "age": 36, "height": 1.7, "ok": True, "size": "M", "color": "#0f0", "tags": ["a", "c"]}})
    assert "demo 1.0 asks (round 1 · question 1 of 2 · key k" in screen and "review:" in screen


def test_a_typed_answer_is_asked_again_with_what_is_wrong_under_it():
    form = elicit("x", {"age": {"type": "integer", "minimum": 0, "maximum": 120}})
    verdict, screen = ask(form, "abc" + ENTER, "\x7f\x7f\x7f" + "200" + ENTER, "\x7f\x7f\x7f" + "42" + ENTER, ENTER)
    assert verdict == Response({"action": "accept", "content": {"age": 42}})
    wrong = "  ! give a whole number from 0 to 120\n"
    assert f"? age * abc\n{wrong}? age * 200\n{wrong}? age * 42\n" in screen


def test_an_empty_optional_field_is_left_out_and_defaults_are_prefilled():
    form = elicit("x", {"note": {"type": "string"}, "n": {"type": "integer", "default": 3}}, required=[])
    verdict, _ = ask(form, ENTER, ENTER, ENTER)
    assert verdict == Response({"action": "accept", "content": {"n": 3}})


def test_review_edit_then_submit():
    form = elicit("x", {"name": {"type": "string"}})
    verdict, _ = ask(form, "Ada" + ENTER, DOWN + ENTER, ENTER, "\x7f\x7f\x7fBob" + ENTER, ENTER)
    assert verdict == Response({"action": "accept", "content": {"name": "Bob"}})


@pytest.mark.parametrize("moves,action", [(DOWN + DOWN + ENTER, "decline"), (DOWN + DOWN + DOWN + ENTER, "cancel")])
def test_decline_and_cancel_at_review(moves: str, action: str):
    verdict, _ = ask(elicit("x", {"name": {"type": "string"}}), "Ada" + ENTER, moves)
    assert verdict == Response({"action": action})


def test_escape_on_a_form_is_cancel():
    verdict, _ = ask(elicit("x", {"name": {"type": "string"}}), ESC)
    assert verdict == Response({"action": "cancel"})


def test_a_schema_outside_the_subset_takes_raw_json():
    nested = {"method": "elicitation/create", "params": {"message": "m", "requestedSchema": {
        "type": "object", "properties": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}}}}}
    verdict, screen = ask(nested, ENTER, "\x7f\x7f" + '{"address": {"city": "Oslo"}}' + ENTER)
    assert verdict == Response({"action": "accept", "content": {"address": {"city": "Oslo"}}})
    assert "outside the spec's flat subset" in screen


def url_question(url: str) -> dict[str, Any]:
    return {"method": "elicitation/create", "params": {"mode": "url", "message": "Connect", "url": url}}


def test_url_consent_opens_only_after_the_choice():
    """A flagged URL (punycode) starts on Decline: Open in browser is two up."""
    opened: list[str] = []
    with keys(UP + UP + ENTER) as factory:
        person, screen = answerer(factory, opened)
        verdict = person.answer(Question(1, "c", url_question("https://xn--80ak6aa92e.com/login"), "s"))
    assert verdict == Response({"action": "accept"}) and opened == ["https://xn--80ak6aa92e.com/login"]
    assert "punycode" in screen.getvalue()


def test_url_show_only_never_opens():
    opened: list[str] = []
    with keys(DOWN + ENTER) as factory:
        person, screen = answerer(factory, opened)
        assert person.answer(Question(1, "c", url_question("https://example.com/x"), "s")) == Response({"action": "accept"})
    assert opened == [] and "open this yourself: https://example.com/x" in screen.getvalue()


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,hi", "http://example.com/"])
def test_unsafe_urls_are_refused(url: str):
    opened: list[str] = []
    with keys(ENTER) as factory:
        person, screen = answerer(factory, opened)
        assert person.answer(Question(1, "c", url_question(url), "s")) == Response({"action": "decline"})
    assert opened == [] and "will not open this URL" in screen.getvalue()


def test_url_policy():
    assert judge("http://127.0.0.1:8080/cb").openable and judge("http://localhost/x").openable
    assert not judge("http://example.com/").openable
    assert "mixes scripts" in judge("https://раypal.com/").warnings[0]
    assert judge("https://user:pw@example.com/").warnings == ["the URL carries a user name or password"]


def sampling_question() -> dict[str, Any]:
    return {"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}},
                     {"role": "user", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}}],
        "systemPrompt": "Be brief", "maxTokens": 20, "temperature": 0.2, "stopSequences": ["END"],
        "modelPreferences": {"hints": [{"name": "claude"}]}}}


def test_sampling_reply_and_rejection():
    verdict, screen = ask(sampling_question(), ENTER, "Hello\nthere\x1b\r")
    assert verdict == Response({"role": "assistant", "content": {"type": "text", "text": "Hello\nthere"},
                                "model": "by-hand", "stopReason": "endTurn"})
    for shown in ("Be brief", "Say hi", "[image image/png, 4 base64 chars]", "maxTokens: 20", "temperature: 0.2",
                  '"END"', "claude"):
        assert shown in screen
    assert isinstance(ask(sampling_question(), DOWN + ENTER)[0], Refusal)
    assert isinstance(ask(sampling_question(), ESC)[0], Refusal)


def test_roots_offer_the_current_directory_and_can_be_edited(tmp_path):
    # the menu starts on Refuse: Add is two up, Remove one up, Share three up
    with keys(UP + UP + ENTER, "/srv/data" + ENTER, UP + ENTER, ENTER, UP + UP + UP + ENTER) as factory:
        person, _ = answerer(factory)
        person.cwd = tmp_path
        verdict = person.answer(Question(1, "r", {"method": "roots/list"}, "s"))
    assert verdict == Response({"roots": [{"uri": "file:///srv/data", "name": "data"}]})
    assert isinstance(ask({"method": "roots/list"}, ESC)[0], Refusal)


def test_forms_helpers():
    field = Field("d", {"type": "string", "format": "date"}, True)
    assert typed_input(field, "2026-01-31") == "2026-01-31"
    with pytest.raises(ValueError, match=r"give a date like 2026-12-24 \(year-month-day\)"):
        typed_input(field, "31/01/2026")
    with pytest.raises(ValueError, match="required"):
        typed_input(field, "")
    assert outside_subset({"type": "object", "properties": {"x": {"type": "string"}}}) is None
    assert "not an object" in outside_subset({"type": "string"})
    assert form_fields({"properties": {"a": {}, "b": {}}, "required": ["b"]})[1].required


def test_saved_answers_write_cleared_fields_as_null():
    request = elicit("x", {"name": {"type": "string"}, "n": {"type": "integer", "default": 3}})
    from mrtr_cli.answering.questions import Answer
    from mrtr_cli.conversation.client import Reply

    current = Round(1, Reply(1, "tools/call", {}, None, 1.0), {}, "input_required", {"k": request, "s": {
        "method": "sampling/createMessage"}}, None, {
        "k": Answer({"action": "accept", "content": {"name": "Ada"}}, "interactive"),
        "s": Answer({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m",
                     "stopReason": "endTurn"}, "flag")})
    assert answers_document([current]) == {"answers": {"k": {"action": "accept", "content": {"name": "Ada", "n": None}},
                                                       "s": {"text": "hi", "model": "m"}}}
