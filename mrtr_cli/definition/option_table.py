"""Every option of every command, declared once: its names, the Options group and field it sets, its
kind, how its text is read, its metavar and its help. The defaults are the Options NamedTuples' own
(options.py); which command takes which groups is command_table.py's.

Built from this table: cli/option_groups.py (typer's parameters), fast_paths/fast_call.py (a usual
`call`, `read` or `prompt`, without typer) and fast_paths/fast_help.py (every `--help`, without
typer). Adding an option is an entry here, a field in its Options group, and the code that reads
it. The entries are in the order the help lists them. Standard library only: the fast paths import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, NamedTuple

from mrtr_cli.definition.options import (COLORS, MAX_CONVERSATIONS, MAX_JOBS, MAX_REPEAT, MAX_SECONDS, MAX_STATE_AGE,
                                         MAX_USERS, MIN_SECONDS, MIN_STATE_AGE, AnsweringOptions, AppOptions,
                                         ArgumentOptions, LoadingOptions, LogoutOptions, OutputOptions, PausedOptions,
                                         ProbeOptions, ProxyOptions, RecordingOptions, ReplayingOptions, ReportOptions,
                                         ServingOptions, TargetOptions, TaskOptions, jobs, protocol_version, repeat,
                                         round_limit, seconds, state_age, port, users, conversations, duration, rate,
                                         think)
from mrtr_cli.protocol.choices import LOG_LEVELS

GROUPS: dict[str, Any] = {"target": TargetOptions, "answering": AnsweringOptions, "output": OutputOptions,
                          "recording": RecordingOptions, "call": ArgumentOptions, "probes": ProbeOptions,
                          "replaying": ReplayingOptions, "report": ReportOptions, "serving": ServingOptions,
                          "logout": LogoutOptions, "app": AppOptions, "tasks": TaskOptions,
                          "proxying": ProxyOptions, "loading": LoadingOptions, "paused": PausedOptions}
"""Each group and the Options NamedTuple its entries fill (and whose defaults they take)."""

PANELS = {"target": "Server", "answering": "Answering", "output": "Output", "recording": "Transcripts",
          "replaying": "Transcripts", "report": "Output", "tasks": "Tasks", "loading": "Load"}
"""The help panel of each group's options; the other groups' are under Options."""

HELP = ("--help", "-h")
"""The help option every command and command group takes (click's own, not an Options field): its
long and short name, as its row in the help shows them. typer's `help_option_names`, the fast help
and entry.py's look at the words all read it."""
HELP_TEXT = "Show this message and exit."
"""The help option's help: click's words, which typer's page shows too."""


def message_size(text: str) -> int:
    """`--max-message-size SIZE` in bytes (transport/base.py reads sizes; loaded only when one is given)."""
    from mrtr_cli.transport.base import parse_size

    return parse_size(text)


def size_text(size: int) -> str:
    """A size as the flag writes it (64M): how the help shows `--max-message-size`'s default."""
    from mrtr_cli.transport.base import format_size

    return format_size(size)


class Reader(NamedTuple):
    """How an option's text becomes its value: `read` raises ValueError saying why it cannot (both
    parsers use it, so the words are the same). For a number, the bounds its help shows; `text`
    writes a default as it would be typed, when that is not `str(default)`."""

    read: Callable[[str], Any] = str
    number: type | None = None  # float or int: the help shows low..high
    low: float | None = None
    high: float | None = None
    text: Callable[[Any], str] | None = None


TEXT = Reader()
SECONDS = Reader(seconds, float, MIN_SECONDS, MAX_SECONDS)
ROUNDS = Reader(round_limit, int, 0)
VERSION = Reader(protocol_version)
SIZE = Reader(message_size, text=size_text)
JOBS = Reader(jobs, int, 1, MAX_JOBS)
REPEAT = Reader(repeat, int, 1, MAX_REPEAT)
STATE_AGE = Reader(state_age, float, MIN_STATE_AGE, MAX_STATE_AGE)
USERS = Reader(users, int, 1, MAX_USERS)
CONVERSATIONS = Reader(conversations, int, 1, MAX_CONVERSATIONS)
DURATION = Reader(duration)
RATE = Reader(rate, float, 0, MAX_USERS)
THINK = Reader(think, float, 0, MAX_SECONDS)
PORT = Reader(port, int, 1, 65535)


OptionKind = Literal["flag", "value", "many"]
"""flag: sets True; value: the last one given wins; many: each one given is added."""


class Option(NamedTuple):
    """One option: its names (as the help lists them), the group and field it sets, and how."""

    names: tuple[str, ...]
    group: str  # a key of GROUPS
    field: str
    kind: OptionKind
    help: str
    metavar: str | None = None
    reader: Reader = TEXT
    choices: tuple[str, ...] = ()

    @property
    def default(self) -> Any:
        """The value when the option is not given: its Options group's default."""
        return GROUPS[self.group]._field_defaults.get(self.field)

    def convert(self, text: str) -> Any:
        """The value of `text` as the command reads it; ValueError when it is not one."""
        if self.choices and text not in self.choices:
            raise ValueError(f"{text!r} is not one of {', '.join(map(repr, self.choices))}")
        return self.reader.read(text)


def _target(names: str, field: str, kind: OptionKind, help: str, metavar: str | None = None,
            reader: Reader = TEXT) -> Option:
    return Option(tuple(names.split()), "target", field, kind, help, metavar, reader)


def _answering(names: str, field: str, kind: OptionKind, help: str, metavar: str | None = None, reader: Reader = TEXT,
               choices: tuple[str, ...] = ()) -> Option:
    return Option(tuple(names.split()), "answering", field, kind, help, metavar, reader, choices)


TARGET = (
    _target("--url", "url", "value", "A Streamable HTTP endpoint.", "URL"),
    _target("--stdio", "stdio", "value", 'Spawn a stdio server: "CMD ARGS" (split like a shell, run without one). Or '
            "put -- CMD ARGS at the end.", "CMD"),
    _target("--config", "config", "value", "An mcpServers file (mcp.json, claude_desktop_config.json); ${VAR} "
            "expands from the environment.", "FILE"),
    _target("--server", "server", "value", "The entry of --config to use.", "NAME"),
    _target("--demo", "demo", "flag", "The built-in demo server, spawned over stdio."),
    _target("-H --header", "headers", "many", "An extra HTTP header (not MCP-Protocol-Version or Mcp-*). Repeatable.",
            "'NAME: VALUE'"),
    _target("-e --env", "env", "many", "Environment of a stdio server. Repeatable.", "KEY=VALUE"),
    _target("--env-file", "env_file", "value", "KEY=VALUE lines for a stdio server's environment.", "FILE"),
    _target("--cwd", "cwd", "value", "Working directory of a stdio server.", "DIR"),
    _target("--timeout", "timeout", "value", "Per request, send to response, answering excluded; progress resets "
            "the timeout at most 10 times, so one request waits at most 11 x --timeout.", "SECONDS", SECONDS),
    _target("--protocol-version", "protocol_version", "value", "Send this version as given, not renegotiated "
            "[default: 2026-07-28].", "V", VERSION),
    _target("--cacert", "cacert", "value", "CA bundle for HTTPS.", "FILE"),
    _target("--insecure", "insecure", "flag", "Do not verify TLS certificates."),
    _target("--no-discover", "no_discover", "flag", "Skip the server/discover probe and speak 2026-07-28 directly."),
    _target("--max-message-size", "max_message_size", "value", "The largest message mrtr accepts (a stdio line, an "
            "HTTP body, an SSE event): bytes, or with K, M or G (powers of 1024); past it the message is refused, "
            "exit 2.", "SIZE", SIZE),
    _target("--protocol-era", "protocol_era", "value", "modern: 2026-07-28; older: the initialize handshake "
            "(2024-11-05 to 2025-11-25); auto: find out (see mrtr help eras).", "auto|modern|older"),
    _target("--era-probe-wait", "era_probe_wait", "value", "With --protocol-era auto, how long a silent "
            "server/discover is waited for before the initialize handshake (default: 3; MRTR_ERA_PROBE_WAIT sets "
            "another, for servers slow to start).", "SECONDS", SECONDS),
    _target("--replica", "replicas", "many", "Another instance of the --url server: round k of the conversation goes "
            "to instance (k-1) mod n of --url and the replicas, so the retry meets another instance (2026-07-28 "
            "only). Repeatable.", "URL"),
    _target("--restart-between-rounds", "restart_between_rounds", "flag", "Stop and start the stdio server again "
            "before each retry, so the retry meets a fresh process (2026-07-28 only)."),
    _target("--no-auth", "no_auth", "flag", "Never log in and send no kept token: a server behind OAuth is exit 3."),
    _target("--auth-stored-only", "auth_stored_only", "flag", "Use kept tokens (refreshed when expired) but never "
            "open a browser: without one, exit 3 (for CI)."),
    _target("--auth-open", "auth_open", "value", "Hand the authorization URL to CMD (split like --stdio, no shell; "
            "the URL is its last argument) instead of a browser.", "CMD"),
    _target("--auth-timeout", "auth_timeout", "value", "How long to wait for the browser's redirect when logging "
            "in.", "SECONDS", SECONDS),
    _target("--client-id", "client_id", "value", "A client registered with the server's authorization server (else "
            "mrtr registers itself).", "ID"),
    _target("--client-secret", "client_secret", "value", "The secret of --client-id.", "SECRET"),
    _target("--client-metadata-url", "client_metadata_url", "value", "mrtr's client ID metadata document, used when "
            "the authorization server supports it.", "URL"),
    _target("--client-credentials", "client_credentials", "flag", "Log in as a machine (the OAuth client credentials "
            "grant: no browser, for CI) with --client-id and its secret or key."),
    _target("--client-secret-file", "client_secret_file", "value", "Read the secret of --client-credentials from FILE "
            "(or set MRTR_CLIENT_SECRET): a flag shows in ps and shell history.", "FILE"),
    _target("--client-assertion-key", "client_assertion_key", "value", "Authenticate --client-credentials with a "
            "JWT signed by this private key (private_key_jwt; PKCS#8 PEM, EC or RSA, no passphrase, chmod 600).",
            "FILE"),
    _target("--client-assertion-alg", "client_assertion_alg", "value", "The algorithm that signs the assertion "
            "(default: chosen from the key and the authorization server's metadata).", "ALG"),
    _target("--no-auth-store", "no_auth_store", "flag", "Read no kept token and keep none: each run logs in "
            "afresh (a machine with --client-credentials, in CI)."),
)
"""Which server, how to reach it, and how long to wait (TargetOptions)."""

ANSWERING = (
    _answering("--answers", "answers_file", "value", "Scripted answers (see mrtr help answers-files).", "FILE.yaml"),
    _answering("--answer", "answers", "many", "A form field of question KEY, or KEY=accept|decline|cancel. "
               "Repeatable.", "KEY.FIELD=VALUE"),
    _answering("--root", "roots", "many", "A root offered to roots/list. Repeatable.", "PATH_OR_FILE_URI"),
    _answering("--sampling-reply", "sampling_reply", "value", "Answer sampling with this text.", "TEXT"),
    _answering("--sampler", "sampler", "value", 'Answer sampling with a command fed {"method", "params"} on stdin.',
               "CMD"),
    _answering("--sampling-model", "sampling_model", "value", "The model named in sampling answers.", "NAME"),
    _answering("--log-level", "log_level", "value", "Ask for log messages at LEVEL and above.", choices=LOG_LEVELS),
    _answering("--no-input", "no_input", "flag", "Never prompt: an unanswered question is exit 7."),
    _answering("--max-rounds", "max_rounds", "value", "Answer at most N input_required results.", "N", ROUNDS),
    _answering("--no-elicitation", "no_elicitation", "flag", "Withhold the elicitation capability."),
    _answering("--no-sampling", "no_sampling", "flag", "Withhold the sampling capability."),
    _answering("--no-roots", "no_roots", "flag", "Withhold the roots capability."),
    _answering("--save-answers", "save_answers", "value", "Write every answer given as an answers file.",
               "FILE.yaml"),
)
"""Where answers come from, and what mrtr declares it can answer (AnsweringOptions)."""

OUTPUT = (
    Option(("-v", "--verbose"), "output", "verbose", "flag", "Also show the raw wire and the server's stderr."),
    Option(("--json",), "output", "json", "flag", "Exactly one JSON object on stdout."),
    Option(("--color",), "output", "color", "value", "Colour output (NO_COLOR is honoured).", choices=COLORS),
    Option(("--strict",), "output", "strict", "flag", "A server breaking a MUST is exit 2."),
    Option(("--show-secrets",), "output", "show_secrets", "flag", "Show Authorization and cookie values with -v."),
    Option(("--debug",), "output", "debug", "flag", "A traceback for unexpected failures."),
)
"""How results and the timeline are shown (OutputOptions)."""

RECORDING = (
    Option(("--record",), "recording", "record", "value", "Keep the whole conversation as a YAML transcript.",
           "FILE.yaml"),
    Option(("--redact",), "recording", "redact", "many", "Also hide this header, argument or JSON path "
           "($.rounds[*]...) in the transcript. Repeatable.", "NAME_OR_PATH"),
    Option(("--html",), "recording", "html", "value", "Also write the conversation (a check's checklist, a "
           "replay's differences) as one self-contained HTML page to FILE.", "FILE"),
    Option(("--show-state",), "recording", "show_state", "flag", "In the --html page, show each requestState "
           "itself, not only its size."),
    Option(("--har",), "recording", "har", "value", "Over HTTP: also write the exchanges as a HAR 1.2 log to FILE "
           "(browsers' developer tools open it).", "FILE"),
)
"""`--record FILE.yaml`, what to `--redact` in it, and the `--html FILE` page (RecordingOptions)."""

TASKS = (
    Option(("--no-tasks",), "tasks", "no_tasks", "flag", "Withhold the tasks extension "
           "(io.modelcontextprotocol/tasks): the server answers at once, or refuses."),
    Option(("--poll-interval",), "tasks", "poll_interval", "value", "Poll a task every SECONDS, not at the "
           "server's pollIntervalMs (held between 0.1 and 10 s).", "SECONDS", SECONDS),
    Option(("--task-timeout",), "tasks", "task_timeout", "value", "Follow a task at most SECONDS, then exit 4 "
           "with its id.", "SECONDS", SECONDS),
    Option(("--cancel-on-interrupt",), "tasks", "cancel_on_interrupt", "flag", "On Ctrl-C, send tasks/cancel for "
           "the task being followed (else it goes on, and its id is kept for `mrtr tasks resume`)."),
    Option(("--task",), "tasks", "task", "flag", "Call the tool as a task (older era, a tool whose "
           "execution.taskSupport is optional; required ones always are). Since 2026-07-28 the server decides."),
)
"""How a task the server makes of a call is followed (TaskOptions)."""

CALL = (
    Option(("-a", "--arg"), "call", "arguments", "many", "An argument, typed by the declared schema when known, else "
           "JSON, else text. Repeatable.", "KEY=VALUE"),
    Option(("--args",), "call", "args_json", "value", "All arguments as a JSON object; -a keys override.",
           "JSON|@FILE"),
)
"""What a call or a prompt sends (ArgumentOptions; `read` has none of them)."""

OWN = (
    Option(("--tool",), "probes", "tool", "value", "Also probe MRTR with this tool (and only this one).", "NAME"),
    Option(("--prompt",), "probes", "prompt", "value", "Also probe prompts/get of this prompt (-a/--args are its "
           "arguments when no --tool is named).", "NAME"),
    Option(("--resource",), "probes", "resource", "value", "Also probe resources/read of this resource.", "URI"),
    Option(("--skip-probe",), "probes", "skip_probes", "many", "Leave this probe out (its line says skipped, by "
           "request). Repeatable.", "ID"),
    Option(("--state-age",), "probes", "state_age", "value", "Hold the named target's round 1 requestState this "
           "long, then retry it: accepted is a warn.", "SECONDS", STATE_AGE),
    Option(("--at-most-once",), "probes", "at_most_once", "flag", "The named target's requestState must be consumed "
           "at most once: its completing retry is sent again."),
    Option(("--other-principal",), "probes", "other_principal", "many", "A header of a second identity (another "
           "bearer token, say): is the named target's requestState refused from it, do two users' conversations "
           "mix? HTTP only; its value is never shown or kept. Repeatable.", "'NAME: VALUE'"),
    Option(("--interactive",), "replaying", "interactive", "flag", "Ask a person what the recording does not "
           "answer."),
    Option(("--update",), "replaying", "update", "flag", "Rewrite each transcript from the live run."),
    Option(("--ignore",), "replaying", "ignore", "many", "Also ignore this path when comparing "
           "($.rounds[*].received.result...). Repeatable.", "JSON_PATH"),
    Option(("--trust-target",), "replaying", "trust_target", "flag", "Run a recorded stdio command without asking."),
    Option(("-j", "--jobs"), "replaying", "jobs", "value", "Replay N transcripts at a time, each in a worker "
           "process (never asks: a recorded stdio command needs --trust-target).", "N", JOBS),
    Option(("--repeat",), "replaying", "repeat", "value", "Replay each transcript K times; the summary gives "
           "round latency percentiles and conversations per second.", "K", REPEAT),
    Option(("--users",), "loading", "users", "value", "How many Locust users replay conversations at once.", "N",
           USERS),
    Option(("--spawn-rate",), "loading", "spawn_rate", "value", "Users started a second (default: all of --users "
           "at once).", "R", RATE),
    Option(("--run-time",), "loading", "run_time", "value", "Stop after this long: seconds, or 30s, 5m, 1h "
           "(default: 30s, or no limit with --conversations).", "DURATION", DURATION),
    Option(("--conversations",), "loading", "conversations", "value", "Stop after N conversations in all.", "N",
           CONVERSATIONS),
    Option(("--think",), "loading", "think", "value", "Each user pauses this long between conversations.",
           "SECONDS", THINK),
    Option(("--weight",), "loading", "weights", "many", "Pick FILE N times as often as a transcript of weight 1 "
           "(the default). Repeatable.", "FILE=N"),
    Option(("--csv",), "loading", "csv", "value", "Also write Locust's CSV reports: PREFIX_stats.csv, "
           "PREFIX_failures.csv, PREFIX_exceptions.csv.", "PREFIX"),
    Option(("--html",), "loading", "html", "value", "Also write Locust's HTML report to FILE.", "FILE"),
    Option(("--web",), "loading", "web", "flag", "Serve Locust's web UI on 127.0.0.1 and start the users from "
           "it (else they start at once, headless); the run ends as without it, then the summary."),
    Option(("--web-port",), "loading", "web_port", "value", "With --web: the UI's port.", "PORT", PORT),
    Option(("--master",), "loading", "master", "flag", "Run Locust's master here: the users run on workers "
           "(`mrtr load --worker`), which it sends the transcripts and the URLs (never a header)."),
    Option(("--expect-workers",), "loading", "expect_workers", "value", "With --master: start once N workers "
           "are connected.", "N", USERS),
    Option(("--master-bind-host",), "loading", "master_bind_host", "value", "With --master: the interface workers "
           "connect to (the channel is not encrypted).", "HOST"),
    Option(("--master-bind-port",), "loading", "master_bind_port", "value", "With --master: the port workers "
           "connect to.", "PORT", PORT),
    Option(("--worker",), "loading", "worker", "flag", "Run Locust users for the master at --master-host: no "
           "transcripts, no --url (the master sends them); -H and login flags are this worker's own."),
    Option(("--master-host",), "loading", "master_host", "value", "With --worker: the master's host.", "HOST"),
    Option(("--master-port",), "loading", "master_port", "value", "With --worker: the master's port.", "PORT",
           PORT),
    Option(("--processes",), "loading", "processes", "value", "Run N local worker processes under a master in "
           "this one.", "N", USERS),
    Option(("--list",), "paused", "list_dir", "value", "List the paused transcripts in DIR (server, request, "
           "questions waiting, state age) instead of answering one.", "DIR"),
    Option(("--junit",), "report", "junit", "value", "Also write the run as a JUnit XML report to FILE.", "FILE"),
    Option(("--sarif",), "report", "sarif", "value", "Also write the failures and warnings as a SARIF 2.1.0 log "
           "to FILE (GitHub code scanning reads it).", "FILE"),
    Option(("--sarif-location",), "report", "sarif_location", "value", "The repository file the SARIF results "
           "point at (default: the transcript for replay, else --config or the stdio server's script).", "PATH"),
    Option(("--http",), "serving", "http", "value", "Serve Streamable HTTP on HOST:PORT (HOST defaults to "
           "127.0.0.1; port 0 picks a free one) instead of stdio.", "[HOST:]PORT"),
    Option(("--conformance-fixtures",), "serving", "conformance_fixtures", "flag", "Also serve the conformance "
           "suite's fixture tools and prompt."),
    Option(("--state-key",), "serving", "state_key", "value", "Seal requestState under a key made from KEY, not "
           "one made at start-up, so that instances sharing KEY (and a restarted one) accept each other's retries "
           "(default: MRTR_DEMO_STATE_KEY).", "KEY"),
    Option(("--to",), "proxying", "to", "value", "With --http: the server's Streamable HTTP endpoint, where every "
           "request goes on to.", "URL"),
    Option(("--record-dir",), "proxying", "record_dir", "value", "Keep each conversation (that crosses the proxy, or "
           "of the shell) as a transcript in DIR, one file each (show, replay and serve read it).", "DIR"),
    Option(("--timeline",), "proxying", "timeline", "value", "Over stdio: write the live timeline to FILE (the "
           "host owns stdout); -v adds the raw frames.", "FILE"),
    Option(("--json",), "proxying", "json_report", "value", "At exit, write what the judge of the client found "
           "(rule, severity, spec page) as JSON to FILE.", "FILE"),
    Option(("--strict",), "proxying", "strict", "flag", "Exit 2 when the client broke a MUST."),
    Option(("--wrap",), "proxying", "wrap", "flag", "Rewrite the stdio entry --server of the host's --config "
           "(Claude Desktop, VS Code) to run through mrtr proxy, with --record-dir and --timeline; a backup is kept "
           "beside the file."),
    Option(("--unwrap",), "proxying", "unwrap", "flag", "Restore the entry --server of --config as it was before "
           "--wrap."),
    Option(("--all",), "logout", "all_servers", "flag", "Log out of every server."),
    Option(("--version", "-V"), "app", "version", "flag", "Print the version and exit."),
)
"""The options of one command or two: check's probes, replay's, --junit, serving's, `auth logout
--all`, and `mrtr --version`."""

TABLE: tuple[Option, ...] = (*TARGET, *ANSWERING, *TASKS, *OUTPUT, *RECORDING, *CALL, *OWN)
"""Every entry, in the order the help lists them."""

SHARED_NAMES = {"--json": ("output", "proxying"), "--strict": ("output", "proxying"), "--html": ("loading", "recording")}
"""Names two entries share, by the groups of those entries (no command has both): `--json` is the
output flag of most commands and `mrtr proxy --json FILE` the judge's report; `--strict` is exit 2
for a server's broken MUST, and for the client's under `mrtr proxy`; `--html FILE` is mrtr's page of
the conversations, and under `mrtr load` Locust's own report."""

BY_NAME: dict[str, Option] = {name: option for option in TABLE for name in option.names if name not in SHARED_NAMES}
"""Each entry by each of its names; a name in SHARED_NAMES is not here (it names two entries)."""


def of_group(group: str, fields: tuple[str, ...] = ()) -> tuple[Option, ...]:
    """The entries of `group`: all in the table's order, or those of `fields` in their order."""
    entries = {option.field: option for option in TABLE if option.group == group}
    return tuple(entries[field] for field in fields) if fields else tuple(entries.values())
