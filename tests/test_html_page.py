"""`--html FILE` on call, show, replay and check, opened in a real headless browser (tests/browser.py):
the screenshot is not blank, the DOM holds every round, question, answer and finding, no request
leaves the page, and a hostile server's markup stays text. And, for any text, the page parsed back
with html.parser gives that text (control characters as text.py's visible escapes)."""

from __future__ import annotations

import html.parser
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings, strategies

from browser import distinct_colours, dom, screenshot
from conftest import PYTHON, ROOT, SERVERS, mrtr_here
from mrtr_cli.render.html_page import MAX_CONVERSATIONS, conversation, conversations, page
from mrtr_cli.text import safe

BOOK_TABLE = ROOT / "recordings" / "book_table.yaml"
BOOK = ("book_table", "--demo", "--answers", "examples/book_table.yaml")


class Counted(http.server.BaseHTTPRequestHandler):
    """A server that only counts what reaches it: the page must send it nothing."""

    paths: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        Counted.paths.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[str]:
    """`http://127.0.0.1:PORT`, a server that records every request made to it."""
    Counted.paths = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Counted)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class Parsed(html.parser.HTMLParser):
    """The elements and text of a page, as a browser's parser tokenizes it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.texts.append(data)


def parsed(text: str) -> Parsed:
    parser = Parsed()
    parser.feed(text)
    parser.close()
    return parser


def hostile_transcript(folder: Path, listener: str) -> Path:
    """book_table.yaml, its second question's message markup that would load, run and restyle."""
    document = yaml.safe_load(BOOK_TABLE.read_text())
    markup = (f"<script>document.title='pwned';fetch('{listener}/script')</script><img src='{listener}/img'>"
              f"<link rel=stylesheet href='{listener}/css'><style>@import url('{listener}/import');</style>"
              f"<iframe src='{listener}/frame'></iframe>")
    document["rounds"][1]["received"]["result"]["inputRequests"]["party"]["params"]["message"] = markup
    path = folder / "hostile.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def test_a_call_is_a_page_with_every_round_question_and_answer(tmp_path: Path):
    page_path = tmp_path / "call.html"
    done = mrtr_here("call", *BOOK, "--html", str(page_path))
    assert done.code == 0, done.stderr
    shown = dom(page_path, tmp_path)
    tags = parsed(shown).tags
    rounds = [attrs["data-round"] for tag, attrs in tags if tag == "li"]
    assert rounds == ["1", "2", "3", "4"]
    assert [attrs["data-question"] for _, attrs in tags if "data-question" in attrs] == ["date", "party", "confirm"]
    assert [attrs["data-answer"] for _, attrs in tags if "data-answer" in attrs] == ["date", "party", "confirm"]
    text = " ".join(parsed(shown).texts)
    assert "from answers-file" in " ".join(text.split()) and "requestState: " in text and " ms" in text
    assert "Booked a table" in text
    assert "eyJ" not in shown  # the requestState's size only, never its bytes
    picture = screenshot(page_path, tmp_path)
    assert distinct_colours(picture) > 20  # not a blank page


def test_show_state_shows_the_state_itself(tmp_path: Path):
    page_path = tmp_path / "show.html"
    assert mrtr_here("show", str(BOOK_TABLE), "--html", str(page_path), "--show-state").code == 0
    assert yaml.safe_load(BOOK_TABLE.read_text())["rounds"][0]["received"]["result"]["requestState"] \
        in page_path.read_text()


def test_a_finding_is_on_its_round_with_its_rule_page(tmp_path: Path):
    page_path = tmp_path / "finding.html"
    mrtr_here("call", "book_table", "--answers", "examples/book_table.yaml", "--no-elicitation", "--no-input",
         "--html", str(page_path), "--", PYTHON, str(SERVERS / "broken_server.py"), "asks-withheld")
    shown = parsed(dom(page_path, tmp_path))
    (finding,) = [attrs for _, attrs in shown.tags if attrs.get("data-rule")]
    assert finding["data-rule"] == "undeclared-capability"
    links = [attrs["href"] for tag, attrs in shown.tags if tag == "a"]
    assert any(link.endswith("basic/patterns/mrtr#server-requirements-basic-workflow") for link in links)


def test_a_hostile_servers_markup_stays_text_and_no_request_leaves_the_page(tmp_path: Path, listener: str):
    hostile = hostile_transcript(tmp_path, listener)
    page_path = tmp_path / "hostile.html"
    assert mrtr_here("show", str(hostile), "--html", str(page_path)).code == 0
    shown = dom(page_path, tmp_path)
    tags = parsed(shown).tags
    assert {tag for tag, _ in tags} & {"script", "img", "iframe", "link"} == set()
    assert [tag for tag, _ in tags].count("style") == 1  # the page's own
    assert "<title>mrtr show" in shown and "pwned" not in shown.split("</title>")[0]
    assert f"<script>document.title='pwned';fetch('{listener}/script')</script>" in "".join(parsed(shown).texts)
    screenshot(page_path, tmp_path, "hostile.png")
    assert Counted.paths == []


