"""`mrtr proxy --wrap` and `--unwrap` (issue 29 item 6): a host's configuration rewritten to run a
stdio server through `mrtr proxy`, every other character of the file kept; the wrapped entry run
as the host runs it; wrap then unwrap gives the file back byte for byte, for generated files."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import PYTHON, mrtr_here
from peers import StdioPeer, converse
from mrtr_cli.errors import UsageError
from mrtr_cli.proxy.host_config import Wrapping, entry_node, unwrap_text, wrap_text
from mrtr_cli.fileio.jsonc_spans import value_of

VS_CODE = """{
\t// VS Code's mcp.json: comments, trailing commas, inputs
\t"inputs": [{"type": "promptString", "id": "key", "password": true,},],
\t"servers": {
\t\t"demo": {
\t\t\t"type": "stdio",
\t\t\t"command": %s, /* the interpreter */
\t\t\t"args": ["-m", "mrtr_cli", "demo-server"],
\t\t\t"env": {"KEY": "${input:key}", "CAF\\u00c9": "${env:HOME}"},
\t\t},
\t\t"remote": {"type": "http", "url": "https://example.com/mcp"},
\t\t"other": {"command": "node", "args": ["s\\u00e9rver.js", "${workspaceFolder}"]}  // é
\t},
}
""" % json.dumps(PYTHON)


def outside(text: str, name: str) -> tuple[str, str]:
    """The file's text before and after the entry `name`."""
    node = entry_node(text, name, "mcp.json")
    return text[:node.start], text[node.end:]


def test_wrap_splices_one_entry_that_a_host_then_runs_and_unwrap_restores_it(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_bytes(VS_CODE.encode())
    wrapped = mrtr_here("proxy", "--wrap", "--config", str(config), "--server", "demo", "--record-dir", "kept",
                        "--timeline", "timeline.txt", cwd=tmp_path)
    assert wrapped.code == 0, wrapped.stderr
    text = config.read_text()
    assert outside(text, "demo") == outside(VS_CODE, "demo")
    assert (tmp_path / "mcp.json.mrtr-backup").read_bytes() == VS_CODE.encode()
    entry = value_of(text, entry_node(text, "demo", "mcp.json"))
    assert Path(entry["command"]).is_absolute() and Path(entry["command"]).name == "mrtr"
    assert entry["args"] == ["proxy", "--record-dir", str(tmp_path / "kept"), "--timeline",
                             str(tmp_path / "timeline.txt"), "--", PYTHON, "-m", "mrtr_cli", "demo-server"]
    assert '"env": {"KEY": "${input:key}", "CAF\\u00c9": "${env:HOME}"}' in text  # as written
    again = mrtr_here("proxy", "--wrap", "--config", str(config), "--server", "demo", cwd=tmp_path)
    assert (again.code, config.read_text()) == (0, text) and "nothing changed" in again.stderr
    remote = mrtr_here("proxy", "--wrap", "--config", str(config), "--server", "remote")
    assert remote.code == 1 and "mrtr proxy --http" in remote.stderr and config.read_text() == text
    for mistake, said in ((("--server", "nope"), "no server 'nope' in"), (("--server", "demo", "--http", "8080"),
                                                                          "they run no proxy")):
        refused = mrtr_here("proxy", "--wrap", "--config", str(config), *mistake)
        assert refused.code == 1 and said in refused.stderr and config.read_text() == text
    run_as_a_host(entry, tmp_path)
    edited = text.replace('"s\\u00e9rver.js"', '"other.js", "--port", "9"')
    config.write_text(edited)
    unwrapped = mrtr_here("proxy", "--unwrap", "--config", str(config), "--server", "demo")
    assert unwrapped.code == 0, unwrapped.stderr
    assert config.read_text() == VS_CODE.replace('"s\\u00e9rver.js"', '"other.js", "--port", "9"')
    assert not (tmp_path / "mcp.json.mrtr-wrapped.json").exists()
    second = mrtr_here("proxy", "--wrap", "--config", str(config), "--server", "other")
    assert second.code == 0 and "the file as it was before the first wrap is in" in second.stderr, second.stderr
    assert (tmp_path / "mcp.json.mrtr-backup").read_bytes() == VS_CODE.encode()  # never overwritten


def run_as_a_host(entry: dict[str, Any], folder: Path) -> None:
    """The wrapped entry, launched as a host launches it: a conversation passes through, and the
    proxy keeps it and writes its timeline."""
    peer = StdioPeer([entry["command"], *entry["args"]])
    try:
        seen = converse(peer, itertools.count(1), "tools/call", {"name": "two_questions"})
    finally:
        peer.close()
    assert seen[-1][0]["result"]["content"][0]["text"].startswith("Hello ")
    assert peer.process.returncode == 0
    assert list((folder / "kept").iterdir()), "no transcript kept"
    assert "two_questions" in (folder / "timeline.txt").read_text()


def test_unwrap_without_the_kept_text_rebuilds_the_entry_from_the_wrapped_arguments() -> None:
    broken = VS_CODE.replace('"other": {', '"other": {,')
    try:
        wrap_text(broken, "demo", Wrapping("/opt/mrtr/bin/mrtr"), "mcp.json")
    except UsageError as error:
        assert error.message.startswith("mcp.json:12:")  # the line and column of the mistake
    else:
        raise AssertionError("a file that is not JSON was wrapped")
    wrapped = wrap_text(VS_CODE, "other", Wrapping("/opt/mrtr/bin/mrtr", "rec"), "mcp.json")
    rebuilt = unwrap_text(wrapped.text, "other", None, "mcp.json")
    node = entry_node(rebuilt.text, "other", "mcp.json")
    assert value_of(rebuilt.text, node) == {"command": "node", "args": ["s\u00e9rver.js", "${workspaceFolder}"]}
    assert outside(rebuilt.text, "other") == outside(VS_CODE, "other")


FILLER = st.lists(st.sampled_from([" ", "\n", "\t", "\r\n", "  ", "// note \u00e9 \u2603\n", "/* \u2713 */"]),
                  max_size=3).map("".join)
TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=8)


