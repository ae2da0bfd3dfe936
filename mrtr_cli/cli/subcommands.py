"""The typer app and its commands: each parses, builds Options, calls one function in commands/.

Commands load their module when they run, so `mrtr --help` loads none of them. Only the command
being run is built into a click command (`command_for`): building all of them, and the `auth`
sub-app, cost every run about 25 ms.
(No `from __future__ import annotations` here: typer reads these annotations at runtime.)
"""

import enum
from typing import Annotated, Any, Dict, List, Optional

import typer

from mrtr_cli import __version__
from mrtr_cli.cli.help_command import HelpCommand, HelpGroup
from mrtr_cli.cli.option_groups import (OUTPUT, TRANSCRIPTS, answering_options, named, output_options,
                                        recording_options, target_options, with_groups)
from mrtr_cli.options import CallOptions

APP_SETTINGS: Dict[str, Any] = dict(
    name="mrtr",
    help="Inspect MCP Multi Round-Trip Requests: send a request, answer what the server asks, "
    "and see every round.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    cls=HelpGroup,
)
app = typer.Typer(**APP_SETTINGS)

CONVERSING = dict(target=target_options, answering=answering_options, output=output_options,
                  recording=recording_options)
"""The option groups of the commands that hold a conversation (call, read, prompt)."""

ARGUMENT, ARGS_JSON = named("--arg"), named("--args")


@app.command(cls=HelpCommand)
@with_groups(**CONVERSING)
def call(tool: Annotated[str, typer.Argument(help="The tool to call.")], arg: ARGUMENT = None,
         args: ARGS_JSON = None, *, target: Any = None, answering: Any = None, output: Any = None,
         recording: Any = None) -> int:
    """tools/call TOOL, answering every round until the result."""
    from mrtr_cli.commands import call as command

    return command.run(CallOptions("tools/call", tool, tuple(arg or ()), args), target, answering, output, recording)


@app.command(cls=HelpCommand)
@with_groups(**CONVERSING)
def read(uri: Annotated[str, typer.Argument(help="The resource URI.")],
         *, target: Any = None, answering: Any = None, output: Any = None, recording: Any = None) -> int:
    """resources/read URI, answering every round until the result."""
    from mrtr_cli.commands import call as command

    return command.run(CallOptions("resources/read", uri), target, answering, output, recording)


@app.command(cls=HelpCommand)
@with_groups(**CONVERSING)
def prompt(name: Annotated[str, typer.Argument(help="The prompt to get.")], arg: ARGUMENT = None,
           args: ARGS_JSON = None, *, target: Any = None, answering: Any = None, output: Any = None,
           recording: Any = None) -> int:
    """prompts/get NAME (arguments are sent as strings), answering every round until the result."""
    from mrtr_cli.commands import call as command

    return command.run(CallOptions("prompts/get", name, tuple(arg or ()), args), target, answering, output, recording)


@app.command(cls=HelpCommand)
@with_groups(target=target_options, output=output_options)
def discover(*, target: Any = None, output: Any = None) -> int:
    """server/discover: the versions, capabilities and serverInfo of a server."""
    from mrtr_cli.commands import inspect as command

    return command.run_discover(target, output)


class ListKind(str, enum.Enum):
    tools = "tools"
    prompts = "prompts"
    resources = "resources"
    templates = "templates"


@app.command("list", cls=HelpCommand)
@with_groups(target=target_options, output=output_options)
def list_(kind: Annotated[ListKind, typer.Argument(help="What to list.")],
          *, target: Any = None, output: Any = None) -> int:
    """The tools, prompts, resources or resource templates of a server, every page."""
    from mrtr_cli.commands import inspect as command

    return command.run_list(kind.value, target, output)


HTTP_LISTEN = Annotated[Optional[str], typer.Option("--http", metavar="[HOST:]PORT",
                                                   help="Serve Streamable HTTP on HOST:PORT (HOST defaults to "
                                                   "127.0.0.1; port 0 picks a free one) instead of stdio.")]


@app.command("demo-server", cls=HelpCommand)
def demo_server(http: HTTP_LISTEN = None, conformance_fixtures: Annotated[bool, typer.Option(
        "--conformance-fixtures", help="Also serve the conformance suite's fixture tools and prompt.")] = False) -> int:
    """The built-in demo server: every tool asks for input through MRTR (stdio by default)."""
    from mrtr_cli.commands import serving

    raise typer.Exit(serving.run_demo_server(http, conformance_fixtures))


@app.command("serve", cls=HelpCommand)
def serve_(files: Annotated[List[str], typer.Argument(metavar="TRANSCRIPT.yaml...", help="Transcripts to serve.")],
           http: HTTP_LISTEN = None) -> int:
    """Play transcripts back as a 2026-07-28 server (stdio by default)."""
    from mrtr_cli.commands import serving

    raise typer.Exit(serving.run_serve(files, http))


