"""Answering by hand through a real pseudo-terminal, against the demo server, asserting what
reached the server (the demo echoes it), not only what the screen showed. POSIX only."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from conftest import PYTHON, ROOT, elicit, input_required, mrtr, text_result
from pty_session import ALT_ENTER, CTRL_C, DOWN, ENTER, ESC, SPACE, UP, Pty, prompt, spaced, words

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX-only")


def received(pty: Pty) -> dict:
    return pty.json()["result"]["structuredContent"]["received"]


def message_under(pty: Pty, answered: str, message: str) -> None:
    """The screen shows `message` on the row under the answered prompt it is about, and nowhere else
    (not on the terminal's bottom row)."""
    pty.expect(f"! {message}")
    rows = pty.rows()
    assert rows[rows.index(answered) + 1] == f"  ! {message}"
    assert [row for row in rows if row.endswith(message)] == [f"  ! {message}"]


def test_every_field_type_by_hand(tmp_path: Path):
    pty = Pty(tmp_path, "call", "all_fields", "--demo", "--json")
    pty.expect(r"mrtr-demo \S+ asks \(round 1 · key profile")
    pty.answer(prompt("Full name *"), "A", ENTER)
    message_under(pty, "? Full name * A", "give text of 2 to 40 characters")
    pty.answer(prompt("Full name *"), "\x7f", "Ada Lovelace", ENTER)
    pty.answer(prompt("Email *"), "not-an-email", ENTER)
    message_under(pty, "? Email * not-an-email", "give an email address like name@example.com")
    pty.answer(prompt("Email *"), "\x7f" * 12, "ada@example.com", ENTER)
    pty.answer(prompt("Website"), "https://example.com/ada", ENTER)
    pty.answer(prompt("Birthday"), "2026-02-30", ENTER)
    message_under(pty, "? Birthday 2026-02-30", "not a real date")
    pty.answer(prompt("Birthday"), "\x7f" * 10, "1815-12-10", ENTER)
    pty.answer(prompt("Meeting time"), ENTER)  # optional, left empty: left out
    pty.answer(prompt("Height (m)"), "3", ENTER)
    message_under(pty, "? Height (m) 3", "give a number from 0.5 to 2.5")
    pty.answer(prompt("Height (m)"), "\x7f", "1.65", ENTER)
    pty.answer(prompt("Guests"), ENTER)  # default 1 pre-filled
    pty.answer(prompt("Newsletter"), DOWN, ENTER)  # default false pre-selected; move to the leave-out choice
    pty.answer(prompt("T-shirt size"), DOWN, ENTER)  # S, M (default, preselected) -> L
    pty.answer(prompt("Colour *"), DOWN, DOWN, ENTER)  # Red, Green, Blue
    pty.answer(prompt("Plan"), UP, ENTER)  # Free plan, Pro plan, (leave it out): no default, nothing picked
    pty.expect(prompt("Toppings *"))
    assert "  Toppings  choices, of cheese, olives, basil, choose 1 to 2, required" in pty.rows()  # before picking
    pty.press(ENTER)
    message_under(pty, "? Toppings * none", "choose 1 to 2")  # minItems 1, maxItems 2
    pty.answer(prompt("Toppings *"), SPACE, DOWN, DOWN, SPACE, ENTER)
    pty.answer(prompt("Days"), DOWN, SPACE, ENTER)
    pty.expect(prompt("Send this answer"))
    rows = [spaced(row) for row in pty.rows()]
    # a title and, when it differs, the value --answer takes: as answered, as the review shows them
    assert {"? Toppings * cheese, basil", "? Days Tuesday (tue)"} <= set(rows)
    assert {"Colour Blue (#0000ff)", "Plan Pro plan (pro)", "Toppings cheese, basil", "Days Tuesday (tue)"} <= set(rows)
    pty.press(ENTER)
    assert pty.finish() == 0
    assert received(pty) == {"name": "Ada Lovelace", "email": "ada@example.com", "website": "https://example.com/ada",
                             "birthday": "1815-12-10", "height": 1.65, "guests": 1, "size": "L",
                             "color": "#0000ff", "plan": "pro", "toppings": ["cheese", "basil"], "days": ["tue"]}


def test_review_edit_then_submit_and_several_questions_in_a_round(tmp_path: Path):
    pty = Pty(tmp_path, "call", "two_questions", "--demo", "--json")
    pty.expect(r"question 1 of 2 · key name")
    pty.answer(prompt("Name *"), "Ada", ENTER)
    pty.answer(prompt("Send this answer"), DOWN, ENTER)
    pty.answer(prompt("Which field"), ESC)  # back to the review, nothing changed (before: the form cancelled)
    pty.answer(prompt("Send this answer"), DOWN, ENTER)
    pty.answer(prompt("Which field"), ENTER)
    pty.answer(prompt("Name *"), "\x7f\x7f\x7f", "Grace", ENTER)
    pty.answer(prompt("Send this answer"), ENTER)
    pty.expect(r"question 2 of 2 · key color")
    pty.answer(prompt("color *"), DOWN, DOWN, ENTER)
    pty.answer(prompt("Send this answer"), ENTER)
    assert pty.finish() == 0
    assert received(pty) == {"name": {"name": "Grace"}, "color": {"color": "blue"}}


@pytest.mark.parametrize("keys,action", [((DOWN, DOWN, ENTER), "decline"), ((DOWN, DOWN, DOWN, ENTER), "cancel")])
def test_decline_and_cancel_are_sent(tmp_path: Path, keys: tuple, action: str):
    pty = Pty(tmp_path, "call", "two_questions", "--demo", "--json")
    pty.answer(prompt("Name *"), "Ada", ENTER)
    pty.answer(prompt("Send this answer"), *keys)
    pty.answer(prompt("color *"), ENTER)
    pty.answer(prompt("Send this answer"), ENTER)
    assert pty.finish() == 0
    assert received(pty)["name"] == {"action": action}


def test_escape_on_a_form_is_cancel(tmp_path: Path):
    pty = Pty(tmp_path, "call", "book_table", "--demo", "--json")
    pty.answer(prompt("Date *"), ESC)
    assert pty.finish() == 0
    assert received(pty) == {"date": {"action": "cancel"}}


def test_ctrl_c_aborts_the_call(tmp_path: Path):
    pty = Pty(tmp_path, "call", "book_table", "--demo", "--json")
    pty.answer(prompt("Date *"), CTRL_C)
    assert pty.finish() == 130
    assert pty.json()["outcome"] == "aborted"


def test_url_consent_opens_the_browser_only_when_chosen(tmp_path: Path):
    opened = tmp_path / "opened.txt"
    browser = f"{PYTHON} -c \"import sys; open('{opened}', 'a').write(sys.argv[1])\" %s"
    pty = Pty(tmp_path, "call", "connect_account", "--demo", "--json", env={"BROWSER": browser})
    pty.expect(r"host: example\.com")
    assert not opened.exists()  # nothing fetched or opened before consent
    pty.answer(prompt("What now"), ENTER)
    assert pty.finish() == 0
    assert received(pty) == {"connect": {"action": "accept"}}
    assert opened.read_text().startswith("https://example.com/mrtr-demo/connect/github?session=")


@pytest.mark.parametrize("keys", [(DOWN, ENTER), (ENTER,)], ids=["show only", "no browser to open it"])
def test_url_show_only(tmp_path: Path, keys: tuple):
    """Chosen, or when the browser cannot be started (BROWSER=false, as on a server): the URL is shown."""
    pty = Pty(tmp_path, "call", "connect_account", "--demo", "--json", env={"BROWSER": "false"})
    pty.answer(prompt("What now"), *keys)
    pty.expect("open this yourself: https://example.com/")
    assert pty.finish() == 0 and received(pty) == {"connect": {"action": "accept"}}


def test_unsafe_url_is_refused_with_a_warning(tmp_path: Path, scripted):
    ask = {"method": "elicitation/create", "params": {"mode": "url", "message": "Click", "url": "javascript:alert(1)"}}
    server = scripted(steps=[{"result": input_required({"link": ask})}, {"echo": True}])
    pty = Pty(tmp_path, *server.args("call", "t"), env={"BROWSER": "false"})
    pty.expect("will not open this URL")
    pty.answer(prompt("What now"), ENTER)
    assert pty.finish() == 0
    assert server.calls()[1]["params"]["inputResponses"] == {"link": {"action": "decline"}}


def test_a_stray_enter_shares_no_roots_and_opens_no_flagged_url(tmp_path: Path, scripted):
    """The safe choice is where the pointer starts: Refuse for roots, Decline for a URL flagged as
    a look-alike (its host mixes scripts)."""
    roots = scripted(steps=[{"result": input_required({"r": {"method": "roots/list", "params": {}}})}, {"echo": True}])
    pty = Pty(tmp_path, *roots.args("call", "t"))
    pty.answer(prompt("Share these roots"), ENTER)
    assert pty.finish() == 7  # refused: nothing was shared
    assert len(roots.calls()) == 1
    look_alike = {"method": "elicitation/create", "params": {"mode": "url", "message": "Log in",
                                                            "url": "https://аpple.com/login"}}
    url = scripted(steps=[{"result": input_required({"link": look_alike})}, {"echo": True}])
    pty = Pty(tmp_path, *url.args("call", "t"), env={"BROWSER": "false"})
    pty.answer(prompt("What now"), ENTER)
    assert pty.finish() == 0
    assert url.calls()[1]["params"]["inputResponses"] == {"link": {"action": "decline"}}


def test_sampling_reply_by_hand(tmp_path: Path):
    pty = Pty(tmp_path, "call", "summarize", "-a", "text=Tides are caused by the moon.", "--demo", "--json")
    pty.expect("You are a concise assistant")
    pty.expect("Tides are caused by the moon")
    pty.answer(prompt("Answer this sampling request"), ENTER)
    pty.expect(prompt("Reply"))
    pty.expect(r"sends it\)")
    hints = [row for row in pty.rows() if "Enter" in row]
    assert hints == ["? Reply  (Alt+Enter, or Esc then Enter, sends it)"]  # the keys to press, said once
    pty.press("The moon pulls", ENTER, "the sea.", ALT_ENTER)
    pty.expect("✓ summary")
    rows = pty.rows()
    assert rows[rows.index("? Reply") + 1:][:2] == ["  The moon pulls", "  the sea."]
    assert pty.finish() == 0
    reply = received(pty)
    assert reply["content"] == {"type": "text", "text": "The moon pulls\nthe sea."} and reply["model"] == "mrtr"


def test_sampling_rejected_is_exit_7(tmp_path: Path):
    pty = Pty(tmp_path, "call", "summarize", "--demo", "--json")
    pty.answer(prompt("Answer this sampling request"), DOWN, ENTER)
    assert pty.finish() == 7
    assert "rejected" in pty.json()["error"]["message"]


def test_escape_on_sampling_refuses(tmp_path: Path):
    pty = Pty(tmp_path, "call", "summarize", "--demo")
    pty.answer(prompt("Answer this sampling request"), ESC)
    assert pty.finish() == 7


def test_roots_by_hand(tmp_path: Path):
    pty = Pty(tmp_path, "call", "workspace_roots", "--demo", "--json")
    pty.expect("these would be shared")
    pty.answer(prompt("Share these roots"), UP, UP, ENTER)  # from Refuse, where the pointer starts, to Add
    pty.answer(prompt("Path or file:// URI"), ESC)  # back to the menu, nothing added
    pty.answer(prompt("Share these roots"), UP, UP, ENTER)
    pty.answer(prompt("Path or file:// URI"), "/srv/data", ENTER)
    pty.answer(prompt("Share these roots"), UP, UP, UP, ENTER)  # Share
    assert pty.finish() == 0
    uris = [root["uri"] for root in received(pty)]
    assert uris[1] == "file:///srv/data" and uris[0].startswith("file:///")


def test_hostile_strings_at_the_prompt(tmp_path: Path, scripted):
    hostile = "\x1b]0;pwned\x07\x1b[2J\rfake ✓ complete [bold]x[/bold]"
    form = elicit(hostile, {"pick": {"type": "string", "title": hostile, "oneOf": [{"const": "a", "title": hostile}]}})
    server = scripted(steps=[{"result": input_required({"k" + hostile: form})}, {"result": text_result("ok")}])
    pty = Pty(tmp_path, *server.args("call", "t"))
    pty.answer("Send this answer|pwned", ENTER)
    pty.answer(prompt("Send this answer"), ENTER)
    assert pty.finish() == 0
    assert "\x1b]0;pwned" not in pty.screen and "\x1b[2J" not in pty.screen
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\rfake ✓ complete [bold]x[/bold]" in pty.screen


def test_a_session_by_hand_replays_without_a_person(tmp_path: Path):
    saved = tmp_path / "answers.yaml"
    pty = Pty(tmp_path, "call", "book_table", "--demo", "--json", "--save-answers", str(saved))
    pty.answer(prompt("Date *"), "2026-12-31", ENTER)
    pty.answer(prompt("Send this answer"), ENTER)
    pty.answer(prompt("Party size *"), "\x7f", "5", ENTER)
    pty.answer(prompt("Seating wishes"), SPACE, ENTER)
    pty.answer(prompt("Send this answer"), ENTER)
    pty.answer(prompt("Confirm the booking *"), ENTER)
    pty.answer(prompt("Send this answer"), ENTER)
    assert pty.finish() == 0
    by_hand = received(pty)
    again = mrtr("call", "book_table", "--demo", "--json", "--answers", str(saved), "--no-input")
    assert again.code == 0, again.stderr
    assert again.json()["result"]["structuredContent"]["received"] == by_hand
    assert by_hand["party"] == {"size": 5, "seating": ["window"]}


def test_replay_by_hand_names_the_sampling_model(tmp_path: Path):
    recording = yaml.safe_load((ROOT / "recordings" / "summarize.yaml").read_text(encoding="utf-8"))
    recording["rounds"][0]["answers"] = {}  # the recording does not answer: a person must
    transcript = tmp_path / "summarize.yaml"
    transcript.write_text(yaml.safe_dump(recording), encoding="utf-8")
    pty = Pty(tmp_path, "replay", str(transcript), "--demo", "--interactive", "--update", "--sampling-model", "tide-1")
    pty.answer(prompt("Answer this sampling request"), ENTER)
    pty.answer(prompt("Reply"), "The moon pulls the sea.", ALT_ENTER)
    assert pty.finish() == 6  # the live run answered otherwise than the recording
    answered = yaml.safe_load(transcript.read_text(encoding="utf-8"))["rounds"][0]["answers"]["summary"]
    assert answered["source"] == "interactive" and answered["response"]["model"] == "tide-1"


def test_titles_defaults_and_long_answers_at_a_narrow_terminal(tmp_path: Path, scripted):
    days = {"anyOf": [{"const": "mon", "title": "Monday"}, {"const": "tue", "title": "Tuesday"},
                      {"const": "wed", "title": "Wednesday"}]}
    form = elicit("Settings", {
        "news": {"type": "boolean", "title": "Newsletter"},
        "color": {"type": "string", "title": "Colour", "default": "#0f0",
                  "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]},
        "days": {"type": "array", "title": "Days", "items": days, "default": ["mon", "wed"]},
        "note": {"type": "string", "title": "Note"}}, required=[])
    server = scripted(steps=[{"result": input_required({"k": form})}, {"echo": True}])
    note = "Tides rise and fall twice a day because the moon and the sun pull on the oceans of the earth"
    pty = Pty(tmp_path, *server.args("call", "t"), columns=60)
    pty.expect(r"\(leave it out\)")
    assert [row for row in pty.rows() if row][-3:] == ["   yes", "   no", " » (leave it out)"]  # an optional boolean, no default: no pick
    pty.press(ENTER)
    pty.expect(prompt("Colour"))
    assert {"  Colour  choice, of Red (#f00), Green (#0f0), optional,", "  default Green (#0f0)"} <= set(pty.rows())
    pty.press(ENTER)
    pty.expect(prompt("Days"))
    assert "  Days  choices, of Monday (mon), Tuesday (tue), Wednesday" in pty.rows()  # wrapped at a word
    assert "  (wed), optional, default Monday (mon), Wednesday (wed)" in pty.rows()
    pty.press(ENTER)
    pty.answer(prompt("Note"), note, ENTER)
    pty.expect(prompt("Send this answer"))
    rows = pty.rows()
    assert {"? Newsletter (leave it out)", "? Colour Green (#0f0)", "? Days Monday (mon), Wednesday (wed)"} <= set(rows)
    answered = rows.index("? Note")
    review = rows.index("  review:")
    assert words(rows[answered + 1:review]) == note.split()  # under the prompt, wrapped at word boundaries
    assert [spaced(row) for row in rows[review + 1:review + 4]] == [
        "Newsletter (left out)", "Colour Green (#0f0)", "Days Monday (mon), Wednesday (wed)"]
    ends = next(n for n, row in enumerate(rows) if row.startswith("? Send this answer"))
    assert words(rows[review + 4:ends]) == ["Note", *json.dumps(note).split()]
    pty.press(ENTER)
    assert pty.finish() == 0
    rows = pty.rows()
    line = rows[rows.index(next(row for row in rows if row.startswith("  ✓ k ← accept"))):]
    line = line[:next(n for n, row in enumerate(line) if row.startswith("↻"))]
    content = {"color": "#0f0", "days": ["mon", "wed"], "note": note}
    sent = json.dumps(content, separators=(",", ":"))  # as sent, compact, as every timeline line shows JSON
    whole = f"✓ k ← accept {sent} from interactive"  # the gaps between its parts as one space each
    assert "".join(words(line)) == "".join(whole.split())
    position = 0
    for row in (" ".join(row.split()) for row in line):  # each row starts at a word or after a comma between values
        start = whole.index(row, position)
        assert start == 0 or whole[start - 1] in " ,", (row, line)
        position = start + len(row)
    assert all(row.startswith("    ") for row in line[1:])  # the answer line's rows indented under it
    assert server.calls()[1]["params"]["inputResponses"] == {"k": {"action": "accept", "content": content}}