@st.composite
def json_string(draw: Any, text: Any = TEXT) -> str:
    return json.dumps(draw(text), ensure_ascii=draw(st.booleans()))


@st.composite
def json_object(draw: Any, members: list[tuple[str, str]]) -> str:
    """An object's text from (key text, value text) members, with filler and maybe a trailing comma."""
    parts = [f"{draw(FILLER)}{key}{draw(FILLER)}:{draw(FILLER)}{value}{draw(FILLER)}" for key, value in members]
    trailing = "," + draw(FILLER) if members and draw(st.booleans()) else ""
    return "{" + draw(FILLER) + ",".join(parts) + trailing + "}"


@st.composite
def stdio_entry(draw: Any) -> str:
    variable = st.sampled_from(["${HOME}", "${env:TOKEN}", "${workspaceFolder}/x", "${input:key}"])
    args = draw(st.lists(json_string(st.one_of(TEXT, variable)), max_size=4))
    members = [('"command"', draw(json_string()))]
    if draw(st.booleans()):
        members.append(('"args"', "[" + draw(FILLER) + ",".join(f"{a}{draw(FILLER)}" for a in args) + "]"))
    if draw(st.booleans()):
        members.append(('"env"', draw(json_object([('"K"', draw(json_string(variable)))]))))
    return str(draw(json_object(draw(st.permutations(members)))))


@st.composite
def config(draw: Any) -> tuple[str, str]:
    """A host's configuration with the stdio entry `name` among others; (text, name)."""
    name = draw(TEXT)
    others = draw(st.lists(TEXT.filter(lambda other: other != name), max_size=3, unique=True))
    entries = [(json.dumps(name), draw(stdio_entry()))]
    entries += [(json.dumps(other), draw(json_object([('"url"', draw(json_string()))]))) for other in others]
    servers = draw(json_object(draw(st.permutations(entries))))
    container = draw(st.sampled_from(["mcpServers", "servers", "mcp"]))
    inner = servers if container != "mcp" else draw(json_object([('"servers"', servers)]))
    root = draw(json_object([('"inputs"', "[]"), (json.dumps(container), inner)]))
    bom = "\ufeff" if draw(st.booleans()) else ""
    return bom + draw(FILLER) + root + draw(FILLER), name


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config(), st.booleans())
def test_wrap_then_unwrap_gives_the_file_back_byte_for_byte(made: tuple[str, str], record: bool) -> None:
    text, name = made
    wrapping = Wrapping("/usr/local/bin/mrtr", "rec" if record else None, "t.txt")
    wrapped = wrap_text(text, name, wrapping, "c.json")
    assert outside(wrapped.text, name) == outside(text, name)
    before = value_of(text, entry_node(text, name, "c.json"))
    after = value_of(wrapped.text, entry_node(wrapped.text, name, "c.json"))
    assert after["args"] == [*wrapping.proxy_args(), before["command"], *before.get("args", [])]
    assert {k: v for k, v in after.items() if k not in ("command", "args")} == \
        {k: v for k, v in before.items() if k not in ("command", "args")}
    assert wrap_text(wrapped.text, name, wrapping, "c.json").text == wrapped.text
    assert unwrap_text(wrapped.text, name, wrapped.original_entry, "c.json").text == text
