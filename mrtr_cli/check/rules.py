"""The conformance suite's check ids each probe of `mrtr check` judges (docs/check-rules.md has
the whole table, and why the other ids have no probe)."""

from __future__ import annotations

_2575 = "sep-2575-"
_CACHE_VALUES = ["sep-2549-ttl-non-negative", "sep-2549-cache-scope-valid"]
_HEADERS = ["sep-2243-server-reject-invalid-headers", "sep-2243-server-reject-error-code"]
_REMOVED = ["initialize", "ping", "logging-setlevel", "resources-subscribe", "resources-unsubscribe"]

CONFORMANCE: dict[str, list[str]] = {
    "discover": [f"{_2575}server-implements-discover"],
    "discover-caching": _CACHE_VALUES,
    "server-info": [f"{_2575}server-identifies-in-result-meta"],
    "meta-required": [f"{_2575}request-meta-invalid-missing-meta", f"{_2575}http-server-meta-invalid-400"],
    "unsupported-version": [f"{_2575}server-unsupported-version-error", f"{_2575}http-server-unsupported-version-400"],
    "header-mismatch": [f"{_2575}http-server-header-mismatch-400", *_HEADERS],
    "capability-withheld": ["sep-2322-respect-client-capabilities", f"{_2575}server-rejects-undeclared-capability",
                            f"{_2575}missing-capability-http-400"],
    "result-type-present": ["sep-2322-result-type-included"],
    "answerless-retry": ["sep-2322-missing-response-rerequests"],
    "tampered-state": ["sep-2322-reject-tampered-state"],
    "extra-answers": ["sep-2322-ignore-unexpected-params"],
    "answer-wrong-shape": ["sep-2322-validate-input-responses"],
    "answers-null": ["sep-2322-error-on-protocol-error"],
    "asks-elicitation": ["sep-2322-elicitation-incomplete"],
    "completes-after-elicitation": ["sep-2322-elicitation-complete"],
    "asks-sampling": ["sep-2322-sampling-incomplete"],
    "completes-after-sampling": ["sep-2322-sampling-complete"],
    "asks-roots": ["sep-2322-list-roots-incomplete"],
    "completes-after-roots": ["sep-2322-list-roots-complete"],
    "carries-state": ["sep-2322-request-state-incomplete"],
    "completes-with-state": ["sep-2322-request-state-complete"],
    "asks-several": ["sep-2322-multiple-inputs-incomplete"],
    "completes-after-several": ["sep-2322-multiple-inputs-complete"],
    "multi-round-state": ["sep-2322-multi-round-r1"],
    "multi-round-new-state": ["sep-2322-multi-round-r2"],
    "multi-round-completes": ["sep-2322-multi-round-r3"],
    "tools-list-caching": ["sep-2549-tools-list-caching-hints", *_CACHE_VALUES],
    "prompts-list-caching": ["sep-2549-prompts-list-caching-hints", *_CACHE_VALUES],
    "resources-list-caching": ["sep-2549-resources-list-caching-hints", *_CACHE_VALUES],
    "templates-list-caching": ["sep-2549-resources-templates-list-caching-hints", *_CACHE_VALUES],
    "lists-not-input-required": ["sep-2322-not-on-unsupported-requests"],
    "capabilities-match": [f"{_2575}discover-capabilities-match-handlers", f"{_2575}server-declares-prompts-in-discover"],
    "meta-missing-version": [f"{_2575}request-meta-invalid-missing-protocol-version", f"{_2575}http-server-meta-invalid-400"],
    "meta-missing-capabilities": [f"{_2575}request-meta-invalid-missing-client-capabilities",
                                  f"{_2575}http-server-meta-invalid-400"],
    "client-info-optional": [f"{_2575}request-meta-client-info-optional"],
    "error-id": [f"{_2575}http-server-error-jsonrpc-id"],
    "method-not-found": [f"{_2575}http-server-method-not-found-404"],
    "removed-methods": [f"{_2575}http-server-method-not-found-404-{name}" for name in _REMOVED],
    "header-name-mismatch": _HEADERS,
    "header-name-missing": _HEADERS,
    "header-method-case": _HEADERS,
    "prompt-input-required": ["sep-2322-non-tool-incomplete"],
    "prompt-completes": ["sep-2322-non-tool-complete"],
    "resource-input-required": ["sep-2322-non-tool-incomplete"],
    "resource-completes": ["sep-2322-non-tool-complete"],
    "resource-read-caching": ["sep-2549-resources-read-caching-hints", *_CACHE_VALUES],
    "subscription-ack": [f"{_2575}server-sends-subscription-ack"],
    "subscription-id-tagged": [f"{_2575}server-tags-subscription-id"],
    "no-server-requests": [f"{_2575}http-server-no-independent-requests-on-stream"],
    "no-log-without-level": [f"{_2575}server-no-log-without-loglevel"],
    "schema-valid": ["wire-schema-valid"],
    "header-name-case": ["sep-2243-header-name-case-insensitive"],
    "header-value-whitespace": ["sep-2243-server-accepts-whitespace-header-value"],
}
"""Probe id -> the conformance check ids it judges; a probe not here has none."""
