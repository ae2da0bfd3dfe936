"""The answerer chain a run uses, built from the answering options (docs/commands/call.md, "Answering")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.answering.questions import (AT_TERMINAL, Advice, Answerer, Chain, Question, how_to_answer,
                                         how_to_answer_in_python)
from mrtr_cli.answering.scripted import (
    FlagAnswerer,
    RootsAnswerer,
    SamplerAnswerer,
    SamplingReplyAnswerer,
)
from mrtr_cli.errors import UsageError
from mrtr_cli.definition.options import AnsweringOptions

if TYPE_CHECKING:  # answers_file.py (and its validation) loads only for --answers or answers=
    from mrtr_cli.answering.answers_file import AnswersFile


class FlagAnswerers(Protocol):
    """An answerer made from answer flags."""

    def unused_flags(self) -> list[str]: ...


class AnswerFlags:
    """The answerers made from answer flags, to tell afterwards which flags no question used."""

    def __init__(self, answerers: Sequence[FlagAnswerers], answer_flags: FlagAnswerer) -> None:
        self.answerers = list(answerers)
        self.answer_flags = answer_flags

    def unused(self) -> list[str]:
        """Each flag no question used, as typed: `--answer k.f=v`, `--root .`, `--sampler CMD`."""
        return [flag for answerer in self.answerers for flag in answerer.unused_flags()]

    def likely_questions(self) -> dict[str, str]:
        """For an unused `--answer` whose key is close to a question asked: that question's key."""
        return self.answer_flags.likely_questions()


def unused_warning(flag: str, likely_question: str | None = None) -> str:
    """The warning for an answer flag that no question used (and the question it was likely meant for)."""
    meant = f"; did you mean question {likely_question!r}?" if likely_question else ""
    return f"! {flag} matched no question the server asked{meant}"


def build_chain(options: AnsweringOptions, timeout: float, after: Sequence[Answerer] = (),
                person: str = AT_TERMINAL) -> tuple[Chain, AnswerFlags]:
    """flags, sampler, answers file, then `after` (recorded, interactive); and the flag answerers.
    `person`: how a person would come to answer, for the message when nothing answers."""
    if options.sampling_reply is not None and options.sampler:
        raise UsageError("--sampling-reply and --sampler both answer sampling", "pass one of them")
    document = _answers_document(options)
    answer_flags = FlagAnswerer(list(options.answers), document)
    flags: list[Any] = [answer_flags]
    if options.sampling_reply is not None:
        flags.append(SamplingReplyAnswerer(options.sampling_reply, options.sampling_model))
    if options.roots:
        flags.append(RootsAnswerer(list(options.roots)))
    if options.sampler:
        flags.append(SamplerAnswerer(options.sampler, options.sampling_model, timeout))
    answerers: list[Answerer] = list(flags)
    if document is not None:
        from mrtr_cli.answering.answers_file import AnswersFileAnswerer

        answerers.append(AnswersFileAnswerer(document, options.sampling_model))
    answerers.extend(after)
    advice = _advice(answer_flags, document, person)
    if options.answers_given is not None:
        advice = _advice_in_python(document)
    return Chain(answerers, advice), AnswerFlags(flags, answer_flags)


def _answers_document(options: AnsweringOptions) -> AnswersFile | None:
    """The answers of --answers FILE, or of the pytest fixture's `answers=`."""
    if options.answers_given is None and not options.answers_file:
        return None
    from mrtr_cli.answering.answers_file import answers_from_python, load_answers_file

    if options.answers_given is not None:
        return answers_from_python(options.answers_given)
    return load_answers_file(options.answers_file) if options.answers_file else None


def _advice(answer_flags: FlagAnswerer, document: AnswersFile | None, person: str) -> Advice:
    """What to do about a question nothing answered: the slip that likely left it unanswered (an
    `--answer` key close to its key, the answers file's), else the ways to answer it."""
    def advise(question: Question) -> str:
        slip = answer_flags.near_miss(question) or (document.near_miss(question) if document else None)
        return slip or how_to_answer(question, person, answers_file=document is not None)

    return advise


def _advice_in_python(document: AnswersFile | None) -> Advice:
    """The same for the pytest fixture, where the one way to answer is the `answers=` mapping."""
    def advise(question: Question) -> str:
        return (document.near_miss(question) if document else None) or how_to_answer_in_python(question)

    return advise
