"""Every probe `mrtr check` has, whatever the server and the flags: what `--skip-probe ID` may
name. tests/test_check_rules.py holds this list equal to the probe tables of check/ (a table
added there and not here fails), and docs/check-rules.md to it."""

from __future__ import annotations

import difflib

from mrtr_cli.check import older
from mrtr_cli.check.authorization import AUTH_PROBES
from mrtr_cli.check.named import PROMPT_PROBES, RESOURCE_PROBES
from mrtr_cli.check.tool_probes import ALL_TOOL_PROBES
from mrtr_cli.check.verdicts import Probe
from mrtr_cli.errors import UsageError

ALL_PROBES: list[Probe] = [*AUTH_PROBES, *older.MODERN_PROBES, older.INITIALIZE_PROBE, older.TOOL_CALL_PROBE,
                           *ALL_TOOL_PROBES, *PROMPT_PROBES, *RESOURCE_PROBES]
"""Each probe once: the server's, the older era's, the named tool's, prompt's and resource's."""


def probe_ids() -> list[str]:
    """The probe ids, each once, in the order above."""
    return list(dict.fromkeys(id for id, *_ in ALL_PROBES))


def skipped_by_request(names: tuple[str, ...]) -> frozenset[str]:
    """The ids `--skip-probe` names; a `UsageError` for one mrtr has not, with the nearest ids."""
    known = probe_ids()
    for name in names:
        if name not in known:
            lower = name.lower()  # ids are lower case: META-REQUIRED means meta-required and no other
            close = [lower] if lower in known else difflib.get_close_matches(lower, known, n=2)
            if close:
                raise UsageError(f"--skip-probe {name!r}: no such probe; did you mean "
                                 f"{' or '.join(repr(c) for c in close)}?")
            raise UsageError(f"--skip-probe {name!r}: no such probe",
                             "each line of mrtr check --json names its probe's id (docs/check-rules.md lists them all)")
    return frozenset(names)
