"""`mrtr proxy`: the stdio shim (`-- CMD ARGS`) or the HTTP reverse proxy (`--http`, `--to`)."""

from __future__ import annotations

from mrtr_cli.errors import UsageError
from mrtr_cli.options import OutputOptions, ProxyOptions


def run(proxying: ProxyOptions, http: str | None, max_message_size: int, output: OutputOptions) -> int:
    """Run the proxy until the server or the host ends it; the exit code."""
    raise UsageError("mrtr proxy is not built yet", "wait for the proxy-core branch")
