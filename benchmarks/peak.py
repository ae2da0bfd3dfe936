"""Run a Python program in this process and print its peak memory (RSS, bytes) on stderr last.

    python peak.py PROGRAM.py ARGS...     |     python peak.py -m MODULE ARGS...

Children (a stdio server) are not counted: only this process.
"""

import resource
import runpy
import sys

def peak_rss() -> int:
    """Bytes. On Linux VmHWM: ru_maxrss there also keeps the parent's peak across fork and exec."""
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # macOS: already bytes


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
    sys.stdout.flush()
    print(f"peak-rss {peak_rss()}", file=sys.stderr)
    sys.exit(code)
