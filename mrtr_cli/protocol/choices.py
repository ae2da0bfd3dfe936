"""The protocol's names that the command line offers as choices: the log levels (`--log-level`) and
what a server lists (`mrtr list KIND`). Apart from meta.py, which re-exports them, so that every
`--help` (fast_paths/fast_help.py) reads them without loading dataclasses. Standard library only.
"""

from __future__ import annotations

LIST_METHODS = {
    "tools": ("tools/list", "tools"),
    "prompts": ("prompts/list", "prompts"),
    "resources": ("resources/list", "resources"),
    "templates": ("resources/templates/list", "resourceTemplates"),
}
"""What a server lists (`mrtr list KIND`): the method, and the result key its items come under."""
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""The RFC 5424 levels of `notifications/message`, lowest first."""
