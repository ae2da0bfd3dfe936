"""Test helpers shared by several test files: answering any form, the official schema, and the
logins kept in a run's configuration directory."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from conftest import SPEC

SAMPLE_STRINGS = {"email": "ada@example.com", "uri": "https://example.com/x", "date": "2026-12-01",
                  "date-time": "2026-12-01T19:30:00Z"}


def fill_form(schema: dict[str, Any]) -> dict[str, Any]:
    """A valid answer to a flat form: defaults, and a sample value for each required field."""
    content = {}
    required = schema.get("required", [])
    for name, prop in schema.get("properties", {}).items():
        if "default" in prop:
            content[name] = prop["default"]
        elif name in required:
            content[name] = sample_value(prop)
    return content


def sample_value(prop: dict[str, Any]) -> Any:
    if "enum" in prop:
        return prop["enum"][0]
    if "oneOf" in prop:
        return prop["oneOf"][0]["const"]
    kind = prop.get("type")
    if kind == "array":
        items = prop.get("items", {})
        options = items.get("enum") or [o["const"] for o in items.get("anyOf", [])]
        return options[: max(1, prop.get("minItems", 1))]
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return prop.get("minimum", 1)
    return SAMPLE_STRINGS.get(prop.get("format"), "text" * max(1, prop.get("minLength", 1)))


@lru_cache(maxsize=1)
def spec_schema() -> dict[str, Any]:
    return json.loads((SPEC / "schema.json").read_text())


@lru_cache(maxsize=None)
def spec_validator(definition: str) -> Any:
    schema = spec_schema()
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]})


RESPONSES = {
    "server/discover": "DiscoverResultResponse",
    "tools/list": "ListToolsResultResponse",
    "prompts/list": "ListPromptsResultResponse",
    "resources/list": "ListResourcesResultResponse",
    "resources/templates/list": "ListResourceTemplatesResultResponse",
    "tools/call": "CallToolResultResponse",
    "resources/read": "ReadResourceResultResponse",
    "prompts/get": "GetPromptResultResponse",
}
ERROR_OBJECTS = {-32700: "ParseError", -32600: "InvalidRequestError", -32601: "MethodNotFoundError",
                 -32602: "InvalidParamsError", -32603: "InternalError"}
"""JSON-RPC's own codes: the schema describes the error object."""
ERROR_RESPONSES = {-32020: "HeaderMismatchError", -32021: "MissingRequiredClientCapabilityError",
                   -32022: "UnsupportedProtocolVersionError"}
"""MCP's codes: the schema describes the whole response."""
NOTIFICATIONS = {"notifications/progress": "ProgressNotification",
                 "notifications/message": "LoggingMessageNotification"}


def spec_problems(message: dict[str, Any], method: str) -> list[str]:
    """Why a message a server sent in answer to `method` is not valid by the official schema."""
    checks = []
    if "method" in message:
        checks.append(NOTIFICATIONS.get(message["method"], "JSONRPCNotification"))
    elif "error" in message:
        code = message["error"]["code"]
        checks += ["JSONRPCErrorResponse", ERROR_RESPONSES.get(code, "JSONRPCErrorResponse")]
        if code in ERROR_OBJECTS:
            return [e.message for e in spec_validator(ERROR_OBJECTS[code]).iter_errors(message["error"])] + [
                f"{name}: {e.message}" for name in checks for e in spec_validator(name).iter_errors(message)]
    elif message["result"].get("resultType") == "input_required":
        checks.append("JSONRPCResultResponse")
        problems = [e.message for e in spec_validator("InputRequiredResult").iter_errors(message["result"])]
        if problems:
            return problems
    else:
        checks.append(RESPONSES[method])
    return [f"{name}: {e.message}" for name in checks for e in spec_validator(name).iter_errors(message)]


def kept(config: dict[str, str]) -> list[dict[str, Any]]:
    """The token files kept under `config`'s MRTR_CONFIG_DIR, as documents, by file name."""
    return [json.loads(path.read_text()) for path in sorted(Path(config["MRTR_CONFIG_DIR"], "auth").glob("*.json"))]
