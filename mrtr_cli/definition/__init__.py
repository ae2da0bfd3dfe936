"""The command line, declared once: every command (command_table.py), every option
(option_table.py), the typed Options NamedTuples they fill (options.py) and a tool's
arguments from `-a` and `--args` (arguments.py). typer's command line (cli/) and the
fast paths (fast_paths/) are built from the tables; no outside library is imported here.
"""
