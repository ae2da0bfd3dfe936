"""`mrtr serve` of many transcripts: requests are matched through an index made at start, with the
answers the scan it replaced gave (the first transcript recording a request wins; 1 is 1.0)."""

from __future__ import annotations

import copy
import socket
from pathlib import Path

import pytest

from conftest import PYTHON, ROOT, mrtr_here
from mrtr_cli.fileio import yaml_dumper, yaml_loader
from mrtr_cli.server.app import Call, RpcError
from mrtr_cli.server.dispatcher import Dispatcher
from mrtr_cli.server.mock import MockApp
from mrtr_cli.transcript import model
from peers import request

RECORDING = ROOT / "recordings" / "book_table.yaml"


def variants(tmp_path: Path, changes: list) -> list[model.Transcript]:
    """book_table.yaml once per change, each change applied to a copy of its document."""
    original = yaml_loader.load_file(RECORDING, "transcript")
    paths = []
    for number, change in enumerate(changes):
        document = copy.deepcopy(original)
        change(document)
        paths.append(tmp_path / f"t{number}.yaml")
        paths[-1].write_text(yaml_dumper.dumps(document), encoding="utf-8")
    return [model.load(str(path)) for path in paths]


def city(name, tool: str = "book_table"):
    def change(document):
        document["request"]["params"].update(name=tool, arguments={"city": name})
        document["tool"] = {"name": tool, "inputSchema": {"type": "object"}}
        for entry in document["rounds"]:
            entry["sent"]["params"].update(name=tool, arguments={"city": name})
    return change


def first_reply(app: MockApp, tool: str, arguments: dict) -> dict:
    return Dispatcher(app).handle(request(1, "tools/call", {"name": tool, "arguments": arguments})).message


def served_transcript(app: MockApp, tool: str, arguments: dict) -> int:
    """The index of the transcript a first request of `tool` with `arguments` is served from."""
    return app._match(Call("tools/call", tool, arguments, {}, None, {}))


def test_each_request_reaches_the_transcript_that_recorded_it(tmp_path: Path):
    transcripts = variants(tmp_path, [city(f"city {n}", f"tool_{n % 7}") for n in range(60)])
    app = MockApp(transcripts)
    for n in (0, 1, 33, 59):
        assert served_transcript(app, f"tool_{n % 7}", {"city": f"city {n}"}) == n
    assert first_reply(app, "tool_3", {"city": "city 10"})["result"]["resultType"] == "input_required"


def test_the_first_transcript_of_a_request_recorded_twice_wins_and_numbers_compare_by_value(tmp_path: Path):
    app = MockApp(variants(tmp_path, [city("Porto"), city(7), city("Porto"), city(7.0), city([1, {"a": True}])]))
    assert served_transcript(app, "book_table", {"city": "Porto"}) == 0
    assert served_transcript(app, "book_table", {"city": 7.0}) == 1
    assert served_transcript(app, "book_table", {"city": [1.0, {"a": 1}]}) == 4  # == says True is 1
    with pytest.raises(RpcError):
        served_transcript(app, "book_table", {"city": [1]})


def test_a_request_nobody_recorded_names_the_nearest(tmp_path: Path):
    app = MockApp(variants(tmp_path, [city("Porto"), city("Faro")]))
    error = first_reply(app, "book_table", {"city": "Fara"})["error"]
    assert error["code"] == -32602
    assert error["message"].startswith("Invalid params: no recorded conversation is tools/call 'book_table' with "
                                       'arguments {"city": "Fara"}; the nearest, in ')
    assert first_reply(app, "book_table", {"city": ["Porto"]})["error"]["code"] == -32602  # a list is not a text


def test_the_listing_is_made_once_and_keeps_the_first_definition_of_each_tool(tmp_path: Path):
    transcripts = variants(tmp_path, [city("Porto", "b"), city("Faro", "a"), city("Braga", "b")])
    transcripts[2].data["tool"]["description"] = "a later definition"
    app = MockApp(transcripts)
    names = [tool["name"] for tool in app.listing("tools")]
    assert names == ["b", "a"] and app.listing("tools") is app.listing("tools")
    assert app.tool("b") is app.listing("tools")[0] and app.tool("missing") is None
    page = Dispatcher(app).handle(request(2, "tools/list")).message["result"]
    assert [tool["name"] for tool in page["tools"]] == ["b", "a"]
    for method in ("prompts/list", "resources/templates/list"):  # not recorded: not declared, not served
        assert Dispatcher(app).handle(request(3, method)).message["error"]["code"] == -32601
    assert app.capabilities() == {"tools": {}}


