"""The demo server with one rule broken on purpose, for `mrtr check`'s tests.

    python broken_server.py FAULT [--http]

FAULT is one of the names in FAULTS; each patches one piece of mrtr's own server side.
"""

from __future__ import annotations

import sys
from typing import Any

import mrtr_cli.server.http_serving as http_serving
from mrtr_cli.server import http_checks
from mrtr_cli.server import dispatcher, state
from mrtr_cli.server.app import RpcError
from mrtr_cli.server.demo import DemoApp
from mrtr_cli.server.stdio_serving import serve_stdio

original_check_meta = dispatcher._check_meta
original_mrtr = dispatcher.Dispatcher._mrtr
original_decorate = dispatcher.Dispatcher._decorate
original_page = dispatcher.Dispatcher.page
original_capabilities = DemoApp.capabilities
original_value = http_checks._value


def meta_not_required(params: dict[str, Any]) -> None:
    if isinstance(params.get("_meta"), dict):
        original_check_meta(params)


def wrong_version_error(params: dict[str, Any]) -> None:
    try:
        original_check_meta(params)
    except RpcError as error:
        if error.code == -32022:
            raise RpcError(-32602, "bad version", status=400) from None
        raise


def answerless_error(self: Any, request: dict[str, Any], notify: Any) -> dict[str, Any]:
    params = request["params"]
    if "requestState" in params and "inputResponses" not in params:
        raise RpcError(-32602, "Missing inputResponses")
    return original_mrtr(self, request, notify)


def extra_error(self: Any, request: dict[str, Any], notify: Any) -> dict[str, Any]:
    if any(key.startswith("__") for key in request["params"].get("inputResponses") or {}):
        raise RpcError(-32602, "Unknown inputResponses key")
    return original_mrtr(self, request, notify)


def no_server_info(self: Any, result: dict[str, Any], cache: Any = None) -> dict[str, Any]:
    decorated = original_decorate(self, result, cache)
    decorated.pop("_meta", None)
    return decorated


def server_info_in_discover_only(self: Any, result: dict[str, Any], cache: Any = None) -> dict[str, Any]:
    decorated = original_decorate(self, result, cache)
    if "supportedVersions" not in decorated:  # every result but server/discover's
        decorated.pop("_meta", None)
    return decorated


def state_unchecked(self: Any, token: str, request: dict[str, Any]) -> Any:
    """Trusts any token: no MAC, no binding to the request; one it cannot read counts as no state."""
    import base64
    import json

    body = token.partition(".")[0]
    try:
        return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))["state"]
    except (ValueError, KeyError, TypeError):
        return None


def prompts_undeclared(self: Any) -> dict[str, Any]:
    return {name: value for name, value in original_capabilities(self).items() if name != "prompts"}


def list_asks(self: Any, *args: Any) -> dict[str, Any]:
    return {**original_page(self, *args), "resultType": "input_required", "inputRequests": {}}


def value_untrimmed(headers: Any, name: str) -> str | None:
    """Reads a header value with the whitespace around it kept (the parser drops the leading part)."""
    trimmed = original_value(headers, name)
    return None if trimmed is None else headers.get(name)


def names_case_sensitive(headers: Any, name: str) -> str | None:
    """Finds a header only under the exact name asked for."""
    exact = [value for given, value in headers.items() if given == name]
    return original_value({name: exact[0]}, name) if exact else None


FAULTS = {
    "meta-not-required": lambda: setattr(dispatcher, "_check_meta", meta_not_required),
    "wrong-version-error": lambda: setattr(dispatcher, "_check_meta", wrong_version_error),
    "no-cache-hints": lambda: (setattr(dispatcher, "LIST_CACHE", None), setattr(dispatcher, "READ_CACHE", None)),
    "no-server-info": lambda: setattr(dispatcher.Dispatcher, "_decorate", no_server_info),
    "server-info-in-discover-only": lambda: setattr(dispatcher.Dispatcher, "_decorate", server_info_in_discover_only),
    "asks-withheld": lambda: setattr(dispatcher, "_check_capabilities", lambda requests, declared: None),
    "state-unchecked": lambda: setattr(state.Sealer, "open", state_unchecked),
    "answerless-error": lambda: setattr(dispatcher.Dispatcher, "_mrtr", answerless_error),
    "extra-error": lambda: setattr(dispatcher.Dispatcher, "_mrtr", extra_error),
    "prompts-undeclared": lambda: setattr(DemoApp, "capabilities", prompts_undeclared),
    "list-asks": lambda: setattr(dispatcher.Dispatcher, "page", list_asks),
    "header-value-untrimmed": lambda: setattr(http_checks, "_value", value_untrimmed),
    "header-names-case-sensitive": lambda: setattr(http_checks, "_value", names_case_sensitive),
    "headers-unchecked": lambda: setattr(http_serving, "check_request_headers", lambda headers, message, app: None),
}


def main(argv: list[str]) -> None:
    FAULTS[argv[1]]()
    served = dispatcher.Dispatcher(DemoApp())
    if "--http" in argv:
        http_serving.serve_http(served, "127.0.0.1", 0)
    else:
        serve_stdio(served)


if __name__ == "__main__":
    main(sys.argv)
