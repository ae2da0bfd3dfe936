"""Answering at a terminal: every question a server can ask, as prompts a person can review,
decline or cancel. The only module that imports questionary (and prompt_toolkit).

Prompts draw on stderr, so stdout keeps only output. Escape on an elicitation answers it with
`cancel`; Escape on a sampling or roots question refuses it; Ctrl-C aborts the whole call.
What the person sees around each prompt is printed by the presenter (render/prompts.py).
"""

from __future__ import annotations

import json
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any

import questionary
from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings

from mrtr_cli.forms import validation
from mrtr_cli.forms.fields import Field, form_fields, outside_subset
from mrtr_cli.answering import sources
from mrtr_cli.answering.questions import ELICIT, SAMPLE, Parked, Question, Refusal, Response, Decision
from mrtr_cli.answering.scripted import root_entry, sampling_response
from mrtr_cli.answering.url_policy import judge
from mrtr_cli.errors import UsageError
from mrtr_cli.text import safe_line

LEAVE_OUT = "(leave it out)"
PARK = "Park (answer later)"
"""The review's choice that stops the conversation paused (offered by `mrtr shell`: `parks`)."""
_LEFT_OUT = object()
"""The value of the leave-out choice (questionary would turn a None value into the title)."""


class Escaped(Exception):
    """The person pressed Escape."""


