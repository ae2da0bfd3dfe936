"""Every command of mrtr, declared once: its name, its help, its arguments, and the option groups of
option_table.py it takes, in the order its help lists them.

Built from this table: cli/subcommands.py and cli/auth_app.py (typer's commands) and
fast_paths/fast_help.py (every `--help`, without typer). Adding a command is an entry here and its
function in cli/; standard library only (and protocol/choices.py), as the fast help imports it.
"""

from __future__ import annotations

from typing import NamedTuple, Union

from mrtr_cli.protocol.choices import LIST_METHODS


class Argument(NamedTuple):
    """A positional argument: the parameter its command takes, and how the help shows it."""

    name: str
    help: str
    metavar: str | None = None
    many: bool = False  # one or more
    required: bool = True
    choices: tuple[str, ...] = ()


Groups = tuple[tuple[str, tuple[str, ...]], ...]
"""The option groups a command takes, in order: each group's name, and its fields (none: all of them)."""


class Command(NamedTuple):
    """One command: its help (the summary, then, after an empty line, the details), its arguments
    and its option groups (their entries follow the arguments, in this order)."""

    name: str
    help: str
    arguments: tuple[Argument, ...] = ()
    groups: Groups = ()


class CommandGroup(NamedTuple):
    """`mrtr` and `mrtr auth`: a group of commands, with options of its own."""

    name: str
    help: str
    commands: tuple[Union[Command, "CommandGroup"], ...]
    groups: Groups = ()


CONVERSING: Groups = (("target", ()), ("answering", ()), ("tasks", ()), ("output", ()), ("recording", ()))
"""The option groups of the commands that hold a conversation (call, read, prompt)."""
SENT: Groups = (("call", ()),)
PAGE = ("recording", ("html", "show_state"))
"""`--html FILE` and `--show-state` of the commands that record nothing (show, check)."""
EXCHANGES = ("recording", ("html", "show_state", "har"))
"""Those and `--har FILE`, for replay and proxy."""
DECLARING: Groups = (("answering", ("answers_file", "roots", "no_elicitation", "no_sampling", "no_roots")),
                     ("tasks", ("no_tasks",)))
"""What `discover` and `list` declare as `call` would, and answer the server's own requests from (never a prompt)."""
"""`-a` and `--args`."""

TRANSCRIPTS = "TRANSCRIPT.yaml..."

COMMANDS = (
    Command("call", "tools/call TOOL, answering every round until the result.",
            (Argument("tool", "The tool to call."),), SENT + CONVERSING),
    Command("read", "resources/read URI, answering every round until the result.",
            (Argument("uri", "The resource URI."),), CONVERSING),
    Command("prompt", "prompts/get NAME (arguments are sent as strings), answering every round until the result.",
            (Argument("name", "The prompt to get."),), SENT + CONVERSING),
    Command("discover", "server/discover: the versions, capabilities and serverInfo of a server.",
            groups=(("target", ()),) + DECLARING + (("output", ()),)),
    Command("list", "The tools, prompts, resources or resource templates of a server, every page.",
            (Argument("kind", "What to list.", choices=tuple(LIST_METHODS)),),
            (("target", ()),) + DECLARING + (("output", ()),)),
    Command("shell", "One connection to a server, and commands typed at a mrtr> prompt: call, read, prompt, list, "
            "set, record...\n\n"
            "The server is started (or reached) once, its era chosen once, its lists kept until their ttlMs lapses. "
            "Type help at the prompt. Not at a terminal, commands are read from stdin one a line and the first that "
            "fails ends the shell with its exit code.",
            groups=CONVERSING + (("proxying", ("record_dir",)),)),
    Command("demo-server", "The built-in demo server: every tool asks for input through MRTR (stdio by default).",
            groups=(("serving", ()),)),
    Command("serve", "Play transcripts back as a 2026-07-28 server (stdio by default).",
            (Argument("files", "Transcripts to serve.", TRANSCRIPTS, many=True),), (("serving", ("http",)),)),
    Command("show", "A transcript's timeline and result, as call showed them; no server needed.",
            (Argument("file", "The transcript to show.", "TRANSCRIPT.yaml"),),
            (("output", ()), PAGE)),
    Command("replay", "Re-run transcripts against a live server and report any divergence (exit 6).\n\n"
            "--strict also compares notifications, findings, HTTP status and content type.",
            (Argument("files", "Transcripts to replay.", TRANSCRIPTS, many=True),),
            (("call", ("arguments",)), ("replaying", ()), ("report", ("junit", "sarif")), ("target", ()),
             ("answering", ()),
             ("tasks", ("poll_interval", "task_timeout")), ("output", ()), EXCHANGES)),
    Command("answer", "Continue a paused conversation (a transcript whose last round asks) from its file, to "
            "the recorded server or another instance.\n\n"
            "The retry carries the recorded requestState byte for byte, the recorded protocol version and client "
            "capabilities (no era probe); FILE is rewritten whole, its earlier rounds as they were, or --record "
            "OTHER gets the conversation. --list DIR shows the paused transcripts in DIR.",
            (Argument("file", "The paused transcript.", "[FILE.yaml]", required=False),),
            (("paused", ()), ("call", ("arguments",)), ("replaying", ("trust_target",)), ("target", ()),
             ("answering", ()), ("output", ()), ("recording", ("record",)))),
    Command("load", "Replay transcripts as Locust users against live servers over HTTP: each round timed, "
            "each conversation judged as replay judges it (exit 6 when any diverged or failed).\n\n"
            "Needs the extra: pip install 'mrtr[load]'. Round k goes to instance (k-1) mod n of --url and the "
            "--replica URLs.",
            (Argument("files", "Transcripts to replay (none with --worker).", TRANSCRIPTS, many=True,
                      required=False),),
            (("call", ("arguments",)), ("loading", ()), ("replaying", ("ignore",)),
             ("target", ("url", "config", "server", "headers", "timeout", "protocol_version", "cacert", "insecure",
                         "no_discover", "protocol_era", "replicas", "no_auth", "auth_stored_only", "auth_open",
                         "auth_timeout", "client_id", "client_secret", "client_metadata_url", "client_credentials",
                         "client_secret_file", "client_assertion_key", "client_assertion_alg")),
             ("answering", ("answers_file", "answers", "roots", "sampling_reply", "sampling_model", "max_rounds",
                            "no_elicitation", "no_sampling", "no_roots")),
             ("output", ("json", "color", "debug")))),
    Command("check", "Probe a server's MRTR and 2026-07-28 behaviour: a checklist, exit 2 when a MUST fails.",
            groups=(("probes", ()), ("call", ()), ("report", ()), ("target", ()), ("answering", ()),
                    ("output", ()), PAGE)),
    Command("proxy", "Stand between a host and a server: every message passes on unchanged; each conversation "
            "is seen and kept.\n\n"
            "Over stdio a host launches `mrtr proxy [OPTIONS] -- CMD ARGS` instead of the server; over HTTP "
            "`mrtr proxy --http [HOST:]PORT --to URL` forwards to the server at URL.",
            groups=(("proxying", ()), ("serving", ("http",)), ("target", ("max_message_size", "config", "server")),
                    ("report", ("junit", "sarif", "sarif_location")), EXCHANGES,
                    ("output", ("verbose", "show_secrets", "color", "debug")))),
    Command("help", "The help of mrtr or of COMMAND (what `mrtr COMMAND --help` prints), or a page of the "
            "manual.\n\n"
            "A command's name is its help; any other word names a page (`mrtr help eras`), and a word that names "
            "neither lists the topics.",
            (Argument("command", "The command, and its subcommand (`mrtr help auth login`), or a topic.",
                      "[COMMAND]...", many=True, required=False),)),
)
"""mrtr's commands, in the order its help lists them (`auth` and `tasks` after them)."""

