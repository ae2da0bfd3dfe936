"""The options several commands share, each declared once as a named annotation, and the group
builders that turn them into Options objects.

A group builder (`target_options`, `answering_options`, `output_options`, `recording_options`)
is a plain function whose parameters are typer options and whose body builds an Options object.
`with_groups` adds a group's parameters to a command and hands the command the built object.
(No `from __future__ import annotations` here: typer reads these annotations at runtime.)
"""

import enum
import functools
import inspect
from typing import Annotated, Any, Callable, List, Optional

import typer

from mrtr_cli.options import (COLORS, MAX_SECONDS, MIN_SECONDS, AnsweringOptions, OutputOptions, RecordingOptions,
                              TargetOptions, protocol_version, round_limit, seconds)
from mrtr_cli.protocol.meta import LOG_LEVELS

SERVER, ANSWERS, OUTPUT, TRANSCRIPTS = "Server", "Answering", "Output", "Transcripts"


def _size(text: str) -> int:
    """`--max-message-size SIZE` in bytes; a bad value is a usage error naming the flag."""
    from mrtr_cli.transport.base import parse_size

    try:
        return parse_size(str(text))
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None


def _panel(name: str) -> Callable[..., Any]:
    """`typer.Option`, shown under the help panel `name`."""
    return functools.partial(typer.Option, rich_help_panel=name)


_server, _answering, _output, _transcripts = map(_panel, (SERVER, ANSWERS, OUTPUT, TRANSCRIPTS))


def click_module() -> Any:
    """The click typer runs on (typer 0.29 vendors its own; older typer uses click)."""
    vendored = getattr(typer, "_click", None)
    if vendored is not None:
        return vendored
    import click

    return click


