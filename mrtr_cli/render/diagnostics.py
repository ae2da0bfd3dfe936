"""mrtr's own diagnostics on stderr: a failure and what to do, a warning, a server's stderr line.
Pure functions: nothing here prints."""

from __future__ import annotations

from mrtr_cli.errors import MrtrError
from mrtr_cli.render.server_text import BAR
from mrtr_cli.render.styled_line import StyledLine
from mrtr_cli.text import safe_line


def stderr_line(text: str) -> StyledLine:
    line = StyledLine("    stderr ", "mrtr.dim")
    line.append(BAR, "mrtr.dim")
    return line.append(safe_line(text, 1000), "mrtr.dim")


def error_lines(error: MrtrError) -> list[StyledLine]:
    """`✗ what happened; what to do`, then any detail lines (a dead server's stderr)."""
    head = StyledLine("✗ ", "mrtr.error")
    head.append(safe_line(error.one_line(), None))
    return [head] + [stderr_line(line) for line in error.details]


def warning_line(message: str) -> StyledLine:
    """A warning of mrtr's own, in its colour (the message is already safe)."""
    return StyledLine(message, "mrtr.warn")


def missing_arguments_warning(tool: str, names: list[str]) -> StyledLine:
    """`! tool 'greet' requires the argument greeting (its inputSchema), not given: sending the call as given`."""
    listed = ", ".join(safe_line(name, 100) for name in names)
    which = f"the argument {listed}" if len(names) == 1 else f"the arguments {listed}"
    return warning_line(f"! tool {safe_line(repr(tool), 200)} requires {which} (its inputSchema), not given: "
                        "sending the call as given")
