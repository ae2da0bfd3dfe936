"""What the command line asked for, as typed values. Built by the cli, read by the commands.

Each field's default here is its option's default: mrtr_cli/definition/option_table.py declares the options
(names, kind, reader, help) and takes their defaults from these NamedTuples, for both parsers.

NamedTuples, not dataclasses: they are as immutable, and cost a tenth as much to define at
start-up (Python 3.11 compiles each dataclass method separately).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple


COLORS = ("auto", "always", "never")
"""The values of `--color`."""

ERA_PROBE_WAIT = 3.0
"""--era-probe-wait's default: seconds a silent server/discover is waited for (mrtr help eras)."""
ERA_PROBE_WAIT_VARIABLE = "MRTR_ERA_PROBE_WAIT"
"""Another default for --era-probe-wait, for every command of a CI job whose servers start slowly."""
MIN_SECONDS = 0.001
MAX_SECONDS = 1_000_000.0
"""The shortest and longest wait an option of seconds may ask for (11.5 days: the system's waits take at
most 24.8 days)."""


def seconds(text: str) -> float:
    """An option of seconds (`--timeout`): a number from MIN_SECONDS to MAX_SECONDS, else ValueError
    saying so. The fast parser and typer's command line both read it here."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and MIN_SECONDS <= value <= MAX_SECONDS):
        raise ValueError(f"{text!r} is not a number of seconds from {MIN_SECONDS:g} to {MAX_SECONDS:.0f}")
    return value


def round_limit(text: str) -> int:
    """`--max-rounds N`: a whole number, 0 or more, else ValueError saying so."""
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a whole number of rounds") from None
    if value < 0:
        raise ValueError(f"{text!r} is not a number of rounds: give 0 or more")
    return value


MAX_JOBS = 64
"""The most worker processes `replay --jobs` starts."""
MAX_REPEAT = 100_000
"""The most times `replay --repeat` replays each transcript."""


def whole_number(text: str, what: str, high: int) -> int:
    """A whole number from 1 to `high`, else ValueError saying so (`what`: what it counts)."""
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a whole number of {what}") from None
    if not 1 <= value <= high:
        raise ValueError(f"{text!r} is not a number of {what} from 1 to {high}")
    return value


def jobs(text: str) -> int:
    """`replay --jobs N`: 1 to MAX_JOBS worker processes."""
    return whole_number(text, "jobs", MAX_JOBS)


def repeat(text: str) -> int:
    """`replay --repeat K`: 1 to MAX_REPEAT runs of each transcript."""
    return whole_number(text, "runs", MAX_REPEAT)


MAX_USERS = 100_000
"""The most Locust users `mrtr load --users` starts in one process."""
MAX_CONVERSATIONS = 10_000_000
"""The most conversations `mrtr load --conversations` asks for."""


def port(text: str) -> int:
    """A TCP port, 1 to 65535."""
    return whole_number(text, "port", 65535)


def users(text: str) -> int:
    """`load --users N`: 1 to MAX_USERS simulated users."""
    return whole_number(text, "users", MAX_USERS)


def conversations(text: str) -> int:
    """`load --conversations N`: 1 to MAX_CONVERSATIONS conversations in all."""
    return whole_number(text, "conversations", MAX_CONVERSATIONS)


DURATION_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}
"""The units of `load --run-time` (Locust's own: 30s, 5m, 1h; a bare number is seconds)."""


def duration(text: str) -> float:
    """`load --run-time DURATION`: `30s`, `5m`, `1h` or seconds, from MIN_SECONDS to MAX_SECONDS."""
    unit = DURATION_UNITS.get(text[-1:], None) if text else None
    number = text[:-1] if unit is not None else text
    try:
        value = float(number) * (unit or 1.0)
    except ValueError:
        raise ValueError(f"{text!r} is not a duration: give seconds, or a number with s, m or h (30s, 5m)") from None
    if not (math.isfinite(value) and MIN_SECONDS <= value <= MAX_SECONDS):
        raise ValueError(f"{text!r} is not a duration from {MIN_SECONDS:g} s to {MAX_SECONDS:.0f} s")
    return value


def rate(text: str) -> float:
    """`load --spawn-rate R`: users started a second, more than 0."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number of users a second") from None
    if not (math.isfinite(value) and 0 < value <= MAX_USERS):
        raise ValueError(f"{text!r} is not a number of users a second above 0 and up to {MAX_USERS}")
    return value


def think(text: str) -> float:
    """`load --think SECONDS`: 0 (no pause) to MAX_SECONDS."""
    return 0.0 if text.strip() in ("0", "0.0") else seconds(text)


MIN_STATE_AGE = 1
MAX_STATE_AGE = 3600
"""The bounds of `check --state-age SECONDS`."""


def state_age(text: str) -> float:
    """`check --state-age SECONDS`: a number from MIN_STATE_AGE to MAX_STATE_AGE, else ValueError saying so."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number of seconds") from None
    if not MIN_STATE_AGE <= value <= MAX_STATE_AGE:  # NaN fails both
        raise ValueError(f"{text!r} is not a number of seconds from {MIN_STATE_AGE} to {MAX_STATE_AGE}")
    return value