def _read_by(click_type: Any, read: Callable[[str], Any]) -> Any:
    """A click type (a number range's help shows its bounds) whose values `read` converts: the same
    reader as the fast parser's, and its ValueError is what the user reads."""

    class ReadBy(click_type):  # type: ignore[misc, valid-type]
        def convert(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                return read(str(value))
            except ValueError as error:
                self.fail(str(error), param, ctx)

    return ReadBy


_click = click_module()
SecondsType = _read_by(_click.types.FloatRange, seconds)
RoundLimitType = _read_by(_click.types.IntRange, round_limit)
VersionType = _read_by(_click.types.StringParamType, protocol_version)


def _seconds(name: str, **settings: Any) -> Any:
    """A number of seconds: from MIN_SECONDS to MAX_SECONDS, never nan (options.seconds)."""
    return _server(name, metavar="SECONDS", click_type=SecondsType(min=MIN_SECONDS, max=MAX_SECONDS), **settings)


Value = Optional[str]
Values = Optional[List[str]]

URL = Annotated[Value, _server("--url", help="A Streamable HTTP endpoint.")]
STDIO = Annotated[Value, _server("--stdio", metavar="CMD", help='Spawn a stdio server: "CMD ARGS" (split like a '
                                "shell, run without one). Or put -- CMD ARGS at the end.")]
CONFIG = Annotated[Value, _server("--config", metavar="FILE", help="An mcpServers file (mcp.json, "
                                 "claude_desktop_config.json); ${VAR} expands from the environment.")]
SERVER_NAME = Annotated[Value, _server("--server", metavar="NAME", help="The entry of --config to use.")]
DEMO = Annotated[bool, _server("--demo", help="The built-in demo server, spawned over stdio.")]
HEADER = Annotated[Values, _server("-H", "--header", metavar="'NAME: VALUE'", help="An extra HTTP header (not "
                                  "MCP-Protocol-Version or Mcp-*). Repeatable.")]
ENV = Annotated[Values, _server("-e", "--env", metavar="KEY=VALUE", help="Environment of a stdio server. Repeatable.")]
ENV_FILE = Annotated[Value, _server("--env-file", metavar="FILE",
                                   help="KEY=VALUE lines for a stdio server's environment.")]
CWD = Annotated[Value, _server("--cwd", metavar="DIR", help="Working directory of a stdio server.")]
TIMEOUT = Annotated[float, _seconds("--timeout", help="Per request, send to response, "
                                   "answering excluded; progress resets the timeout at most 10 times, so one "
                                   "request waits at most 11 x --timeout.")]
PROTOCOL_VERSION = Annotated[Value, _server("--protocol-version", metavar="V", click_type=VersionType(),
                                           help="Send this version as given, not renegotiated "
                                           "[default: 2026-07-28].")]
CACERT = Annotated[Value, _server("--cacert", metavar="FILE", help="CA bundle for HTTPS.")]
INSECURE = Annotated[bool, _server("--insecure", help="Do not verify TLS certificates.")]
NO_DISCOVER = Annotated[bool, _server("--no-discover", help="Skip the server/discover probe and speak 2026-07-28 "
                                     "directly.")]
PROTOCOL_ERA = Annotated[str, _server("--protocol-era", metavar="auto|modern|older", help="modern: 2026-07-28; "
                                      "older: the initialize handshake (2024-11-05 to 2025-11-25); auto: find out "
                                      "(see the README).")]
ERA_PROBE_WAIT = Annotated[float, _seconds("--era-probe-wait", help="With "
                                          "--protocol-era auto on stdio, how long a silent server/discover is "
                                          "waited for before the initialize handshake.")]
MAX_MESSAGE_SIZE = Annotated[int, _server("--max-message-size", metavar="SIZE", parser=_size, help="The largest "
                                          "message mrtr accepts (a stdio line, an HTTP body, an SSE event): bytes, "
                                          "or with K, M or G (powers of 1024); past it the message is refused, "
                                          "exit 2.")]

NO_AUTH = Annotated[bool, _server("--no-auth", help="Never log in and send no kept token: a server behind OAuth is "
                                  "exit 3.")]
AUTH_STORED_ONLY = Annotated[bool, _server("--auth-stored-only", help="Use kept tokens (refreshed when expired) but "
                                           "never open a browser: without one, exit 3 (for CI).")]
AUTH_OPEN = Annotated[Value, _server("--auth-open", metavar="CMD", help="Hand the authorization URL to CMD (split "
                                     "like --stdio, no shell; the URL is its last argument) instead of a browser.")]
AUTH_TIMEOUT = Annotated[float, _seconds("--auth-timeout",
                                         help="How long to wait for the browser's redirect when logging in.")]
CLIENT_ID = Annotated[Value, _server("--client-id", metavar="ID", help="A client registered with the server's "
                                     "authorization server (else mrtr registers itself).")]
CLIENT_SECRET = Annotated[Value, _server("--client-secret", metavar="SECRET", help="The secret of --client-id.")]
CLIENT_METADATA_URL = Annotated[Value, _server("--client-metadata-url", metavar="URL", help="mrtr's client ID "
                                               "metadata document, used when the authorization server supports it.")]


def target_options(
    context: typer.Context, url: URL = None, stdio: STDIO = None, config: CONFIG = None, server: SERVER_NAME = None,
    demo: DEMO = False, header: HEADER = None, env: ENV = None, env_file: ENV_FILE = None, cwd: CWD = None,
    timeout: TIMEOUT = 60.0, protocol_version: PROTOCOL_VERSION = None, cacert: CACERT = None,
    insecure: INSECURE = False, no_discover: NO_DISCOVER = False, max_message_size: MAX_MESSAGE_SIZE = "64M",
    protocol_era: PROTOCOL_ERA = "auto", era_probe_wait: ERA_PROBE_WAIT = 3.0, no_auth: NO_AUTH = False,
    auth_stored_only: AUTH_STORED_ONLY = False, auth_open: AUTH_OPEN = None, auth_timeout: AUTH_TIMEOUT = 300.0,
    client_id: CLIENT_ID = None, client_secret: CLIENT_SECRET = None, client_metadata_url: CLIENT_METADATA_URL = None,
) -> TargetOptions:
    """The server options; `-- CMD ARGS` arrives as the context's `obj` (cli.run cuts it off)."""
    return TargetOptions(url=url, stdio=stdio, command=tuple(context.obj or ()), config=config, server=server,
                         demo=demo, headers=tuple(header or ()), env=tuple(env or ()), env_file=env_file,
                         cwd=cwd, timeout=timeout, protocol_version=protocol_version, cacert=cacert,
                         insecure=insecure, no_discover=no_discover, max_message_size=max_message_size,
                         protocol_era=protocol_era, era_probe_wait=era_probe_wait, no_auth=no_auth,
                         auth_stored_only=auth_stored_only, auth_open=auth_open, auth_timeout=auth_timeout,
                         client_id=client_id, client_secret=client_secret, client_metadata_url=client_metadata_url)


LogLevel = enum.Enum("LogLevel", [(level, level) for level in LOG_LEVELS], type=str)  # typer's choices

ANSWERS_FILE = Annotated[Value, _answering("--answers", metavar="FILE.yaml", help="Scripted answers (see the README).")]
ANSWER = Annotated[Values, _answering("--answer", metavar="KEY.FIELD=VALUE", help="A form field of question KEY, or "
                                     "KEY=accept|decline|cancel. Repeatable.")]
ROOT = Annotated[Values, _answering("--root", metavar="PATH_OR_FILE_URI",
                                   help="A root offered to roots/list. Repeatable.")]
SAMPLING_REPLY = Annotated[Value, _answering("--sampling-reply", metavar="TEXT",
                                            help="Answer sampling with this text.")]
SAMPLER = Annotated[Value, _answering("--sampler", metavar="CMD", help='Answer sampling with a command fed '
                                     '{"method", "params"} on stdin.')]
SAMPLING_MODEL = Annotated[str, _answering("--sampling-model", metavar="NAME",
                                           help="The model named in sampling answers.")]
LOG_LEVEL = Annotated[Optional[LogLevel], _answering("--log-level", help="Ask for log messages at LEVEL and above.")]
NO_INPUT = Annotated[bool, _answering("--no-input", help="Never prompt: an unanswered question is exit 7.")]
MAX_ROUNDS = Annotated[int, _answering("--max-rounds", metavar="N", click_type=RoundLimitType(min=0),
                                       help="Answer at most N input_required results.")]
NO_ELICITATION = Annotated[bool, _answering("--no-elicitation", help="Withhold the elicitation capability.")]
NO_SAMPLING = Annotated[bool, _answering("--no-sampling", help="Withhold the sampling capability.")]
NO_ROOTS = Annotated[bool, _answering("--no-roots", help="Withhold the roots capability.")]
SAVE_ANSWERS = Annotated[Value, _answering("--save-answers", metavar="FILE.yaml",
                                          help="Write every answer given as an answers file.")]


def answering_options(
    answers_file: ANSWERS_FILE = None, answer: ANSWER = None, root: ROOT = None, sampling_reply: SAMPLING_REPLY = None,
    sampler: SAMPLER = None, sampling_model: SAMPLING_MODEL = "mrtr", log_level: LOG_LEVEL = None,
    no_input: NO_INPUT = False, max_rounds: MAX_ROUNDS = 10, no_elicitation: NO_ELICITATION = False,
    no_sampling: NO_SAMPLING = False, no_roots: NO_ROOTS = False, save_answers: SAVE_ANSWERS = None,
) -> AnsweringOptions:
    return AnsweringOptions(answers_file=answers_file, answers=tuple(answer or ()), roots=tuple(root or ()),
                            sampling_reply=sampling_reply, sampler=sampler, sampling_model=sampling_model,
                            log_level=log_level.value if log_level else None, no_input=no_input,
                            max_rounds=max_rounds, no_elicitation=no_elicitation, no_sampling=no_sampling,
                            no_roots=no_roots, save_answers=save_answers)


Color = enum.Enum("Color", [(color, color) for color in COLORS], type=str)  # typer's choices

VERBOSE = Annotated[bool, _output("-v", "--verbose", help="Also show the raw wire and the server's stderr.")]
JSON_OUTPUT = Annotated[bool, _output("--json", help="Exactly one JSON object on stdout.")]
COLOR = Annotated[Color, _output("--color", help="Colour output (NO_COLOR is honoured).")]
STRICT = Annotated[bool, _output("--strict", help="A server breaking a MUST is exit 2.")]
SHOW_SECRETS = Annotated[bool, _output("--show-secrets", help="Show Authorization and cookie values with -v.")]
DEBUG = Annotated[bool, _output("--debug", help="A traceback for unexpected failures.")]


def output_options(verbose: VERBOSE = False, json_output: JSON_OUTPUT = False, color: COLOR = Color.auto,
                   strict: STRICT = False, show_secrets: SHOW_SECRETS = False, debug: DEBUG = False) -> OutputOptions:
    return OutputOptions(verbose=verbose, json=json_output, color=color.value, debug=debug, strict=strict,
                         show_secrets=show_secrets)


RECORD = Annotated[Value, _transcripts("--record", metavar="FILE.yaml",
                                      help="Keep the whole conversation as a YAML transcript.")]
REDACT = Annotated[Values, _transcripts("--redact", metavar="NAME_OR_PATH", help="Also hide this header, argument or "
                                       "JSON path ($.rounds[*]...) in the transcript. Repeatable.")]


def recording_options(record: RECORD = None, redact: REDACT = None) -> RecordingOptions:
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
