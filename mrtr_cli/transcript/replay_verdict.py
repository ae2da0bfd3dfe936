"""How one transcript replayed: the same as recorded, diverged (each difference), or failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.errors import MrtrError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.transcript.compare import Difference


@dataclass
class ReplayVerdict:
    """How one transcript replayed."""

    file: str
    code: ExitCode = ExitCode.OK
    differences: list[Difference] = field(default_factory=list)
    error: MrtrError | None = None
    rounds: int = 0
    unused_flags: list[str] | None = None
    """The answer flags no question of the live run used (None: the run did not get that far)."""
    elapsed: float = 0.0
    """Seconds the replay took, loading the transcript included."""
    cause: MrtrError | None = None
    """What made a live run diverge, when mrtr knows it: a retry another instance refused
    (`--replica`, `--restart-between-rounds`)."""

    @property
    def result(self) -> str:
        if self.error is not None and self.code != ExitCode.DIVERGED:
            return "failed"
        return "diverged" if self.differences else "same"

    def as_dict(self) -> dict[str, Any]:
        """The verdict in replay's --json document."""
        return {"file": self.file, "result": self.result, "exit_code": int(self.code),
                "rounds": self.rounds, "differences": [d.as_dict() for d in self.differences],
                "error": _one_line(self.error or self.cause)}


def _one_line(error: MrtrError | None) -> str | None:
    return error.one_line() if error is not None else None