def test_check_of_a_served_recording_finds_nothing_wrong(tmp_path: Path):
    """The mock declares exactly what it serves (tools, here) and answers -32601 for the rest: the
    lists it does not serve included, which check holds to the declared capabilities."""
    path = tmp_path / "two_questions.yaml"
    answers = ("--answers", "examples/two_questions.yaml")
    recorded = mrtr_here("call", "two_questions", "--demo", *answers, "--record", str(path))
    assert recorded.code == 0, recorded.stderr
    run = mrtr_here("check", "--tool", "two_questions", *answers, "--json", "--", PYTHON, "-m", "mrtr_cli", "serve",
                    str(path))
    assert run.code == 0, run.stderr
    checks = {check["id"]: check for check in run.json()["checks"]}
    assert {id for id, check in checks.items() if check["status"] in ("fail", "warn")} == set()
    assert checks["capabilities-match"]["seen"] == "declared ['tools']"
    assert checks["completes-after-several"]["status"] == "pass"


def test_serve_says_a_failure_as_every_command_does():
    """`✗ what happened; what to do`, not `mrtr: ...`: a port taken, then a transcript missing."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = mrtr_here("serve", str(RECORDING), "--http", f"127.0.0.1:{port}")
    assert run.code == 4 and run.stderr.startswith(f"✗ cannot listen on 127.0.0.1:{port}: "), run.stderr
    missing = mrtr_here("serve", "no-such-transcript.yaml")
    assert missing.code == 1 and missing.stderr.startswith("✗ ") and "no-such-transcript.yaml" in missing.stderr


BOOKED = {"date": {"date": "2026-12-24"}, "party": {"size": 4, "seating": ["window", "quiet"]},
          "confirm": {"confirm": True}}
"""The answers of examples/book_table.yaml, as an SDK client gives them."""


@pytest.fixture(scope="module")
def branching(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """book_table recorded twice from the demo: round 1 (the date) accepted in one, declined in the other."""
    directory = tmp_path_factory.mktemp("branching")
    accepted, declined = str(directory / "accepted.yaml"), str(directory / "declined.yaml")
    for path, answers in ((accepted, ("--answers", "examples/book_table.yaml")),
                          (declined, ("--answer", "date=decline"))):
        recorded = mrtr_here("call", "book_table", "--demo", *answers, "--record", path)
        assert recorded.code == 0, recorded.stderr
    return [accepted, declined]


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_serve_follows_the_recording_whose_answers_the_retry_gives(branching: list[str], order: tuple[int, int]):
    """mrtr itself calls the served pair, in either order of the files: the date accepted follows the
    booking to its end, declined follows the refusal; an answer neither recorded names the difference."""
    served = ["--", PYTHON, "-m", "mrtr_cli", "serve", *(branching[i] for i in order)]
    booked = mrtr_here("call", "book_table", "--answers", "examples/book_table.yaml", "--json", *served)
    assert booked.code == 0, booked.stderr
    assert booked.json()["result"]["structuredContent"]["received"] == BOOKED
    refused = mrtr_here("call", "book_table", "--answer", "date=decline", "--json", *served)
    assert refused.code == 0, refused.stderr
    assert refused.json()["result"]["content"][0]["text"] == "No booking made: you chose decline at the date question."
    other = mrtr_here("call", "book_table", "--answer", "date=cancel", *served)
    assert other.code == 2 and "the answer to 'date' differs from the recording in " in other.stderr, other.stderr
    assert "action is \"cancel\", recorded " in other.stderr


def test_an_sdk_client_takes_either_path_of_one_served_pair(branching: list[str]):
    """A client nobody here wrote (the PyPI `mcp` SDK's MRTR loop) gets both paths from one server."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.types import ElicitResult

    served = StdioServerParameters(command=PYTHON, args=["-m", "mrtr_cli", "serve", *branching], cwd=str(ROOT))

    def call(decline: bool) -> dict:
        async def answer(context: object, params: object) -> ElicitResult:
            if decline:
                return ElicitResult(action="decline")
            field = next(iter(params.requested_schema["properties"]))  # type: ignore[attr-defined]
            key = {"date": "date", "size": "party", "confirm": "confirm"}[field]
            return ElicitResult(action="accept", content=BOOKED[key])

        async def run() -> dict:
            async with Client(served, elicitation_callback=answer) as client:
                result = await client.call_tool("book_table", {})
                return {"text": result.content[0].text, "received": result.structured_content["received"]}
        return anyio.run(run)

    assert call(decline=False)["received"] == BOOKED
    assert call(decline=True)["text"] == "No booking made: you chose decline at the date question."