def protocol_version(text: str) -> str:
    """`--protocol-version V`: a version mrtr speaks, else ValueError saying which it speaks (mrtr
    check sends an unsupported one on purpose, in its own probe). Both parsers read it here."""
    from mrtr_cli.protocol.handshake import EVERY_VERSION

    if text not in EVERY_VERSION:
        raise ValueError(f"{text!r} is not a version mrtr speaks: {', '.join(EVERY_VERSION)}")
    return text


def command_words(text: str, flag: str) -> list[str]:
    """A command given as one string (`--stdio "python server.py"`), split as a shell would; an
    unbalanced quote or a trailing backslash is a usage error naming it, never shlex's ValueError."""
    import shlex

    try:
        return shlex.split(text)
    except ValueError:
        from mrtr_cli.errors import UsageError
        from mrtr_cli.text import safe_line

        problem, fix = _unbalanced(text)
        raise UsageError(f"{flag} {safe_line(text, 200)!r}: {problem}", fix) from None


def _unbalanced(text: str) -> tuple[str, str]:
    """What shlex's POSIX reading could not finish: the quote left open (and where), or a last backslash."""
    quote, opened, index = "", 0, 0
    while index < len(text):
        char = text[index]
        if char == "\\" and quote != "'":
            index += 1  # the next character is taken as it is
        elif char in "'\"" and not quote:
            quote, opened = char, index
        elif char == quote:
            quote = ""
        index += 1
    if quote:
        name = "single" if quote == "'" else "double"
        return (f"the {name} quote {quote} at character {opened + 1} is never closed",
                "close it, or quote the whole command with the other kind of quote")
    return "it ends in a backslash, which escapes nothing", "drop the last backslash, or write \\\\ for one"


class TargetOptions(NamedTuple):
    """Which server, how to reach it, and how long to wait."""

    url: str | None = None
    stdio: str | None = None
    command: tuple[str, ...] = ()
    config: str | None = None
    server: str | None = None
    demo: bool = False
    headers: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    env_file: str | None = None
    cwd: str | None = None
    timeout: float = 60.0
    protocol_version: str | None = None
    cacert: str | None = None
    insecure: bool = False
    no_discover: bool = False
    protocol_era: str = "auto"
    era_probe_wait: float | None = None
    """--era-probe-wait; None: MRTR_ERA_PROBE_WAIT, else ERA_PROBE_WAIT (commands/common.py's `era_flags`)."""
    replicas: tuple[str, ...] = ()
    restart_between_rounds: bool = False
    max_message_size: int = 64 * 1024 * 1024  # transport.base.DEFAULT_MAX_MESSAGE_SIZE (not imported: start-up)
    no_auth: bool = False
    auth_stored_only: bool = False
    auth_open: str | None = None
    auth_timeout: float = 300.0
    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    client_credentials: bool = False
    client_secret_file: str | None = None
    client_assertion_key: str | None = None
    client_assertion_alg: str | None = None
    no_auth_store: bool = False


class AnsweringOptions(NamedTuple):
    """Where answers come from, and what mrtr declares it can answer."""

    answers_file: str | None = None
    answers: tuple[str, ...] = ()
    roots: tuple[str, ...] = ()
    sampling_reply: str | None = None
    sampler: str | None = None
    sampling_model: str = "mrtr"
    log_level: str | None = None
    no_input: bool = False
    max_rounds: int = 10
    no_elicitation: bool = False
    no_sampling: bool = False
    no_roots: bool = False
    save_answers: str | None = None
    answers_given: Any = None
    """Answers given from Python (the pytest fixture's `answers=`), in the answers file's shape: no
    flag sets it; with it, messages speak of `answers=`, never of a file or of flags."""


class OutputOptions(NamedTuple):
    """How results and the timeline are shown."""

    verbose: bool = False
    json: bool = False
    color: str = "auto"
    debug: bool = False
    strict: bool = False
    show_secrets: bool = False


