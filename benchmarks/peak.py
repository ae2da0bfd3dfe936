"""Run a Python program in this process and print its peak memory (RSS, bytes) on stderr last.

    python peak.py PROGRAM.py ARGS...     |     python peak.py -m MODULE ARGS...

Children (a stdio server) are not counted: only this process.
"""

import resource
import runpy
import sys

if __name__ == "__main__":
    module = sys.argv[1] == "-m"
    sys.argv = sys.argv[2:] if module else sys.argv[1:]
    code = 0
    try:
        if module:
            runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(sys.argv[0], run_name="__main__")
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 0
    scale = 1 if sys.platform == "darwin" else 1024
    sys.stdout.flush()
    print(f"peak-rss {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale}", file=sys.stderr)
    sys.exit(code)
