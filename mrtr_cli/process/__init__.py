"""What a run shares with the process it runs in: the world it reads (environment.py:
variables, streams, terminals, width, config folder), Ctrl-C, SIGTERM and SIGHUP
(signals.py), and the CI runner's workflow commands (workflow_commands.py).
"""
