"""Which imports a one-round stdio call pays for, and why: `python -X importtime`, grouped.

    python benchmarks/imports.py [--repeat N] [--python PYTHON]

mrtr's one-round `call ask` and the bare client are each run N times with `-X importtime` (bytecode
cached, as an installed mrtr has it); a module's time is its own (not its imports'), the least of the N
runs, which a busy moment of a shared machine moves least. Each module is put in a group: mrtr's own by
package (`mrtr_cli.conversation`), any other by the module mrtr's code imported it through
(`inspect` is in `dataclasses`'s group when `dataclasses` brought it), so a group says why it is paid
for; "first imported by" names the mrtr module whose import brought it first. The bare client's
column: what of the group the bare client loads too (json, subprocess, urllib.request and theirs).
"""

from __future__ import annotations

import re
import subprocess

import speed_cpu

LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def imported(argv: list[str], repeat: int) -> tuple[dict[str, int], dict[str, list[str]]]:
    """Each module `argv` imports: its own microseconds (least of `repeat` runs), and the modules
    that imported it, nearest first (from the first run)."""
    least: dict[str, int] = {}
    chains: dict[str, list[str]] = {}
    for _ in range(repeat):
        done = subprocess.run([speed_cpu.PY, "-X", "importtime", *argv], capture_output=True, text=True,
                              cwd=speed_cpu.HERE.parent, env=speed_cpu.ENV)
        rows = [(len(m.group(3)), m.group(4), int(m.group(1))) for m in map(LINE.match, done.stderr.splitlines()) if m]
        if not rows:
            raise SystemExit(f"no import times from {' '.join(argv)}\n{done.stderr[-2000:]}")
        for name, own in ((name, own) for _, name, own in rows):
            least[name] = min(least.get(name, own), own)
        if not chains:
            chains = _importers(rows)
    return least, chains


def _importers(rows: list[tuple[int, str, int]]) -> dict[str, list[str]]:
    """importtime prints a module after the modules it imports, one level of indent deeper: a module's
    importers are the next lines of less indent."""
    chains: dict[str, list[str]] = {}
    for at, (depth, name, _) in enumerate(rows):
        chain, level = [], depth
        for later_depth, later, _ in rows[at + 1:]:
            if later_depth < level:
                chain.append(later)
                level = later_depth
        chains.setdefault(name, chain)
    return chains


def group_of(name: str, chain: list[str]) -> tuple[str, str]:
    """The group of module `name` and the mrtr module that brought it first ('' for Python's own start)."""
    if name.startswith("mrtr_cli"):
        parts = name.split(".")
        return ".".join(parts[:2]) if len(parts) > 2 else name, chain[0] if chain else ""
    path = [name, *chain]
    for at, module in enumerate(path):
        if module.startswith("mrtr_cli"):
            return path[at - 1].split(".")[0], module
    return "Python's start-up (site, encodings, the script)", ""


def table(repeat: int) -> list[str]:
    """The groups of a one-round call's imports, dearest first, as markdown rows."""
    mrtr_argv = speed_cpu.mrtr_ask(["--stdio", " ".join(speed_cpu.SERVER)], 1)
    times, chains = imported(_without_python(mrtr_argv), repeat)
    bare, _ = imported(_without_python(speed_cpu.bare_ask("bare_client.py", "stdio", 1)), repeat)
    groups: dict[str, list] = {}  # group: [own µs, µs the bare client loads too, modules, first imported by]
    for name, own in times.items():
        group, first = group_of(name, chains.get(name, []))
        entry = groups.setdefault(group, [0, 0, 0, first])
        entry[0] += own
        entry[1] += own if name in bare else 0
        entry[2] += 1
    total, shared = sum(times.values()), sum(own for name, own in times.items() if name in bare)
    lines = [f"Imports of a one-round stdio call (`-X importtime`, each module's own time, least of {repeat} runs): "
             f"{total / 1000:.1f} ms in {len(times)} modules, of which the bare client loads {shared / 1000:.1f} ms "
             f"too; the bare client's own imports: {sum(bare.values()) / 1000:.1f} ms in {len(bare)} modules.", "",
             "| group | ms | modules | first imported by | of it, the bare client loads too |", "|---|---|---|---|---|"]
    for group, (own, common, modules, first) in sorted(groups.items(), key=lambda item: -item[1][0])[:40]:
        lines.append(f"| {group} | {own / 1000:.1f} | {modules} | {first or '-'} | {common / 1000:.1f} ms |")
    return lines


def _without_python(argv: list[str]) -> list[str]:
    """`argv` without its interpreter, to run under `python -X importtime` (the console script is a Python file)."""
    return argv[1:] if argv[0] == speed_cpu.PY else argv


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--python", help="the interpreter to run every command with (mrtr installed in it)")
    arguments = parser.parse_args()
    speed_cpu.run_under(arguments.python)
    print(speed_cpu.installation())
    print("\n".join(table(arguments.repeat)))


if __name__ == "__main__":
    main()
