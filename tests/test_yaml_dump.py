"""Writing YAML: libyaml's emitter where it writes what the pure-Python one writes, the pure one elsewhere.

The transcript bytes must not depend on whether libyaml is installed: the two emitters give the
same bytes on recordings/ and on a benchmark's transcript (a 200-round conversation, a 2 MB
result), and wherever they would differ (characters beyond U+FFFF, tabs, long keys) `dumps`
takes the pure emitter, while libyaml's text still reads back as the same data. Long texts
`dumps` sets aside (base64 and the like) are put back exactly where the emitters write them.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from conftest import ROOT, mrtr_here
from mrtr_cli.fileio import yaml_dumper, yaml_emitters, yaml_loader

RECORDINGS = sorted((ROOT / "recordings").glob("*.yaml"))
BENCH_SERVER = f"{sys.executable} {ROOT / 'benchmarks' / 'server.py'}"


def written(data, libyaml: bool, monkeypatch) -> str:
    monkeypatch.setattr(yaml_dumper, "USE_LIBYAML", libyaml)
    return yaml_dumper.dumps(data)


def libyaml_text(data) -> str:
    """What libyaml's emitter writes, asked directly (dumps would not use it where it differs)."""
    import yaml

    return yaml.dump(data, Dumper=yaml_dumper._dumpers()[True], sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)


def test_libyaml_is_there_to_test():
    import yaml

    assert yaml.__with_libyaml__, "libyaml is not installed in this environment: the fast emitter goes untested"
    assert yaml_dumper._dumpers()[True] is not yaml_dumper._dumpers()[False]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_both_emitters_write_each_recording_as_it_is(path: Path, monkeypatch):
    document = yaml_loader.load_file(path, "transcript")
    assert yaml_emitters.emitters_agree(document)  # so the fast emitter is the one used
    text = path.read_text(encoding="utf-8")
    assert written(document, True, monkeypatch) == text
    assert written(document, False, monkeypatch) == text


@pytest.mark.parametrize("tool,value", [("ask", 200), ("big", 2_000_000)])
def test_both_emitters_write_a_benchmark_transcript_alike(tool: str, value: int, tmp_path: Path, monkeypatch):
    path = tmp_path / "t.yaml"
    key = "n" if tool == "ask" else "size"
    run = mrtr_here("call", tool, "--args", f'{{"{key}": {value}}}', "--answer", "step.ok=true", "--max-rounds", "1000",
               "--record", str(path), "--stdio", BENCH_SERVER)
    assert run.code == 0, run.stderr
    document = yaml_loader.load_file(path, "transcript")
    assert yaml_emitters.emitters_agree(document)
    assert written(document, True, monkeypatch) == written(document, False, monkeypatch) == path.read_text()
    assert emitted(document, False, monkeypatch) == path.read_text()  # long texts set aside or not


AWKWARD = ["emoji \U0001F600 in text", "a tab\there", "line \nwith a trailing space", "bell \x07", "next \x85 line",
           "byte order \ufeff mark", "para\u2028graph", "soft\u00adhyphen\nline",
           "long words " * 40 + "\ntrailing "]


@pytest.mark.parametrize("text", AWKWARD)
def test_where_the_emitters_differ_the_pure_one_writes_and_the_data_is_equal(text: str, monkeypatch):
    for document in ({"k": text}, {text: [text, {"x": text}]}, [[{"deep": {"er": text}}]]):
        assert not yaml_emitters.emitters_agree(document)
        assert written(document, True, monkeypatch) == written(document, False, monkeypatch)
        assert yaml_loader.loads(libyaml_text(document), "t.yaml", "transcript").data == document


@pytest.mark.parametrize("key", ["", "a long key " * 4 + "é" * 80])
def test_empty_and_long_keys_are_written_by_the_pure_emitter(key: str, monkeypatch):
    document = {"k": {key: "value"}}
    assert not yaml_emitters.emitters_agree(document)
    assert written(document, True, monkeypatch) == written(document, False, monkeypatch)
    assert yaml_loader.loads(libyaml_text(document), "t.yaml", "transcript").data == document


