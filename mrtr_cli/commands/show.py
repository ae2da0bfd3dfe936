"""`mrtr show FILE`: a transcript's timeline and result, as `call` showed them; no server needed.

The timeline is what `show` is for, so all of it goes to stdout (`mrtr show t.yaml | less`); only
mrtr's own failures (an unreadable transcript) go to stderr.
"""

from __future__ import annotations

from mrtr_cli.fileio import files
from mrtr_cli.render import json_report
from mrtr_cli.commands.common import Context, guarded
from mrtr_cli.exit_codes import ExitCode
from mrtr_cli.definition.options import OutputOptions, RecordingOptions
from mrtr_cli.render.outcome import print_outcome
from mrtr_cli.render.timeline import Timeline
from mrtr_cli.transcript import model


def run(path: str, output: OutputOptions, recording: RecordingOptions = RecordingOptions()) -> int:
    def body(context: Context) -> ExitCode:
        files.check_writable(recording.html, "--html")
        transcript = model.load(path)
        outcome = model.outcome_of(transcript)
        if recording.html:
            from mrtr_cli.commands.conversation_builder import write_conversation_page

            write_conversation_page(recording.html, f"mrtr show {path}", [(path, transcript.data)],
                                    recording.show_state)
        if output.json:
            context.print_json(json_report.conversation(outcome, model.continuations(transcript)))
            return ExitCode.OK
        timeline = Timeline(context.consoles.out, verbose=output.verbose, live=False)
        for event in model.events_of(transcript):
            timeline(event)
        print_outcome(context.consoles, outcome, status=context.consoles.out)
        return ExitCode.OK

    return guarded(output, body)
