"""The usual command lines, read without typer, click or rich: every `--help` drawn from
definition/'s tables (fast_help.py), a usual `call`, `read`, `prompt` and `demo-server`
parsed (fast_call.py). Anything else is left to cli/.
"""
