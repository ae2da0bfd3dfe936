"""What a run of mrtr loads and holds, seen from a fresh interpreter: which modules a usual call and the
demo server import, and the peak memory of a large result. Only a process of its own shows it (the test
process has loaded everything already), so these start `python -c` programs that run the CLI's entry."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import PYTHON, ROOT
from peers import demo_http


def test_a_usual_call_loads_no_typer():
    code = ("import sys\nfrom mrtr_cli.entry import main\n"
            "code = main(['call', 't', '--timeout', '5', '--', sys.executable, '-c', 'pass'])\n"
            "print(code, 'typer' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.split() == ["4", "False"], done.stderr[-2000:]


def test_the_demo_server_loads_no_typer():
    code = ("import sys\nfrom mrtr_cli.entry import main\nsys.stdin = open('/dev/null')\n"
            "code = main(['demo-server', '--conformance-fixtures'])\nprint(code, 'typer' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.stdout.split() == ["0", "False"], done.stderr[-2000:]


def test_a_plain_call_imports_neither_the_plugin_nor_xml():
    code = ("import sys\nfrom mrtr_cli.entry import main\n"
            "try:\n    main(['call', 'book_table', '--demo', '--answers', 'examples/book_table.yaml'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith(('xml', 'pytest', '_pytest', "
            "'mrtr_cli.pytest_plugin', 'mrtr_cli.render.junit', 'mrtr_cli.commands.from_python'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert "Booked a table" in loaded.stdout, loaded.stderr
    assert loaded.stdout.strip().splitlines()[-1] == "[]"


def test_a_one_round_call_over_http_looks_up_the_folder_without_platformdirs_and_keeps_no_task_store(tmp_path):
    """A call over HTTP reads the token store (the kept token goes first), so it finds mrtr's folder, on
    Linux without platformdirs; kept_tasks (file locks) loads only once a server makes a task."""
    home = tmp_path / "home"
    env = {key: value for key, value in os.environ.items() if key not in ("MRTR_CONFIG_DIR", "XDG_CONFIG_HOME")}
    code = ("import sys\nfrom mrtr_cli.entry import main\n"
            "code = main(sys.argv[1:])\n"
            "print(code, sorted(m for m in sys.modules if m.startswith(('platformdirs', 'fcntl', "
            "'mrtr_cli.config.kept_tasks', 'mrtr_cli.config.config_dir'))))\n")
    with demo_http() as url:
        done = subprocess.run([sys.executable, "-c", code, "call", "summarize", "--sampling-reply", "Short.", "--no-input",
                               "--url", url], capture_output=True, text=True, cwd=ROOT, timeout=60,
                              env={**env, "HOME": str(home)})
    loaded = done.stdout.strip().splitlines()[-1]
    expected = "['mrtr_cli.config.config_dir']" if sys.platform == "linux" else "['mrtr_cli.config.config_dir', 'platformdirs'"
    assert loaded.startswith(f"0 {expected}"), done.stdout + done.stderr
    assert not home.exists()  # the folder was looked for, not made


MEASURE = """
import resource, sys
from mrtr_cli.entry import main
code = main(sys.argv[1:])
sys.stdout.flush()
try:  # VmHWM, not ru_maxrss: on Linux that keeps the parent's peak (pytest's) across fork and exec
    status = open("/proc/self/status").read()
    print(int(status.split("VmHWM:")[1].split()[0]) * 1024, file=sys.stderr)
except OSError:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)  # macOS: bytes
sys.exit(code)
"""


def test_a_50_megabyte_result_costs_a_small_multiple_of_its_size(scripted, tmp_path: Path):
    size = 50_000_000
    server = scripted(steps=[{"big": size}])
    out = tmp_path / "out.json"
    with open(out, "wb") as sink:
        done = subprocess.run([PYTHON, "-c", MEASURE, *server.args("call", "t", "--json")], cwd=ROOT,
                              stdout=sink, stderr=subprocess.PIPE, text=False, timeout=120)
    assert done.returncode == 0
    peak = int(done.stderr.decode().strip().splitlines()[-1])
    assert peak < 6 * size, f"peak memory {peak / 1e6:.0f} MB for a {size / 1e6:.0f} MB result"
    assert out.stat().st_size > size