@app.command(cls=HelpCommand)
@with_groups(output=output_options)
def show(file: Annotated[str, typer.Argument(metavar="TRANSCRIPT.yaml", help="The transcript to show.")],
         *, output: Any = None) -> int:
    """A transcript's timeline and result, as call showed them; no server needed."""
    from mrtr_cli.commands import show as command

    return command.run(file, output)


TRANSCRIPT_FILES = Annotated[List[str], typer.Argument(metavar="TRANSCRIPT.yaml...", help="Transcripts to replay.")]
INTERACTIVE = Annotated[bool, typer.Option("--interactive", rich_help_panel=TRANSCRIPTS,
                                           help="Ask a person what the recording does not answer.")]
UPDATE = Annotated[bool, typer.Option("--update", rich_help_panel=TRANSCRIPTS,
                                      help="Rewrite each transcript from the live run.")]
IGNORE = Annotated[Optional[List[str]], typer.Option("--ignore", metavar="JSON_PATH", rich_help_panel=TRANSCRIPTS,
                                                     help="Also ignore this path when comparing "
                                                     "($.rounds[*].received.result...). Repeatable.")]
JUNIT = Annotated[Optional[str], typer.Option("--junit", metavar="FILE", rich_help_panel=OUTPUT,
                                              help="Also write the run as a JUnit XML report to FILE.")]
TRUST_TARGET = Annotated[bool, typer.Option("--trust-target", rich_help_panel=TRANSCRIPTS,
                                            help="Run a recorded stdio command without asking.")]


@app.command(cls=HelpCommand)
@with_groups(target=target_options, answering=answering_options, output=output_options)
def replay(files: TRANSCRIPT_FILES, arg: ARGUMENT = None, interactive: INTERACTIVE = False, update: UPDATE = False,
           ignore: IGNORE = None, trust_target: TRUST_TARGET = False, junit: JUNIT = None,
           *, target: Any = None, answering: Any = None, output: Any = None) -> int:
    """Re-run transcripts against a live server and report any divergence (exit 6).

    --strict also compares notifications, findings, HTTP status and content type.
    """
    from mrtr_cli.commands import replay as command

    options = command.ReplayOptions(tuple(files), tuple(arg or ()), interactive, update, tuple(ignore or ()),
                                    trust_target, output.strict, junit)
    return command.run(options, target, answering, output)


PROBED_TOOL = Annotated[Optional[str], typer.Option("--tool", metavar="NAME",
                                                    help="Also probe MRTR with this tool (and only this one).")]
PROBED_PROMPT = Annotated[Optional[str], typer.Option("--prompt", metavar="NAME",
                                                      help="Also probe prompts/get of this prompt (-a/--args are its "
                                                      "arguments when no --tool is named).")]
PROBED_RESOURCE = Annotated[Optional[str], typer.Option("--resource", metavar="URI",
                                                        help="Also probe resources/read of this resource.")]


@app.command(cls=HelpCommand)
@with_groups(target=target_options, answering=answering_options, output=output_options)
def check(tool: PROBED_TOOL = None, prompt: PROBED_PROMPT = None, resource: PROBED_RESOURCE = None,
          arg: ARGUMENT = None, args: ARGS_JSON = None, junit: JUNIT = None,
          *, target: Any = None, answering: Any = None, output: Any = None) -> int:
    """Probe a server's MRTR and 2026-07-28 behaviour: a checklist, exit 2 when a MUST fails."""
    from mrtr_cli.commands import check as command

    called = CallOptions("tools/call", tool, tuple(arg or ()), args) if tool else None
    prompt_args = ((), None) if tool else (tuple(arg or ()), args)  # -a and --args are the tool's when one is named
    named = command.named_requests(prompt, resource, *prompt_args)
    return command.run(called, target, answering, output, junit, named)


AUTH = "auth"
"""The sub-app of `mrtr auth ...` (cli/auth_app.py), loaded only when it is run or listed."""


def command_for(args: List[str]) -> Any:
    """The click group that runs `args`, holding only the command they name; every command (and
    `auth`) when they name none, or one mrtr does not know, so that help and errors list them all."""
    name = next((arg for arg in args if not arg.startswith("-")), None)
    chosen = [info for info in app.registered_commands if _command_name(info) == name]
    runs = typer.Typer(**APP_SETTINGS)
    runs.registered_callback = app.registered_callback
    runs.registered_commands = chosen or ([] if name == AUTH else list(app.registered_commands))
    if not chosen:
        from mrtr_cli.cli.auth_app import auth_app

        runs.add_typer(auth_app, name=AUTH)
    return typer.main.get_command(runs)


def _command_name(info: Any) -> str:
    """A command's name as typer gives it: its own, or its function's with dashes."""
    name: str = info.name or info.callback.__name__.lower().replace("_", "-")
    return name


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mrtr {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """mrtr: an inspector for MCP Multi Round-Trip Requests (MCP 2026-07-28)."""
