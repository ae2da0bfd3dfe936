"""The demo server's handlers: every kind of question a 2026-07-28 server can ask.

Each handler takes a `Call` and returns a complete result or `NeedInput`. Every result says
what the server received (`structuredContent.received`), so a test can assert what reached it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from mrtr_cli.server.app import Call, NeedInput
from mrtr_cli.server.asking import ROOTS, form, sampling, text_result, url_request, walk
from mrtr_cli.server.task_plans import Ask, Stage, TaskPlan, Work

SEATING = ["window", "terrace", "quiet", "accessible"]
POLLS_NEEDED = 3


def _date_round(city: str) -> Any:
    return lambda answers: {"date": form(f"Which day would you like a table in {city}?", {
        "date": {"type": "string", "format": "date", "title": "Date", "description": "The day of your visit"}},
        ["date"])}


def _party_round(answers: dict[str, Any]) -> dict[str, Any]:
    return {"party": form("How many people, and any seating wishes?", {
        "size": {"type": "integer", "title": "Party size", "minimum": 1, "maximum": 12, "default": 2},
        "seating": {"type": "array", "title": "Seating wishes", "maxItems": 2,
                    "items": {"type": "string", "enum": SEATING}}}, ["size"])}


def _confirm_round(city: str) -> Any:
    def build(answers: dict[str, Any]) -> dict[str, Any]:
        return {"confirm": form(f"Book a table for {_party(answers)} in {city} on {answers['date']['date']}?", {
            "confirm": {"type": "boolean", "title": "Confirm the booking", "default": True}}, ["confirm"])}
    return build


def _party(answers: dict[str, Any]) -> str:
    party = answers["party"]
    seating = f" ({', '.join(party['seating'])})" if party.get("seating") else ""
    return f"{party['size']}{seating}"


def _in_key_order(answers: dict[str, Any]) -> dict[str, Any]:
    """The answers with every mapping's keys sorted: the confirmation code must not depend on the
    order a client wrote a form's fields in (the older era keeps the client's order)."""
    sorted_answers: dict[str, Any] = json.loads(json.dumps(answers, sort_keys=True))
    return sorted_answers


def book_table(call: Call) -> dict[str, Any] | NeedInput:
    """Three rounds: a date, a party size with seating wishes, a confirmation."""
    city = call.arguments.get("city", "Lisbon")
    progress = walk(call, [_date_round(city), _party_round, _confirm_round(city)])
    if progress.refusal:
        key, action = progress.refusal
        return text_result(f"No booking made: you chose {action} at the {key} question.",
                           {**progress.answers, key: {"action": action}})
    if progress.need:
        call.log("info", f"book_table asks {', '.join(progress.need.requests)}")
        return progress.need
    answers = progress.answers
    if not answers["confirm"]["confirm"]:
        return text_result("No booking made: you did not confirm.", answers)
    code = hashlib.sha256(repr(sorted(_in_key_order(answers).items())).encode()).hexdigest()[:6].upper()
    return text_result(f"Booked a table for {_party(answers)} in {city} on {answers['date']['date']}. "
                       f"Confirmation MRTR-{code}.", answers)


ALL_FIELDS = {
    "name": {"type": "string", "title": "Full name", "minLength": 2, "maxLength": 40},
    "email": {"type": "string", "format": "email", "title": "Email"},
    "website": {"type": "string", "format": "uri", "title": "Website"},
    "birthday": {"type": "string", "format": "date", "title": "Birthday"},
    "meeting": {"type": "string", "format": "date-time", "title": "Meeting time"},
    "height": {"type": "number", "title": "Height (m)", "minimum": 0.5, "maximum": 2.5},
    "guests": {"type": "integer", "title": "Guests", "minimum": 0, "maximum": 10, "default": 1},
    "newsletter": {"type": "boolean", "title": "Newsletter", "default": False},
    "size": {"type": "string", "title": "T-shirt size", "enum": ["S", "M", "L"], "default": "M"},
    "color": {"type": "string", "title": "Colour", "oneOf": [
        {"const": "#ff0000", "title": "Red"}, {"const": "#00ff00", "title": "Green"},
        {"const": "#0000ff", "title": "Blue"}]},
    "plan": {"type": "string", "title": "Plan", "enum": ["free", "pro"], "enumNames": ["Free plan", "Pro plan"]},
    "toppings": {"type": "array", "title": "Toppings", "minItems": 1, "maxItems": 2,
                 "items": {"type": "string", "enum": ["cheese", "olives", "basil"]}},
    "days": {"type": "array", "title": "Days", "items": {"anyOf": [
        {"const": "mon", "title": "Monday"}, {"const": "tue", "title": "Tuesday"},
        {"const": "wed", "title": "Wednesday"}]}},
}
ALL_FIELDS_REQUIRED = ["name", "email", "color", "toppings"]


def all_fields(call: Call) -> dict[str, Any] | NeedInput:
    """One form with every field type of the elicitation spec."""
    progress = walk(call, [lambda answers: {"profile": form("Tell us about yourself (every field type).",
                                                            ALL_FIELDS, ALL_FIELDS_REQUIRED)}])
    if progress.refusal:
        return text_result(f"Nothing saved: you chose {progress.refusal[1]}.", {"profile": {"action": progress.refusal[1]}})
    if progress.need:
        return progress.need
    profile = progress.answers["profile"]
    listed = ", ".join(f"{name}={value}" for name, value in profile.items())
    return text_result(f"Saved your profile: {listed}.", profile)


def connect_account(call: Call) -> dict[str, Any] | NeedInput:
    """URL mode: consent to open a page; the retry after consent completes."""
    service = call.arguments.get("service", "github")
    session = hashlib.sha256(f"demo-session:{service}".encode()).hexdigest()[:12]  # stable, so replays match
    url = f"https://example.com/mrtr-demo/connect/{service}?session={session}"
    ask = url_request(f"Connect your {service} account in the browser, then come back.", url, session)
    progress = walk(call, [lambda answers: {"connect": ask}])
    if progress.refusal:
        return text_result(f"Not connected: you chose {progress.refusal[1]}.", {"connect": {"action": progress.refusal[1]}})
    if progress.need:
        return progress.need
    return text_result(f"Connected your {service} account (session {session}).", progress.answers)


def summarize(call: Call) -> dict[str, Any] | NeedInput:
    """Sampling: the client's LLM (or a person) writes the summary."""
    text = call.arguments.get("text", "MCP 2026-07-28 replaced server-initiated requests with MRTR.")
    ask = sampling(f"Summarize in one sentence:\n\n{text}", 100, "You are a concise assistant.")
    progress = walk(call, [lambda answers: {"summary": ask}])
    if progress.need:
        return progress.need
    reply = progress.answers["summary"]
    content = reply.get("content")
    content = content if isinstance(content, dict) else {}
    return text_result(f"Summary from {reply.get('model', '?')}: {content.get('text', '(no text)')}", reply)


