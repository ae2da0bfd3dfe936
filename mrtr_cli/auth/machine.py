"""Client credentials: what a machine (a CI job) logs in with, read and checked before any request.

The MCP extension io.modelcontextprotocol/oauth-client-credentials: OAuth's client credentials
grant (RFC 6749 section 4.4), no browser and no person. A client id, and either a secret
(--client-secret, --client-secret-file, MRTR_CLIENT_SECRET, or the mcpServers entry's
`clientSecret`) or a private key that signs a JWT assertion (private_key_jwt, RFC 7523:
--client-assertion-key or `clientAssertionKeyFile`, a PEM file only its owner may read). Flags
and the environment win over the entry's `oauth` for the same thing, but a secret and a key
together, wherever each comes from, is a usage error. The key is parsed now (by oauth.py, which
owns authlib and joserfc, loaded only when a key is given), so a key mrtr cannot sign with, or a
pinned algorithm it cannot sign with, is exit 1 before any request.
"""

from __future__ import annotations

import os
import stat
from typing import Any, NamedTuple

from mrtr_cli.errors import UsageError
from mrtr_cli.definition.options import TargetOptions

SECRET_VARIABLE = "MRTR_CLIENT_SECRET"
"""The environment variable that holds the secret of --client-credentials."""
MAX_CREDENTIAL_FILE_SIZE = 64 * 1024
"""The largest secret or key file mrtr reads."""
FLAGS = ("--client-credentials --client-id ID with --client-secret-file FILE (or MRTR_CLIENT_SECRET) or "
         "--client-assertion-key FILE")
"""The flags a machine logs in with, as the hints name them."""


class MachineCredentials(NamedTuple):
    """A client id and its secret or its private key (a joserfc key, parsed by oauth.py). Its repr
    (and str) never shows either."""

    client_id: str
    secret: str | None = None
    key: Any = None
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
    secret, key_file = _one_secret_or_key(options, oauth)
    alg = options.client_assertion_alg or oauth.get("clientAssertionAlg")
    if key_file is not None:
        return MachineCredentials(str(client_id), key=_signing_key(key_file, alg), key_file=key_file, alg=alg)
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


def _one_secret_or_key(options: TargetOptions, oauth: dict[str, Any]) -> tuple[str | None, str | None]:
    """The secret, or the key file, to log in with: a flag (or MRTR_CLIENT_SECRET) over the entry
    for the same thing; a secret and a key together, from anywhere, is a usage error."""
    flag_secrets = [(name, value) for name, value in (("--client-secret", options.client_secret),
                                                      ("--client-secret-file", options.client_secret_file),
                                                      (SECRET_VARIABLE, os.environ.get(SECRET_VARIABLE))) if value]
    secrets = flag_secrets + ([("the entry's oauth.clientSecret", oauth["clientSecret"])]
                              if oauth.get("clientSecret") else [])
    keys = [name for name, value in (("--client-assertion-key", options.client_assertion_key),
                                     ("the entry's oauth.clientAssertionKeyFile", oauth.get("clientAssertionKeyFile")))
            if value]
    if secrets and keys:
        raise UsageError(f"both a secret ({secrets[0][0]}) and a key ({keys[0]}): give one",
                         f"a key signs a JWT (private_key_jwt); unset {SECRET_VARIABLE} if it is set")
    if len(flag_secrets) > 1:
        raise UsageError(f"two secrets: {flag_secrets[0][0]} and {flag_secrets[1][0]}: give one", "prefer "
                         f"--client-secret-file FILE or {SECRET_VARIABLE}: a flag shows in ps and shell history")
    if keys:
        return None, str(options.client_assertion_key or oauth["clientAssertionKeyFile"])
    if not secrets:
        _refuse_no_secret()
    name, value = secrets[0]
    return (read_secret(str(value)) if name == "--client-secret-file" else str(value)), None


def _refuse_no_secret() -> None:
    if SECRET_VARIABLE in os.environ:
        raise UsageError(f"{SECRET_VARIABLE} is set but empty, and no other secret or key was given",
                         f"give {SECRET_VARIABLE} the client's secret (is the CI secret defined?), or unset it")
    raise UsageError("--client-credentials needs a secret or a key, and none was given", f"give {FLAGS}")


def _signing_key(path: str, pinned: str | None) -> Any:
    """The key in the file at `path`, parsed now: one mrtr cannot sign with, or cannot sign `pinned`
    (--client-assertion-alg) with, is a usage error naming why."""
    from mrtr_cli.auth import oauth  # authlib and joserfc: loaded only for a key

    try:
        key = oauth.signing_key(read_key(path))
        if pinned:
            oauth.check_pinned(key, pinned)
    except ValueError as error:
        raise UsageError(f"--client-assertion-key {path}: {error}", "give a PKCS#8 PEM private key, EC (P-256, "
                         "P-384, P-521) or RSA, without a passphrase") from None
    return key


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
