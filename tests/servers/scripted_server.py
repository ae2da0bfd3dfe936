"""A small stdio MCP server that follows a script: for misbehaviour on purpose and exact asserts.

    python scripted_server.py SCRIPT.json

The script is a JSON object:
  "log":       a file; every line the server reads is appended to it, as read
  "pidfile":   a file the server writes its process id to, at start
  "discover":  the result of server/discover; or {"error": {...}}; or "silent" (never answer);
               or a list of steps (below; "default" for the usual answer), one for each
               server/discover in turn, then the usual answer
  "tools":     the tools of tools/list (default: none)
  "cache":     the ttlMs and cacheScope of the lists (default: {"ttlMs": 0, "cacheScope": "private"})
  "on_initialized": lines written when notifications/initialized arrives; a roots/list request
               only when the client declared roots in initialize (as a server must)
  "linger":    seconds the server stays after its stdin closes, deaf to SIGTERM (a server slow to exit)
  "steps":     one step per request other than discover, the lists and mrtr/probe-*, in order; a step is
               {"result": {...}} or {"error": {...}} (sent with the request's id),
               {"echo": true} (a complete result whose structuredContent is the params received),
               {"raw": ["line", ...]} (written verbatim, nothing else),
               {"silent": true} (no answer), {"exit": CODE, "stderr": "..."} (die),
               {"big": N} (a complete result whose text is N characters),
               {"unterminated": N} (N bytes on stdout with no newline, then a minute of silence),
               {"hang": SECONDS} (no answer, and stdin no longer read: closing it stops nothing),
               plus optional "before": ["line", ...] written first ("spaced": seconds between them),
               "id": an id to answer with
               instead of the request's, "sleep": seconds to wait before answering,
               "flood": N (N bytes of stderr before answering), "progress": N (N progress
               notifications for the request, one every "every" seconds, default 0.1), and
               "after": N (N bytes of log notifications on stdout after the answer, before stdin is
               read again: the pipe fills and the server blocks until the client reads), and
               "pause": SECONDS (then that long before stdin is read again), and "then": ["line", ...]
               written right after the answer.
Standard library only, so it starts fast.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any

SERVER_INFO = {"name": "scripted", "version": "1.0"}
CACHE = {"ttlMs": 0, "cacheScope": "private"}


def main(script_path: str) -> None:
    script = json.loads(open(script_path, encoding="utf-8").read())
    if script.get("pidfile"):
        with open(script["pidfile"], "w", encoding="utf-8") as pidfile:
            pidfile.write(str(os.getpid()))
    steps = iter(script.get("steps", []))
    if isinstance(script.get("discover"), list):
        script["discover_steps"] = iter(script.pop("discover"))
    for line in sys.stdin:
        if script.get("log"):
            with open(script["log"], "a", encoding="utf-8") as log:
                log.write(line if line.endswith("\n") else line + "\n")
        message = json.loads(line)
        if message.get("method") == "initialize":
            script["declared"] = message["params"].get("capabilities", {})
        if message.get("method") == "notifications/initialized":
            for line in script.get("on_initialized", []):
                if '"roots/list"' not in line or "roots" in script.get("declared", {}):
                    write(line)
        if "id" not in message or "method" not in message:
            continue  # a notification, or the client's response to a request in a "before" line
        respond(script, steps, message)
    if script.get("linger"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(script["linger"])


def respond(script: dict[str, Any], steps: Any, message: dict[str, Any]) -> None:
    method = message["method"]
    if method == "server/discover":
        return discover(script, message)
    if method == "initialize" and script.get("answered_discover"):
        return refuse_initialize(message)
    if method.endswith("/list"):
        key = {"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources",
               "resources/templates/list": "resourceTemplates"}[method]
        result = complete({key: script.get(key, []), **script.get("cache", CACHE)})
        return send({"jsonrpc": "2.0", "id": message["id"], "result": result})
    if method.startswith("mrtr/probe"):  # mrtr check's unknown-method probe: not part of a script
        return send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
    step = next(steps, {"error": {"code": -32603, "message": "the script has no more steps"}})
    play(step, message)
    for line in step.get("then", []):
        write(line)
    chatter(step.get("after", 0))
    time.sleep(step.get("pause", 0))


def discover(script: dict[str, Any], message: dict[str, Any]) -> None:
    step = next(script.get("discover_steps", iter(())), None)
    if step is not None and step != "default":
        return play(step, message)
    answer = script.get("discover", {})
    if answer == "silent":
        return
    if "error" in answer:
        return send({"jsonrpc": "2.0", "id": message["id"], "error": answer["error"]})
    result = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, **CACHE, **answer}
    send({"jsonrpc": "2.0", "id": message["id"], "result": complete(result)})
    script["answered_discover"] = "2024-11-05" not in result["supportedVersions"]


def refuse_initialize(message: dict[str, Any]) -> None:
    """A server that answered server/discover speaking only 2026-07-28 refuses the handshake, as such a server
    must: mrtr sends initialize after it only when the answer came past --era-probe-wait (a start slowed by a
    loaded machine), and a step spent on it would make every test depend on the 3 s probe wait."""
    requested = message.get("params", {}).get("protocolVersion")
    send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32022, "message": "Unsupported protocol version",
                                                           "data": {"supported": ["2026-07-28"],
                                                                    "requested": requested}}})


def complete(result: dict[str, Any]) -> dict[str, Any]:
    return {"resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO}, **result}


def play(step: dict[str, Any], message: dict[str, Any]) -> None:
    time.sleep(step.get("sleep", 0))
    flood(step.get("flood", 0))
    report_progress(message, step.get("progress", 0), step.get("every", 0.1))
    for number, line in enumerate(step.get("before", [])):
        time.sleep(step.get("spaced", 0) if number else 0)
        write(line)
    if "exit" in step:
        sys.stderr.write(step.get("stderr", ""))
        sys.stderr.flush()
        sys.exit(step["exit"])
    if step.get("silent"):
        return
    if "unterminated" in step:
        sys.stdout.write("x" * step["unterminated"])
        sys.stdout.flush()
        time.sleep(60)
        return
    if "hang" in step:
        time.sleep(step["hang"])
        return
    if "raw" in step:
        for line in step["raw"]:
            write(line)
        return
    answer_id = step.get("id", message["id"])
    if "big" in step:
        result = complete({"content": [{"type": "text", "text": "x" * step["big"]}]})
        return send({"jsonrpc": "2.0", "id": answer_id, "result": result})
    if step.get("echo"):
        result = complete({"content": [{"type": "text", "text": "echo"}], "structuredContent": message["params"]})
        return send({"jsonrpc": "2.0", "id": answer_id, "result": result})
    body = {"error": step["error"]} if "error" in step else {"result": step["result"]}
    send({"jsonrpc": "2.0", "id": answer_id, **body})


def report_progress(message: dict[str, Any], count: int, every: float) -> None:
    if not count:
        return
    token = message["params"]["_meta"]["progressToken"]
    for done in range(count):
        time.sleep(every)
        write(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                          "params": {"progressToken": token, "progress": done + 1}}))


def flood(size: int) -> None:
    line = "the server is very chatty on stderr " * 3 + "\n"
    for _ in range(size // len(line)):
        sys.stderr.write(line)
    sys.stderr.flush()


def chatter(size: int) -> None:
    """Numbered log notifications of about 16 KB each: "chatter 000001 ...", in order."""
    for number in range(size // 16_000):
        write(json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                          "params": {"level": "info", "data": f"chatter {number:06d} " + "x" * 16_000}}))


def send(message: dict[str, Any]) -> None:
    write(json.dumps(message))


def write(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])
