"""Where logins are kept: one JSON file per protected resource and grant kind (a person's login
through a browser, a machine's client credentials), in the `auth/` folder of mrtr's configuration
directory. The two kinds never replace each other: a run reads and keeps only its own kind.

`config_dir.py` says where that folder is and keeps it private: the folder mode 0700, each file
0600, written to a temporary name and renamed so a reader never sees half a file. A file that
cannot be trusted (not ours, a symlink, too large, not JSON, the wrong shape, another resource's
login) reads as no login, never as a crash.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from mrtr_cli.config import config_dir
from mrtr_cli.errors import UsageError

FORMAT_VERSION = 1
"""The `version` written in every token file; a file of another version reads as no login."""
MAX_LOGIN_FILE_SIZE = 64 * 1024
"""The largest token file mrtr reads; anything larger is not one of ours."""
MAX_LOGIN_FILES = 1000
"""The most token files `logins()` and `remove_all()` look at."""
_SLUG_LENGTH = 48
AUTHORIZATION_CODE = "authorization_code"
"""The grant type of a login through the browser, and of a token file that names none (older files)."""
CLIENT_CREDENTIALS = "client_credentials"
"""The grant type of a machine's login (--client-credentials), kept in a file of its own."""
GRANT_KINDS = (AUTHORIZATION_CODE, CLIENT_CREDENTIALS)


def canonical_resource(url: str) -> str:
    """`url` as logins are keyed: scheme and host in lower case, no fragment, no trailing
    slash (so `HTTPS://Example.com/mcp/` and `https://example.com/mcp` are one server)."""
    parts = urlsplit(url.strip())
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


@dataclass
class Login:
    """One server's login. Its repr and str name the server and the scopes, never a secret."""

    resource: str
    issuer: str
    client_id: str
    client_secret: str | None
    access_token: str
    token_type: str
    refresh_token: str | None
    scopes: list[str] = field(default_factory=list)
    expires_at: float | None = None
    obtained_at: float = field(default_factory=time.time)
    grant_type: str = AUTHORIZATION_CODE
    """How the token was obtained: authorization_code (a person, through a browser), or
    client_credentials (a machine: it comes again with the same secret or key, not refreshed)."""

    def expired(self, now: float | None = None, margin: float = 30) -> bool:
        """Whether the access token has expired, or will within `margin` seconds. A token
        without a known expiry is taken as valid until the server says otherwise."""
        if self.expires_at is None:
            return False
        moment = time.time() if now is None else now
        return moment + margin >= self.expires_at

    def authorization(self) -> str:
        """The Authorization header value that sends this login's access token."""
        return f"Bearer {self.access_token}"

    def __repr__(self) -> str:
        refresh = "kept" if self.refresh_token else "none"
        return (f"Login(resource={self.resource!r}, issuer={self.issuer!r}, client_id={self.client_id!r}, "
                f"scopes={self.scopes!r}, expires_at={self.expires_at!r}, refresh_token={refresh}, "
                f"grant_type={self.grant_type!r})")

    __str__ = __repr__

    def to_document(self) -> dict[str, Any]:
        """The JSON document of a token file."""
        return {"version": FORMAT_VERSION, **asdict(self)}


_TEXT_FIELDS = ("resource", "issuer", "client_id", "access_token", "token_type")
_OPTIONAL_TEXT_FIELDS = ("client_secret", "refresh_token", "grant_type")


def login_from_document(document: Any) -> Login | None:
    """The login a token file's document describes, or None when it has another shape."""
    if not isinstance(document, dict) or document.get("version") != FORMAT_VERSION:
        return None
    if not all(isinstance(document.get(name), str) and document[name] for name in _TEXT_FIELDS):
        return None
    if not all(document.get(name) is None or isinstance(document[name], str) for name in _OPTIONAL_TEXT_FIELDS):
        return None
    scopes = document.get("scopes")
    if not isinstance(scopes, list) or not all(isinstance(scope, str) for scope in scopes):
        return None
    expires_at, obtained_at = document.get("expires_at"), document.get("obtained_at")
    if not (expires_at is None or _is_time(expires_at)) or not _is_time(obtained_at):
        return None
    fields: dict[str, Any] = {name: document.get(name) for name in Login.__dataclass_fields__}
    fields["grant_type"] = fields["grant_type"] or AUTHORIZATION_CODE
    return Login(**fields)