class InteractiveAnswerer:
    """Asks a person, last in the chain."""

    name = sources.INTERACTIVE

    def __init__(self, presenter: Any, sampling_model: str, io: Callable[[], dict[str, Any]] | None = None,
                 open_url: Callable[[str], Any] = webbrowser.open, cwd: Path | None = None) -> None:
        self.presenter = presenter
        self.sampling_model = sampling_model
        self.io = io or terminal_io
        self.open_url = open_url
        self.cwd = cwd or Path.cwd()
        self._urls_asked: set[str] = set()
        self.parks = False
        """Whether a form's review offers PARK (`mrtr shell`, whose `answer` continues a parked conversation)."""

    def offers_roots(self) -> bool:
        return True  # a person can pick or refuse roots

    def answer(self, question: Question) -> Decision:
        self.presenter.question(question)
        if question.method == ELICIT and question.mode == "url":
            return self._url(question)
        if question.method == ELICIT:
            return self._form(question)
        if question.method == SAMPLE:
            return self._sampling(question)
        return self._roots(question)

    # -- prompts ------------------------------------------------------------------------------

    def _ask(self, prompt: Any, escape: bool = True) -> Any:
        if escape:
            _on_escape(prompt, exception=Escaped)
        return prompt.unsafe_ask()

    def _select(self, message: str, choices: list[tuple[str, Any]], default: Any = None) -> Any:
        options = [questionary.Choice(label, value) for label, value in choices]
        chosen = next((o for o in options if o.value == default), None)
        return self._ask(questionary.select(message, options, default=chosen, **self.io()))

    def _text(self, message: str, default: str = "", check: Callable[[str], str | None] | None = None,
              multiline: bool = False, instruction: str | None = None) -> str:
        """Typed text, shown as answered; asked again, what is wrong printed under the answer (not on
        the terminal's bottom row), until `check` finds nothing wrong."""
        while True:
            prompt = questionary.text(message, default=default, multiline=multiline, instruction=instruction,
                                      **self.io())
            text = str(self._ask(_erased_when_done(prompt), escape=not multiline))
            self.presenter.answered(message, text)
            problem = check(text) if check else None
            if problem is None:
                return text
            self.presenter.problem(problem)
            default = text

    # -- forms --------------------------------------------------------------------------------

    def _form(self, question: Question) -> Decision:
        try:
            problem = outside_subset(question.schema)
            if problem:
                return self._raw_form(question, problem)
            fields = form_fields(question.schema)
            content: dict[str, Any] = {}
            for field in fields:
                self._fill(field, content)
            return self._review(question, fields, content)
        except Escaped:
            return Response({"action": "cancel"})

    def _fill(self, field: Field, content: dict[str, Any]) -> None:
        self.presenter.field(field)
        current = content.get(field.name, field.schema.get("default"))
        value = self._field_value(field, current)
        if value is None:
            content.pop(field.name, None)
        else:
            content[field.name] = value

    def _field_value(self, field: Field, current: Any) -> Any:
        label = f"{safe_line(field.title, 60)}{' *' if field.required else ''}"
        if field.kind == "boolean":
            return self._pick(label, [("yes", True), ("no", False)], field, current)
        if field.kind == "choice":
            options = [(safe_line(text, 80), value) for value, text in field.shown_options()]
            return self._pick(label, options, field, current)
        if field.kind == "choices":
            return self._choices(field, label, current or [])
        shown = "" if current is None else str(current)
        return validation.typed_input(field, self._text(label, shown, _problem_finder(field)))

    def _pick(self, label: str, options: list[tuple[str, Any]], field: Field, current: Any) -> Any:
        """One of `options`; an optional field also offers to be left out (None), the choice the
        pointer starts on when nothing is chosen yet (no default): nothing is picked for the person."""
        extra = [] if field.required else [(LEAVE_OUT, _LEFT_OUT)]
        start = _LEFT_OUT if current is None and not field.required else current
        chosen = self._select(label, options + extra, start)
        return None if chosen is _LEFT_OUT else chosen

    def _choices(self, field: Field, label: str, current: list[Any]) -> Any:
        """A multi-select, asked again until its values meet minItems and maxItems."""
        while True:
            options = [questionary.Choice(safe_line(text, 80), value, checked=value in current)
                       for value, text in field.shown_options()]
            values = self._ask(_erased_when_done(questionary.checkbox(label, options, **self.io())))
            if not values and not field.required:
                self.presenter.answered(label, "(left out)")
                return None
            self.presenter.picked(label, field, values)
            try:
                validation.check_value(field, values)
            except ValueError as error:
                self.presenter.problem(str(error))
                current = values
                continue
            return values

    def _review(self, question: Question, fields: list[Field], content: dict[str, Any]) -> Decision:
        while True:
            problems = validation.problems(content, question.schema)
            self.presenter.review(fields, content, problems)
            choices = [] if problems else [("Submit", "submit")]
            choices += [("Edit a field", "edit"), ("Decline", "decline"), ("Cancel", "cancel")]
            choices += [(PARK, "park")] if self.parks else []
            choice = self._select("Send this answer?", choices)
            if choice == "park":
                raise Parked(question)
            if choice == "submit":
                return Response({"action": "accept", "content": content})
            if choice != "edit":
                return Response({"action": choice})
            self._edit_a_field(fields, content)

    def _edit_a_field(self, fields: list[Field], content: dict[str, Any]) -> None:
        """One field asked again; Escape here goes back to the review, the answer unchanged."""
        try:
            field = self._select("Which field?", [(safe_line(f.title, 60), f) for f in fields])
        except Escaped:
            return
        self._fill(field, content)

    def _raw_form(self, question: Question, problem: str) -> Decision:
        self.presenter.outside_subset(problem, question.schema)
        choice = self._select("How do you answer?", [("Type the answer as JSON", "json"), ("Decline", "decline"),
                                                     ("Cancel", "cancel"), *([(PARK, "park")] if self.parks else [])])
        if choice == "park":
            raise Parked(question)
        if choice != "json":
            return Response({"action": choice})

        def json_problem(text: str) -> str | None:
            try:
                value = json.loads(text)
            except ValueError as error:
                return f"not JSON: {error}"
            problems = validation.problems(value, question.schema) if isinstance(value, dict) else ["not an object"]
            return safe_line(problems[0], 200) if problems else None

        return Response({"action": "accept", "content": json.loads(self._text("JSON", "{}", json_problem))})

    # -- URL mode -----------------------------------------------------------------------------

    def _url(self, question: Question) -> Decision:
        verdict = judge(str(question.params.get("url", "")))
        again = question.key in self._urls_asked
        self._urls_asked.add(question.key)
        self.presenter.url(verdict, again)
        try:
            # a flagged URL (a look-alike host, a password in it) starts on Decline: one stray Enter opens nothing
            safe = "decline" if verdict.warnings and verdict.openable and not again else None
            choice = self._select("What now?", _url_choices(verdict.openable, again), default=safe)
        except Escaped:
            return Response({"action": "cancel"})
        if choice == "open" and not self.open_url(verdict.url):
            choice = "show"  # no browser could be started (a server, a container): the URL is shown instead
        if choice == "show":
            self.presenter.plain_url(verdict.url)
        return Response({"action": "accept" if choice in ("open", "show", "retry") else choice})

    # -- sampling and roots ---------------------------------------------------------------------

    def _sampling(self, question: Question) -> Decision:
        self.presenter.sampling(question.params)
        try:
            choice = self._select("Answer this sampling request?", [("Write the reply", "write"),
                                                                     ("Reject it", "reject")])
        except Escaped:
            return Refusal("the person rejected it (Escape)")
        if choice == "reject":
            return Refusal("the person rejected it")
        reply = self._text("Reply", multiline=True, instruction="(Alt+Enter, or Esc then Enter, sends it)")
        return sampling_response(reply, self.sampling_model)

    def _roots(self, question: Question) -> Decision:
        roots = [root_entry(str(self.cwd))]
        try:
            while True:
                self.presenter.roots(roots)
                # the pointer starts on Refuse: one stray Enter shares nothing
                choice = self._select("Share these roots?", _roots_choices(bool(roots)), default="refuse")
                if choice == "share":
                    return Response({"roots": roots})
                if choice == "refuse":
                    return Refusal("the person refused to share roots")
                roots = self._edit_roots(choice, roots)
        except Escaped:
            return Refusal("the person refused to share roots (Escape)")

    def _edit_roots(self, choice: str, roots: list[dict[str, str]]) -> list[dict[str, str]]:
        """The roots with one added or removed; Escape goes back to the menu unchanged."""
        try:
            return self._edited(choice, roots)
        except Escaped:
            return roots

    def _edited(self, choice: str, roots: list[dict[str, str]]) -> list[dict[str, str]]:
        if choice == "remove":
            gone = self._select("Remove which root?", [(safe_line(r["uri"], 200), r) for r in roots])
            return [r for r in roots if r is not gone]
        added = self._text("Path or file:// URI", check=_root_problem)
        return roots + [root_entry(added)]


