"""The Streamable HTTP transport: one POST per message, the answer as JSON or an SSE stream.

This folder alone imports httpx (loaded only when the target is HTTP, by target_kinds.py):
`streamable_http.py` is the transport and its exchange, one POST and the stream that answers it,
as a row of named steps (the auth step, the single exchange, the redirects); `connection.py`
httpx's client, a request streamed and an event stream read; `http_session.py` the session
its messages may name (the older era's), its GET stream and the resumption of a broken stream; `auth_fetch.py` the plain
requests of the authorization flow.

httpx imports its own command line (click, rich's console, progress and syntax, pygments: about
90 ms) when those are installed. mrtr never runs it: the import is refused here, before any module
of this folder imports httpx, and httpx falls back as it does where they are missing.
"""

import sys

sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
