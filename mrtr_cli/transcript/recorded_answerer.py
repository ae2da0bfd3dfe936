"""The recorded answerer: answers live questions with the answers a transcript kept (replay)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mrtr_cli.answering import sources
from mrtr_cli.answering.questions import ROOTS, Decision, Question, Refusal, Response
from mrtr_cli.transcript.model import Transcript
from mrtr_cli.transcript.rounds import asked_in, asked_in_flight, unprompted_of

if TYPE_CHECKING:
    from mrtr_cli.conversation.client import Client


@dataclass
class RecordedAnswer:
    round: int
    key: str
    method: str
    message: str
    response: dict[str, Any]
    used: bool = False


class RecordedAnswerer:
    """Answers live questions from a transcript: the first unused answer with the same key and
    method (the same round first), else one with the same method and message. Across eras keys
    mean nothing (`elicitation#1` against `date`): the n-th live question of a method gets the
    n-th recorded answer of that method. Older era: a request the server sent in flight that got
    no answer when recorded (refused, or nothing answered it before the call) is refused again."""

    name = sources.RECORDED

    def __init__(self, transcript: Transcript) -> None:
        self.pool = [_recorded(entry, key, answer) for entry in transcript.rounds
                     for key, answer in (entry.get("answers") or {}).items()] + _task_answers(transcript)
        self.unanswered = {(key, request.get("method")) for entry in transcript.rounds
                           for key, request in asked_in_flight(entry).items() if key not in (entry.get("answers") or {})}
        self.unprompted = [entry for data in transcript.rounds for entry in unprompted_of(data).values()]
        """Older era: the requests the server sent of its own accord, each with its answer or refusal."""
        self.asked_roots = any(request.get("method") == ROOTS for entry in transcript.rounds
                               for request in [*asked_in_flight(entry).values(), *unprompted_of(entry).values()])
        """Older era: roots were declared when recorded (the server asked for them): declare them again."""
        self._unprompted_used: dict[str, int] = {}
        self.recorded_era = transcript.era
        self._live: Client | None = None
        """The client of the live run, whose era is asked at each question (`follow`)."""

    def follow(self, client: Client) -> None:
        """Answer as the era `client` speaks asks (it may change era on its first request, auto over HTTP)."""
        self._live = client

    def live_era(self) -> str:
        """The era the live run speaks: the client's once followed, else the recorded one."""
        return self._live.era.name if self._live is not None else self.recorded_era

    def offers_roots(self) -> bool:
        return self.asked_roots or any(r.method == ROOTS for r in self.pool)

    def answer(self, question: Question) -> Decision:
        if question.unprompted:
            recorded = self._unprompted(question.method)
            if recorded is not None:
                return recorded
        if self.live_era() != self.recorded_era:
            taken = self._take(next((r for r in self.pool if not r.used and r.method == question.method), None))
            if taken is None and question.method == ROOTS:  # the older era kept its roots/list beside the round
                return self._unprompted(ROOTS)
            return taken
        same_key = [r for r in self.pool if not r.used and r.key == question.key and r.method == question.method]
        pick = next((r for r in same_key if r.round == question.round), same_key[0] if same_key else None)
        if pick is None:
            pick = next((r for r in self.pool if not r.used and r.method == question.method
                         and r.message == question.message), None)
        if pick is None and (question.key, question.method) in self.unanswered:
            return Refusal("it got no answer when recorded")
        return self._take(pick)

    def _unprompted(self, method: str) -> Decision:
        """An unprompted request is answered by its method, as it was recorded: the next recorded one
        of that method, then the last again (how often the server asks of its own accord can be
        timing); a recorded refusal is refused again. None: none recorded (a transcript before
        format 3 kept a roots/list among the questions: the pool answers it), or no answer was kept."""
        recorded = [entry for entry in self.unprompted if entry.get("method") == method]
        if not recorded:
            return None
        self._unprompted_used[method] = used = self._unprompted_used.get(method, 0) + 1
        entry = recorded[min(used, len(recorded)) - 1]
        if "response" in entry:
            return Response(copy.deepcopy(entry["response"]))
        if "refused" in entry:
            return Refusal(f"it was refused when recorded ({entry['refused']})")
        return None  # kept without its answer (a proxy's host answered after the call's response)

    @staticmethod
    def _take(pick: RecordedAnswer | None) -> Decision:
        if pick is None:
            return None
        pick.used = True
        return Response(copy.deepcopy(pick.response))


def _recorded(entry: dict[str, Any], key: str, answer: dict[str, Any]) -> RecordedAnswer:
    asked = asked_in(entry).get(key) or asked_in_flight(entry).get(key, {})
    message = Question(entry["round"], key, asked, "").message if asked else ""
    return RecordedAnswer(entry["round"], key, answer["method"], message, answer["response"])


def _task_answers(transcript: Transcript) -> list[RecordedAnswer]:
    """The answers given to a recorded task's input rounds (the tasks extension), in order."""
    task = transcript.data.get("task")
    inputs = (task.get("inputs") or []) if isinstance(task, dict) else []
    return [RecordedAnswer(entry["round"], key, answer["method"],
                           Question(entry["round"], key, entry["asked"].get(key, {}), "").message, answer["response"])
            for entry in inputs for key, answer in (entry.get("answers") or {}).items()]
