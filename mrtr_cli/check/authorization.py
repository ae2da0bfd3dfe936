"""The authorization probes of `mrtr check --url`: for a server behind OAuth (it answers a request
without a token with 401), its protected resource metadata and its authorization server's metadata,
reachable and consistent, PKCE S256 advertised, and a `resource` mrtr can send as it is.

Discovery is auth/discovery.py's (the same locations, the same rules); here each rule gets its own
verdict instead of ending a login. Nothing logs in: check never opens a browser. The auth package
is loaded only when the server answered 401. A server not behind OAuth gets every probe skipped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from mrtr_cli.check.verdicts import Check, Probe, short, verdict
from mrtr_cli.text import safe_line

PAGE = "basic/authorization"
AUTH_CHALLENGE: Probe = (
    "auth-challenge", "a request without a token gets 401 with a Bearer challenge naming resource_metadata",
    "SHOULD", PAGE + "#protected-resource-metadata-discovery-requirements")
AUTH_RESOURCE_METADATA: Probe = ("auth-resource-metadata", "the protected resource metadata is reachable (RFC 9728)",
                                 "MUST", PAGE + "#authorization-server-location")
AUTH_RESOURCE_MATCHES: Probe = ("auth-resource-matches", "the protected resource metadata's resource is this server",
                                "MUST", PAGE + "#authorization-server-location")
AUTH_SERVERS_LISTED: Probe = ("auth-servers-listed", "the protected resource metadata names authorization_servers",
                              "MUST", PAGE + "#authorization-server-location")
AUTH_SERVER_METADATA: Probe = (
    "auth-server-metadata", "the authorization server's metadata is reachable and names the same issuer", "MUST",
    PAGE + "#authorization-server-metadata-discovery")
AUTH_PKCE_S256: Probe = (
    "auth-pkce-s256", "the authorization server advertises PKCE S256 (code_challenge_methods_supported)", "MUST",
    PAGE + "#authorization-code-protection")
AUTH_RESOURCE_CANONICAL: Probe = (
    "auth-resource-canonical", "the metadata's resource is the server's canonical URL (the resource indicator)",
    "SHOULD", PAGE + "#canonical-server-uri")
AUTH_PROBES: list[Probe] = [AUTH_CHALLENGE, AUTH_RESOURCE_METADATA, AUTH_RESOURCE_MATCHES, AUTH_SERVERS_LISTED,
                            AUTH_SERVER_METADATA, AUTH_PKCE_S256, AUTH_RESOURCE_CANONICAL]
"""Every authorization probe, in the order its verdict is shown."""
NEED_RESOURCE_METADATA: list[Probe] = [AUTH_RESOURCE_MATCHES, AUTH_SERVERS_LISTED, AUTH_SERVER_METADATA,
                                       AUTH_PKCE_S256, AUTH_RESOURCE_CANONICAL]
"""The probes judged on the protected resource metadata: not probed when it is not found."""
NEED_SERVER_NAMED: list[Probe] = [AUTH_SERVER_METADATA, AUTH_PKCE_S256]
"""The probes of the authorization server the metadata names: not probed when it names none."""
UNAUTHORIZED_PROBE = {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {}}
"""What check sends without a token to hear whether the server wants authorization."""
Fetch = Callable[[str, str, dict[str, str], "bytes | None"], Any]


def skipped(why: str) -> list[Check]:
    """Every authorization probe, skipped with the reason; one group in the human checklist."""
    group = f"authorization rules not probed: {why.removeprefix('not probed: ')}"
    return [replace(verdict(*probe, None, why), group=group) for probe in AUTH_PROBES]


def unauthorized_answer(fetch: Fetch, url: str, headers: dict[str, str]) -> tuple[int, str | None]:
    """The server's answer to a request without a token: its HTTP status and WWW-Authenticate."""
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            **{k: v for k, v in headers.items() if k.lower() != "authorization"}}
    reply = fetch("POST", url, sent, json.dumps(UNAUTHORIZED_PROBE).encode("utf-8"))
    return reply.status, reply.headers.get("www-authenticate")


def authorization_checks(fetch: Fetch, server_url: str, status: int, header: str | None) -> list[Check]:
    """The authorization probes, given the answer to a request without a token."""
    if status != 401:
        return skipped(f"the server is not behind OAuth: it answered HTTP {status} to a request without a token")
    from mrtr_cli.auth.challenge import parse_challenge
    from mrtr_cli.auth.steps import Recorder

    recorder = Recorder(fetch)
    challenge = parse_challenge(status, header)
    checks = [_challenge_check(challenge)]
    checks += _resource_checks(recorder, server_url, challenge)
    return checks


