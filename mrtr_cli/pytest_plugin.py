"""mrtr's pytest plugin (the `pytest11` entry point `mrtr_cli.pytest_plugin`): inactive unless asked for.

`pytest --mrtr-replay DIR` (ini `mrtr_replay`) collects each transcript in DIR as a test item and
replays it as `mrtr replay` does, against `--mrtr-stdio CMD`, `--mrtr-url URL` or `--mrtr-demo`,
or against the recorded target only with `--mrtr-trust-target`; with none an item is an error and
runs nothing. The fixture `mrtr` runs one conversation from Python and returns its outcome as data.
Both use the CLI's own engine (commands/), and never prompt. The CLI never imports this module.

Installed, the plugin is in every pytest session on the machine, mrtr used or not: it imports
nothing of mrtr's engine until a transcript is collected or the fixture is used
(tests/test_pytest_plugin_import.py holds it).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mrtr_cli.commands.from_python import ConversationOutcome, Target

TRANSCRIPT_SUFFIXES = (".yaml", ".yml")
NO_TARGET = ("no server to replay against: pass --mrtr-stdio CMD, --mrtr-url URL or --mrtr-demo "
             "(ini mrtr_stdio, mrtr_url, mrtr_demo), or --mrtr-trust-target to run the recorded one")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mrtr", "replay mrtr transcripts as tests")
    group.addoption("--mrtr-replay", metavar="DIR", help="collect each transcript in DIR as a test")
    group.addoption("--mrtr-stdio", metavar="CMD", help="replay against this stdio server command")
    group.addoption("--mrtr-url", metavar="URL", help="replay against this Streamable HTTP endpoint")
    group.addoption("--mrtr-demo", action="store_true", default=None, help="replay against mrtr's demo server")
    group.addoption("--mrtr-trust-target", action="store_true", default=None,
                    help="replay against each transcript's recorded target, running a recorded command")
    group.addoption("--mrtr-update", action="store_true", default=False,
                    help="rewrite each transcript from the live run, as mrtr replay --update")
    group.addoption("--mrtr-ignore", metavar="JSON_PATH", action="append", default=[],
                    help="also ignore this path when comparing, as mrtr replay --ignore (repeatable)")
    parser.addini("mrtr_replay", "a directory of transcripts to collect as tests", default="")
    parser.addini("mrtr_stdio", "the stdio server command to replay against", default="")
    parser.addini("mrtr_url", "the Streamable HTTP endpoint to replay against", default="")
    parser.addini("mrtr_demo", "replay against mrtr's demo server", type="bool", default=False)
    parser.addini("mrtr_trust_target", "replay against each transcript's recorded target", type="bool",
                  default=False)


def setting(config: pytest.Config, name: str) -> Any:
    """The command-line option `--mrtr-NAME`, else the ini value `mrtr_NAME`."""
    given = config.getoption(f"mrtr_{name}")
    return given if given not in (None, "") else config.getini(f"mrtr_{name}")


def replay_dir(config: pytest.Config) -> Path | None:
    directory = setting(config, "replay")
    if not directory:
        return None
    return Path(directory) if Path(directory).is_absolute() else Path(config.rootpath, directory)


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Collect the transcript directory beside whatever else is collected."""
    directory = replay_dir(config)
    if directory is not None and str(directory) not in config.args:
        config.args.append(str(directory))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    directory = replay_dir(parent.config)
    if directory is None or file_path.suffix not in TRANSCRIPT_SUFFIXES:
        return None
    if not file_path.resolve().is_relative_to(directory.resolve()):
        return None
    return TranscriptFile.from_parent(parent, path=file_path)


class TranscriptFile(pytest.File):
    """A transcript file: one item, named by the file."""

    def collect(self) -> list[pytest.Item]:
        return [TranscriptItem.from_parent(self, name=self.path.stem)]


class TranscriptItem(pytest.Item):
    """One transcript replayed against the configured server; it fails with what `mrtr replay` prints."""

    def setup(self) -> None:
        if replay_target(self.config) is None:
            pytest.fail(NO_TARGET, pytrace=False)  # in setup: reported as an error

    def runtest(self) -> None:
        target = replay_target(self.config)
        assert target is not None, "setup fails the item when no server is configured"
        from mrtr_cli.commands.from_python import replay_transcript

        failure = replay_transcript(str(self.path), target, self.config.getoption("mrtr_update"),
                             tuple(self.config.getoption("mrtr_ignore")))
        if failure is not None:
            pytest.fail(failure, pytrace=False)  # the text mrtr replay prints, no traceback

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"mrtr replay {self.path.name}"


def replay_target(config: pytest.Config) -> Target | None:
    """The server the options name; a Target naming none when only trust is given; None when nothing is."""
    from mrtr_cli.commands.from_python import Target

    stdio, url, demo = setting(config, "stdio"), setting(config, "url"), bool(setting(config, "demo"))
    if stdio or url or demo:
        return Target(stdio=stdio or None, url=url or None, demo=demo)
    return Target() if setting(config, "trust_target") else None


class Conversations:
    """The `mrtr` fixture: `call`, `read` and `prompt`, each one conversation, its outcome as data.
    A conversation with no server of its own goes to the one --mrtr-stdio, --mrtr-url or --mrtr-demo names."""

    def __init__(self, default: Target | None) -> None:
        from mrtr_cli.commands.from_python import Target

        self.default = default or Target()

    def call(self, tool: str, arguments: dict[str, Any] | None = None, **target: Any) -> ConversationOutcome:
        return self._run("tools/call", tool, arguments, **target)

    def read(self, uri: str, **target: Any) -> ConversationOutcome:
        return self._run("resources/read", uri, None, **target)

    def prompt(self, name: str, arguments: dict[str, Any] | None = None, **target: Any) -> ConversationOutcome:
        return self._run("prompts/get", name, arguments, **target)

    def _run(self, method: str, name: str, arguments: dict[str, Any] | None, *, stdio: str | list[str] | None = None,
             url: str | None = None, demo: bool = False, answers: dict[str, Any] | None = None,
             era: str = "auto", timeout: float = 60.0) -> ConversationOutcome:
        from mrtr_cli.commands.from_python import Target, converse

        named = stdio is not None or url is not None or demo
        base = Target(stdio, url, demo) if named else self.default
        return converse(method, name, arguments, Target(base.stdio, base.url, base.demo, era, timeout), answers)


@pytest.fixture
def mrtr(request: pytest.FixtureRequest) -> Conversations:
    """Run one conversation with an MCP server and get its outcome as data (never prompts)."""
    return Conversations(replay_target(request.config))

