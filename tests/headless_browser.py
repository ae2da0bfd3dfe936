"""A headless "browser" for `mrtr --auth-open`: it requests the authorization URL (the last
argument), reads the redirect's Location, and requests that (mrtr's loopback listener).

Like a person who approves at once (a denial is the server's redirect with an error). Every request is bounded (10 s); a failure exits 1 with one line on stderr.
"""

from __future__ import annotations

import sys

import httpx

TIMEOUT = 10.0


def main(url: str) -> int:
    with httpx.Client(follow_redirects=False, timeout=TIMEOUT) as client:
        answer = client.get(url)
        hops = 0
        while answer.is_redirect and not _is_loopback(answer.headers["location"]) and hops < 5:
            answer = client.get(answer.headers["location"])  # the server's own redirects (a login page)
            hops += 1
        if not answer.is_redirect:
            sys.stderr.write(f"headless browser: the authorization URL answered HTTP {answer.status_code}, "
                             "not a redirect\n")
            return 1
        client.get(answer.headers["location"])
    return 0


def _is_loopback(location: str) -> bool:
    return location.startswith(("http://127.0.0.1:", "http://localhost:"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1]))
