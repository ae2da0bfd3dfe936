"""`mrtr proxy --wrap|--unwrap --config FILE --server NAME`: put `mrtr proxy` in a host's
configuration, or take it out (proxy/host_config.py does the edit)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from mrtr_cli.commands.common import Context, guarded
from mrtr_cli.errors import UsageError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.options import OutputOptions, ProxyOptions


def run(proxying: ProxyOptions, http: str | None, config: str | None, server: str | None,
        output: OutputOptions, junit_path: str | None = None, sarif_path: str | None = None) -> int:
    """Wrap or unwrap one entry; what happened goes to stderr in one line."""

    def body(context: Context) -> ExitCode:
        from mrtr_cli.proxy import host_config
        from mrtr_cli.text import safe_line

        _no_judging(proxying, junit_path, sarif_path)
        path, name = _config_and_server(proxying._replace(to=proxying.to or http), config, server)
        if proxying.unwrap:
            note = host_config.unwrap_file(path, name)
        else:
            wrapping = host_config.Wrapping(mrtr_executable(), proxying.record_dir, proxying.timeline)
            note = host_config.wrap_file(path, name, wrapping)
        context.consoles.err.file.write(safe_line(note, 1000) + "\n")
        return ExitCode.OK

    return guarded(output, body)


def _no_judging(proxying: ProxyOptions, junit_path: str | None, sarif_path: str | None = None) -> None:
    """--json, --junit, --sarif and --strict judge a proxy that runs: --wrap and --unwrap run none."""
    given = [name for name, value in (("--json", proxying.json_report), ("--junit", junit_path),
                                      ("--sarif", sarif_path), ("--strict", proxying.strict or None))
             if value is not None]
    if given:
        verb = "judges" if len(given) == 1 else "judge"
        raise UsageError(f"{', '.join(given)} {verb} a proxy that runs; --wrap and --unwrap only edit a configuration",
                         "drop them here, and give them to the mrtr proxy the host runs")


def _config_and_server(proxying: ProxyOptions, config: str | None, server: str | None) -> tuple[str, str]:
    if proxying.wrap and proxying.unwrap:
        raise UsageError("--wrap and --unwrap cannot be given together", "give one of them")
    if config is None or server is None:
        raise UsageError(f"{'--unwrap' if proxying.unwrap else '--wrap'} needs --config FILE and --server NAME",
                         "e.g. mrtr proxy --wrap --config claude_desktop_config.json --server weather")
    if proxying.command or proxying.to is not None:
        raise UsageError("--wrap and --unwrap edit a configuration file; they run no proxy",
                         "drop -- CMD ARGS, --http and --to")
    return config, server


def mrtr_executable() -> str:
    """The absolute path of the mrtr command a host will run: beside this Python (a virtual
    environment's bin), else the one on PATH."""
    beside = Path(sys.executable).parent / ("mrtr.exe" if sys.platform == "win32" else "mrtr")
    found = str(beside) if beside.is_file() else shutil.which("mrtr")
    if found is None:
        raise UsageError("cannot find the mrtr command to put in the configuration",
                         "install mrtr so that `mrtr` is on PATH")
    return str(Path(found).absolute())
