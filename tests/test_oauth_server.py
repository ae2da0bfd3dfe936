"""The OAuth-protected test server (tests/servers/oauth_server.py), proved with plain httpx: the
whole authorization code flow with PKCE, a tool call with the token, a refresh, and the refusals
a client must be able to meet. This is the peer mrtr's own login is tested against."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from conftest import mrtr_here
from peers import HttpPeer, messages_of, oauth_http, request

REDIRECT = "http://127.0.0.1:9/callback"
"""Where the test client asks to be sent back: nothing listens there, the 302 is read instead."""


@pytest.fixture(scope="module")
def url():
    with oauth_http() as address:
        yield address


@pytest.fixture
def web():
    with httpx.Client(timeout=10) as client:
        yield client


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def register(web: httpx.Client, url: str, **metadata: Any) -> dict[str, Any]:
    body = {"redirect_uris": [REDIRECT], "client_name": "test client", "grant_types":
            ["authorization_code", "refresh_token"], "response_types": ["code"], **metadata}
    response = web.post(f"{origin(url)}/register", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def authorize(web: httpx.Client, url: str, client: dict[str, Any], challenge: str, **extra: str) -> httpx.Response:
    params = {"response_type": "code", "client_id": client["client_id"], "redirect_uri": REDIRECT,
              "code_challenge": challenge, "code_challenge_method": "S256", "state": "state-42",
              "resource": url, **extra}
    return web.get(f"{origin(url)}/authorize", params=params)


def token(web: httpx.Client, url: str, client: dict[str, Any], **form: str) -> httpx.Response:
    """A token request, the client authenticated as it registered to be."""
    method = client["token_endpoint_auth_method"]
    body = {**form, "client_id": client["client_id"]}
    if method == "client_secret_post":
        body["client_secret"] = client["client_secret"]
    auth = (client["client_id"], client["client_secret"]) if method == "client_secret_basic" else None
    return web.post(f"{origin(url)}/token", data=body, auth=auth)


def log_in(web: httpx.Client, url: str, scope: str | None = None,
           **registration: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The whole flow: register, authorize (asking for `scope`), exchange the code. The client and the
    token response."""
    client = register(web, url, **registration)
    verifier, challenge = pkce()
    redirect = authorize(web, url, client, challenge, **({"scope": scope} if scope else {}))
    code = parse_qs(urlsplit(redirect.headers["location"]).query)["code"][0]
    granted = token(web, url, client, grant_type="authorization_code", code=code, redirect_uri=REDIRECT,
                    code_verifier=verifier, resource=url)
    assert granted.status_code == 200, granted.text
    return client, granted.json()


def call_whoami(url: str, access_token: str | None) -> httpx.Response:
    peer = HttpPeer(url)
    message = request(1, "tools/call", {"name": "whoami", "arguments": {}})
    headers = peer.headers_for(message)
    if access_token is not None:
        headers["Authorization"] = f"Bearer {access_token}"
    try:
        return peer.post(message, headers)
    finally:
        peer.close()


def whoami(url: str, access_token: str) -> dict[str, Any]:
    response = call_whoami(url, access_token)
    assert response.status_code == 200, response.text
    [answer] = messages_of(response)
    return answer["result"]["structuredContent"]


# Discovery


def test_a_call_without_a_token_is_401_naming_the_resource_metadata(url, web):
    response = call_whoami(url, None)
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    metadata_url = re.search(r'resource_metadata="([^"]+)"', challenge).group(1)
    assert metadata_url == f"{origin(url)}/.well-known/oauth-protected-resource/mcp"
    resource = web.get(metadata_url).json()
    assert resource["resource"] == url
    assert resource["authorization_servers"] == [origin(url)]


def test_authorization_server_metadata(url, web):
    metadata = web.get(f"{origin(url)}/.well-known/oauth-authorization-server").json()
    assert metadata["issuer"] == origin(url)
    assert metadata["authorization_endpoint"] == f"{origin(url)}/authorize"
    assert metadata["token_endpoint"] == f"{origin(url)}/token"
    assert metadata["registration_endpoint"] == f"{origin(url)}/register"
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert set(metadata["grant_types_supported"]) >= {"authorization_code", "refresh_token"}
    assert metadata["scopes_supported"] == ["mcp:read", "mcp:write"]


# The flow


