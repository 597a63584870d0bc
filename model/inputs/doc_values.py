"""Small helpers that every writer of a profile document shares (detect and the importers).

Identifiers, byte and clock texts as the profile reader reads them back, ``{value, source}``
entries, and whole numbers read from text with a bound on their digits: Python refuses to
convert an integer of more than 4,300 digits (``sys.int_info.default_max_str_digits``) with a
ValueError that names no file, and no count or size in a machine description needs more than a
few dozen digits.
"""

from __future__ import annotations

import re

__all__ = ["MAX_DIGITS", "bytes_text", "hz_text", "ident", "sourced", "whole_number"]

#: Digits a whole number read from a device description may have (2**64 has 20).
MAX_DIGITS = 24

_WHOLE = re.compile(r"^\s*[+]?([0-9]+)\s*$")


def ident(text: str, *, prefix: str = "x") -> str:
    """A profile identifier from free text: runs of other characters become '-', and a name that
    does not start with a letter gets ``prefix`` in front ("0000:3b:00.0" -> "x0000-3b-00-0")."""
    clean = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")
    return clean if clean[:1].isalpha() else prefix + clean


def bytes_text(n: float) -> str:
    """A size in the largest binary unit that divides it ("32 KiB", "2 GiB"), else bytes."""
    for unit, f in (("GiB", 1024 ** 3), ("MiB", 1024 ** 2), ("KiB", 1024)):
        if n >= f and n % f == 0:
            return f"{int(n // f)} {unit}"
    return f"{int(n)} B"


def hz_text(hz: float) -> str:
    return f"{hz / 1e9:.6g} GHz" if hz >= 1e9 else f"{hz / 1e6:.6g} MHz"


def sourced(value, source: str | None):
    """A document value with its source where one is known."""
    return {"value": value, "source": source} if source else value


def whole_number(text: str | None, *, max_digits: int = MAX_DIGITS) -> int | None:
    """``text`` as a non-negative whole number, or None when it is not one or has more than
    ``max_digits`` digits (checked before conversion, so a 5,000-digit string costs nothing)."""
    m = _WHOLE.match(text or "")
    if not m or len(m.group(1).lstrip("0")) > max_digits:
        return None
    return int(m.group(1))