def test_random_text_is_written_the_same_with_and_without_libyaml(monkeypatch):
    alphabet = "ab    \n\t:-#'\"é日{}[],?!&*|>%@`\\~.0\x01\u2028\U0001F600\x85"
    chance = random.Random(16)
    agreed = 0
    for _ in range(2000):
        text = "".join(chance.choice(alphabet) for _ in range(chance.choice([5, 60, 250])))
        document = {"k": [text, {text[:30]: text}]}
        assert written(document, True, monkeypatch) == written(document, False, monkeypatch)
        assert yaml_loader.loads(libyaml_text(document), "t.yaml", "transcript").data == document
        agreed += yaml_emitters.emitters_agree(document)
    assert agreed > 100  # the fast path was taken often enough to mean something


def test_without_libyaml_the_pure_emitter_writes(monkeypatch):
    import yaml

    yaml_dumper._dumpers.cache_clear()
    monkeypatch.setattr(yaml, "__with_libyaml__", False)
    try:
        assert yaml_dumper._dumpers()[True] is yaml_dumper._dumpers()[False]
        document = yaml_loader.load_file(RECORDINGS[0], "transcript")
        assert yaml_dumper.dumps(document) == RECORDINGS[0].read_text(encoding="utf-8")
    finally:
        yaml_dumper._dumpers.cache_clear()


def test_a_lone_scalar_is_written_by_the_pure_emitter(monkeypatch):
    assert not yaml_emitters.emitters_agree("text")
    assert written("text", True, monkeypatch) == "text\n...\n"


def emitted(data, libyaml: bool, monkeypatch) -> str:
    """What an emitter writes of the whole document, no text set aside."""
    monkeypatch.setattr(yaml_dumper, "USE_LIBYAML", libyaml)
    return yaml_dumper._emit(data)


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_texts_set_aside_are_put_back_byte_for_byte(path: Path, monkeypatch):
    monkeypatch.setattr(yaml_dumper, "SET_ASIDE_LENGTH", 6)  # every text that can be set aside is
    document = yaml_loader.load_file(path, "transcript")
    text = path.read_text(encoding="utf-8")
    assert written(document, True, monkeypatch) == written(document, False, monkeypatch) == text


def test_random_words_set_aside_are_written_as_the_emitters_write_them(monkeypatch):
    monkeypatch.setattr(yaml_dumper, "SET_ASIDE_LENGTH", 1)
    chance = random.Random(18)
    starts, good, bad = "aefnotyFNOTYZ+/09.-_=:#' ", "aZ09+/=._-", ":# ',é\t[]{}*&!|>%@`?"
    words = ["false", "FALSE", "null", "Null", "yes", "off", "On", "true", "n", "Y"]  # YAML reads these otherwise
    set_aside = 0
    for number in range(1500):
        text = words[number] if number < len(words) else chance.choice(starts) + "".join(
            chance.choice(good) for _ in range(chance.choice([0, 4, 5, 40, 150])))
        if chance.random() < 0.3:  # one character that may not be written as it is
            cut = chance.choice([0, len(text), chance.randrange(len(text) + 1)])
            text = text[:cut] + chance.choice(bad) + text[cut:]
        for document in ({"k": text, "l": [text, {"m": text}]}, [text, [text]], {"k": {"k": [{"k": text}]}}):
            for libyaml in (True, False):
                assert written(document, libyaml, monkeypatch) == emitted(document, False, monkeypatch), text
        set_aside += yaml_emitters.written_as_is(text)
    assert set_aside > 250  # the path was taken often enough to mean something


def test_a_big_text_set_aside_is_written_as_the_pure_emitter_writes_it(monkeypatch):
    blob = "iVBORw0KGgoAAAANSUhEUgAA" + "AbC+/09=._-" * 20_000 + "=="
    document = [{"round": 1, "received": {"result": {"content": [{"type": "image", "data": blob}]}}, "n": blob}]
    assert yaml_emitters.written_as_is(blob)
    assert written(document, True, monkeypatch) == emitted(document, False, monkeypatch)


def test_a_document_holding_the_stand_in_is_written_without_setting_aside(monkeypatch):
    document = {"a": "x" * yaml_dumper.SET_ASIDE_LENGTH, "b": f"see {yaml_dumper._SET_ASIDE}"}
    assert written(document, True, monkeypatch) == emitted(document, False, monkeypatch)
    assert yaml_loader.loads(written(document, True, monkeypatch), "t.yaml", "transcript").data == document
