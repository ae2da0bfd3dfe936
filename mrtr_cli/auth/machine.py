"""Client credentials: what a machine (a CI job) logs in with, read and checked before any request.

The MCP extension io.modelcontextprotocol/oauth-client-credentials: OAuth's client credentials
grant (RFC 6749 section 4.4), no browser and no person. A client id, and either a secret
(--client-secret, --client-secret-file, MRTR_CLIENT_SECRET, or the mcpServers entry's
`clientSecret`) or a private key that signs a JWT assertion (private_key_jwt, RFC 7523:
--client-assertion-key or `clientAssertionKeyFile`, a PEM file only its owner may read). Flags
and the environment come first, then the entry's `oauth`. Standard library only: oauth.py
(authlib) reads the key and signs the assertion when a server asks.
"""

from __future__ import annotations

import os
import stat
from typing import Any, NamedTuple

from mrtr_cli.errors import UsageError
from mrtr_cli.options import TargetOptions

SECRET_VARIABLE = "MRTR_CLIENT_SECRET"
"""The environment variable that holds the secret of --client-credentials."""
MAX_CREDENTIAL_FILE_SIZE = 64 * 1024
"""The largest secret or key file mrtr reads."""
CLIENT_CREDENTIALS = "client_credentials"
"""The grant type of a machine's login, as `mrtr auth status` shows it."""
FLAGS = ("--client-credentials --client-id ID with --client-secret-file FILE (or MRTR_CLIENT_SECRET) or "
         "--client-assertion-key FILE")
"""The flags a machine logs in with, as the hints name them."""


class MachineCredentials(NamedTuple):
    """A client id and its secret or its private key (PEM). Its repr (and str) never shows either."""

    client_id: str
    secret: str | None = None
    key: bytes | None = None
    key_file: str | None = None
    alg: str | None = None

    @property
    def authentication(self) -> str:
        """How the client proves itself, in a few words."""
        return f"a JWT signed by the key in {self.key_file}" if self.key is not None else "its secret"

    def __repr__(self) -> str:
        return f"MachineCredentials(client_id={self.client_id!r}, {'key' if self.key is not None else 'secret'})"


def machine_credentials(options: TargetOptions, oauth: dict[str, Any]) -> MachineCredentials | None:
    """The credentials to log in with as a machine; None without --client-credentials (or the
    entry's `clientCredentials: true`); a usage error for what cannot be used."""
    if not (options.client_credentials or oauth.get("clientCredentials") is True):
        _refuse_strays(options, oauth)
        return None
    client_id = options.client_id or oauth.get("clientId")
    if not client_id:
        raise UsageError("--client-credentials needs --client-id ID (or the mcpServers entry's oauth.clientId)",
                         f"give {FLAGS}")
    secret, key_file = _given_flags(options) if _flags_name_one(options) else _given_entry(oauth)
    alg = options.client_assertion_alg or oauth.get("clientAssertionAlg")
    if key_file is not None:
        return MachineCredentials(str(client_id), key=read_key(key_file), key_file=key_file, alg=alg)
    if alg:
        raise UsageError("--client-assertion-alg is for a key (--client-assertion-key), not a secret",
                         "leave it out, or give the key")
    return MachineCredentials(str(client_id), secret=secret)


def _refuse_strays(options: TargetOptions, oauth: dict[str, Any]) -> None:
    """A flag or entry key that only client credentials read, given without them."""
    for flag, value in (("--client-secret-file", options.client_secret_file),
                        ("--client-assertion-key", options.client_assertion_key),
                        ("--client-assertion-alg", options.client_assertion_alg),
                        ("oauth.clientAssertionKeyFile", oauth.get("clientAssertionKeyFile")),
                        ("oauth.clientAssertionAlg", oauth.get("clientAssertionAlg"))):
        if value:
            raise UsageError(f"{flag} is for --client-credentials, which was not given",
                             "add --client-credentials (or clientCredentials: true in the entry's oauth)")


def _flags_name_one(options: TargetOptions) -> bool:
    return any((options.client_secret, options.client_secret_file, options.client_assertion_key,
                os.environ.get(SECRET_VARIABLE)))


def _given_flags(options: TargetOptions) -> tuple[str | None, str | None]:
    """The secret or the key file the flags (and MRTR_CLIENT_SECRET) give: exactly one."""
    secrets = [name for name, value in (("--client-secret", options.client_secret),
                                        ("--client-secret-file", options.client_secret_file),
                                        (SECRET_VARIABLE, os.environ.get(SECRET_VARIABLE))) if value]
    if options.client_assertion_key and secrets:
        raise UsageError(f"both a secret ({secrets[0]}) and a key (--client-assertion-key): give one",
                         f"a key signs a JWT (private_key_jwt); unset {SECRET_VARIABLE} if it is set")
    if len(secrets) > 1:
        raise UsageError(f"two secrets: {secrets[0]} and {secrets[1]}: give one", f"prefer --client-secret-file "
                         f"FILE or {SECRET_VARIABLE}: a flag shows in ps and shell history")
    if options.client_assertion_key:
        return None, options.client_assertion_key
    if options.client_secret_file:
        return read_secret(options.client_secret_file), None
    return options.client_secret or os.environ.get(SECRET_VARIABLE), None


def _given_entry(oauth: dict[str, Any]) -> tuple[str | None, str | None]:
    """The secret or the key file the mcpServers entry's `oauth` gives: exactly one."""
    secret, key_file = oauth.get("clientSecret"), oauth.get("clientAssertionKeyFile")
    if secret and key_file:
        raise UsageError("the entry's oauth has both clientSecret and clientAssertionKeyFile: give one",
                         "a key signs a JWT (private_key_jwt)")
    if not secret and not key_file:
        raise UsageError("--client-credentials needs a secret or a key, and none was given", f"give {FLAGS}")
    return (str(secret), None) if secret else (None, str(key_file))


def read_secret(path: str) -> str:
    """The secret in the file at `path`, without the whitespace around it."""
    secret = _read_small(path, "--client-secret-file").decode("utf-8", "replace").strip()
    if not secret:
        raise UsageError(f"--client-secret-file {path} is empty", "write the client's secret in it")
    return secret


def read_key(path: str) -> bytes:
    """The private key file at `path`, refused when its group or others may read or write it."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        raise UsageError(f"cannot read the key {path}: {error.strerror or error}", "check the path") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise UsageError(f"the key {path} may be read or changed by others (mode {stat.S_IMODE(mode):04o})",
                         f"chmod 600 {path}")
    return _read_small(path, "--client-assertion-key")


def _read_small(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_CREDENTIAL_FILE_SIZE + 1)
    except OSError as error:
        raise UsageError(f"cannot read {what} {path}: {error.strerror or error}", "check the path") from None
    if len(data) > MAX_CREDENTIAL_FILE_SIZE:
        raise UsageError(f"{what} {path} is larger than {MAX_CREDENTIAL_FILE_SIZE // 1024} KiB", "is it the right "
                         "file?")
    return data