def workspace_roots(call: Call) -> dict[str, Any] | NeedInput:
    """Roots: which directories the client shares."""
    progress = walk(call, [lambda answers: {"roots": ROOTS}])
    if progress.need:
        return progress.need
    roots = progress.answers["roots"]["roots"]
    listed = ", ".join(str(root.get("uri")) for root in roots) or "none"
    return text_result(f"The client shares {len(roots)} root{'s' if len(roots) != 1 else ''}: {listed}.", roots)


def poll_status(call: Call) -> dict[str, Any] | NeedInput:
    """Rounds that carry only requestState: the client retries until the job is done."""
    job = call.arguments.get("job", "export-42")
    polls = int((call.state or {}).get("polls", 0)) + 1
    call.progress(polls, POLLS_NEEDED, f"job {job}: poll {polls} of {POLLS_NEEDED}")
    if polls < POLLS_NEEDED:
        return NeedInput(state={"polls": polls})
    return text_result(f"Job {job} finished after {polls} polls.", {"polls": polls})


def two_questions(call: Call) -> dict[str, Any] | NeedInput:
    """Several questions in one round."""
    progress = walk(call, [lambda answers: {
        "name": form("What is your name?", {"name": {"type": "string", "title": "Name"}}, ["name"]),
        "color": form("Which colour do you like?", {"color": {"type": "string", "enum": ["red", "green", "blue"]}},
                      ["color"])}])
    if progress.refusal:
        return text_result(f"No greeting: you chose {progress.refusal[1]} at {progress.refusal[0]}.",
                           {progress.refusal[0]: {"action": progress.refusal[1]}})
    if progress.need:
        return progress.need
    answers = progress.answers
    return text_result(f"Hello {answers['name']['name']}, you like {answers['color']['color']}.", answers)