def _is_time(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value \
        and abs(value) < 1e12


def file_name(resource: str, grant_type: str = AUTHORIZATION_CODE) -> str:
    """The token file's name for `resource`: a readable slug of the URL and a short hash (and
    `-machine` for a machine's login)."""
    key = canonical_resource(resource)
    words = re.findall(r"[a-z0-9]+(?:\.[a-z0-9]+)*", re.sub(r"^[a-z]+://", "", key.lower()))
    readable = "-".join(words)[:_SLUG_LENGTH].rstrip("-.") or "server"
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]
    return f"{readable}-{digest}{'-machine' if grant_type == CLIENT_CREDENTIALS else ''}.json"


class TokenStore:
    """The logins kept on disk, one file per protected resource and grant kind."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else config_dir.folder(config_dir.TOKENS)

    def path_for(self, resource: str, grant_type: str = AUTHORIZATION_CODE) -> Path:
        """Where the login of this kind for `resource` is kept."""
        return self.directory / file_name(resource, grant_type)

    def load(self, resource: str, grant_type: str = AUTHORIZATION_CODE) -> Login | None:
        """The login of this kind kept for `resource` (a person's unless told), or None when there
        is none or it cannot be trusted."""
        login = _read_login(self.path_for(resource, grant_type))
        if login is None or canonical_resource(login.resource) != canonical_resource(resource) \
                or login.grant_type != grant_type:
            return None
        return login

    def save(self, login: Login) -> Path:
        """Keep `login` (replacing the one of its kind kept for its resource) and say where."""
        path = self.path_for(login.resource, login.grant_type)
        try:
            config_dir.make_private_folder(self.directory)
            config_dir.write_private_file(path, json.dumps(login.to_document(), indent=2) + "\n", prefix=".login-")
        except OSError as error:
            raise UsageError(f"cannot keep the login in {self.directory}: {error.strerror or error}",
                             f"check that the directory is writable, or set {config_dir.CONFIG_DIR_VARIABLE}") from None
        return path

    def remove(self, resource: str) -> bool:
        """Forget the logins for `resource` (a person's and a machine's); whether there was one."""
        return sum(self._unlink(self.path_for(resource, kind)) for kind in GRANT_KINDS) > 0

    def remove_all(self) -> int:
        """Forget every login; how many token files were removed."""
        return sum(self._unlink(path) for path in self._files())

    def logins(self) -> list[Login]:
        """Every login that can be trusted, ordered by resource."""
        found = (_read_login(path) for path in self._files())
        return sorted((login for login in found if login is not None), key=lambda login: login.resource)

    def _files(self) -> list[Path]:
        return config_dir.kept_files(self.directory, MAX_LOGIN_FILES)

    def _unlink(self, path: Path) -> bool:
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        except OSError as error:
            raise UsageError(f"cannot remove {path}: {error.strerror or error}",
                             "check the permissions of the directory") from None
        return True


class NoStore:
    """What `--no-auth-store` keeps: nothing. No token is read, and a login lasts one run."""

    def load(self, resource: str, grant_type: str = AUTHORIZATION_CODE) -> Login | None:
        return None

    def save(self, login: Login) -> None:
        return None


def own_login(store: TokenStore | NoStore, resource: str, client_id: str | None) -> Login | None:
    """The login a run sends to `resource`: a person's (`client_id` None), or the machine's own
    (client credentials), never a person's nor another client's."""
    if client_id is None:
        return store.load(resource, AUTHORIZATION_CODE)
    login = store.load(resource, CLIENT_CREDENTIALS)
    return login if login is not None and login.client_id == client_id else None


def _read_login(path: Path) -> Login | None:
    """The login in the file at `path`, or None when it is missing or cannot be trusted."""
    data = config_dir.read_own_file(path, MAX_LOGIN_FILE_SIZE)
    if data is None:
        return None
    try:
        return login_from_document(json.loads(data.decode("utf-8")))
    except (UnicodeDecodeError, ValueError, RecursionError, TypeError):
        return None
