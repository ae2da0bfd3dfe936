"""The answerer chain a run uses, built from the answering options (CLI.md, "Precedence")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from mrtr_cli.answering.answers_file import AnswersFileAnswerer, load_answers_file
from mrtr_cli.answering.questions import Answerer, Chain
from mrtr_cli.answering.scripted import (
    FlagAnswerer,
    RootsAnswerer,
    SamplerAnswerer,
    SamplingReplyAnswerer,
)
from mrtr_cli.errors import UsageError
from mrtr_cli.options import AnsweringOptions


class FlagAnswerers(Protocol):
    """An answerer made from answer flags."""

    def unused_flags(self) -> list[str]: ...


class AnswerFlags:
    """The answerers made from answer flags, to tell afterwards which flags no question used."""

    def __init__(self, answerers: Sequence[FlagAnswerers]) -> None:
        self.answerers = list(answerers)

    def unused(self) -> list[str]:
        """Each flag no question used, as typed: `--answer k.f=v`, `--root .`, `--sampler CMD`."""
        return [flag for answerer in self.answerers for flag in answerer.unused_flags()]


def unused_warning(flag: str) -> str:
    """The warning for an answer flag that no question used."""
    return f"! {flag} matched no question the server asked"


def build_chain(options: AnsweringOptions, timeout: float,
                after: Sequence[Answerer] = ()) -> tuple[Chain, AnswerFlags]:
    """flags, sampler, answers file, then `after` (recorded, interactive); and the flag answerers."""
    if options.sampling_reply is not None and options.sampler:
        raise UsageError("--sampling-reply and --sampler both answer sampling", "pass one of them")
    document = load_answers_file(options.answers_file) if options.answers_file else None
    flags: list[Any] = [FlagAnswerer(list(options.answers), document)]
    if options.sampling_reply is not None:
        flags.append(SamplingReplyAnswerer(options.sampling_reply, options.sampling_model))
    if options.roots:
        flags.append(RootsAnswerer(list(options.roots)))
    if options.sampler:
        flags.append(SamplerAnswerer(options.sampler, options.sampling_model, timeout))
    answerers: list[Answerer] = list(flags)
    if document is not None:
        answerers.append(AnswersFileAnswerer(document, options.sampling_model))
    answerers.extend(after)
    return Chain(answerers), AnswerFlags(flags)
