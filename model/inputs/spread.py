"""Values with a spread: "6.4 GB/s +- 10 %", "0.7 us .. 1.0 us", "normal(6.4 GB/s, 0.2 GB/s)".

A pure parser used by the profile loader (a parameter may carry its uncertainty) and by the
``--uncertain`` flag of ``pinchpoint uncertainty``.  The result is a nominal SI value and a
spread tuple in SI units:

- ``("uniform", lo, hi)`` for ``X +- Y`` (``Y`` absolute, or relative in %) and ``LO .. HI``;
  the nominal value is ``X`` or the midpoint ``(LO + HI) / 2``;
- ``("normal", mean, sd)`` for ``normal(MEAN, SD)`` (``SD`` absolute or in % of the mean).

Units are parsed by :mod:`pinchpoint.physics.units`; ``±`` may be written for ``+-``.
"""

from __future__ import annotations

import math
import re

from pinchpoint.physics import units
from pinchpoint.errors import UnitError

Spread = tuple[str, float, float]

_PM = re.compile(r"^(?P<x>.+?)\s*(?:\+-|\+/-|±)\s*(?P<y>.+?)\s*$")
_RANGE = re.compile(r"^(?P<lo>.+?)\s*\.\.\s*(?P<hi>.+?)\s*$")
_NORMAL = re.compile(r"^normal\s*\(\s*(?P<x>[^,]+?)\s*,\s*(?P<y>[^,]+?)\s*\)\s*$", re.IGNORECASE)
_PERCENT = re.compile(r"^(?P<p>[0-9.eE+-]+)\s*%$")


def looks_like_spread(text) -> bool:
    """Whether ``text`` is written as a range or distribution (cheap, no unit parsing)."""
    if not isinstance(text, str):
        return False
    # Every spread holds "+" (of +- or +/-), "±" or "..", or starts with "normal"; most values
    # hold none, and the regular expressions are skipped (180,000 values on a 100,000-link fabric).
    if "+" not in text and "±" not in text and ".." not in text and text[:6].lower() != "normal":
        return False
    return bool(_PM.match(text) or _RANGE.match(text) or _NORMAL.match(text))


def _number(text: str, dimension: str, file, key) -> float:
    value: str | float = text
    if dimension == "dimensionless":
        try:
            value = float(text)
        except ValueError:
            pass
    return units.parse(value, dimension, file=file, key=key)


def _width(text: str, centre: float, dimension: str, file, key) -> float:
    m = _PERCENT.match(text.strip())
    if m:
        try:
            pct = float(m["p"])
        except ValueError:
            raise UnitError(f"{text!r} is not a percentage", file=file, key=key) from None
        return abs(centre) * pct / 100.0
    return _number(text, dimension, file, key)


def parse_spread(text: str, dimension: str, *, file=None, key=None) -> tuple[float, Spread]:
    """Parse a value with a spread: (nominal SI value, spread in SI).

    Raises
    ------
    UnitError
        Not of that shape, a part not of ``dimension``, a negative width, an empty or reversed
        range, or a non-finite number.
    """
    if not isinstance(text, str):
        raise UnitError(f"expected a range such as '6.4 GB/s +- 10 %' or '0.7 us .. 1.0 us', got {text!r}",
                        file=file, key=key)
    if m := _NORMAL.match(text):
        mean = _number(m["x"], dimension, file, key)
        sd = _width(m["y"], mean, dimension, file, key)
        kind, nominal, a, b = "normal", mean, mean, sd
        if not sd > 0:
            raise UnitError(f"{text!r}: the standard deviation must be greater than zero", file=file, key=key)
    elif m := _PM.match(text):
        x = _number(m["x"], dimension, file, key)
        w = _width(m["y"], x, dimension, file, key)
        if not w >= 0:
            raise UnitError(f"{text!r}: the half-width must not be negative", file=file, key=key)
        kind, nominal, a, b = "uniform", x, x - w, x + w
    elif m := _RANGE.match(text):
        lo = _number(m["lo"], dimension, file, key)
        hi = _number(m["hi"], dimension, file, key)
        if not hi >= lo:
            raise UnitError(f"{text!r} is an empty range: the high end must not be below the low end",
                            file=file, key=key)
        kind, nominal, a, b = "uniform", (lo + hi) / 2, lo, hi
    else:
        raise UnitError(f"{text!r} is not a range: expected 'X +- Y', 'X +- Y %', 'LO .. HI' or "
                        "'normal(MEAN, SD)'", file=file, key=key)
    if not all(math.isfinite(v) for v in (nominal, a, b)):
        raise UnitError(f"{text!r} is not finite", file=file, key=key)
    return nominal, (kind, a, b)
