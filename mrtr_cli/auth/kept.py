"""The first request to a server over HTTP: the token kept for it, if any, and nothing more.

Most servers ask for no authorization. For them mrtr reads one file at most (the token store)
and loads nothing else of OAuth; a 401 or 403 loads the flow (auth/flow.py) and hands it the
challenge.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from mrtr_cli.auth.store import Login, TokenStore


class KeptTokenFirst:
    """Sends the kept token first; the authorization flow is made only when a server asks."""

    def __init__(self, server_url: str, make_flow: Callable[[], Any]) -> None:
        self.server_url = server_url
        self._make_flow = make_flow
        self.flow: Any = None
        """The authorization flow (auth/flow.py Authorizer), once a server has answered 401 or 403."""

    def authorization(self) -> str | None:
        login = TokenStore().load(self.server_url)
        return login.authorization() if login is not None else None

    def answer(self, status: int, challenge: str | None) -> Generator[Any, None, str]:
        if self.flow is None:
            self.flow = self._make_flow()
            self.flow.authorization()  # the flow starts from the kept login, to refresh it
        authorization: str = yield from self.flow.answer(status, challenge)
        return authorization

    @property
    def login(self) -> Login | None:
        return self.flow.login if self.flow is not None else None