class RecordingOptions(NamedTuple):
    """`--record FILE.yaml`, what to `--redact` in it, and `--html FILE` (render/html_page.py)."""

    record: str | None = None
    redact: tuple[str, ...] = ()
    html: str | None = None
    show_state: bool = False
    har: str | None = None


class TaskOptions(NamedTuple):
    """How a task is followed (the tasks extension, 2026-07-28): whether mrtr declares it, how often
    it polls, how long it follows one task."""

    no_tasks: bool = False
    poll_interval: float | None = None
    task_timeout: float = 600.0  # conversation.task_follower.DEFAULT_TASK_TIMEOUT (not imported: start-up)
    cancel_on_interrupt: bool = False
    task: bool = False
    """--task: call a tool whose execution.taskSupport is optional as a task (older era)."""


class ArgumentOptions(NamedTuple):
    """`-a KEY=VALUE` and `--args JSON`: what a call or a prompt sends (CallOptions' last fields)."""

    arguments: tuple[str, ...] = ()
    args_json: str | None = None


class CallOptions(NamedTuple):
    """One `call`, `read` or `prompt`: the method and what to send."""

    method: str
    name: str
    arguments: tuple[str, ...] = ()
    args_json: str | None = None


class ProbeOptions(NamedTuple):
    """What `mrtr check` probes besides the server itself: a tool, a prompt, a resource."""

    tool: str | None = None
    prompt: str | None = None
    resource: str | None = None
    skip_probes: tuple[str, ...] = ()
    state_age: float | None = None
    at_most_once: bool = False
    other_principal: tuple[str, ...] = ()
    """`--other-principal "NAME: VALUE"`: the headers of a second identity (check/principal_probe.py)."""


class ReplayingOptions(NamedTuple):
    """How `mrtr replay` treats its transcripts."""

    interactive: bool = False
    update: bool = False
    ignore: tuple[str, ...] = ()
    trust_target: bool = False
    jobs: int = 1
    repeat: int = 1


class LoadingOptions(NamedTuple):
    """How `mrtr load` runs its Locust users: how many, how fast, for how long, with what pause."""

    users: int = 10
    spawn_rate: float | None = None
    """--spawn-rate: users started a second (None: all of them in the first second)."""
    run_time: float | None = None
    """--run-time in seconds (None: 30 s, or no limit when --conversations is given)."""
    conversations: int | None = None
    """--conversations: stop after this many conversations in all."""
    think: float = 0.0
    weights: tuple[str, ...] = ()
    """--weight FILE=N: how often each transcript is picked (1 each by default)."""
    csv: str | None = None
    """--csv PREFIX: Locust's CSV reports, PREFIX_stats.csv, PREFIX_failures.csv, PREFIX_exceptions.csv."""
    html: str | None = None
    """--html FILE: Locust's HTML report."""
    master: bool = False
    expect_workers: int = 1
    master_bind_host: str = "127.0.0.1"
    """Where the master listens for workers (Locust's own default is every interface; mrtr's is this machine)."""
    master_bind_port: int = 5557
    worker: bool = False
    master_host: str | None = None
    master_port: int = 5557
    processes: int | None = None
    """--processes N: N local worker processes under a master in this process."""
    web: bool = False
    """--web: Locust's web UI on 127.0.0.1, which starts the users (else they start at once, headless)."""
    web_port: int = 8089


class PausedOptions(NamedTuple):
    """`mrtr answer`'s own: which paused conversations to list."""

    list_dir: str | None = None


class ReportOptions(NamedTuple):
    """`--junit FILE`, `--sarif FILE` and `--sarif-location PATH` of replay, check and proxy."""

    junit: str | None = None
    sarif: str | None = None
    sarif_location: str | None = None


class ServingOptions(NamedTuple):
    """How `demo-server` and `serve` serve: stdio, or HTTP at `--http`."""

    http: str | None = None
    conformance_fixtures: bool = False
    state_key: str | None = None


class ProxyOptions(NamedTuple):
    """`mrtr proxy`: where the conversations are kept, where the stdio shim's timeline goes, which
    server an HTTP proxy forwards to, and the server command after `--` (the stdio shim)."""

    record_dir: str | None = None
    timeline: str | None = None
    to: str | None = None
    command: tuple[str, ...] = ()
    json_report: str | None = None
    strict: bool = False
    wrap: bool = False
    unwrap: bool = False


class LogoutOptions(NamedTuple):
    """`mrtr auth logout --all`."""

    all_servers: bool = False


class AppOptions(NamedTuple):
    """The options of `mrtr` itself, before a command."""

    version: bool = False
