"""Where to log in: the protected resource metadata (RFC 9728), then its authorization server's
metadata (RFC 8414 and OpenID Connect Discovery), as MCP's authorization page orders them.

The protected resource metadata comes from the challenge's `resource_metadata`, else from the
well-known locations (with the server's path, then at the root). Its `resource` must be this
server (its origin, and a path the server's URL lies under), else mrtr refuses to log in. The
authorization server's metadata comes from `oauth-authorization-server`, then
`openid-configuration` (path insertion for an issuer with a path, then path appending); its
`issuer` must be the one asked for, character for character. Standard library only.
"""

from __future__ import annotations

from typing import Any, NamedTuple
from urllib.parse import urlsplit, urlunsplit

from mrtr_cli.auth.challenge import Challenge
from mrtr_cli.auth.steps import Recorder, refuse
from mrtr_cli.errors import MrtrError, UsageError
from mrtr_cli.text import safe_line

PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"


class ResourceMetadata(NamedTuple):
    """The protected resource metadata: the resource identifier, its authorization servers and scopes."""

    resource: str
    authorization_servers: tuple[str, ...]
    scopes_supported: tuple[str, ...]


class ServerMetadata(NamedTuple):
    """An authorization server's metadata document, whose `issuer` was checked."""

    issuer: str
    document: dict[str, Any]

    def endpoint(self, name: str) -> str | None:
        value = self.document.get(name)
        return value if isinstance(value, str) and value else None

    def listed(self, name: str) -> list[str]:
        value = self.document.get(name)
        return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def prm_locations(server_url: str, challenge: Challenge) -> list[str]:
    """Where to look for the protected resource metadata, in order."""
    parts = urlsplit(server_url)
    path = parts.path.rstrip("/")
    found = [challenge.resource_metadata] if challenge.resource_metadata else []
    if path:
        found.append(urlunsplit((parts.scheme, parts.netloc, PRM_WELL_KNOWN + path, "", "")))
    found.append(urlunsplit((parts.scheme, parts.netloc, PRM_WELL_KNOWN, "", "")))
    return found


def protected_resource(recorder: Recorder, server_url: str, challenge: Challenge) -> ResourceMetadata:
    """The server's protected resource metadata, its `resource` checked against `server_url`."""
    for url in prm_locations(server_url, challenge):
        status, document = recorder.get_json(url)
        if status == 200 and isinstance(document, dict):
            recorder.note("resource-metadata", f"protected resource metadata from {safe_line(url, 300)}", url=url)
            return _resource_metadata(recorder, server_url, document)
        recorder.note("resource-metadata", f"no protected resource metadata at {safe_line(url, 300)} "
                      f"({_why(status)})", url=url, status=status)
    if challenge.status not in (401, 403):
        raise _not_protected(recorder, server_url, challenge.status)
    said = f"; WWW-Authenticate: {safe_line(challenge.header, 300)}" if challenge.header else ""
    raise refuse(recorder, f"the server wants authentication (HTTP {challenge.status}){said}; mrtr found no "
                 "protected resource metadata (RFC 9728) to log in with",
                 "pass a token with -H 'Authorization: Bearer TOKEN'")


def _not_protected(recorder: Recorder, server_url: str, status: int) -> MrtrError:
    """`mrtr auth login` of a server that answered without a 401 and publishes no protected resource
    metadata: there is nothing to log in to (exit 1, as logging out of a server with no login)."""
    reason = (f"{safe_line(server_url, 300)} does not ask for authorization: it answered a request without a "
              f"token with HTTP {status}, not 401, and publishes no protected resource metadata (RFC 9728)")
    hint = "nothing to log in to: use it as it is" if 200 <= status < 300 else \
        f"nothing to log in to; check the URL (mrtr discover --url {safe_line(server_url, 300)})"
    return refuse(recorder, reason, hint, UsageError)


def _why(status: int | str) -> str:
    return f"HTTP {status}" if isinstance(status, int) else safe_line(status, 200)


