"""check/state_forgery.py: a requestState that can be read reads back byte for byte, in every alphabet,
padding and layout a server writes it in, and each forgery changes the one value it names."""

from __future__ import annotations

import base64
import json
import string
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mrtr_cli.check.state_forgery import (Encoding, last_segment, other_value, read, tag_tamperings,
                                          truncations)
from mrtr_cli.server.state import Sealer, StateRejected

SCALARS = st.one_of(st.booleans(), st.integers(-10**12, 10**12), st.text(max_size=12),
                    st.floats(allow_nan=False, allow_infinity=False, width=32))
JSON_VALUES = st.recursive(st.one_of(st.none(), SCALARS),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                                     max_size=4), max_leaves=12)
DOCUMENTS = st.one_of(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=6), st.lists(JSON_VALUES, max_size=5))
STYLES = st.sampled_from([{}, {"separators": (",", ":")}, {"sort_keys": True}, {"ensure_ascii": False},
                          {"indent": 1}, {"separators": (", ", ": "), "ensure_ascii": False}])
ALPHABETS = st.sampled_from(["base64", "base64url"])
TAGS = st.binary(min_size=1, max_size=40).map(lambda raw: base64.urlsafe_b64encode(raw).decode().rstrip("="))


def encoded(document: Any, style: dict[str, Any], alphabet: str, padded: bool) -> str:
    data = json.dumps(document, **style).encode("utf-8")
    text = (base64.urlsafe_b64encode if alphabet == "base64url" else base64.b64encode)(data).decode()
    return text if padded else text.rstrip("=")


def shows_alphabet(text: str) -> str | None:
    """The alphabet a base64 text shows by its own characters (None: it uses neither's)."""
    return "base64url" if set(text) & set("-_") else "base64" if set(text) & set("+/") else None


def decoded(text: str, encoding: Encoding) -> Any:
    """The JSON in `text`, read as a server of that encoding reads it."""
    if encoding.alphabet == "json":
        return json.loads(text)
    padded = text + "=" * (-len(text) % 4)
    raw = base64.urlsafe_b64decode(padded) if encoding.alphabet == "base64url" else base64.b64decode(padded,
                                                                                                     validate=True)
    return json.loads(raw)


def changed(document: Any, path: str, value: Any) -> Any:
    """`document` with the value at `path` (`a.b[0]`, as the forgeries name it) replaced."""
    copy = json.loads(json.dumps(document))
    steps = _steps(path)
    target = copy
    for step in steps[:-1]:
        target = target[step]
    target[steps[-1]] = value
    return copy


def _steps(path: str) -> list[str | int]:
    """A forgery's path as keys and indexes; the keys the tests generate hold no `.` or `[`."""
    steps: list[str | int] = []
    for part in path.split(".") if path else []:
        name, *indexes = part.split("[")
        steps += ([name] if name or not indexes else []) + [int(index.rstrip("]")) for index in indexes]
    return steps


SAFE_KEYS = st.text(alphabet=string.ascii_letters + "_", min_size=1, max_size=6)
"""Keys a path can name plainly: the forgery tests walk paths back to values."""
PATHABLE = st.dictionaries(SAFE_KEYS, st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                                                   | st.dictionaries(SAFE_KEYS, inner, max_size=3), max_leaves=8),
                           min_size=1, max_size=5)


@settings(max_examples=150, deadline=None)
@given(document=DOCUMENTS, style=STYLES, alphabet=ALPHABETS, padded=st.booleans())
def test_any_base64_json_reads_back_byte_for_byte(document, style, alphabet, padded):
    state = encoded(document, style, alphabet, padded)
    readable = read(state)
    assert readable is not None and readable.encode() == state
    (only,) = readable.documents
    assert json.loads(only.text) == document and only.text == json.dumps(document, **style)
    if shows_alphabet(state):
        assert only.encoding.alphabet == shows_alphabet(state)
    if len(state.rstrip("=")) % 4:  # a length that needs padding shows whether it was written
        assert only.encoding.padded == padded


@settings(max_examples=100, deadline=None)
@given(document=DOCUMENTS, style=STYLES)
def test_plain_json_and_json_before_a_tag_read_back_byte_for_byte(document, style):
    text = json.dumps(document, **style)
    for state, tag in ((text, None), (f"{text}.c2lnbmF0dXJl", "c2lnbmF0dXJl"), (f"{text}|ab12", "ab12")):
        readable = read(state)
        assert readable is not None and readable.encode() == state and readable.tag == tag
        assert json.loads(readable.documents[0].text) == document


@settings(max_examples=100, deadline=None)
@given(header=PATHABLE, payload=PATHABLE, signature=TAGS)
def test_a_jwt_like_state_reads_both_documents_and_keeps_the_signature(header, payload, signature):
    segments = [encoded(part, {"separators": (",", ":")}, "base64url", False) for part in (header, payload)]
    state = ".".join([*segments, signature])
    readable = read(state)
    assert readable is not None and readable.encode() == state and readable.tag == signature
    assert [json.loads(d.text) for d in readable.documents] == [header, payload]
    assert readable.describe().startswith("a JWT-like header.payload.signature")
    for scalar in readable.scalars():
        forged = readable.forged(scalar, other_value(scalar.value))
        assert forged.rsplit(".", 1)[1] == signature  # the signature segment untouched
        assert scalar.path.startswith(("header", "payload"))


