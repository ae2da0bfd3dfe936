"""The answer sources: the name each answerer gives its answers, shown as `source` in the
timeline, the transcript and the `--json` report.

`SOURCES` is the one list of them. The transcript schema (transcript/schema.json) and the
`--json` schema (docs/json/conversation.schema.json) list the same names, and a test holds them
equal: a transcript whose source is not listed there fails to load.
"""

from __future__ import annotations

FLAG = "flag"
"""`--answer`, `--root` and `--sampling-reply`."""
SAMPLER = "sampler"
"""`--sampler CMD`."""
ANSWERS_FILE = "answers-file"
"""`--answers FILE`."""
RECORDED = "recorded"
"""A transcript's answers, in replay."""
INTERACTIVE = "interactive"
"""A person at a terminal."""

HOST = "host"
"""The real client behind `mrtr proxy`: what it answered, as it crossed the proxy."""

SOURCES = (FLAG, SAMPLER, ANSWERS_FILE, RECORDED, INTERACTIVE, HOST)
"""Every answer source, in the order the chain asks them."""