def _resource_metadata(recorder: Recorder, server_url: str, document: dict[str, Any]) -> ResourceMetadata:
    resource = document.get("resource")
    servers = document.get("authorization_servers")
    if not isinstance(resource, str) or not resource_matches(resource, server_url):
        raise refuse(recorder, f"the protected resource metadata names the resource {safe_line(resource, 200)!s}, "
                     f"which is not {safe_line(server_url, 200)}: mrtr will not log in for it",
                     "the server's metadata is wrong (or not its own); tell its operators")
    if not isinstance(servers, list) or not servers or not all(isinstance(s, str) for s in servers):
        raise refuse(recorder, "the protected resource metadata names no authorization_servers",
                     "the server's metadata is incomplete; tell its operators")
    scopes = document.get("scopes_supported")
    scopes = tuple(s for s in scopes if isinstance(s, str)) if isinstance(scopes, list) else ()
    return ResourceMetadata(resource, tuple(servers), scopes)


def resource_matches(resource: str, server_url: str) -> bool:
    """Whether `resource` identifies the server at `server_url`: the same origin, and a path the
    server's path lies under (whole segments)."""
    given, server = urlsplit(resource), urlsplit(server_url)
    if (given.scheme.lower(), given.netloc.lower()) != (server.scheme.lower(), server.netloc.lower()):
        return False
    if given.fragment:
        return False
    prefix = given.path.rstrip("/")
    path = server.path.rstrip("/")
    return path == prefix or path.startswith(prefix + "/")


def metadata_locations(issuer: str) -> list[str]:
    """Where an issuer's metadata may be, in order (RFC 8414 path insertion, then OpenID's)."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")

    def at(new_path: str) -> str:
        return urlunsplit((parts.scheme, parts.netloc, new_path, "", ""))

    if not path:
        return [at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")]
    return [at("/.well-known/oauth-authorization-server" + path), at("/.well-known/openid-configuration" + path),
            at(path + "/.well-known/openid-configuration")]


def authorization_server(recorder: Recorder, issuer: str) -> ServerMetadata:
    """The metadata of the authorization server `issuer`, its issuer checked."""
    if urlsplit(issuer).scheme not in ("http", "https"):
        raise refuse(recorder, f"the authorization server {safe_line(issuer, 200)} is not an http(s) URL",
                     "the server's metadata is wrong; tell its operators")
    for url in metadata_locations(issuer):
        status, document = recorder.get_json(url)
        if status == 200 and isinstance(document, dict):
            recorder.note("server-metadata", f"authorization server metadata from {safe_line(url, 300)}", url=url)
            return _checked(recorder, issuer, url, document)
        recorder.note("server-metadata", f"no authorization server metadata at {safe_line(url, 300)} "
                      f"({_why(status)})", url=url, status=status)
    raise refuse(recorder, f"the authorization server {safe_line(issuer, 200)} publishes no metadata "
                 "(RFC 8414 or OpenID Connect Discovery)", "tell the server's operators")


def _checked(recorder: Recorder, issuer: str, url: str, document: dict[str, Any]) -> ServerMetadata:
    given = document.get("issuer")
    if given != issuer:
        raise refuse(recorder, f"the authorization server metadata at {safe_line(url, 200)} names the issuer "
                     f"{safe_line(given, 200)}, not {safe_line(issuer, 200)}: mrtr will not use it",
                     "the metadata may be forged or misconfigured; tell the server's operators")
    metadata = ServerMetadata(issuer, document)
    for name in ("authorization_endpoint", "token_endpoint"):
        if metadata.endpoint(name) is None:
            raise refuse(recorder, f"the authorization server metadata has no {name}", "tell the server's operators")
    if "S256" not in metadata.listed("code_challenge_methods_supported"):
        raise refuse(recorder, "the authorization server does not advertise PKCE S256 "
                     "(code_challenge_methods_supported), which MCP requires", "tell the server's operators")
    return metadata


def discovered(recorder: Recorder, server_url: str, challenge: Challenge) -> tuple[ResourceMetadata, ServerMetadata]:
    """The resource metadata and the metadata of its first authorization server."""
    resource = protected_resource(recorder, server_url, challenge)
    metadata = authorization_server(recorder, resource.authorization_servers[0])
    return resource, metadata
