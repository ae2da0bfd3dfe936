"""`mrtr discover` and `mrtr list`: what a server offers, no conversation."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mrtr_cli.render import json_report
from mrtr_cli.conversation.lists import list_all

from mrtr_cli.commands.common import Context, client_settings, connect, endpoint, guarded
from mrtr_cli.commands.hops import refuse_outside_a_conversation
from mrtr_cli.conversation.client import Client
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.options import AnsweringOptions, OutputOptions, TargetOptions, TaskOptions
from mrtr_cli.protocol import meta
from mrtr_cli.protocol.headers import split_tools
from mrtr_cli.render.listing import discovery_lines, excluded_tool_line, print_listing
from mrtr_cli.target import Target, resolve_target


@contextmanager
def declaring(context: Context, resolved: Target, target: TargetOptions, answering: AnsweringOptions,
              tasks: TaskOptions) -> Iterator[Client]:
    """A client that declares what `call` would with the same flags (an older-era server may offer
    some tools only to a client declaring roots) and answers the server's own requests from
    --root and --answers alone: nobody is prompted outside a conversation."""
    from mrtr_cli.answering.chain import build_chain

    chain, _ = build_chain(answering, target.timeout)
    settings = client_settings(target, answering, chain, declare_tasks=not tasks.no_tasks)
    with connect(context, endpoint(context, resolved, target), settings, chain=chain) as client:
        yield client


def run_discover(target: TargetOptions, answering: AnsweringOptions, tasks: TaskOptions, output: OutputOptions) -> int:
    def body(context: Context) -> ExitCode:
        from mrtr_cli.conversation.era import what_server_said

        refuse_outside_a_conversation(target, "discover")
        with declaring(context, resolve_target(target), target, answering, tasks) as client:
            result = what_server_said(client)
        if output.json:
            context.print_json(json_report.listing_document(result))
        else:
            for line in discovery_lines(result):
                context.consoles.out.print(line)
        return ExitCode.OK

    return guarded(output, body)


def run_list(kind: str, target: TargetOptions, answering: AnsweringOptions, tasks: TaskOptions,
             output: OutputOptions) -> int:
    method, key = meta.LIST_METHODS[kind]

    def body(context: Context) -> ExitCode:
        refuse_outside_a_conversation(target, "list")
        resolved = resolve_target(target)
        with declaring(context, resolved, target, answering, tasks) as client:
            merged, _ = list_all(client, method, key)
        excluded = _exclude_invalid_tools(merged) if kind == "tools" and resolved.mirrors_headers else []
        for tool in excluded:
            context.consoles.err.print(excluded_tool_line(tool))
        if output.json:
            context.print_json(json_report.listing_document(merged, excluded if kind == "tools" else None))
        else:
            print_listing(context.consoles.out, kind, merged[key])
        return ExitCode.OK

    return guarded(output, body)


def _exclude_invalid_tools(merged: dict[str, Any]) -> list[dict[str, str]]:
    """Over HTTP, tools with invalid x-mcp-header annotations leave the list (spec MUST)."""
    merged["tools"], excluded = split_tools(merged["tools"])
    return excluded
