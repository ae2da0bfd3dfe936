"""A real headless browser for the `--html` tests: Debian's chromium-headless-shell (or chromium),
installed by .ci/run. Without one the tests skip, saying why, except under CI=true, where they fail.

Each run is bounded (60 s) and has a profile of its own in the test's folder."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

NAMES = ("chromium-headless-shell", "chromium", "chromium-browser")
"""The browsers tried, in this order (Debian's package names)."""
TIMEOUT = 60


def browser() -> str:
    """The browser's path; skip (fail under CI=true) when there is none."""
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    why = "no headless browser: install Debian's chromium-headless-shell (apt-get install -y chromium-headless-shell)"
    if os.environ.get("CI") == "true":
        pytest.fail(why)
    pytest.skip(why)


def _run(page: Path, folder: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    command = [browser(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               f"--user-data-dir={folder / 'profile'}", *flags, page.as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, cwd=folder)


def dom(page: Path, folder: Path) -> str:
    """The page's DOM as the browser serializes it once loaded (scripts, had any run, included)."""
    done = _run(page, folder, "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def screenshot(page: Path, folder: Path, name: str = "page.png", size: str = "1280,1600") -> Path:
    """A PNG of the page's first `size` pixels."""
    path = folder / name
    done = _run(page, folder, f"--screenshot={path}", f"--window-size={size}", "--hide-scrollbars")
    assert done.returncode == 0 and path.is_file(), done.stderr[-2000:]
    return path


def distinct_colours(png: Path) -> int:
    """How many distinct pixel values the PNG's rows hold (a blank page has one). Reads the PNG's
    IDAT chunks with zlib; the filter byte of each row is counted too, which changes nothing here."""
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks, width, channels = 8, [], 0, 4
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, colour_type = struct.unpack(">I", body[:4])[0], body[9]
            channels = {2: 3, 6: 4, 0: 1, 4: 2}.get(colour_type, 4)
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels + 1
    pixels = {raw[start:start + channels] for row in range(0, len(raw), stride)
              for start in range(row + 1, row + stride, channels * 7)}  # every 7th pixel: enough to tell
    return len(pixels)