@settings(max_examples=120, deadline=None)
@given(document=PATHABLE, style=STYLES, alphabet=ALPHABETS, padded=st.booleans(), tag=st.one_of(st.none(), TAGS))
def test_each_forgery_changes_its_one_value_and_is_encoded_as_the_state_came(document, style, alphabet, padded,
                                                                             tag):
    body = encoded(document, style, alphabet, padded)
    state = body if tag is None else f"{body}.{tag}"
    readable = read(state)
    assert readable is not None
    scalars = list(readable.scalars())
    assume(scalars)  # a document of empty lists and objects has nothing to forge
    for scalar in scalars:
        value = other_value(scalar.value)
        forged = readable.forged(scalar, value)
        again = read(forged)
        assert forged != state and again is not None and again.encode() == forged and again.tag == readable.tag
        encoding = readable.documents[0].encoding
        assert decoded(forged.split(".")[0], encoding) == changed(document, scalar.path, value)
        if shows_alphabet(forged.split(".")[0]):  # written in the alphabet read, whatever the value needs
            assert shows_alphabet(forged.split(".")[0]) == encoding.alphabet


@pytest.mark.parametrize("value,other", [(250, 1), (1, 2), (2.5, 1.0), (True, False), (False, True),
                                         ("250", "1"), ("bob", "bob-forged")])
def test_another_value_keeps_its_kind(value, other):
    assert other_value(value) == other and type(other_value(value)) is type(value)


@pytest.mark.parametrize("state", ["", "opaque-token", "abcdef0123456789", "eyJhIjox",  # {"a":1 cut short
                                   "W10", "InN0cmluZyI=", "NaN", '{"a": NaN}', "MTIz"])  # [] , "string", 123
def test_what_is_not_a_json_object_or_array_does_not_read(state):
    readable = read(state)
    assert readable is None or (state == "W10" and readable.documents[0].text == "[]")


@settings(max_examples=120, deadline=None)
@given(state=st.integers(0, 10**6), name=st.text(max_size=8))
def test_every_tag_tampering_and_truncation_of_a_sealed_state_is_refused(state, name):
    """The demo's sealed state (base64url payload, `.`, base64url HMAC): each alteration changes what it says."""
    sealer, request = Sealer(), {"method": "tools/call", "name": name}
    token = sealer.seal(state, request)
    readable = read(token)
    assert readable is not None and readable.tag is not None
    alterations = tag_tamperings(token, readable.tag_start) + truncations(token, readable.tag_start)
    assert len(alterations) == 5
    for alteration in alterations:
        with pytest.raises(StateRejected):
            sealer.open(alteration.state, request)


def test_opaque_states_are_altered_where_a_tag_sits_in_their_own_alphabet():
    hex_state = "9f86d081884c7d659a2feaa0c55ad015:a3bf4f1b2b0b822cd15d6c15b0f00a08"
    tampered = tag_tamperings(hex_state, last_segment(hex_state))
    assert [a.state for a in tampered] == ["9f86d081884c7d659a2feaa0c55ad015:a3bf4f1b2b0b822cd15d6c15b0f00a19",
                                           "9f86d081884c7d659a2feaa0c55ad015:b2ae5e0a3a1a933dc04c7d04a1e11b19"]
    assert all(set(a.state) <= set(string.hexdigits + ":") for a in tampered)
    assert [(a.what, a.state) for a in truncations(hex_state, last_segment(hex_state))] == [
        ("without its last segment", "9f86d081884c7d659a2feaa0c55ad015"),
        ("with its last segment emptied", "9f86d081884c7d659a2feaa0c55ad015:"),
        ("with its last 4 characters cut", hex_state[:-4])]
    assert [a.what for a in tag_tamperings("Zm9v-_==", None)] == ["with its last two characters changed"]
    assert tag_tamperings("Zm9v-_==", None)[0].state == "Zm9v_-=="


def test_what_a_state_reveals_is_said_in_a_few_words():
    plain = base64.urlsafe_b64encode(b'{"step":"pay","fee":250,"to":"acct-7"}').decode().rstrip("=")
    assert read(plain).describe() == "base64url JSON with keys `step`, `fee`, `to` and no signature"
    sealed = Sealer().seal({"answers": {}}, {"method": "tools/call"})
    assert read(sealed).describe() == ("base64url JSON with keys `expires`, `request`, `state`, then `.` and a "
                                       "43-character tag")
    assert read('{"n": 1}').describe() == "JSON with key `n` and no signature"
    assert read(f"v1~{plain}~c2ln").describe() == ("segments split by `~`: segment 2 is base64url JSON with keys "
                                                   "`step`, `fee`, `to`, the last a 4-character tag")
