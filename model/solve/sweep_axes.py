"""The axes of a what-if sweep: ``LINK.PARAM=LO..HI:N[:log]`` read into values.

A pure function of the text and the profile that raises :class:`~pinchpoint.errors.InputError`
(the CLI turns it into exit code 2).  Parameters the hardware takes only certain values of
(:mod:`pinchpoint.inputs.param_values`: PCIe lanes and MPS, PCI-X width and MMRBC) keep those
values; whole-number parameters stay whole.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from pinchpoint.errors import InputError, UnitError
from pinchpoint.inputs.param_values import valid_values
from pinchpoint.inputs.profile import Profile
from pinchpoint.physics import units

#: Most grid points a sweep evaluates: about 1 GB of arrays; 1e8 points took 37 s and most of
#: the machine's memory.
MAX_POINTS = 10_000_000

#: ``LINK.PARAM=LO..HI:N`` with an optional ``:log`` (geometric spacing).
_VARY = re.compile(r"^\s*(?P<link>[A-Za-z][\w-]*)\.(?P<param>\w+)\s*=\s*(?P<lo>[^:]*?)\s*\.\.\s*"
                   r"(?P<hi>[^:]*?)\s*:\s*(?P<n>[^:]+?)\s*(?::\s*(?P<spacing>\w+))?\s*$")


@dataclass(frozen=True, eq=False)
class Axis:
    """One swept parameter: ``values`` in SI units of ``dimension``."""

    link: str
    param: str
    dimension: str
    values: np.ndarray
    spacing: str = "linear"  # or "log"
    discrete: bool = False  # the values are the ones the hardware can take (PCI-X MMRBC, PCIe MPS)

    @property
    def name(self) -> str:
        return f"{self.link}.{self.param}"

    @property
    def unit(self) -> str:
        return units.BASE_UNITS[self.dimension] or "1"

    def to_dict(self) -> dict:
        return {"name": self.name, "link": self.link, "param": self.param, "dimension": self.dimension,
                "unit": self.unit, "spacing": self.spacing, "points": int(self.values.size),
                "low": float(self.values[0]), "high": float(self.values[-1]), "discrete": self.discrete}


def check_param(profile: Profile, link_id: str, param: str, key: str):
    """The :class:`~pinchpoint.physics.linkkinds.Param` spec of ``link.param``, or InputError naming ``key``."""
    if link_id not in profile.links:
        raise InputError(f"no link {link_id!r} in profile {profile.name!r} "
                         f"(links: {', '.join(profile.links)})", key=key)
    link = profile.links[link_id]
    names = [p.name for p in link.definition.params]
    if param not in names:
        raise InputError(f"link {link_id!r} ({link.kind}) has no parameter {param!r} "
                         f"(it has: {', '.join(names)})", key=key)
    return link.definition.param(param)


def parse_vary(text: str, profile: Profile, *, key: str = "vary") -> Axis:
    """Parse ``LINK.PARAM=LO..HI:N[:log]`` into an :class:`Axis` (values in SI units).

    ``LO`` and ``HI`` carry units ("66MHz", "32 bit"); a bare number only for dimensionless
    parameters.  ``N`` points, evenly spaced (``:lin``, the default) or geometrically (``:log``).
    Whole-number parameters (lanes, channels) are rounded to whole numbers.

    Raises
    ------
    InputError
        The text does not have that shape; the link or parameter does not exist; a bound is not
        of the parameter's dimension; the range is empty (``N < 1``, or ``HI <= LO`` with ``N >= 2``,
        or ``LO != HI`` with ``N = 1``); a log range does not start above zero; the parameter
        changes the link's duplex (the routing would change).
    """
    m = _VARY.match(text)
    if not m:
        raise InputError(f"expected LINK.PARAM=LO..HI:N[:log] (e.g. pcix.clock=66MHz..266MHz:41), got {text!r}",
                         key=key)
    link_id, param = m["link"], m["param"]
    spec = check_param(profile, link_id, param, key)
    where = f"{key} {link_id}.{param}"
    lo, hi = (_bound(m[which], which, spec, text, key, where) for which in ("lo", "hi"))
    n, spacing = _points(m, where)
    _check_range(m, spec, lo, hi, n, spacing, where, param)
    values = np.geomspace(lo, hi, n) if spacing == "log" else np.linspace(lo, hi, n)
    choices = valid_values(profile.links[link_id].kind, param)
    if choices:  # a value the hardware can take, never one between (an MMRBC of 515.59 B)
        values = _snap(values, choices, lo, hi, spacing, where, param, spec.dimension)
    elif spec.integer:
        values = np.unique(np.round(values))
        if values[0] <= 0 and spec.positive:
            raise InputError(f"{param} is a whole number greater than zero", key=where)
    link = profile.links[link_id]
    nominal = link.duplex
    for v in (values[0], values[-1]):
        trial = {**link.values(), param: float(v)}
        if link.definition.duplex(trial) != nominal:
            raise InputError(f"at {param} = {v:g} link {link_id!r} would change from {nominal} duplex: the "
                             "sweep keeps the routing of the profile; edit the profile instead", key=where)
    return Axis(link_id, param, spec.dimension, values, spacing, discrete=bool(choices))


def _bound(raw: str, which: str, spec, text: str, key: str, where: str) -> float:
    """One end of the range in SI units (a bare number only for dimensionless parameters)."""
    if not raw:
        raise InputError(f"the range {text!r} has no {'low' if which == 'lo' else 'high'} end", key=key)
    value: str | float = raw
    if spec.dimension == "dimensionless":
        try:
            value = float(raw)
        except ValueError:
            value = raw
    try:
        return units.parse(value, spec.dimension, key=where)
    except UnitError as exc:
        raise exc.located(kind=InputError) from None


def _points(m, where: str) -> tuple[int, str]:
    """The number of points and the spacing ("linear" or "log")."""
    try:
        n = int(m["n"])
    except ValueError:
        raise InputError(f"the number of points must be a whole number, got {m['n']!r}", key=where) from None
    spacing = (m["spacing"] or "linear").lower()
    if spacing in ("lin", "linear"):
        return n, "linear"
    if spacing in ("log", "geom", "geometric"):
        return n, "log"
    raise InputError(f"spacing must be 'lin' or 'log', got {m['spacing']!r}", key=where)


# long: one check per way a range can be wrong (empty, infinite, outside bounds, too long), each with its message
def _check_range(m, spec, lo: float, hi: float, n: int, spacing: str, where: str, param: str) -> None:
    """InputError for a range that is empty, infinite, outside the parameter's bounds or too long."""
    if n < 1:
        raise InputError(f"the range is empty: {n} points (need at least 1)", key=where)
    if n == 1 and lo != hi:
        raise InputError(f"one point needs LO == HI, got {m['lo']}..{m['hi']}", key=where)
    if n >= 2 and not hi > lo:
        raise InputError(f"the range {m['lo']}..{m['hi']} is empty: HI must be greater than LO", key=where)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise InputError("the range must be finite", key=where)
    if spec.positive and lo <= 0:
        raise InputError(f"{param} must be greater than zero, the range starts at {m['lo']}", key=where)
    if lo < 0:
        raise InputError(f"{param} must not be negative, the range starts at {m['lo']}", key=where)
    if n > MAX_POINTS:
        raise InputError(f"{n:,} points on one axis: at most {MAX_POINTS:,}", key=where)
    if spec.maximum is not None:
        why = spec.problem(float(hi)) if not spec.integer else spec.problem(float(round(hi)))
        if why:  # a fraction past its maximum: a dllp_overhead of 2 made capacities negative
            raise InputError(f"{param} {why}, the range ends at {m['hi']}", key=where)
    if spacing == "log" and lo <= 0:
        raise InputError("a log range must start above zero", key=where)


def _snap(values: np.ndarray, choices, lo: float, hi: float, spacing: str, where: str, param: str,
          dimension: str) -> np.ndarray:
    """The valid values nearest to the grid's points (in log distance for a log range), inside
    [lo, hi], each once; InputError naming the valid values when none lies in the range."""
    inside = np.array([c for c in choices if lo * (1 - 1e-9) <= c <= hi * (1 + 1e-9)], dtype=float)
    if not inside.size:
        raise InputError(f"{param} takes the values "
                         f"{', '.join(units.format_quantity(c, dimension) for c in choices)}: none lies in the range",
                         key=where)
    scale = np.log if spacing == "log" and inside[0] > 0 else (lambda x: x)
    nearest = np.abs(scale(values)[:, None] - scale(inside)[None, :]).argmin(axis=1)
    return inside[np.unique(nearest)]


__all__ = ["MAX_POINTS", "Axis", "check_param", "parse_vary"]
