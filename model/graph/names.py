"""Component and flow names in the order people count them: cpu2 before cpu10."""

from __future__ import annotations

import re

_PARTS = re.compile(r"\d+|\D+")


def natural_key(name: str):
    """Sort key that reads runs of digits as numbers (cpu2 < cpu10 < gpu0)."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in _PARTS.findall(name)]


__all__ = ["natural_key"]
