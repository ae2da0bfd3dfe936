"""One `--answer` flag: split once (`parse_flag`), its value typed for a form field, and the
wording of the mistakes a flag can hold (a value where an action belongs, a field the form does
not have, a key close to the question's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from mrtr_cli.answering.questions import Question
from mrtr_cli.errors import UsageError
from mrtr_cli.forms.fields import Field, coerce, form_fields

ACTIONS = ("accept", "decline", "cancel")
FLAG_SHAPES = "use KEY.FIELD=VALUE or KEY=accept|decline|cancel"


class AnswerFlag(NamedTuple):
    """One `--answer`: `KEY.FIELD=VALUE` or `KEY=accept|decline|cancel`.

    A key may hold dots, so what a flag means depends on the question: `a.b=x` sets field `b`
    of question `a`, and would be an action of a question `a.b`.
    """

    raw: str
    before: str  # everything before the `=`
    owner: str | None  # `before` up to its last dot; None without a dot
    field: str
    value: str

    def action_for(self, key: str) -> str | None:
        return self.value if self.before == key and self.value in ACTIONS else None

    def sets_field_of(self, key: str) -> bool:
        """Whether this flag sets a field of question `key`."""
        return self.owner == key

    def names(self, key: str) -> bool:
        """Whether this flag is about question `key` (a field of it, or its action)."""
        return self.owner == key or self.before == key

    def likely_key(self, keys: list[str]) -> str | None:
        """The one of `keys` this flag's question key is close to (a typo of it, or its last part:
        `plan` for the SDK's `__main__:ask_plan`), if any."""
        own = [k for k in (self.owner, self.before) if k]
        close = [k for k in keys if k not in own and (_close_matches(k, own, n=1)
                                                      or _close_matches(last_part(k), own, n=1))]
        return close[0] if close else None

    def for_question(self, key: str) -> str:
        """This flag written for question `key`, quoted for a shell: `--answer date.date=2026-12-24`."""
        written = f"{key}={self.value}" if self.owner is None else f"{key}.{self.field}={self.value}"
        return f"--answer {_quoted(written)}"


def _close_matches(word: str, possibilities: Sequence[str], n: int) -> list[str]:
    """difflib's close matches; difflib is imported here, for a did-you-mean, not by every call."""
    import difflib

    return difflib.get_close_matches(word, possibilities, n=n)


def _quoted(text: str) -> str:
    """`text` quoted for a shell (shlex, imported here: only advice needs it)."""
    import shlex

    return shlex.quote(text)


def last_part(key: str) -> str:
    """A question key without what names where it comes from: `ask_plan` of the SDK's `__main__:ask_plan`."""
    return re.split(r"[:/]", key)[-1]


def parse_flag(raw: str) -> AnswerFlag:
    """An `--answer` value split at its first `=` and the last dot before it; `UsageError` when
    it has no `=`, no question key or no field after the dot."""
    before, equals, value = raw.partition("=")
    if not equals:
        raise UsageError(f"--answer {raw!r} has no '='", FLAG_SHAPES)
    owner, dot, field = before.rpartition(".")
    if not before or (dot and not owner):
        raise UsageError(f"--answer {raw!r} has no question key", FLAG_SHAPES)
    if dot and not field:
        raise UsageError(f"--answer {raw!r} has no field after the '.'", FLAG_SHAPES)
    return AnswerFlag(raw, before, owner if dot else None, field, value)


def value_not_an_action(question: Question, flag: AnswerFlag) -> UsageError:
    """The error for `KEY=VALUE` where VALUE is not an action: the action it is close to (a typo
    of it), or else the `--answer` that sets a field to it."""
    problem = (f"--answer {flag.raw}: {flag.value!r} is not an action for question {question.key!r} "
               "(accept, decline or cancel)")
    close = _close_matches(flag.value.lower(), ACTIONS, n=1)
    if not close:
        return UsageError(problem, _field_fix(question, flag))
    return UsageError(problem, f"did you mean {close[0]!r}? write --answer {_quoted(f'{question.key}={close[0]}')}")


def _field_fix(question: Question, flag: AnswerFlag) -> str:
    """The `--answer` that sets a field to the value given where an action belongs."""
    names = [f.name for f in form_fields(question.schema)] if question.mode == "form" else []
    if not names:
        return f"write --answer {_quoted(question.key + '=accept')} (or decline, cancel)"
    field = names[0] if len(names) == 1 else "FIELD"
    meant = f"--answer {_quoted(f'{question.key}.{field}={flag.value}')}"
    if len(names) == 1:
        return f"to set its field {field!r}, write {meant}"
    return f"to set a field, write {meant}; {fields_named(names)}"


def typed_fields(question: Question, flags: list[AnswerFlag]) -> dict[str, Any]:
    """The fields the flags set, typed by the form's schema; `UsageError` names the flag."""
    schema_fields = {f.name: f for f in form_fields(question.schema)}
    typed = {}
    for flag in flags:
        name = flag.field
        if name not in schema_fields and _closed_form(question.schema):
            raise UsageError(f"--answer {flag.raw}: the form of question {question.key!r} has no field {name!r}",
                             fields_named(list(schema_fields)))
        typed[name] = _typed_value(flag, schema_fields.get(name))
    return typed


def _typed_value(flag: AnswerFlag, field: Field | None) -> Any:
    """The flag's value as its field's type (a field the form does not list: JSON, or text)."""
    if field is not None and field.kind == "choices" and not flag.value.lstrip().startswith("["):
        return _bare_choices(flag, field)
    try:
        return coerce(field, flag.value)
    except ValueError as error:
        if field is not None and field.kind == "choices":
            raise _not_an_array(flag, field) from None
        raise UsageError(f"--answer {flag.raw!r}: field {flag.field!r} wants {error}, and {flag.value!r} is not "
                         f"{error}", "give a value of the field's type") from None


def _bare_choices(flag: AnswerFlag, field: Field) -> list[str]:
    """A multi-select given without JSON: one declared choice (`seating=window`), or declared
    choices joined by commas (`seating=window,quiet`). Anything else wants a JSON array."""
    choices = [str(value) for value, _ in field.options()]
    if flag.value in choices:
        return [flag.value]
    items = [item.strip() for item in flag.value.split(",")]
    if choices and all(item in choices for item in items):
        return items
    raise _not_an_array(flag, field)


def _not_an_array(flag: AnswerFlag, field: Field) -> UsageError:
    """The error for a multi-select given neither as a JSON array nor as declared choices."""
    choices = [str(value) for value, _ in field.options()]
    key = f"{flag.owner}.{flag.field}"
    array = json.dumps(choices[:2] or [flag.value], separators=(",", ":"))
    fix = f"write --answer {_quoted(key + '=' + array)}"
    if choices:
        fix += f" or --answer {_quoted(key + '=' + ','.join(choices[:2]))}"
    of = f" of its choices ({', '.join(choices)})" if choices else ""
    return UsageError(f"--answer {flag.raw!r}: field {flag.field!r} takes a JSON array{of}", fix)


def _closed_form(schema: dict[str, Any]) -> bool:
    """Whether a form takes only the fields it lists (as the spec's flat forms do)."""
    open_to_more = "patternProperties" in schema or schema.get("additionalProperties", False) is not False
    return isinstance(schema.get("properties"), dict) and not open_to_more


def fields_named(names: list[str]) -> str:
    return f"its fields: {', '.join(names)}" if names else "it has no fields"
