"""The string formats of the spec's forms (`email`, `uri`, `date`, `date-time`), checked with
the standard library: by flat_forms, and by jsonschema as its format checker.

Standard library only.
"""

from __future__ import annotations

import re
from typing import Any

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s<>\"{}|\\^`]*")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2}(?:\.\d+)?)([Zz]|[+-]\d{2}:\d{2})")


def is_email(value: object) -> bool:
    return not isinstance(value, str) or _EMAIL.fullmatch(value) is not None


def is_uri(value: object) -> bool:
    return not isinstance(value, str) or _URI.fullmatch(value) is not None


def is_date(value: object) -> bool:
    if not isinstance(value, str):
        return True
    import datetime  # only when a date is checked

    return _DATE.fullmatch(value) is not None and _parses(datetime.date.fromisoformat, value)


def is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    match = _DATE_TIME.fullmatch(value)
    if match is None:
        return False
    date, time, zone = match.groups()
    seconds = time[:8] if time[6:8] != "60" else time[:6] + "59"  # RFC 3339 allows a leap second
    zone = "+00:00" if zone in "Zz" else zone
    import datetime

    return _parses(datetime.datetime.fromisoformat, f"{date}T{seconds}{zone}")


def has_shape(name: object, value: object) -> bool:
    """Whether `value` is written the way format `name` asks (`2026-02-30` is, for a date), real or not."""
    shapes = {"date": _DATE, "date-time": _DATE_TIME}
    shape = shapes.get(name) if isinstance(name, str) else None
    return isinstance(value, str) and shape is not None and shape.fullmatch(value) is not None


def _parses(parse: Any, value: str) -> bool:
    try:
        parse(value)
    except ValueError:
        return False
    return True


FORMATS = {"email": is_email, "uri": is_uri, "date": is_date, "date-time": is_date_time}
