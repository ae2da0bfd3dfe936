"""The command line: parse, build typed options, call one function, return its exit code.

The only module that imports typer. Options shared by several commands are declared once, in
the group builders below (`target_options`, `answering_options`, `output_options`): each is a
plain function whose parameters are typer options and whose body builds an Options object.
`with_groups` adds a group's parameters to a command and hands the command the built object.
(No `from __future__ import annotations` here: typer reads these annotations at runtime.)
"""

import enum
import functools
import inspect
import sys
from typing import Annotated, Any, Callable, List, Optional

import typer

from mrtr_cli import __version__
from mrtr_cli.options import AnsweringOptions, CallOptions, OutputOptions, RecordingOptions, TargetOptions

SERVER, ANSWERS, OUTPUT = "Server", "Answering", "Output"

app = typer.Typer(
    name="mrtr",
    help="Inspect MCP Multi Round-Trip Requests: send a request, answer what the server asks, "
    "and see every round.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)

_server_command: List[str] = []
"""What followed `--` on the command line: the stdio server to spawn (set by `main`)."""


def _size(text: str) -> int:
    """`--max-message-size SIZE` in bytes; a bad value is a usage error naming the flag."""
    from mrtr_cli.transport.base import parse_size

    try:
        return parse_size(str(text))
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None


def target_options(
    url: Annotated[Optional[str], typer.Option("--url", help="A Streamable HTTP endpoint.",
                                               rich_help_panel=SERVER)] = None,
    stdio: Annotated[Optional[str], typer.Option("--stdio", metavar="CMD", rich_help_panel=SERVER,
                                                 help='Spawn a stdio server: "CMD ARGS" (split like a shell, '
                                                 "run without one). Or put -- CMD ARGS at the end.")] = None,
    config: Annotated[Optional[str], typer.Option("--config", metavar="FILE", rich_help_panel=SERVER,
                                                  help="An mcpServers file (mcp.json, claude_desktop_config.json); "
                                                  "${VAR} expands from the environment.")] = None,
    server: Annotated[Optional[str], typer.Option("--server", metavar="NAME", rich_help_panel=SERVER,
                                                  help="The entry of --config to use.")] = None,
    demo: Annotated[bool, typer.Option("--demo", rich_help_panel=SERVER,
                                       help="The built-in demo server, spawned over stdio.")] = False,
    header: Annotated[Optional[List[str]], typer.Option("-H", "--header", metavar="'NAME: VALUE'",
                                                        rich_help_panel=SERVER,
                                                        help="An extra HTTP header (not MCP-Protocol-Version "
                                                        "or Mcp-*). Repeatable.")] = None,
    env: Annotated[Optional[List[str]], typer.Option("-e", "--env", metavar="KEY=VALUE", rich_help_panel=SERVER,
                                                     help="Environment of a stdio server. Repeatable.")] = None,
    env_file: Annotated[Optional[str], typer.Option("--env-file", metavar="FILE", rich_help_panel=SERVER,
                                                    help="KEY=VALUE lines for a stdio server's environment.")] = None,
    cwd: Annotated[Optional[str], typer.Option("--cwd", metavar="DIR", rich_help_panel=SERVER,
                                               help="Working directory of a stdio server.")] = None,
    timeout: Annotated[float, typer.Option("--timeout", metavar="SECONDS", min=0.001, rich_help_panel=SERVER,
                                           help="Per request, send to response, answering excluded; progress "
                                           "resets the timeout at most 10 times, so one request waits at most "
                                           "11 x --timeout.")] = 60.0,
    protocol_version: Annotated[Optional[str], typer.Option("--protocol-version", metavar="V",
                                                            rich_help_panel=SERVER,
                                                            help="Send this version as given, not renegotiated "
                                                            "[default: 2026-07-28].")] = None,
    cacert: Annotated[Optional[str], typer.Option("--cacert", metavar="FILE", rich_help_panel=SERVER,
                                                  help="CA bundle for HTTPS.")] = None,
    insecure: Annotated[bool, typer.Option("--insecure", rich_help_panel=SERVER,
                                           help="Do not verify TLS certificates.")] = False,
    no_discover: Annotated[bool, typer.Option("--no-discover", rich_help_panel=SERVER,
                                              help="On stdio, skip the server/discover probe.")] = False,
    max_message_size: Annotated[int, typer.Option("--max-message-size", metavar="SIZE", parser=_size,
                                                  rich_help_panel=SERVER,
                                                  help="The largest message mrtr accepts (a stdio line, an HTTP "
                                                  "body, an SSE event): bytes, or with K, M or G (powers of "
                                                  "1024); past it the message is refused, exit 2.")] = "64M",
) -> TargetOptions:
    return TargetOptions(url=url, stdio=stdio, command=tuple(_server_command), config=config, server=server,
                         demo=demo, headers=tuple(header or ()), env=tuple(env or ()), env_file=env_file,
                         cwd=cwd, timeout=timeout, protocol_version=protocol_version, cacert=cacert,
                         insecure=insecure, no_discover=no_discover, max_message_size=max_message_size)


class LogLevel(str, enum.Enum):
    debug = "debug"
    info = "info"
    notice = "notice"
    warning = "warning"
    error = "error"
    critical = "critical"
    alert = "alert"
    emergency = "emergency"


def answering_options(
    answers_file: Annotated[Optional[str], typer.Option("--answers", metavar="FILE.yaml", rich_help_panel=ANSWERS,
                                                        help="Scripted answers (see the README).")] = None,
    answer: Annotated[Optional[List[str]], typer.Option("--answer", metavar="KEY.FIELD=VALUE",
                                                        rich_help_panel=ANSWERS,
                                                        help="A form field of question KEY, or "
                                                        "KEY=accept|decline|cancel. Repeatable.")] = None,
    root: Annotated[Optional[List[str]], typer.Option("--root", metavar="PATH_OR_FILE_URI", rich_help_panel=ANSWERS,
                                                      help="A root offered to roots/list. Repeatable.")] = None,
    sampling_reply: Annotated[Optional[str], typer.Option("--sampling-reply", metavar="TEXT",
                                                          rich_help_panel=ANSWERS,
                                                          help="Answer sampling with this text.")] = None,
    sampler: Annotated[Optional[str], typer.Option("--sampler", metavar="CMD", rich_help_panel=ANSWERS,
                                                   help='Answer sampling with a command fed {"method", "params"} '
                                                   "on stdin.")] = None,
    sampling_model: Annotated[str, typer.Option("--sampling-model", metavar="NAME", rich_help_panel=ANSWERS,
                                                help="The model named in sampling answers.")] = "mrtr",
    log_level: Annotated[Optional[LogLevel], typer.Option("--log-level", rich_help_panel=ANSWERS,
                                                          help="Ask for log messages at LEVEL and above.")] = None,
    no_input: Annotated[bool, typer.Option("--no-input", rich_help_panel=ANSWERS,
                                           help="Never prompt: an unanswered question is exit 7.")] = False,
    max_rounds: Annotated[int, typer.Option("--max-rounds", metavar="N", min=0, rich_help_panel=ANSWERS,
                                            help="Answer at most N input_required results.")] = 10,
    no_elicitation: Annotated[bool, typer.Option("--no-elicitation", rich_help_panel=ANSWERS,
                                                 help="Withhold the elicitation capability.")] = False,
    no_sampling: Annotated[bool, typer.Option("--no-sampling", rich_help_panel=ANSWERS,
                                              help="Withhold the sampling capability.")] = False,
    no_roots: Annotated[bool, typer.Option("--no-roots", rich_help_panel=ANSWERS,
                                           help="Withhold the roots capability.")] = False,
    save_answers: Annotated[Optional[str], typer.Option("--save-answers", metavar="FILE.yaml", rich_help_panel=ANSWERS,
                                                        help="Write every answer given as an answers file.")] = None,
) -> AnsweringOptions:
    return AnsweringOptions(answers_file=answers_file, answers=tuple(answer or ()), roots=tuple(root or ()),
                            sampling_reply=sampling_reply, sampler=sampler, sampling_model=sampling_model,
                            log_level=log_level.value if log_level else None, no_input=no_input,
                            max_rounds=max_rounds, no_elicitation=no_elicitation, no_sampling=no_sampling,
                            no_roots=no_roots, save_answers=save_answers)


class Color(str, enum.Enum):
    auto = "auto"
    always = "always"
    never = "never"


def output_options(
    verbose: Annotated[bool, typer.Option("-v", "--verbose", rich_help_panel=OUTPUT,
                                          help="Also show the raw wire and the server's stderr.")] = False,
    json_output: Annotated[bool, typer.Option("--json", rich_help_panel=OUTPUT,
                                              help="Exactly one JSON object on stdout.")] = False,
    color: Annotated[Color, typer.Option("--color", rich_help_panel=OUTPUT,
                                         help="Colour output (NO_COLOR is honoured).")] = Color.auto,
    strict: Annotated[bool, typer.Option("--strict", rich_help_panel=OUTPUT,
                                         help="A server breaking a MUST is exit 2.")] = False,
    show_secrets: Annotated[bool, typer.Option("--show-secrets", rich_help_panel=OUTPUT,
                                               help="Show Authorization and cookie values with -v.")] = False,
    debug: Annotated[bool, typer.Option("--debug", rich_help_panel=OUTPUT,
                                        help="A traceback for unexpected failures.")] = False,
) -> OutputOptions:
    return OutputOptions(verbose=verbose, json=json_output, color=color.value, debug=debug, strict=strict,
                         show_secrets=show_secrets)


TRANSCRIPTS = "Transcripts"


def recording_options(
    record: Annotated[Optional[str], typer.Option("--record", metavar="FILE.yaml", rich_help_panel=TRANSCRIPTS,
                                                  help="Keep the whole conversation as a YAML transcript.")] = None,
    redact: Annotated[Optional[List[str]], typer.Option("--redact", metavar="NAME_OR_PATH", rich_help_panel=TRANSCRIPTS,
                                                        help="Also hide this header, argument or JSON path "
                                                        "($.rounds[*]...) in the transcript. Repeatable.")] = None,
) -> RecordingOptions:
    return RecordingOptions(record=record, redact=tuple(redact or ()))


def with_groups(**builders: Callable[..., Any]) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Give a command the options of each group builder; it receives the built objects by name."""

    def decorate(command: Callable[..., int]) -> Callable[..., int]:
        own = [p for name, p in inspect.signature(command).parameters.items() if name not in builders]
        grouped = {name: inspect.signature(b).parameters for name, b in builders.items()}
        extra = [p for params in grouped.values() for p in params.values()]

        @functools.wraps(command)
        def wrapper(**values: Any) -> int:
            built = {name: builders[name](**{p: values.pop(p) for p in params}) for name, params in grouped.items()}
            raise typer.Exit(command(**values, **built))

        parameters = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own + extra]
        wrapper.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        return wrapper

    return decorate


ARGUMENT = Annotated[Optional[List[str]], typer.Option("-a", "--arg", metavar="KEY=VALUE",
                                                       help="An argument, typed by the declared schema when "
                                                       "known, else JSON, else text. Repeatable.")]
ARGS_JSON = Annotated[Optional[str], typer.Option("--args", metavar="JSON|@FILE",
                                                  help="All arguments as a JSON object; -a keys override.")]


@app.command()
@with_groups(target=target_options, answering=answering_options, output=output_options, recording=recording_options)
def call(tool: Annotated[str, typer.Argument(help="The tool to call.")], arg: ARGUMENT = None,
         args: ARGS_JSON = None, *, target: Any = None, answering: Any = None, output: Any = None,
         recording: Any = None) -> int:
    """tools/call TOOL, answering every round until the result."""
    from mrtr_cli.commands import call as command

    return command.run(CallOptions("tools/call", tool, tuple(arg or ()), args), target, answering, output, recording)


@app.command()
@with_groups(target=target_options, answering=answering_options, output=output_options, recording=recording_options)
def read(uri: Annotated[str, typer.Argument(help="The resource URI.")],
         *, target: Any = None, answering: Any = None, output: Any = None, recording: Any = None) -> int:
    """resources/read URI, answering every round until the result."""
    from mrtr_cli.commands import call as command

    return command.run(CallOptions("resources/read", uri), target, answering, output, recording)


@app.command()
@with_groups(target=target_options, answering=answering_options, output=output_options, recording=recording_options)
def prompt(name: Annotated[str, typer.Argument(help="The prompt to get.")], arg: ARGUMENT = None,
           args: ARGS_JSON = None, *, target: Any = None, answering: Any = None, output: Any = None,
           recording: Any = None) -> int:
    """prompts/get NAME (arguments are sent as strings), answering every round until the result."""
    from mrtr_cli.commands import call as command

    return command.run(CallOptions("prompts/get", name, tuple(arg or ()), args), target, answering, output, recording)


@app.command()
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


@app.command("list")
@with_groups(target=target_options, output=output_options)
def list_(kind: Annotated[ListKind, typer.Argument(help="What to list.")],
          *, target: Any = None, output: Any = None) -> int:
    """The tools, prompts, resources or resource templates of a server, every page."""
    from mrtr_cli.commands import inspect as command

    return command.run_list(kind.value, target, output)


HTTP_LISTEN = Annotated[Optional[str], typer.Option("--http", metavar="[HOST:]PORT",
                                                   help="Serve Streamable HTTP on HOST:PORT (HOST defaults to "
                                                   "127.0.0.1; port 0 picks a free one) instead of stdio.")]


@app.command("demo-server")
def demo_server(http: HTTP_LISTEN = None) -> int:
    """The built-in demo server: every tool asks for input through MRTR (stdio by default)."""
    from mrtr_cli.commands import serving

    raise typer.Exit(serving.run_demo_server(http))


@app.command("serve")
def serve_(files: Annotated[List[str], typer.Argument(metavar="TRANSCRIPT.yaml...", help="Transcripts to serve.")],
           http: HTTP_LISTEN = None) -> int:
    """Play transcripts back as a 2026-07-28 server (stdio by default)."""
    from mrtr_cli.commands import serving

    raise typer.Exit(serving.run_serve(files, http))


@app.command()
@with_groups(output=output_options)
def show(file: Annotated[str, typer.Argument(metavar="TRANSCRIPT.yaml", help="The transcript to show.")],
         *, output: Any = None) -> int:
    """A transcript's timeline and result, as call showed them; no server needed."""
    from mrtr_cli.commands import show as command

    return command.run(file, output)


@app.command()
@with_groups(target=target_options, answering=answering_options, output=output_options)
def replay(files: Annotated[List[str], typer.Argument(metavar="TRANSCRIPT.yaml...", help="Transcripts to replay.")],
           arg: ARGUMENT = None,
           interactive: Annotated[bool, typer.Option("--interactive", rich_help_panel=TRANSCRIPTS,
                                                     help="Ask a person what the recording does not answer.")] = False,
           update: Annotated[bool, typer.Option("--update", rich_help_panel=TRANSCRIPTS,
                                                help="Rewrite each transcript from the live run.")] = False,
           ignore: Annotated[Optional[List[str]], typer.Option("--ignore", metavar="JSON_PATH", rich_help_panel=TRANSCRIPTS,
                                                               help="Also ignore this path when comparing "
                                                               "($.rounds[*].received.result...). Repeatable.")] = None,
           trust_target: Annotated[bool, typer.Option("--trust-target", rich_help_panel=TRANSCRIPTS,
                                                      help="Run a recorded stdio command without asking.")] = False,
           *, target: Any = None, answering: Any = None, output: Any = None) -> int:
    """Re-run transcripts against a live server and report any divergence (exit 6).

    --strict also compares notifications, findings, HTTP status and content type.
    """
    from mrtr_cli.commands import replay as command

    options = command.ReplayOptions(tuple(files), tuple(arg or ()), interactive, update, tuple(ignore or ()),
                                    trust_target, output.strict)
    return command.run(options, target, answering, output)


@app.command()
@with_groups(target=target_options, answering=answering_options, output=output_options)
def check(tool: Annotated[Optional[str], typer.Option("--tool", metavar="NAME",
                                                      help="Also probe MRTR with this tool (and only this one).")] = None,
          arg: ARGUMENT = None, args: ARGS_JSON = None,
          *, target: Any = None, answering: Any = None, output: Any = None) -> int:
    """Probe a server's MRTR and 2026-07-28 behaviour: a checklist, exit 2 when a MUST fails."""
    from mrtr_cli.commands import check as command

    called = CallOptions("tools/call", tool, tuple(arg or ()), args) if tool else None
    return command.run(called, target, answering, output)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mrtr {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """mrtr: an inspector for MCP Multi Round-Trip Requests (MCP 2026-07-28)."""


def run(args: List[str]) -> int:
    """Parse `args` and run the command; everything after `--` is the server to spawn."""
    if "--" in args:
        cut = args.index("--")
        args, _server_command[:] = args[:cut], args[cut + 1:]
    command = typer.main.get_command(app)
    click = _click_module()
    try:
        return int(command.main(args=args, prog_name="mrtr", standalone_mode=False) or 0)
    except click.exceptions.ClickException as error:
        return _usage_error(error.format_message(), "--json" in args)
    except typer.Abort as abort:  # click turns a KeyboardInterrupt it sees into Abort
        from mrtr_cli.errors import interruption

        return int(interruption(abort.__context__).exit_code)


def _click_module() -> Any:
    """The click typer runs on (typer 0.29 vendors its own; older typer uses click)."""
    vendored = getattr(typer, "_click", None)
    if vendored is not None:
        return vendored
    import click

    return click


def _usage_error(message: str, as_json: bool) -> int:
    from mrtr_cli.render import json_report
    from mrtr_cli.exit_codes import ExitCode

    line = f"mrtr: {message.strip()} (see mrtr --help)"
    print(line, file=sys.stderr)
    if as_json:
        print(json_report.error_line(ExitCode.USAGE, line), file=sys.stderr)
    return int(ExitCode.USAGE)