def always_fails(call: Call) -> dict[str, Any] | NeedInput:
    """Asks why, then ends with isError: true."""
    progress = walk(call, [lambda answers: {"reason": form("Why do you want this tool to fail?", {
        "reason": {"type": "string", "title": "Reason", "default": "testing"}})}])
    if progress.need:
        return progress.need
    said = progress.answers.get("reason", {}).get("reason", "(declined)")
    return text_result(f"This tool always fails (you said: {said}).", progress.answers, is_error=True)


def release_notes(call: Call) -> dict[str, Any] | NeedInput:
    """Prompt: asks the audience, then returns the prompt messages."""
    version = call.arguments.get("version", "1.0")
    progress = walk(call, [lambda answers: {"audience": form(f"Who are the release notes of {version} for?", {
        "audience": {"type": "string", "enum": ["developers", "users", "executives"], "default": "developers"}},
        ["audience"])}])
    if progress.need:
        return progress.need
    audience = progress.answers.get("audience", {}).get("audience", "everyone")
    text = f"Write the release notes of version {version} for {audience}: what changed, and why it matters."
    return {"description": f"Release notes of {version} for {audience}",
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}]}


def read_vault(call: Call, name: str) -> dict[str, Any] | NeedInput:
    """Resource template vault://{name}: asks before revealing an entry."""
    progress = walk(call, [lambda answers: {"reveal": form(f"Reveal the vault entry {name!r}?", {
        "reveal": {"type": "boolean", "title": "Reveal", "description": "Show this entry's contents"}},
        ["reveal"])}])
    if progress.need:
        return progress.need
    shown = progress.answers.get("reveal", {}).get("reveal") is True
    text = f"vault entry {name}: the demo secret is 'mrtr-{name}'." if shown else "Not revealed."
    return {"contents": [{"uri": call.subject, "mimeType": "text/plain", "text": text}]}


DEPLOY_STEPS = ("Building {} (step 1 of 3)", "Running the tests of {} (step 2 of 3)", "Packaging {} (step 3 of 3)")


def deploy_plan(call: Call) -> TaskPlan:
    """A task: three seconds of work, an approval asked, then the result (a plain tool where it cannot be a task)."""
    service = call.arguments.get("service", "checkout")
    approve = form(f"Deploy {service} to production?", {
        "approve": {"type": "boolean", "title": "Deploy now", "default": True}}, ["approve"])
    stages: tuple[Stage, ...] = (*[Work(1.0, step.format(service)) for step in DEPLOY_STEPS],
                                 Ask({"approve": approve}, f"Waiting for your approval to deploy {service}"))
    return TaskPlan(stages, lambda answers: _deployed(service, answers))


def _deployed(service: str, answers: dict[str, Any]) -> dict[str, Any]:
    answer = answers["approve"]
    if answer["action"] != "accept":
        return text_result(f"Not deployed: you chose {answer['action']}.", answers)
    if not answer["content"]["approve"]:
        return text_result("Not deployed: you did not approve.", answers)
    release = hashlib.sha256(f"demo-release:{service}".encode()).hexdigest()[:6].upper()  # stable, so replays match
    return text_result(f"Deployed {service} to production (release R-{release}).", answers)