def test_replay_shows_each_difference_beside_its_recorded_round(tmp_path: Path, listener: str):
    hostile = hostile_transcript(tmp_path, listener)
    shutil.copy(BOOK_TABLE, tmp_path / "same.yaml")
    page_path = tmp_path / "replay.html"
    done = mrtr_here("replay", str(tmp_path / "same.yaml"), str(hostile), "--demo", "--html", str(page_path))
    assert done.code == 6, done.stderr
    shown = dom(page_path, tmp_path)
    tags = parsed(shown).tags
    sections = [attrs["data-name"] for tag, attrs in tags if tag == "section"]
    assert [Path(name).name for name in sections] == ["same.yaml", "hostile.yaml"]
    differing = [attrs["data-round"] for tag, attrs in tags if tag == "li" and "differs" in (attrs["class"] or "")]
    assert differing == ["2"]
    text = " ".join(parsed(shown).texts)
    assert "same as recorded" in text and "diverged: 1 difference" in text
    assert "How many people, and any seating wishes?" in text  # the live side, beside the recorded one
    assert distinct_colours(screenshot(page_path, tmp_path, "replay.png")) > 20
    assert Counted.paths == []


def test_check_is_its_checklist_grouped_by_level(tmp_path: Path):
    page_path = tmp_path / "check.html"
    done = mrtr_here("check", "--html", str(page_path), "--", PYTHON, str(SERVERS / "broken_server.py"),
                "meta-not-required")
    assert done.code == 2
    tags = parsed(dom(page_path, tmp_path)).tags
    assert [attrs["id"] for tag, attrs in tags if tag == "h3"] == ["level-MUST", "level-SHOULD"]
    rows = [(attrs["data-check"], attrs["class"]) for tag, attrs in tags if tag == "tr" and "data-check" in attrs]
    assert rows[0] == ("meta-required", "check fail")  # what fails first
    assert len({check for check, _ in rows}) == len(rows) > 20
    assert "<h1>mrtr check · " in page_path.read_text() and "broken_server.py" in page_path.read_text().split(
        "</h1>")[0]  # a shared page says which server it judged
    assert distinct_colours(screenshot(page_path, tmp_path, "check.png")) > 20


def test_an_unwritable_page_is_exit_1_before_anything_runs(tmp_path: Path):
    path = str(tmp_path / "missing" / "p.html")
    for command in (["call", *BOOK], ["check", "--demo"], ["show", str(BOOK_TABLE)]):
        done = mrtr_here(*command, "--html", path)
        assert done.code == 1 and done.stderr == f"✗ cannot write --html '{path}': its folder does not exist; " \
            "pick another path\n", done.stderr


def test_a_page_holds_a_bounded_number_of_conversations():
    document = yaml.safe_load(BOOK_TABLE.read_text())
    shown = "".join(conversations([(f"t{n}.yaml", document) for n in range(MAX_CONVERSATIONS + 3)]))
    assert shown.count("<section") == MAX_CONVERSATIONS and "3 more conversations not shown" in shown


@settings(max_examples=200, deadline=None)
@given(strategies.text())
def test_any_server_text_comes_back_as_that_text(text: str):
    document = {"request": {"method": "tools/call", "params": {"name": "t"}},
                "rounds": [{"round": 1, "id": 1, "sent": {"params": {}}, "received": {"result": {
                    "resultType": "input_required",
                    "inputRequests": {"q": {"method": "elicitation/create", "params": {"message": text}}}}}}]}
    parser = MessageText()
    parser.feed(page("title", [conversation("c", document)]))
    parser.close()
    assert parser.message == safe(text)


class MessageText(html.parser.HTMLParser):
    """The text of the page's one question message (div class="message")."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside = False
        self.message = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.inside = ("class", "message") in attrs

    def handle_endtag(self, tag: str) -> None:
        self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.message += data


def test_each_round_names_the_instance_it_went_to(tmp_path: Path):
    page_path = tmp_path / "hops.html"
    done = mrtr_here("call", *BOOK, "--restart-between-rounds", "--html", str(page_path),
                env={"MRTR_DEMO_STATE_KEY": "shared by every instance"})
    assert done.code == 0, done.stderr
    shown = parsed(dom(page_path, tmp_path))
    text = " ".join(shown.texts)
    assert "instance first start (#0)" in text and "instance restart 3 (#3)" in text


def test_a_tasks_statuses_are_on_the_page(tmp_path: Path):
    page_path = tmp_path / "task.html"
    done = mrtr_here("call", "deploy_service", "-a", "service=web", "--demo", "--answer", "approve.approve=true",
                "--html", str(page_path))
    assert done.code == 0, done.stderr
    shown = parsed(dom(page_path, tmp_path))
    statuses = [text for text in shown.texts if text in ("working", "input_required", "completed")]
    assert statuses[0] == "working" and "input_required" in statuses and statuses[-1] == "completed"
    assert "Building web (step 1 of 3)" in shown.texts
