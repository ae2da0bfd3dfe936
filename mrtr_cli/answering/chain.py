"""The answerer chain a run uses, built from the answering options (CLI.md, "Precedence")."""

from __future__ import annotations

from collections.abc import Sequence

from mrtr_cli.answering.answers_file import load_answers_file
from mrtr_cli.answering.questions import Answerer, Chain
from mrtr_cli.answering.scripted import (
    AnswersFileAnswerer,
    FlagAnswerer,
    RootsAnswerer,
    SamplerAnswerer,
    SamplingReplyAnswerer,
)
from mrtr_cli.errors import UsageError
from mrtr_cli.options import AnsweringOptions


def build_chain(options: AnsweringOptions, timeout: float,
                after: Sequence[Answerer] = ()) -> tuple[Chain, FlagAnswerer]:
    """flags, sampler, answers file, then `after` (recorded, interactive); and the flag answerer."""
    if options.sampling_reply is not None and options.sampler:
        raise UsageError("--sampling-reply and --sampler both answer sampling", "pass one of them")
    document = load_answers_file(options.answers_file) if options.answers_file else None
    flags = FlagAnswerer(list(options.answers), document)
    answerers: list[Answerer] = [flags]
    if options.sampling_reply is not None:
        answerers.append(SamplingReplyAnswerer(options.sampling_reply, options.sampling_model))
    if options.roots:
        answerers.append(RootsAnswerer(list(options.roots)))
    if options.sampler:
        answerers.append(SamplerAnswerer(options.sampler, options.sampling_model, timeout))
    if document is not None:
        answerers.append(AnswersFileAnswerer(document, options.sampling_model))
    answerers.extend(after)
    return Chain(answerers), flags
