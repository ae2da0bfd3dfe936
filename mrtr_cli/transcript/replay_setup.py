"""What replay needs before it can run a transcript: the server to run it against, and the
original request with every redacted value filled in again (never sent as recorded)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mrtr_cli.definition.arguments import split_pair, tool_arguments
from mrtr_cli.errors import UsageError
from mrtr_cli.definition.options import TargetOptions
from mrtr_cli.protocol import meta, tasks
from mrtr_cli.targets.target import names_a_server, options_from_entry, recorded_command
from mrtr_cli.transcript.model import Transcript
from mrtr_cli.transcript.redact import MARK


def replay_target(transcript: Transcript, options: TargetOptions, trust: bool,
                  confirm: Callable[[str], bool] | None) -> TargetOptions:
    """The recorded target, unless the command line names one. A recorded command runs only
    with --trust-target or a person's consent: a shared transcript must not run commands."""
    if names_a_server(options):
        return options
    recorded = transcript.data["target"]
    command = recorded_command(recorded)
    if command is not None and not trust and not (confirm and confirm(f"{transcript.path} runs `{command}`. Run it?")):
        raise UsageError(f"{transcript.path} would run the recorded command `{command}`",
                         "pass --trust-target if you trust it, or name the server (--stdio, --url, --demo)")
    return options_from_entry(recorded, options)


def recorded_era(transcript: Transcript, options: TargetOptions) -> TargetOptions:
    """The options to speak the recorded era by: an older-era transcript replays in the older era
    unless --protocol-era or --protocol-version says otherwise (the migration check)."""
    if transcript.spoken.handshake and options.protocol_era == "auto" and not options.protocol_version:
        return options._replace(protocol_era=transcript.era)
    return options


def replay_params(transcript: Transcript, pairs: tuple[str, ...],
                  ask: Callable[[str], str] | None) -> dict[str, Any]:
    """The recorded params, each redacted argument taken from `-a` (or asked), else exit 1."""
    params = dict(transcript.request["params"])
    arguments = params.get("arguments")
    if not isinstance(arguments, dict):
        return params
    given = dict(map(split_pair, pairs))
    schema = (transcript.data.get("tool") or {}).get("inputSchema")
    filled = {}
    for key, value in arguments.items():
        if value != MARK:
            filled[key] = value
        elif key in given:
            filled[key] = tool_arguments((f"{key}={given[key]}",), None, schema)[key]
        elif ask is not None:
            filled[key] = ask(f"the transcript hid the argument {key!r}; its value")
        else:
            raise UsageError(f"{transcript.path} redacted the argument {key!r}, and a redacted value is never "
                             "sent", f"pass -a {key}=VALUE")
    return {**params, "arguments": filled}


def recorded_capabilities(transcript: Transcript) -> meta.Capabilities:
    """The capabilities the recording declared, declared again (the tasks extension too: a transcript
    from before it declared none)."""
    declared = transcript.data["client_capabilities"]
    extensions = declared.get("extensions")
    tasks_declared = isinstance(extensions, dict) and tasks.EXTENSION in extensions
    return meta.Capabilities("elicitation" in declared, "sampling" in declared, "roots" in declared,
                             tasks=tasks_declared)
