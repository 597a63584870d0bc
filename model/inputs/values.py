"""A number as a profile wrote it (:class:`Value`), and the one check of values against their parameters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from pinchpoint.errors import ProfileError
from pinchpoint.physics.kind_types import Param


@dataclass(frozen=True)
class Value:
    """A number as the profile wrote it: SI float, original text, source.

    ``whatif`` marks a value a question asked for (``with_link_param``, a sweep): it may lie
    between a parameter's whole values (5.3 lanes); a profile's own values may not.  A value's
    range depends on the parameter it is the value of: the Link or Component that holds it checks it.
    """

    si: float
    text: str
    source: str | None = None
    spread: tuple[str, float, float] | None = None  # ("uniform", lo, hi) / ("normal", mean, sd), SI
    whatif: bool = False

    def to_dict(self) -> dict:
        out = {"si": self.si, "text": self.text, "source": self.source}
        if self.spread is not None:
            out["spread"] = list(self.spread)
        return out


_DEFAULTS: dict[Param, Value] = {}


def default_value(spec: Param) -> Value:
    """The one Value of a parameter's default (shared: values are frozen; a 100,000-link fabric
    would otherwise make one per link, and each would be checked)."""
    v = _DEFAULTS.get(spec)
    if v is None:
        v = _DEFAULTS.setdefault(spec, Value(spec.default, f"{spec.default:g}", "default"))
    return v


def check_values(owner, key: str, params: Mapping[str, Value], specs: Mapping[str, Param]) -> None:
    """Each value is a finite number, a parameter of ``specs`` and within its range, and a spread
    stays within it.  ``owner()`` names the holder, only for a message: the happy path, run for
    every value of a 100,000-link profile, formats nothing.  A parameter's own default is in its
    range (tests/profiles/test_param_ranges.py checks every kind's): it is not checked again."""
    for name, v in params.items():
        spec = specs.get(name)
        if spec is None:
            raise ProfileError(f"{owner()} has no parameter {name!r}", key=key)
        if v is _DEFAULTS.get(spec):
            continue
        si = v.si
        if not (isinstance(si, float) or type(si) is int):
            raise ProfileError(f"{name} = {si!r} is not a number", key=f"{key}.{name}")
        why = spec.problem(si, whole=not v.whatif)
        if why is not None:
            raise ProfileError(f"{name} = {si:g} {why} ({spec.doc})", key=f"{key}.{name}")
        if v.spread is not None and v.spread[0] == "uniform" and spec.positive and v.spread[1] <= 0:
            raise ProfileError(f"{v.text!r} must stay greater than zero over its whole range", key=f"{key}.{name}")