def test_the_authorize_endpoint_approves_at_once_with_code_and_state(url, web):
    client = register(web, url)
    _, challenge = pkce()
    response = authorize(web, url, client, challenge)
    assert response.status_code == 302
    location = urlsplit(response.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT
    query = parse_qs(location.query)
    assert query["state"] == ["state-42"] and len(query["code"][0]) >= 32


def test_the_whole_flow_then_a_tool_call_then_a_refresh(url, web):
    client, granted = log_in(web, url)
    assert granted["token_type"] == "Bearer" and granted["expires_in"] == 3600
    assert granted["scope"] == "mcp:read mcp:write" and granted["refresh_token"]
    assert whoami(url, granted["access_token"]) == {"client_id": client["client_id"],
                                                    "scopes": ["mcp:read", "mcp:write"], "resource": url}
    refreshed = token(web, url, client, grant_type="refresh_token", refresh_token=granted["refresh_token"],
                      scope="mcp:read", resource=url)
    assert refreshed.status_code == 200, refreshed.text
    renewed = refreshed.json()
    assert renewed["access_token"] != granted["access_token"] and renewed["scope"] == "mcp:read"
    assert whoami(url, renewed["access_token"])["scopes"] == ["mcp:read"]
    assert call_whoami(url, granted["access_token"]).status_code == 401  # rotated: the old pair is gone
    again = token(web, url, client, grant_type="refresh_token", refresh_token=granted["refresh_token"])
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


@pytest.mark.parametrize("method", ["none", "client_secret_basic", "client_secret_post"])
def test_each_token_endpoint_authentication(url, web, method):
    client, granted = log_in(web, url, token_endpoint_auth_method=method)
    assert client["token_endpoint_auth_method"] == method
    assert ("client_secret" in client) == (method != "none")
    assert whoami(url, granted["access_token"])["client_id"] == client["client_id"]


def test_a_confidential_client_without_its_secret_is_refused(url, web):
    client = register(web, url, token_endpoint_auth_method="client_secret_basic")
    verifier, challenge = pkce()
    code = parse_qs(urlsplit(authorize(web, url, client, challenge).headers["location"]).query)["code"][0]
    refused = token(web, url, {**client, "token_endpoint_auth_method": "none"}, grant_type="authorization_code",
                    code=code, redirect_uri=REDIRECT, code_verifier=verifier)
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"


def test_the_scope_asked_for_is_the_scope_granted(url, web):
    _, granted = log_in(web, url, scope="mcp:read")
    assert granted["scope"] == "mcp:read"
    assert whoami(url, granted["access_token"])["scopes"] == ["mcp:read"]


def test_mrtr_calls_the_tool_with_a_pasted_token(url, web, tmp_path):
    client, granted = log_in(web, url)
    no_login = {"MRTR_CONFIG_DIR": str(tmp_path)}
    assert mrtr_here("call", "whoami", "--url", url, "--no-input", env=no_login).code == 3
    run = mrtr_here("call", "whoami", "--url", url, "-H", f"Authorization: Bearer {granted['access_token']}", "--json",
               env=no_login)
    assert run.code == 0, run.stderr
    assert run.json()["result"]["structuredContent"]["client_id"] == client["client_id"]


# Refusals


def test_a_wrong_pkce_verifier_is_refused(url, web):
    client = register(web, url)
    _, challenge = pkce()
    code = parse_qs(urlsplit(authorize(web, url, client, challenge).headers["location"]).query)["code"][0]
    refused = token(web, url, client, grant_type="authorization_code", code=code, redirect_uri=REDIRECT,
                    code_verifier=pkce()[0])
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"


def test_a_code_is_good_once(url, web):
    client = register(web, url)
    verifier, challenge = pkce()
    code = parse_qs(urlsplit(authorize(web, url, client, challenge).headers["location"]).query)["code"][0]
    form = dict(grant_type="authorization_code", code=code, redirect_uri=REDIRECT, code_verifier=verifier)
    assert token(web, url, client, **form).status_code == 200
    assert token(web, url, client, **form).json()["error"] == "invalid_grant"


def test_another_resource_is_refused_at_authorize(url, web):
    client = register(web, url)
    response = authorize(web, url, client, pkce()[1], resource="https://elsewhere.example/mcp")
    query = parse_qs(urlsplit(response.headers["location"]).query)
    assert query["error"] == ["invalid_target"] and query["state"] == ["state-42"]


def test_a_token_asked_for_without_resource_does_not_open_the_server(url, web):
    client = register(web, url)
    verifier, challenge = pkce()
    params = {"response_type": "code", "client_id": client["client_id"], "redirect_uri": REDIRECT,
              "code_challenge": challenge, "code_challenge_method": "S256", "state": "s"}
    location = web.get(f"{origin(url)}/authorize", params=params).headers["location"]
    code = parse_qs(urlsplit(location).query)["code"][0]
    granted = token(web, url, client, grant_type="authorization_code", code=code, redirect_uri=REDIRECT,
                    code_verifier=verifier).json()
    assert call_whoami(url, granted["access_token"]).status_code == 401


def test_an_unregistered_redirect_uri_is_refused_without_redirecting(url, web):
    client = register(web, url)
    response = authorize(web, url, client, pkce()[1], redirect_uri="http://127.0.0.1:9/elsewhere")
    assert response.status_code == 400 and "location" not in response.headers


def test_an_unknown_token_is_401(url):
    assert call_whoami(url, "not-a-token").status_code == 401


# Options


def test_an_expired_token_is_refused_and_a_refresh_renews_it():
    with oauth_http("--token-lifetime", "1") as url, httpx.Client(timeout=10) as web:
        client, granted = log_in(web, url)
        assert granted["expires_in"] == 1
        assert whoami(url, granted["access_token"])["resource"] == url
        deadline = time.monotonic() + 5  # the server counts in whole seconds: expired within 2
        while call_whoami(url, granted["access_token"]).status_code == 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert call_whoami(url, granted["access_token"]).status_code == 401
        renewed = token(web, url, client, grant_type="refresh_token", refresh_token=granted["refresh_token"]).json()
        assert whoami(url, renewed["access_token"])["resource"] == url


def test_a_required_scope_missing_is_403_insufficient_scope():
    with oauth_http("--required-scopes", "mcp:write") as url, httpx.Client(timeout=10) as web:
        resource = web.get(f"{origin(url)}/.well-known/oauth-protected-resource/mcp").json()
        assert resource["scopes_supported"] == ["mcp:write"]
        _, granted = log_in(web, url, scope="mcp:read")
        response = call_whoami(url, granted["access_token"])
        assert response.status_code == 403
        assert 'error="insufficient_scope"' in response.headers["www-authenticate"]
        assert "resource_metadata=" in response.headers["www-authenticate"]