def _challenge_check(challenge: Any) -> Check:
    if challenge.resource_metadata:
        return verdict(*AUTH_CHALLENGE, True, f"resource_metadata {safe_line(challenge.resource_metadata, 200)}")
    said = safe_line(challenge.header, 200) if challenge.header else "no WWW-Authenticate header"
    return verdict(*AUTH_CHALLENGE, False, f"HTTP 401 without resource_metadata: {said}")


def _first_document(recorder: Any, urls: list[str]) -> tuple[str | None, dict[str, Any] | None, str]:
    """The first JSON object found at `urls`, where, and what each location answered."""
    tried = []
    for url in urls:
        status, document = recorder.get_json(url)
        if status == 200 and isinstance(document, dict):
            return url, document, ""
        answered = f"HTTP {status}" if isinstance(status, int) else safe_line(status, 120)
        tried.append(f"{safe_line(url, 200)}: {answered}{'' if status != 200 else ', not a JSON object'}")
    return None, None, "; ".join(tried)


def _resource_checks(recorder: Any, server_url: str, challenge: Any) -> list[Check]:
    from mrtr_cli.auth.discovery import prm_locations, resource_matches

    url, document, tried = _first_document(recorder, prm_locations(server_url, challenge))
    if document is None:
        return [verdict(*AUTH_RESOURCE_METADATA, False, f"not found at {tried}"),
                *_not_probed(NEED_RESOURCE_METADATA, "no protected resource metadata")]
    resource, servers = document.get("resource"), document.get("authorization_servers")
    matches = isinstance(resource, str) and resource_matches(resource, server_url)
    listed = isinstance(servers, list) and bool(servers) and all(isinstance(s, str) for s in servers)
    checks = [verdict(*AUTH_RESOURCE_METADATA, True, f"from {safe_line(url, 200)}"),
              verdict(*AUTH_RESOURCE_MATCHES, matches, f"resource {safe_line(short(resource), 200)} for "
                                                       f"{safe_line(server_url, 200)}"),
              verdict(*AUTH_SERVERS_LISTED, listed, f"authorization_servers {safe_line(short(servers), 200)}")]
    if listed and isinstance(servers, list):
        checks += _server_checks(recorder, servers[0])
    else:
        checks += _not_probed(NEED_SERVER_NAMED, "no authorization server named")
    checks.append(_canonical_check(resource, server_url, matches))
    return checks


def _server_checks(recorder: Any, issuer: str) -> list[Check]:
    from mrtr_cli.auth.discovery import metadata_locations

    if urlsplit(issuer).scheme not in ("http", "https"):
        return [verdict(*AUTH_SERVER_METADATA, False, f"the issuer {safe_line(issuer, 200)} is not an http(s) URL"),
                *_not_probed([AUTH_PKCE_S256], "no authorization server metadata")]
    url, document, tried = _first_document(recorder, metadata_locations(issuer))
    if document is None:
        return [verdict(*AUTH_SERVER_METADATA, False, f"not found at {tried}"),
                *_not_probed([AUTH_PKCE_S256], "no authorization server metadata")]
    given = document.get("issuer")
    issuer_seen = f"from {safe_line(url, 200)}, issuer {safe_line(short(given), 200)}"
    methods = document.get("code_challenge_methods_supported")
    s256 = isinstance(methods, list) and "S256" in methods
    return [verdict(*AUTH_SERVER_METADATA, given == issuer, issuer_seen + ("" if given == issuer else
                                                                            f", not {safe_line(issuer, 200)}")),
            verdict(*AUTH_PKCE_S256, s256, f"code_challenge_methods_supported {safe_line(short(methods), 200)}")]


def _canonical_check(resource: Any, server_url: str, matches: bool) -> Check:
    """The resource mrtr sends as its resource indicator is the metadata's: it should be the
    server's own URL (a prefix of it is accepted by mrtr, a different one is refused)."""
    if not matches:
        return verdict(*AUTH_RESOURCE_CANONICAL, False, f"resource {safe_line(short(resource), 200)}: mrtr "
                                                        "refuses to log in for it")
    same = _canonical(resource) == _canonical(server_url)
    return verdict(*AUTH_RESOURCE_CANONICAL, same, f"resource {safe_line(resource, 200)}" +
                   ("" if same else f", a prefix of {safe_line(server_url, 200)}"))


def _canonical(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path.rstrip('/')}"


def _not_probed(probes: list[Probe], why: str) -> list[Check]:
    return [verdict(*probe, None, f"not probed: {why}") for probe in probes]
