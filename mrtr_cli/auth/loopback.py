"""Where the authorization comes back: a one-shot HTTP listener on 127.0.0.1 at a random port,
and how the authorization URL reaches a browser.

The authorization server redirects the browser to `http://127.0.0.1:PORT/callback?code=...`; the
listener keeps that query and answers with a plain page telling the person to go back to the
terminal. The URL goes to `--auth-open CMD` (split like --stdio, run without a shell, the URL as
its last argument) or, at a terminal, to the browser (webbrowser); it is always printed too.
The wait is bounded by --auth-timeout. Standard library only.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from mrtr_cli.errors import AuthError, UsageError
from mrtr_cli.definition.options import command_words
from mrtr_cli.process import signals
from mrtr_cli.text import safe_line

CALLBACK_PATH = "/callback"
PAGE = (b"<!doctype html><html><head><meta charset='utf-8'><title>mrtr</title></head><body>"
        b"<p>mrtr received the answer of the authorization server.</p>"
        b"<p>You can close this page and return to the terminal.</p></body></html>")
POLL_SECONDS = 0.1


class Listener:
    """The loopback redirect listener: started, waited on once, closed."""

    def __init__(self) -> None:
        self.received: dict[str, str] | None = None
        self._arrived = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="mrtr-auth-redirect", daemon=True)
        signals.start(self._thread)

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{CALLBACK_PATH}"

    def wait(self, seconds: float, opener: subprocess.Popen[bytes] | None = None) -> dict[str, str]:
        """The redirect's query parameters; an AuthError when none arrives in `seconds`, or when the
        --auth-open command fails before one does."""
        ends = time.monotonic() + seconds
        while not self._arrived.wait(POLL_SECONDS):
            if opener is not None and opener.poll() not in (None, 0) and not self._arrived.is_set():
                raise AuthError(f"the --auth-open command exited with {opener.returncode} before the "
                                "authorization server redirected back", "check the command")
            if time.monotonic() >= ends:
                raise AuthError(f"no redirect from the authorization server within {seconds:g} s",
                                "log in faster, or raise --auth-timeout SECONDS")
        assert self.received is not None
        return self.received

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the http.server name)
                parts = urlsplit(self.path)
                if parts.path != CALLBACK_PATH or listener._arrived.is_set():
                    self.send_error(404)
                    return
                listener.received = dict(parse_qsl(parts.query, keep_blank_values=True))
                listener._arrived.set()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(PAGE)))
                self.end_headers()
                self.wfile.write(PAGE)

            def log_message(self, format: str, *args: object) -> None:
                pass  # the timeline says what happened

        return Handler


def at_terminal() -> bool:
    """Whether a person is at a terminal (stdin and stderr both): only then a browser opens."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def hand_over(url: str, auth_open: str | None) -> subprocess.Popen[bytes] | None:
    """Print the authorization URL; run --auth-open with it, or open the browser. The command
    runs while the listener already waits; its output goes to mrtr's stderr."""
    sys.stderr.write(f"Open this URL to authorize mrtr:\n  {safe_line(url, None)}\n")
    sys.stderr.flush()
    if auth_open is None:
        import webbrowser

        webbrowser.open(url)
        return None
    command = command_words(auth_open, "--auth-open")
    if not command:
        raise UsageError("--auth-open is empty", "give a command, e.g. --auth-open 'xdg-open'")
    try:
        return subprocess.Popen([*command, url], stdin=subprocess.DEVNULL, stdout=_opener_output())
    except OSError as error:
        raise UsageError(f"cannot run --auth-open {safe_line(command[0], 200)}: {error.strerror or error}",
                         "check the command") from None


def _opener_output() -> int:
    """Where the opener's own output goes: mrtr's stderr; an in-process run's stderr (entry.main's
    Environment) that has no file descriptor: nowhere."""
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return subprocess.DEVNULL