PLAIN_OUTPUT = ("output", ("json", "color", "debug"))
"""The output options of a command that talks to no server."""
SERVER_URL = "[URL]"

AUTH = CommandGroup("auth", "The logins mrtr keeps for servers behind OAuth: log in, see them, or forget them.", (
    Command("status", "Which servers mrtr has tokens for: issuer, scopes, expiry, refresh token (never a token).",
            groups=(PLAIN_OUTPUT,)),
    Command("logout", "Forget the tokens kept for one server (URL), or for every server (--all).",
            (Argument("url", "The server to log out of.", SERVER_URL, required=False),),
            (("logout", ()), PLAIN_OUTPUT)),
    Command("login", "Log in to a server behind OAuth now (browser, or --auth-open CMD), and keep the login.",
            (Argument("url", "The server to log in to (or --config FILE --server NAME).", SERVER_URL,
                      required=False),),
            (("target", ("config", "server", "headers", "auth_open", "auth_timeout", "client_id", "client_secret",
                         "client_metadata_url", "client_credentials", "client_secret_file",
                         "client_assertion_key", "client_assertion_alg", "cacert", "insecure")),
             ("output", ("verbose", "show_secrets", "json", "color", "debug")))),
))
"""`mrtr auth ...`: the logins mrtr keeps for servers behind OAuth."""

TASK_ID = Argument("task_id", "The task's id (as the server gave it).", "ID")
TASK_OUTPUT = ("output", ("verbose", "json", "color", "show_secrets", "debug"))
"""The output options of a `tasks` command that sends one request."""

TASKS = CommandGroup("tasks", "The tasks mrtr started over HTTP and keeps the ids of: list them, ask the server "
                     "about one, come back to it, or cancel it.", (
    Command("list", "The task ids kept (of one server with --url): server, request, last status, time to live.",
            groups=(("target", ("url",)), PLAIN_OUTPUT)),
    Command("get", "tasks/get ID: the task's status, and its result or error once it has one.",
            (TASK_ID,), (("target", ()), TASK_OUTPUT)),
    Command("resume", "Follow task ID again and answer what it asks, as call would, until its result.\n\n"
            "Without target flags, the server the id is kept for; --record starts a new transcript at the resume.",
            (TASK_ID,), CONVERSING),
    Command("cancel", "tasks/cancel ID: ask the server to stop the task, and forget its id.",
            (TASK_ID,), (("target", ()), TASK_OUTPUT)),
))
"""`mrtr tasks ...`: the tasks mrtr keeps the ids of (kept_tasks.py)."""

APP = CommandGroup("mrtr", "Inspect MCP Multi Round-Trip Requests: send a request, answer what the server asks, "
                   "and see every round.", (*COMMANDS, AUTH, TASKS), (("app", ()),))
"""`mrtr` itself."""


def find(path: list[str]) -> Command | CommandGroup | None:
    """The command or group `mrtr PATH...` names (`[]`: mrtr itself); None when there is none."""
    found: Command | CommandGroup | None = APP
    for name in path:
        commands = found.commands if isinstance(found, CommandGroup) else ()
        found = next((command for command in commands if command.name == name), None)
    return found


def command_named(path: str) -> Command:
    """The command `mrtr PATH` names (`auth login`); KeyError when none does."""
    found = find(path.split())
    if not isinstance(found, Command):
        raise KeyError(path)
    return found
