"""What a person sees around each interactive prompt: who asks, the question, the form under
review, the URL to consent to, the sampling conversation, the roots offered.

Everything from a server goes through `text.safe`/`safe_line` into `Text`; the prompts
themselves belong to answering/interactive.py, which asks this presenter to show the rest.
"""

from __future__ import annotations

import json
from typing import Any

from rich.cells import cell_len
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from mrtr_cli.forms.fields import Field
from mrtr_cli.answering.questions import Question
from mrtr_cli.answering.url_policy import UrlVerdict
from mrtr_cli.render.console import AnyConsole
from mrtr_cli.render.question_lines import answer_text, field_detail
from mrtr_cli.render.server_text import content_summary, quoted
from mrtr_cli.text import safe, safe_line

ANSWER_LIMIT = 5000
"""Characters of a typed answer shown once it is given."""


class Presenter:
    """Prints the context of each prompt on the console the prompts draw on (stderr)."""

    def __init__(self, console: AnyConsole) -> None:
        self.console = console

    def question(self, question: Question) -> None:
        """Which server asks, the round, the key, the position, and the message."""
        where = f"round {question.round}"
        if question.count > 1:
            where += f" · question {question.index} of {question.count}"
        head = Text("\n┌ ", "mrtr.input")
        head.append(safe_line(question.server, 80), "mrtr.key")
        head.append(f" asks ({where} · key ", "mrtr.dim")
        head.append(safe_line(question.key, 80), "mrtr.key")
        head.append(f" · {question.method})", "mrtr.dim")
        self.console.print(head)
        if question.method == "elicitation/create":
            self.console.print(quoted(question.message, indent="  "))

    def field(self, field: Field) -> None:
        """A field's title and description before its prompt, indented, wrapped at word boundaries."""
        line = Text(safe_line(field.title, 80), "mrtr.key")
        line.append(f"  {field_detail(field)}", "mrtr.dim")
        if field.schema.get("description"):
            line.append(f"\n{safe_line(field.schema['description'], 200)}", "mrtr.dim")
        self._indented(line)

    def answered(self, label: str, answer: str) -> None:
        """A prompt once answered: `? Label answer`, or, when the answer is long or has lines, the
        answer under it, indented and wrapped at word boundaries."""
        head = Text("? ", "mrtr.input")
        head.append(safe_line(label, 80), "mrtr.key")
        shown = safe_line(answer, ANSWER_LIMIT)
        if "\n" not in answer and head.cell_len + 1 + cell_len(shown) <= self.console.width:
            self.console.print(head.append(f" {shown}" if answer else ""))
            return
        self.console.print(head)
        self._indented(Text(safe(answer, ANSWER_LIMIT)))

    def _indented(self, text: Text) -> None:
        """`text` two spaces in, wrapped at word boundaries (a terminal would cut a word at its edge)."""
        self.console.print(Padding(text, (0, 0, 0, 2), expand=False), soft_wrap=False)

    def picked(self, label: str, field: Field, value: Any) -> None:
        """A multi-select once answered, in the form the review shows it."""
        self.answered(label, answer_text(field, value, ANSWER_LIMIT))

    def review(self, fields: list[Field], content: dict[str, Any], problems: list[str]) -> None:
        """Every field and the value that would be sent."""
        table = Table(box=None, pad_edge=False, show_header=False, title=None)
        table.add_column(style="mrtr.key")
        table.add_column()
        for field in fields:
            shown = Text("(left out)", "mrtr.dim") if field.name not in content else Text(
                answer_text(field, content[field.name], ANSWER_LIMIT))
            table.add_row(Text("  " + safe_line(field.title, 60)), shown)
        self.console.print(Text("  review:", "mrtr.dim"))
        self.console.print(table, soft_wrap=False)  # a long answer wraps at words, under its column
        for problem in problems:
            self.problem(problem)

    def outside_subset(self, problem: str, schema: dict[str, Any]) -> None:
        self.console.print(Text(f"  ! this form is outside the spec's flat subset: {safe_line(problem, 200)}; "
                                "you can type the answer as JSON, decline or cancel", "mrtr.warn"))
        self.console.print(quoted(json.dumps(schema, ensure_ascii=False, indent=2), indent="  ", limit=3000))

    def url(self, verdict: UrlVerdict, again: bool) -> None:
        """The full URL, its host made prominent, and every warning."""
        line = Text("  url:  ")
        line.append(safe_line(verdict.url, 2000))
        self.console.print(line)
        host = Text("  host: ")
        host.append(safe_line(verdict.host or "(none)", 200), "bold reverse")
        self.console.print(host)
        for warning in verdict.warnings:
            self.problem(warning)
        if verdict.refusal:
            self.console.print(Text(f"  ✗ mrtr will not open this URL: {safe_line(verdict.refusal, 300)}", "mrtr.error"))
        if again:
            self.console.print(Text("  the server asks again: finish the step in the browser, then retry", "mrtr.input"))

    def plain_url(self, url: str) -> None:
        self.console.print(Text(f"  open this yourself: {safe_line(url, 2000)}"))

    def sampling(self, params: dict[str, Any]) -> None:
        """The conversation as sent, and every setting of the request."""
        if isinstance(params.get("systemPrompt"), str):
            self.console.print(Text("  system prompt:", "mrtr.dim"))
            self.console.print(quoted(params["systemPrompt"], indent="  "))
        for message in params.get("messages") or []:
            role = message.get("role", "?") if isinstance(message, dict) else "?"
            self.console.print(Text(f"  {safe_line(role, 20)}:", "mrtr.key"))
            content = message.get("content") if isinstance(message, dict) else message
            self.console.print(quoted(content_summary(content), indent="  "))
        settings = {k: params[k] for k in ("modelPreferences", "maxTokens", "stopSequences", "temperature",
                                           "includeContext") if k in params}
        for key, value in settings.items():
            self.console.print(Text(f"  {key}: {safe_line(json.dumps(value, ensure_ascii=False), 300)}", "mrtr.dim"))

    def roots(self, roots: list[dict[str, str]]) -> None:
        self.console.print(Text("  the server asks for your roots; these would be shared:", "mrtr.dim"))
        if not roots:
            self.console.print(Text("  (none)", "mrtr.dim"))
        for root in roots:
            self.console.print(Text(f"  · {safe_line(root['uri'], 300)}"))

    def problem(self, text: str) -> None:
        self.console.print(Text(f"  ! {safe_line(text, 300)}", "mrtr.warn"))
