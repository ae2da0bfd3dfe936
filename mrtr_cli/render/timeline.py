"""The timeline: an observer of the engine's events, live on stderr (or a recorded one, for `show`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrtr_cli.conversation import events
from mrtr_cli.answering import sources
from mrtr_cli.answering.questions import SAMPLE
from mrtr_cli.render.console import emit_text
from mrtr_cli.render.diagnostics import stderr_line
from mrtr_cli.render.question_lines import shown_question
from mrtr_cli.render.styled_line import JoinedLines, StyledLine
from mrtr_cli.render.task_lines import created_line, following_line, status_line
from mrtr_cli.render.timeline_lines import (answer_line, continued_line, discover_line, finding_line, ignored_line, input_summary,
                                            instance_line, notification_line, request_line, response_line,
                                            wire_line)
from mrtr_cli.text import safe_line

if TYPE_CHECKING:
    from rich.text import Text

    from mrtr_cli.render.console import AnyConsole as Console


POLL = "tasks/get"
"""A task's poll: shown with -v only (the task's status lines say what each found)."""
LISTEN = "subscriptions/listen"
"""A task's notification stream: shown with -v only (a line says how the task is followed)."""
OLDER_TASK_STATUS = "notifications/tasks/status"
"""An older-era task's status notification (2025-11-25): shown with -v only, as its status lines say it."""


class Timeline:
    """Prints each event as it happens; `-v` adds the raw wire and the server's stderr."""

    def __init__(self, console: Console, verbose: bool = False, live: bool = True, answered_by_mrtr: bool = True) -> None:
        self.console = console
        self.verbose = verbose
        self.live = live
        """A recorded timeline shows progress as lines: a bar would only flash past."""
        self.answered_by_mrtr = answered_by_mrtr
        """Whether mrtr answers the questions shown (through the proxy the host does): only then are
        --answer and answers files worth naming."""
        self.progress = ProgressDisplay(console)
        self.prompts_show_questions = False
        """When a person is asked at the terminal, each prompt shows its question: the timeline
        then shows a question's details only with an answer that came from elsewhere."""
        self._asked: dict[str, tuple[dict[str, Any], int, int]] = {}
        """The questions of the round, by key: request, index and count (shown with their answers)."""
        self._holding = live and not console.is_terminal
        """Off a terminal, a live timeline writes a round's lines in one piece instead of one a line:
        each write to a pipe wakes its reader, which a long conversation pays for on every line."""
        self._held: list[str] = []
        self._handlers: dict[type, events.Observer] = {
            events.RequestSent: self._request,
            events.ResponseReceived: self._response,
            events.FrameReceived: self._frame,
            events.InputRequested: self._input,
            events.AnswerChosen: self._answer,
            events.NotificationReceived: self._notification,
            events.FrameIgnored: lambda e: self.print(ignored_line(e)),
            events.BackingOff: self._backoff,
            events.VersionChanged: self._version,
            events.Reissued: self._reissued,
            events.ServerStderr: self._stderr,
            events.StillWaiting: lambda e: self.print(StyledLine(
                f"  … waiting for the server to answer {safe_line(e.method, 60)} (id {e.id}, {e.seconds:.0f} s)",
                "mrtr.dim")),
            events.WireNote: self._wire_note,
            events.AuthorizationStep: self._authorization,
            events.CancelSent: self._cancel,
            events.Finding: lambda e: self.print(finding_line(e)),
            events.InstanceChosen: lambda e: self.print(instance_line(e)),
            events.Continued: lambda e: self.print(continued_line(e)),
            events.EraChosen: self._era,
            events.ProbeUnanswered: lambda e: self.print(StyledLine(
                f"  · no answer to {e.method} (id {e.id}) within --era-probe-wait ({e.seconds:g} s): trying the "
                "initialize handshake, still listening for it", "mrtr.dim")),
            events.EraReprobed: lambda e: self.print(StyledLine(
                f"  ! {safe_line(e.reason, 300)}: probing the era once", "mrtr.warn")),
            events.TaskCreated: lambda e: self.print(created_line(e)),
            events.TaskStatusChanged: lambda e: self.print(status_line(e)),
            events.TaskFollowing: lambda e: self.print(following_line(e)),
            events.MessageSent: self._sent,
            events.Unanswered: lambda e: self.print(StyledLine(f"  ! {safe_line(e.key, 60)} got an error: "
                                                         f"{safe_line(e.reason, 200)}", "mrtr.warn")),
        }

    def __call__(self, event: Any) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:
            handler(event)
        if self._held and not _more_follows(event):
            self.flush()

    def print(self, *texts: Text | StyledLine | JoinedLines) -> None:
        if self._holding:
            for text in texts:  # a loop, not a comprehension: in Python 3.11 that is one more call a line
                self._held.append(text.plain)
            return
        for text in texts:
            emit_text(self.console, text)

    def flush(self) -> None:
        """Write the lines held back, in one piece."""
        held, self._held = self._held, []
        self.console.file.write("\n".join(held) + "\n")

    def _request(self, event: events.RequestSent) -> None:
        if event.method in (POLL, LISTEN) and not self.verbose:
            return  # a task's polls and its listen stream: its statuses say what they found
        self.print(request_line(event))
        if self.verbose:
            self.print(wire_line("out", event.text))

    def _response(self, event: events.ResponseReceived) -> None:
        self.progress.stop()
        if event.method == POLL and not self.verbose and event.error is None:
            return
        self.print(response_line(event))
        if event.method == "server/discover" and isinstance(event.result, dict):
            self.print(discover_line(event.result))

    def _frame(self, event: events.FrameReceived) -> None:
        if self.verbose:
            self.print(wire_line("in", event.message.raw))

    def _input(self, event: events.InputRequested) -> None:
        self.print(input_summary(event, self.answered_by_mrtr))
        count = len(event.requests)
        self._asked = {}
        for index, (key, request) in enumerate(event.requests.items(), 1):
            self._asked[key] = (request, index, count)
            if not self.prompts_show_questions:  # else shown with their answers, when no prompt showed them
                self.print(*shown_question(request, key, index, count))

    def _answer(self, event: events.AnswerChosen) -> None:
        if self.prompts_show_questions and event.source != sources.INTERACTIVE and event.key in self._asked:
            request, index, count = self._asked[event.key]
            self.print(*shown_question(request, event.key, index, count))
        self.print(answer_line(event))

    def _notification(self, event: events.NotificationReceived) -> None:
        if event.method == "notifications/progress" and self.live and self.progress.show(event.params):
            return
        if event.method == OLDER_TASK_STATUS and not self.verbose:
            return  # the task's status lines say what it told
        self.print(notification_line(event))

    def _backoff(self, event: events.BackingOff) -> None:
        self.print(StyledLine(f"  … only requestState: retrying in {event.seconds * 1000:.0f} ms", "mrtr.dim"))

    def _era(self, event: events.EraChosen) -> None:
        from mrtr_cli.conversation.eras import era_named  # a client's module: loaded by then

        name = era_named(event.era).describe(event.version)
        self.print(StyledLine(f"  era: {event.era} ({name}): {safe_line(event.reason, 200)}", "mrtr.dim"))

    def _sent(self, event: events.MessageSent) -> None:
        if self.verbose:
            self.print(StyledLine(f"  → {safe_line(event.what, 80)}", "mrtr.dim"), wire_line("out", event.text))

    def _version(self, event: events.VersionChanged) -> None:
        said = ", ".join(event.supported) or "nothing"
        self.print(StyledLine(f"  ! the server refused version {event.old} (it lists {said}); retrying with {event.new}",
                        "mrtr.warn"))

    def _reissued(self, event: events.Reissued) -> None:
        self.progress.stop()
        self.print(StyledLine(f"  ! the response stream of {event.method} (id {event.id}) ended before the response; "
                        "sending it once more under a new id", "mrtr.warn"))

    def _stderr(self, event: events.ServerStderr) -> None:
        if self.verbose:
            self.print(stderr_line(event.line))

    def _wire_note(self, event: events.WireNote) -> None:
        if self.verbose:
            self.print(wire_line(event.direction, event.text))

    def _authorization(self, event: events.AuthorizationStep) -> None:
        failed = event.step == "failed"
        self.print(StyledLine(f"  {'✗' if failed else '·'} auth: {safe_line(event.text, 300)}",
                        "mrtr.warn" if failed else "mrtr.dim"))

    def _cancel(self, event: events.CancelSent) -> None:
        self.progress.stop()
        self.print(StyledLine(f"  ✗ cancelled request {event.id} ({event.reason})", "mrtr.warn"))


