"""`mrtr load TRANSCRIPT... --url URL [--replica URL...]`: Locust users replay the transcripts against
live servers over HTTP, conversation after conversation, in this process (Locust's local runner,
headless); at the end mrtr's own summary.

Exits: 1 for usage errors (Locust not installed among them); 4 when the first server/discover to
--url or to a replica fails; 130 on Ctrl-C, after the summary; else 6 when any conversation
diverged or failed; else 0.
"""

from __future__ import annotations

import dataclasses

from mrtr_cli.fileio import files
from mrtr_cli.commands.common import Context, guarded
from mrtr_cli.commands.conversation_builder import build
from mrtr_cli.commands.inspect import declaring
from mrtr_cli.errors import UsageError
from mrtr_cli.conversation.events import Broadcast
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.load.first import INSTALL, import_locust
from mrtr_cli.definition.options import AnsweringOptions, LoadingOptions, OutputOptions, TargetOptions
from mrtr_cli.targets.target import Target, http_url, names_a_server, resolve_target


def run(transcripts: tuple[str, ...], arguments: tuple[str, ...], loading: LoadingOptions, ignore: tuple[str, ...],
        target: TargetOptions, answering: AnsweringOptions, output: OutputOptions) -> int:
    def body(context: Context) -> ExitCode:
        if not import_locust():
            raise UsageError("mrtr load runs its users on Locust, which is not installed",
                             f"install the extra: {INSTALL}")
        from mrtr_cli.load import distributed, running  # Locust's and gevent's: once Locust patched the process

        if loading.worker:
            _refuse_given_to_a_worker(transcripts, target)
            return distributed.run_worker(context, loading, target, answering)
        if not transcripts:
            raise UsageError("mrtr load needs transcripts to replay", "give TRANSCRIPT.yaml... (a --worker takes "
                             "none: its master sends them)")
        resolved = _http_target(target)
        plan = running.plan_of(transcripts, arguments, loading, ignore, target, answering)
        _discover_each(context, resolved, target, answering)
        if loading.master or loading.processes:
            return distributed.run_master(context, plan, loading, str(http_url(resolved)))
        return running.run_local(context, plan, loading)

    return guarded(output, body)


def _refuse_given_to_a_worker(transcripts: tuple[str, ...], target: TargetOptions) -> None:
    """A worker replays what its master sends: transcripts or a server of its own would be ignored."""
    if transcripts or target.url or target.config or target.replicas:
        raise UsageError("a --worker takes no transcripts, --url, --config or --replica: its master sends them",
                         "give them to `mrtr load --master`; a worker takes its own -H and login flags")


def _http_target(options: TargetOptions) -> Target:
    """The --url (or HTTP --config entry) server; a stdio server is one process: exit 1."""
    if not names_a_server(options):
        raise UsageError("mrtr load needs the server's URL: it loads a server over HTTP, never the recorded one",
                         "give --url URL (and --replica URL for each other instance)")
    resolved = resolve_target(options)
    if http_url(resolved) is None:
        raise UsageError("mrtr load loads a server over HTTP, and this one is a stdio process (one process "
                         "answers one client: there is nothing to spread users over)",
                         "run the server over Streamable HTTP and give --url URL")
    return resolved


def _discover_each(context: Context, resolved: Target, options: TargetOptions, answering: AnsweringOptions) -> None:
    """server/discover to --url and to each replica, once, before any user starts: a server not
    there is its own error (exit 4), not thousands of failed conversations."""
    quiet = dataclasses.replace(context, emit=Broadcast([]))  # no timeline: the summary is the output
    first = build(quiet, options._replace(replicas=()), answering, target=resolved)  # its users hop, not its rounds
    for server in (first.server, *(first.server.replica(url) for url in options.replicas)):
        with declaring(first.again(server=server)):
            pass
