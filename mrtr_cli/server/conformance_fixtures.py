"""The conformance suite's fixture tools and prompt (`mrtr demo-server --conformance-fixtures`).

The 2026-07-28 server scenarios of `@modelcontextprotocol/conformance` (`input-required-result-*`,
`server-stateless`) call tools and a prompt of fixed names and expect fixed questions; these
serve them beside the demo's own tools, so the suite and `mrtr check` can judge the same server.
They ask through `walk` like the demo tools: the answers so far are sealed in requestState, so a
tampered state is refused by the dispatcher and a question left unanswered (or answered with
something that is not an answer) is asked again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mrtr_cli.server import demo, task_fixtures
from mrtr_cli.server.app import Call, NeedInput
from mrtr_cli.server.asking import ROOTS, form, sampling, text_result, walk
from mrtr_cli.server.listen_streams import Subscriptions

CHANGES = Subscriptions()
"""The listen streams of the server (one per process), to which the trigger tools announce changes."""
NAME = {"name": {"type": "string"}}
ASK_NAME = {"user_name": form("What is your name?", NAME, ["name"])}
CONFIRM = {"confirm": form("Please confirm", {"ok": {"type": "boolean"}}, ["ok"])}
Questions = dict[str, dict[str, Any]]


def _asks(rounds: list[Questions], finish: Callable[[dict[str, Any]], dict[str, Any]]) -> demo.Handler:
    """A handler that asks `rounds` in order, then returns `finish(answers)`."""
    def handler(call: Call) -> dict[str, Any] | NeedInput:
        progress = walk(call, [_fixed(questions) for questions in rounds])
        if progress.refusal:
            key, action = progress.refusal
            return text_result(f"Nothing done: you chose {action}.", {key: {"action": action}})
        return progress.need or finish(progress.answers)
    return handler


def _fixture(name: str, description: str, handler: demo.Handler) -> demo.Entry:
    """(definition, handler) of a fixture tool: none takes arguments."""
    return {"name": name, "description": description, "inputSchema": demo.NO_ARGUMENTS}, handler


def _fixed(questions: Questions) -> Callable[[dict[str, Any]], Questions]:
    """A round of `walk` that asks the same questions whatever was answered before."""
    return lambda answers: questions


def _named(answers: dict[str, Any], key: str, field: str) -> Any:
    value = answers.get(key)
    return value.get(field, "?") if isinstance(value, dict) else "?"


def _sampled_text(answers: dict[str, Any], key: str) -> str:
    content = (answers.get(key) or {}).get("content")
    return content.get("text", "?") if isinstance(content, dict) else "?"


def elicitation_result(answers: dict[str, Any]) -> dict[str, Any]:
    return text_result(f"Hello, {_named(answers, 'user_name', 'name')}!", answers)


_greeted = _asks([ASK_NAME], elicitation_result)
_confirmed = _asks([CONFIRM], lambda answers: text_result("state-ok: the requestState came back intact.", answers))


def request_state(call: Call) -> dict[str, Any] | NeedInput:
    """Completes only on a retry that echoes the requestState of round one (the suite looks for `state-ok`)."""
    if call.state is None:
        return NeedInput(CONFIRM, {"answers": {}})
    return _confirmed(call)


def capabilities(call: Call) -> dict[str, Any] | NeedInput:
    """Asks only what the client declared: a sampling question, a form, both or neither."""
    questions: Questions = {}
    if "sampling" in call.capabilities:
        questions["sample"] = sampling("Say hello", 50)
    if "elicitation" in call.capabilities:
        questions["ask"] = form("What is your name?", NAME, ["name"])
    if not questions:
        return text_result("The client declared neither sampling nor elicitation: nothing to ask.")
    return _asks([questions], lambda answers: text_result("Every declared capability answered.", answers))(call)


def logging_tool(call: Call) -> dict[str, Any]:
    """Logs three messages, which reach the client only when it set a logLevel."""
    for step in ("started", "working", "done"):
        call.log("info", f"test_logging_tool {step}")
    return text_result("Logged three messages at info.")


def streaming_elicitation(call: Call) -> dict[str, Any] | NeedInput:
    """Progress (when the client sent a progressToken), then a form: the response stream carries
    notifications and the input_required result, never a request of its own."""
    call.progress(1, 2, "about to ask")
    return _greeted(call)


def _announces(method: str) -> demo.Handler:
    """A handler that announces a change of a list to the listen streams (the list ends as it was)."""
    def handler(call: Call) -> dict[str, Any]:
        CHANGES.announce(method)
        return text_result(f"Announced {method}.")
    return handler


def prompt_result(answers: dict[str, Any]) -> dict[str, Any]:
    text = f"Use the following context: {_named(answers, 'user_context', 'context')}"
    return {"description": "A prompt that asked for its context",
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}]}


def _said(key: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda answers: text_result(f"Model said: {_sampled_text(answers, key)}", answers)


def _roots_counted(answers: dict[str, Any]) -> dict[str, Any]:
    return text_result(f"Client exposed {len(answers['client_roots'].get('roots', []))} root(s).", answers)


def _colour_liked(answers: dict[str, Any]) -> dict[str, Any]:
    return text_result(f"{_named(answers, 'step1', 'name')} likes {_named(answers, 'step2', 'color')}.", answers)


EVERY_KIND = {**ASK_NAME, "greeting": sampling("Generate a greeting", 50), "client_roots": ROOTS}
TWO_STEPS = [{"step1": form("Step 1: What is your name?", NAME, ["name"])},
             {"step2": form("Step 2: What is your favorite color?", {"color": {"type": "string"}}, ["color"])}]
TOOLS = dict((definition["name"], (definition, handler)) for definition, handler in [
    _fixture("test_input_required_result_elicitation", "Asks for a name (one form), then greets.", _greeted),
    _fixture("test_input_required_result_sampling", "Asks the client's LLM the capital of France.",
             _asks([{"capital_question": sampling("What is the capital of France?", 100)}],
                   _said("capital_question"))),
    _fixture("test_input_required_result_list_roots", "Asks for the client's roots.",
             _asks([{"client_roots": ROOTS}], _roots_counted)),
    _fixture("test_input_required_result_request_state", "Asks to confirm; completes only when the requestState "
             "comes back.", request_state),
    _fixture("test_input_required_result_multiple_inputs", "A form, a sampling question and roots at once.",
             _asks([EVERY_KIND], lambda answers: text_result("All inputs received.", answers))),
    _fixture("test_input_required_result_multi_round", "Three rounds: a name, a colour, then the result.",
             _asks(TWO_STEPS, _colour_liked)),
    _fixture("test_input_required_result_tampered_state", "Asks to confirm; its requestState is sealed.",
             _asks([CONFIRM], lambda answers: text_result("state-ok: confirmed.", answers))),
    _fixture("test_input_required_result_capabilities", "Asks only what the client declared.", capabilities),
    _fixture("test_missing_capability", "Needs sampling: without the capability, -32021.",
             _asks([{"sample": sampling("Say hello", 50)}], _said("sample"))),
    _fixture("test_streaming_elicitation", "Progress, then a form, on one response stream.", streaming_elicitation),
    _fixture("test_logging_tool", "Logs three messages (only when the client set a logLevel).", logging_tool),
    _fixture("test_trigger_tool_change", "Announces a change of the tool list to the listen streams.",
             _announces("notifications/tools/list_changed")),
    _fixture("test_trigger_prompt_change", "Announces a change of the prompt list to the listen streams.",
             _announces("notifications/prompts/list_changed")),
])

PROMPTS = {"test_input_required_result_prompt": (
    {"name": "test_input_required_result_prompt", "description": "Asks for its context before it is built."},
    _asks([{"user_context": form("What context should the prompt use?", {"context": {"type": "string"}},
                                 ["context"])}], prompt_result))}


def app() -> demo.DemoApp:
    """The demo with the fixtures (task_fixtures.py's too) after its own tools and prompt, and listen streams."""
    return demo.DemoApp({**demo.TOOLS, **TOOLS, **task_fixtures.TOOLS}, {**demo.PROMPTS, **PROMPTS}, CHANGES)