def _more_follows(event: Any) -> bool:
    """Whether more lines follow `event` at once, with nothing waited for in between: a round's
    response, its questions (answered from flags, files or a recording: a sampler command is waited
    for, so questions for sampling are written first) and its answers, up to the retry. Any other
    event writes what is held, so that nothing is held while mrtr waits (for the server, a backoff,
    a sampler) or after the conversation ends."""
    kind = type(event)
    if kind is events.InputRequested:
        return not event.in_flight and all(request.get("method") != SAMPLE for request in event.requests.values())
    return kind is events.AnswerChosen or (kind is events.ResponseReceived and event.round is not None)


class ProgressDisplay:
    """A progress bar on a terminal; elsewhere `show` declines and lines are printed instead."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._bar: Any = None
        self._task: Any = None

    def show(self, params: dict[str, Any]) -> bool:
        if not self.console.is_terminal or not isinstance(params.get("progress"), (int, float)):
            return False
        if self._bar is None:
            self._start()
        total = params.get("total") if isinstance(params.get("total"), (int, float)) else None
        message = safe_line(params.get("message") or "", 80)
        self._bar.update(self._task, completed=params["progress"], total=total, description=message)
        return True

    def _start(self) -> None:
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

        from mrtr_cli.render.console import PlainConsole

        console = self.console.rich if isinstance(self.console, PlainConsole) else self.console
        self._bar = Progress(TextColumn("  progress"), BarColumn(), TaskProgressColumn(),
                             TextColumn("{task.description}"), console=console, transient=True)
        self._task = self._bar.add_task("", total=None)
        self._bar.start()

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
