"""Setting up a recording from the command line: the target as a transcript keeps it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mrtr_cli.conversation.client import ClientSettings
from mrtr_cli.errors import UsageError
from mrtr_cli.options import RecordingOptions, TargetOptions
from mrtr_cli.target import HttpTarget, Target
from mrtr_cli.transcript.recorder import Recorder
from mrtr_cli.transcript.redact import Redaction


def target_entry(target: Target, options: TargetOptions) -> dict[str, Any]:
    """How a transcript names its server: a stdio command with the absolute directory it ran in, so a
    replay from elsewhere runs it the same (environment values are never kept: they may be secrets)."""
    if options.demo:
        return {"transport": "demo"}
    if isinstance(target, HttpTarget):
        return {"transport": "http", "url": target.url}
    cwd = Path(target.cwd or os.getcwd()).resolve()
    return {"transport": "stdio", "command": list(target.command), "cwd": str(cwd)}


def make_recorder(recording: RecordingOptions, target: Target, options: TargetOptions,
                  settings: ClientSettings) -> Recorder:
    path = Path(str(recording.record))
    if not os.access(path.parent if str(path.parent) else ".", os.W_OK):
        raise UsageError(f"cannot write --record {str(path)!r}: its directory is not writable", "pick another path")
    return Recorder(str(path), target_entry(target, options), settings.version, settings.capabilities.declared(),
                    Redaction.from_flags(list(recording.redact)))
