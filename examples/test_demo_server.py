"""Testing an MCP server with pytest and mrtr: the questions it asks, and what it answers.

Run against mrtr's demo server: `pytest examples/test_demo_server.py`. For your own server, pass
`stdio="python my_server.py"` (or an argv list), or `url="http://127.0.0.1:8080/mcp"`, instead of
`demo=True`, or give pytest `--mrtr-stdio CMD` / `--mrtr-url URL` once for every call.
"""

import pytest

BOOKING = {"answers": {
    "date": {"content": {"date": "2026-12-24"}},
    "party": {"content": {"size": 4, "seating": ["window"]}},
    "confirm": {"content": {"confirm": True}},
}}


def test_booking_asks_three_questions_and_books(mrtr):
    outcome = mrtr.call("book_table", demo=True, answers=BOOKING)
    assert outcome.exit_code == 0, outcome.error
    assert [q.key for q in outcome.questions] == ["date", "party", "confirm"]
    assert outcome.questions[1].schema["properties"]["size"]["maximum"] == 12
    assert "Booked a table for 4" in outcome.result["content"][0]["text"]


def test_an_unanswered_question_ends_the_call_with_exit_7(mrtr):
    outcome = mrtr.call("book_table", demo=True)
    assert outcome.exit_code == 7
    assert [(q.key, q.method) for q in outcome.questions] == [("date", "elicitation/create")]


@pytest.mark.parametrize("era", ["modern", "older"])
def test_the_same_questions_in_either_era(mrtr, era):
    answers = {"match": [
        {"method": "elicitation/create", "message": "(?i)which day", "response": {"action": "accept", "content": {"date": "2026-12-24"}}},
        {"method": "elicitation/create", "message": "(?i)how many", "response": {"action": "accept", "content": {"size": 2}}},
        {"method": "elicitation/create", "message": "(?i)^book", "response": {"action": "accept", "content": {"confirm": True}}},
    ]}
    outcome = mrtr.call("book_table", demo=True, answers=answers, era=era)
    assert outcome.exit_code == 0, outcome.error
    assert outcome.era == era
    assert [q.message for q in outcome.questions][0] == "Which day would you like a table in Lisbon?"


def test_a_prompt_and_a_resource(mrtr):
    notes = mrtr.prompt("release_notes", {"version": "2.0"}, demo=True,
                        answers={"answers": {"audience": {"content": {"audience": "users"}}}})
    assert notes.exit_code == 0, notes.error
    vault = mrtr.read("vault://recipes", demo=True, answers={"answers": {"reveal": {"content": {"reveal": True}}}})
    assert vault.exit_code == 0, vault.error
