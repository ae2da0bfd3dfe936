"""`mrtr discover` and `mrtr list`: what a server offers, no conversation."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from mrtr_cli.render import json_report
from mrtr_cli.conversation.lists import list_all

from mrtr_cli.commands.common import Context, guarded
from mrtr_cli.commands.hops import refuse_outside_a_conversation
from mrtr_cli.conversation.client import Client
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.options import AnsweringOptions, OutputOptions, TargetOptions, TaskOptions
from mrtr_cli.protocol import meta
from mrtr_cli.protocol.headers import split_tools
from mrtr_cli.render.listing import discovery_lines, excluded_tool_line, print_listing
from mrtr_cli.targets.target import resolve_target

if TYPE_CHECKING:
    from mrtr_cli.commands.conversation_builder import Conversation


@contextmanager
def declaring(conversation: Conversation) -> Iterator[Client]:
    """A client that declares what `call` would with the same flags (an older-era server may offer
    some tools only to a client declaring roots) and answers the server's own requests from
    --root and --answers alone: nobody is prompted outside a conversation."""
    with conversation.connected() as live:
        yield live.client


def _conversation(context: Context, target: TargetOptions, answering: AnsweringOptions, tasks: TaskOptions,
                  command: str) -> Conversation:
    """The conversation `call` would hold with these flags, never held: its target, chain and settings."""
    from mrtr_cli.commands.conversation_builder import build  # answering loads only for commands that answer

    refuse_outside_a_conversation(target, command)
    return build(context, target, answering, tasks=tasks, target=resolve_target(target))


def run_discover(target: TargetOptions, answering: AnsweringOptions, tasks: TaskOptions, output: OutputOptions) -> int:
    def body(context: Context) -> ExitCode:
        from mrtr_cli.conversation.era import what_server_said

        with declaring(_conversation(context, target, answering, tasks, "discover")) as client:
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
        conversation = _conversation(context, target, answering, tasks, "list")
        with declaring(conversation) as client:
            merged, _ = list_all(client, method, key)
        excluded = _exclude_invalid_tools(merged) if kind == "tools" and conversation.target.mirrors_headers else []
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