def _url_choices(openable: bool, again: bool) -> list[tuple[str, str]]:
    if not openable:
        return [("Decline", "decline"), ("Cancel", "cancel")]
    if again:
        return [("I finished: retry", "retry"), ("Open it again", "open"), ("Cancel", "cancel")]
    return [("Open in browser", "open"), ("Show the URL only", "show"), ("Decline", "decline"), ("Cancel", "cancel")]


def _roots_choices(any_roots: bool) -> list[tuple[str, str]]:
    choices = [("Share these", "share"), ("Add a root", "add")]
    if any_roots:
        choices.append(("Remove a root", "remove"))
    return choices + [("Refuse", "refuse")]


def _erased_when_done(prompt: Any) -> Any:
    """The prompt leaves nothing behind when answered: the presenter shows the answer instead
    (questionary would show a multi-select as `done (2 selections)` and wrap text mid-word)."""
    prompt.application.erase_when_done = True
    return prompt


def _problem_finder(field: Field) -> Callable[[str], str | None]:
    def problem(text: str) -> str | None:
        try:
            validation.typed_input(field, text)
        except ValueError as error:
            return safe_line(error, 200)
        return None

    return problem


def _root_problem(text: str) -> str | None:
    try:
        root_entry(text)
    except UsageError as error:
        return safe_line(error.message, 200)
    return None if text.strip() else "give a path or a file:// URI"


def terminal_io() -> dict[str, Any]:
    """Prompts read the terminal and draw on stderr (tests give pipe input and dummy output)."""
    import sys

    from prompt_toolkit.output import create_output

    return {"output": create_output(stdout=sys.stderr)}


def confirm(message: str) -> bool:
    """A yes/no question at the terminal (default no); Escape answers no, Ctrl-C aborts (as anywhere)."""
    prompt = questionary.confirm(safe_line(message, 500), default=False, **terminal_io())
    return bool(_on_escape(prompt, result=False).unsafe_ask())


def _on_escape(prompt: Any, **exit_with: Any) -> Any:
    """The prompt, Escape bound to end it with `exit_with` (`exception=` to raise, or `result=`)."""
    bindings = KeyBindings()

    @bindings.add("escape", eager=True)
    def _escape(event: Any) -> None:
        event.app.exit(**exit_with)

    own = prompt.application.key_bindings
    prompt.application.key_bindings = merge_key_bindings([own, bindings] if own is not None else [bindings])
    return prompt


def ask_value(message: str) -> str:
    """A line typed at the terminal (for a value a transcript redacted)."""
    return str(questionary.text(safe_line(message, 300), **terminal_io()).unsafe_ask())
