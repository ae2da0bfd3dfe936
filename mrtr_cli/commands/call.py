"""`mrtr call`, `mrtr read`, `mrtr prompt`: one request and its whole MRTR conversation."""

from __future__ import annotations

import sys
from typing import Any

from rich.text import Text

from mrtr_cli import report
from mrtr_cli.answering.chain import build_chain
from mrtr_cli.answering.questions import Answerer
from mrtr_cli.answering.save import save_answers
from mrtr_cli.arguments import prompt_arguments, tool_arguments
from mrtr_cli.client import Client
from mrtr_cli.listing import list_all
from mrtr_cli.commands.common import Context, client_settings, connect, guarded, wants_probe
from mrtr_cli.errors import Interrupted, MrtrError, ProtocolError, ServerError
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.options import AnsweringOptions, CallOptions, OutputOptions, TargetOptions
from mrtr_cli.protocol.headers import split_tools
from mrtr_cli.render import format as fmt
from mrtr_cli.session import Outcome, Session, status_of
from mrtr_cli.target import HttpTarget


def run(call: CallOptions, target: TargetOptions, answering: AnsweringOptions, output: OutputOptions) -> int:
    return guarded(output, lambda context: _converse(context, call, target, answering))


def _converse(context: Context, call: CallOptions, target: TargetOptions,
              answering: AnsweringOptions) -> ExitCode:
    chain, flags = build_chain(answering, target.timeout, _people(context, answering))
    outcome = Outcome(call.method, {})
    try:
        with connect(context, target, client_settings(target, answering)) as (client, resolved):
            if wants_probe(resolved, target):
                client.discover()
            session = Session(client, chain, max_rounds=answering.max_rounds)
            outcome = session.run(call.method, _params(call, client, isinstance(resolved, HttpTarget)))
    except MrtrError as error:
        outcome.status, outcome.error = status_of(error), error
    except KeyboardInterrupt:
        outcome.status, outcome.error = "aborted", Interrupted("interrupted by the user")
    for unused in flags.unused():
        context.consoles.err.print(Text(f"! --answer {unused} matched no question the server asked", "mrtr.warn"))
    if answering.save_answers:
        save_answers(answering.save_answers, outcome.rounds)
    return _show(context, outcome)


def _people(context: Context, answering: AnsweringOptions) -> list[Answerer]:
    """The interactive answerer, when a person can be asked: stdin and stderr are terminals."""
    if answering.no_input or not (sys.stdin.isatty() and sys.stderr.isatty()):
        return []
    from mrtr_cli.answering.interactive import InteractiveAnswerer
    from mrtr_cli.render.prompts import Presenter

    context.timeline.prompts_show_questions = True
    return [InteractiveAnswerer(Presenter(context.consoles.err), answering.sampling_model)]


def _params(call: CallOptions, client: Client, over_http: bool) -> dict[str, Any]:
    if call.method == "tools/call":
        schema = _input_schema(client, call.name, over_http) if call.arguments or over_http else None
        return {"name": call.name, "arguments": tool_arguments(call.arguments, call.args_json, schema)}
    if call.method == "prompts/get":
        return {"name": call.name, "arguments": prompt_arguments(call.arguments, call.args_json)}
    return {"uri": call.name}


def _input_schema(client: Client, name: str, over_http: bool) -> Any:
    """The tool's inputSchema (to type `-a` values), learning `x-mcp-header`s over HTTP."""
    try:
        tools = list_all(client, "tools/list", "tools")[0]["tools"]
    except ServerError:
        return None
    if over_http:
        tools, excluded = split_tools(tools)
        client.transport.learn_tools(tools)
        refused = next((e for e in excluded if e["name"] == name), None)
        if refused:
            raise ProtocolError(f"the tool {name!r} has an invalid x-mcp-header annotation: {refused['reason']}",
                                "over HTTP a client must exclude such a tool; fix its inputSchema")
    tool = next((t for t in tools if isinstance(t, dict) and t.get("name") == name), None)
    return tool.get("inputSchema") if tool else None


def _show(context: Context, outcome: Outcome) -> ExitCode:
    code = outcome.exit_code(context.output.strict)
    if context.output.json:
        context.print_json(report.conversation(outcome))
    elif outcome.result is not None:
        for text in fmt.result_texts(outcome.result):
            context.consoles.out.print(text)
    context.consoles.err.print(_status_line(outcome))
    if outcome.error is not None:
        context.fail(outcome.error)
    elif code != ExitCode.OK and context.output.json:
        context.error_line(code, _why(outcome, code))
    return code


def _status_line(outcome: Outcome) -> Text:
    rounds = len(outcome.rounds)
    took = sum(r.reply.elapsed_ms for r in outcome.rounds)
    detail = f" · {rounds} round{'s' if rounds != 1 else ''} · {took:.0f} ms" if rounds else ""
    if outcome.status == "complete" and outcome.exit_code() == ExitCode.TOOL_ERROR:
        return Text(f"✗ complete, but the tool reported an error (isError){detail}", "mrtr.error")
    style = "mrtr.complete" if outcome.status == "complete" else "mrtr.error"
    return Text(f"{'✓' if outcome.status == 'complete' else '✗'} {outcome.status}{detail}", style)


def _why(outcome: Outcome, code: ExitCode) -> str:
    if code == ExitCode.TOOL_ERROR:
        return "the tool reported an error (isError: true)"
    return "the server broke a MUST of the spec (--strict)"
