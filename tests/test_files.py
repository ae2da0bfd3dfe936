"""Hostile files: answers files, transcripts, `--config` and `--args @FILE` (issue 11, items 9 and 10).

Every broken file is exit 1 and one line, `FILE:LINE:COLUMN: what is wrong`, with either YAML
loader (libyaml, pure Python); nothing reaches "unexpected failure" or a traceback.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from conftest import ROOT, mrtr_here
from mrtr_cli.fileio import files, yaml_dumper, yaml_loader
from mrtr_cli.answering.answers_file import load_answers_file
from mrtr_cli.errors import UsageError


@pytest.fixture(params=[True, False], ids=["libyaml", "pure"])
def loader(request, monkeypatch):
    """Both YAML loaders: libyaml's (when installed) and the pure-Python fallback."""
    import yaml

    if request.param and not yaml.__with_libyaml__:
        pytest.fail("libyaml is not installed in this environment: the fast loader goes untested")
    monkeypatch.setattr(yaml_loader, "USE_LIBYAML", request.param)
    return request.param


def laughs(levels: int = 9) -> str:
    """A billion laughs: each line repeats the one above nine times (9**levels values)."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


HOSTILE_YAML = [
    ("answers:\n  d: {content: {day: 2026-02-30}}\n", "2:22", "'2026-02-30', which is not a real date"),
    ("answers:\n  n: {content: {n: " + "9" * 5000 + "}}\n", "2:20", "an integer of more than 4300 digits"),
    ("answers: " + "[" * 150 + "]" * 150 + "\n", "1:109", "nests deeper than 100 levels"),
    ("answers: " + "[" * 100_000 + "]" * 100_000 + "\n", "1:", "nest"),
    ("answers:\n  k: {text: \"a\x01b\"}\n", "2:15", "control character U+0001"),
    ("answers: {}\n\x00\n", "2:1", "control character U+0000"),
    (laughs(), "5:5", "repeats more than 100000 values through aliases"),
    ("a: &a [*a]\n", "1:4", "nests deeper than 100 levels"),
    ("a: 1\n---\nb: 2\n", "2:1", "but found another document"),
    ("? [a]\n: 1\n", "1:3", "a key that is a list or a mapping"),
    ("a: !!set {x}\n", "1:4", "tag:yaml.org,2002:set"),
    ("a: !!python/object/apply:os.system ['true']\n", "1:4", "never accepted"),
    ("a: [1, 2\nb: {\n", "2:", "not valid YAML"),
]


@pytest.mark.parametrize("text,place,message", HOSTILE_YAML, ids=lambda v: repr(v)[:20])
def test_hostile_yaml_is_one_line_with_its_place(tmp_path: Path, loader, text: str, place: str, message: str):
    path = tmp_path / "a.yaml"
    path.write_text(text)
    with pytest.raises(UsageError) as caught:
        yaml_loader.load_file(path, "answers file")
    line = caught.value.one_line()
    assert line.startswith(f"{path}:{place}") and message in line and "\n" not in line


def test_dates_and_keys_stay_text_as_written(tmp_path: Path, loader):
    path = tmp_path / "a.yaml"
    path.write_text("{1: 2, yes: 2026-12-24, at: 2026-12-24T10:00:00Z, null: [a]}\n")
    assert yaml_loader.load_file(path, "answers file") == {"1": 2, "yes": "2026-12-24", "at": "2026-12-24T10:00:00Z",
                                                      "null": ["a"]}


def test_a_few_aliases_still_work(tmp_path: Path, loader):
    path = tmp_path / "a.yaml"
    path.write_text("answers:\n  a: &same {content: {name: Ada}}\n  b: *same\n  c: {<<: *same, action: accept}\n")
    answers = load_answers_file(str(path)).answers
    assert answers["a"] == answers["b"] == {"content": {"name": "Ada"}}
    assert answers["c"] == {"content": {"name": "Ada"}, "action": "accept"}


def test_an_unquoted_date_answers_a_date_field(tmp_path: Path):
    answers = tmp_path / "a.yaml"
    answers.write_text("answers:\n  date: {content: {date: 2026-12-24}}\n  party: {content: {size: 4}}\n"
                       "  confirm: {content: {confirm: true}}\n")
    run = mrtr_here("call", "book_table", "--demo", "--answers", str(answers), "--json")
    assert run.code == 0, run.stderr
    assert run.json()["result"]["structuredContent"]["received"]["date"] == {"date": "2026-12-24"}


def one_line_exit_1(run, path: str, *needles: str) -> str:
    """Exit 1, and the error on the last line of stderr (above it only the timeline, if anything ran)."""
    assert run.code == 1, run.stderr
    assert "unexpected" not in run.stderr and "Traceback" not in run.stderr, run.stderr
    line = run.stderr.strip().splitlines()[-1]
    assert path in line and all(needle in line for needle in needles), line
    return line


ANSWERS_FILES = [
    ("answers:\n  workspace:\n    roots: true\n", ":3:12: answers.workspace.roots: expected a list of roots, found true"),
    ("answers:\n  d: {content: {day: 2026-02-30}}\n", ":2:22: the answers file holds '2026-02-30'"),
    ("answers:\n  n: {content: {n: " + "9" * 5000 + "}}\n", ":2:20: the answers file holds an integer"),
    ("answers:\n  k: {text: \"a\x01b\"}\n", ":2:15: the answers file holds the control character"),
    ("", ": the answers file is empty"),
    ("- a list\n", ":1:1: the document: expected a mapping with answers: and match:"),
    ("{1: 2}\n", ":1:5: unknown key '1' (known here: answers, match)"),
    ("answers:\n  k: [1]\n", ":2:6: answers.k: expected an answer"),
    ("match:\n  - method: ping\n    response: {}\n", ":2:13: match[0].method: expected one of"),
    ("match:\n  - method: roots/list\n    message: '('\n    response: {}\n", ":3:14: match[0].message is not a valid"),
    ("answers:\n  k: {content: {a: 1}, roots: [{name: x}]}\n", ":2:32: answers.k.roots[0]: lacks 'uri'"),
    (laughs(), ":5:5: the answers file repeats more than 100000 values"),
]


@pytest.mark.parametrize("text,message", ANSWERS_FILES, ids=lambda v: repr(v)[:24])
def test_a_broken_answers_file_is_exit_1_with_file_line_column(tmp_path: Path, text: str, message: str):
    path = tmp_path / "a.yaml"
    path.write_text(text)
    run = mrtr_here("call", "book_table", "--demo", "--answers", str(path))
    one_line_exit_1(run, f"{path}{message}")


def test_binary_junk_a_directory_and_dev_zero_as_answers_files(tmp_path: Path):
    junk = tmp_path / "junk.yaml"
    junk.write_bytes(b"answers:\n  k: \xff\xfe\x00\x95junk\n")
    one_line_exit_1(mrtr_here("call", "book_table", "--demo", "--answers", str(junk)), f"{junk}:2:6:", "not UTF-8")
    one_line_exit_1(mrtr_here("call", "book_table", "--demo", "--answers", str(tmp_path)), str(tmp_path), "cannot read")
    one_line_exit_1(mrtr_here("call", "book_table", "--demo", "--answers", "/dev/zero"), "/dev/zero",
                    "larger than 16 MiB")


def test_an_endless_fifo_stops_at_the_size_limit(tmp_path: Path):
    fifo = tmp_path / "answers.yaml"
    os.mkfifo(fifo)

    def write_endlessly() -> None:
        try:
            with open(fifo, "wb") as pipe:
                for _ in range(64):  # 64 MiB at most: past the limit, bounded if the reader never stops
                    pipe.write(b"#" * files.MEBIBYTE)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=write_endlessly, daemon=True)
    writer.start()
    one_line_exit_1(mrtr_here("call", "book_table", "--demo", "--answers", str(fifo)), str(fifo), "larger than 16 MiB")
    writer.join(timeout=30)
    assert not writer.is_alive()


def transcript_with(tmp_path: Path, change) -> Path:
    document = yaml_loader.load_file(ROOT / "recordings" / "two_questions.yaml", "transcript")
    change(document)
    path = tmp_path / "t.yaml"
    path.write_text(yaml_dumper.dumps(document))
    return path


def test_a_request_without_its_name_is_refused_before_serving(tmp_path: Path):
    path = transcript_with(tmp_path, lambda d: d["request"]["params"].pop("name"))
    line = path.read_text().splitlines().index("  params:") + 2
    for command in ("show", "serve"):
        one_line_exit_1(mrtr_here(command, str(path)), f"{path}:{line}:5: request.params: lacks 'name', which is required")


def test_a_transcript_of_the_wrong_shape_is_refused_by_show_serve_and_replay(tmp_path: Path):
    path = transcript_with(tmp_path, lambda d: d["rounds"][1]["sent"]["params"].update(inputResponses=[1, 2]))
    line = path.read_text().splitlines().index("      inputResponses:") + 2  # the list starts below its key
    for command in ("show", "serve", "replay"):
        one_line_exit_1(mrtr_here(command, str(path)), f"{path}:{line}:7: rounds[1].sent.params.inputResponses: "
                                                  "expected a mapping of question keys to responses, found a list")


def test_an_answers_file_or_a_config_named_as_a_transcript_is_said_to_be_one(tmp_path: Path):
    """show, serve and replay say what the file is and where it goes, not which transcript part it lacks."""
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"work": {"command": "true"}}}))
    stranger = tmp_path / "notes.yaml"
    stranger.write_text("title: not a recording\n")
    cases = {"examples/book_table.yaml": "examples/book_table.yaml: not an mrtr transcript: it looks like an answers "
                                         "file (answers:/match:); use it with --answers",
             str(config): f"{config}: not an mrtr transcript: it looks like an mcpServers config file (mcpServers:); "
                          "use it with --config FILE --server NAME",
             str(stranger): f"{stranger}: not an mrtr transcript: it has no mrtr_transcript: line"}
    for path, message in cases.items():
        for command in ("show", "serve", "replay"):
            assert one_line_exit_1(mrtr_here(command, path), path).startswith(f"✗ {message}"), command


def test_hostile_transcripts_are_one_line_for_show_and_serve(tmp_path: Path):
    good = (ROOT / "recordings" / "two_questions.yaml").read_text()
    cases = {"laughs.yaml": (laughs(), "repeats more than 100000 values"),
             "date.yaml": (good.replace("by: mrtr 0.1.0", "by: 2026-02-30"), "4:7: the transcript holds '2026-02-30'"),
             "empty.yaml": ("", "the transcript is empty"),
             "nul.yaml": (good + "\x00", "the control character U+0000"),
             "hex.yaml": (good.replace("arguments: {}", "arguments: {n: 0x" + "f" * 4000 + "}", 1),
                          "21:20: the transcript holds an integer of more than 4300 digits")}
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        for command in ("show", "serve"):
            one_line_exit_1(mrtr_here(command, str(path)), str(path), message)


CONFIGS = [
    ({"mcpServers": {"x": {"command": "true", "env": 5}}}, "5:14: mcpServers.x.env: expected an object of environment"),
    ({"mcpServers": {"x": {"command": "true", "cwd": {}}}}, "5:14: mcpServers.x.cwd: expected a directory"),
    ({"servers": {"x": {"url": ["http://a"]}}}, "4:14: servers.x.url: expected a URL (a string), found a list"),
    ({"mcpServers": {"x": 3}}, "3:10: mcpServers.x: expected a server"),
    ({"mcpServers": {"x": {"command": "tr\x00ue"}}}, "4:18: the --config file's command of server 'x' holds a NUL"),
    ({"mcpServers": {"x": {"command": "true", "args": ["-", "\x00"]}}}, "7:9: the --config file's args[1] of server"),
    ({"mcpServers": {"x": {"command": "true", "env": {"A\x00": "1"}}}}, "5:14: the --config file's env of server"),
]


@pytest.mark.parametrize("document,message", CONFIGS, ids=lambda v: repr(v)[:30])
def test_a_config_entry_of_the_wrong_shape_is_exit_1(tmp_path: Path, document, message: str):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps(document, indent=2))
    one_line_exit_1(mrtr_here("call", "t", "--config", str(config), "--server", "x"), f"{config}:{message}")


JSON_FILES = [
    ('{"mcpServers": ' + "[" * 5000 + "]" * 5000 + "}", "1:115: the {what} nests deeper than 100 levels"),
    ('{"a": {"b": [1, ' + "7" * 5000 + "]}}", "1:17: the {what} has an integer of more than 4300 digits"),
    ('{"a": "1.' + "7" * 5000 + '", "b": [\n', "2:1: the {what} is not valid JSON"),
]


@pytest.mark.parametrize("text,message", JSON_FILES, ids=lambda v: repr(v)[:24])
def test_hostile_json_files_are_exit_1_with_their_place(tmp_path: Path, text: str, message: str):
    path = tmp_path / "f.json"
    path.write_text(text)
    one_line_exit_1(mrtr_here("call", "t", "--config", str(path), "--server", "x"),
                    f"{path}:{message.format(what='--config file')}")
    one_line_exit_1(mrtr_here("call", "book_table", "--demo", "--args", f"@{path}"),
                    f"{path}:{message.format(what='--args file')}")


def test_json_with_a_long_float_and_bad_utf8(tmp_path: Path):
    assert files.parse_json('{"x": 1.' + "5" * 5000 + "}", "x", "y")["x"] == 1.5555555555555556
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"mcpServers": {"x": {"command": "\xff"}}}')
    one_line_exit_1(mrtr_here("call", "t", "--config", str(path), "--server", "x"), f"{path}:1:35:", "not UTF-8")
