"""The conformance suite's client under test, reaching the suite's server through `mrtr proxy --http`:
the proxy starts in front of the URL the suite gives, and tests/conformance_driver.py runs mrtr
against the proxy's URL. Whatever the suite checks, it checks on what crossed the proxy."""

from __future__ import annotations

import re
import subprocess
import sys

from conformance_driver import main


def through_proxy(url: str) -> int:
    proxy = subprocess.Popen([sys.executable, "-m", "mrtr_cli", "proxy", "--http", "127.0.0.1:0", "--to", url],
                             stderr=subprocess.PIPE, text=True)
    try:
        assert proxy.stderr is not None
        listening = re.match(r"listening on (\S+) → ", proxy.stderr.readline())
        if listening is None:
            return 1
        return main(listening.group(1))
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)
        if proxy.stderr is not None:
            proxy.stderr.close()


if __name__ == "__main__":
    sys.exit(through_proxy(sys.argv[-1]))
