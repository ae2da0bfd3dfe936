"""`--record-dir DIR`: each conversation that crosses the proxy kept as one transcript in DIR,
named by when it started, its method and its subject, so that a listing sorts them by time."""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any

from mrtr_cli.conversation import events
from mrtr_cli.errors import UsageError
from mrtr_cli.proxy.conversation import ConversationStart, subject_of
from mrtr_cli.transcript.recorder import Recorder
from mrtr_cli.transcript.redact import Redaction

UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
"""What a file name does not keep of a tool's name or a URI (a server's names are hostile)."""
SUBJECT_LIMIT = 60


class RecordDir:
    """Where the conversations go, and the transcript entry of the server behind the proxy."""

    def __init__(self, directory: str, target: dict[str, Any]) -> None:
        self.directory = Path(directory)
        self.target = target
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UsageError(f"--record-dir {directory}: cannot make the directory: {error.strerror}",
                             "name a directory mrtr can write") from None
        self._names: set[str] = set()

    def recorder(self, start: ConversationStart, emit: events.Observer | None) -> Recorder:
        """The recorder of a conversation that starts now; secrets are never written (Redaction)."""
        recorder = Recorder(str(self.directory / self._name(start)), self.target, start.version, start.capabilities,
                            Redaction(), emit)
        recorder.tools = [start.tool] if start.tool else []
        return recorder

    def _name(self, start: ConversationStart) -> str:
        """`20261201T223455.123456Z-tools-call-book_table.yaml`: time, method, subject."""
        return transcript_name(start.method, subject_of(start.params), self._names)


def transcript_name(method: str, subject: Any, taken: set[str]) -> str:
    """The file name of a conversation that starts now: `20261201T223455.123456Z-tools-call-book_table.yaml`
    (time, method, subject), numbered past the names in `taken`, which it joins. `mrtr shell`'s
    `record DIR` names its transcripts so too."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    shown = UNSAFE.sub("_", str(subject))[:SUBJECT_LIMIT] if subject is not None else "unnamed"
    name, number = f"{now}-{method.replace('/', '-')}-{shown}", 1
    while name + (f"-{number}" if number > 1 else "") in taken:
        number += 1
    name += f"-{number}" if number > 1 else ""
    taken.add(name)
    return name + ".yaml"
