"""Does a signature belong to the machine a profile describes?

A signature is measured on one host; a profile describes one machine.  Putting a signature
beside the wrong profile gives nonsense that looks like an answer (a 2020s server's memory
bandwidth against a 2003 Power Mac's DDR-400 bus: "617 % efficiency").  Two checks, both pure:

- the CPU clocks: the range the signature's host reported (``host.clocks``: min, max, current,
  nominal) against the range of the profile's CPU clocks (``clock``, ``current_clock``), each
  widened by :data:`CLOCK_TOLERANCE`; no overlap means another machine;
- the figures: a measured rate above its theoretical ceiling by more than
  :data:`ABOVE_THEORY` cannot come from the machine the profile describes (or the profile's
  value is wrong).  Physical capacity bounds every sustained transfer (Hockney's model and the
  roofline both take it as the ceiling: Williams, Waterman & Patterson, "Roofline", CACM 52(4),
  2009).

Layer 3: no I/O; the CLI prints the returned sentences as warnings.
"""

from __future__ import annotations

#: Relative widening of each clock range before comparing (turbo steps, rounding in spec sheets).
CLOCK_TOLERANCE = 0.05

#: measured / theoretical above this is implausible (10 % allows for counting conventions).
ABOVE_THEORY = 1.10


def _signature_clock_range(signature) -> tuple[float, float] | None:
    clocks = signature.host.get("clocks") or {}
    values = [float(v) for k, v in clocks.items()
              if k.endswith("_hz") and isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0]
    return (min(values), max(values)) if values else None


def _profile_clock_range(profile) -> tuple[float, float] | None:
    values = [v for c in profile.components.values() if c.kind == "cpu"
              for v in (c.get("clock"), c.get("current_clock")) if v]
    return (min(values), max(values)) if values else None


def _ghz(hz: float) -> str:
    return f"{hz / 1e9:.3g} GHz"


def clock_mismatch(profile, signature) -> str | None:
    """A sentence when the signature's CPU clocks cannot be the profile's, else None (also when
    either side does not know its clocks)."""
    s, p = _signature_clock_range(signature), _profile_clock_range(profile)
    if s is None or p is None:
        return None
    lo_s, hi_s = s[0] * (1 - CLOCK_TOLERANCE), s[1] * (1 + CLOCK_TOLERANCE)
    lo_p, hi_p = p[0] * (1 - CLOCK_TOLERANCE), p[1] * (1 + CLOCK_TOLERANCE)
    if hi_s >= lo_p and hi_p >= lo_s:
        return None
    srange = _ghz(s[0]) if s[0] == s[1] else f"{_ghz(s[0])} .. {_ghz(s[1])}"
    prange = _ghz(p[0]) if p[0] == p[1] else f"{_ghz(p[0])} .. {_ghz(p[1])}"
    host = signature.host.get("cpu_model") or signature.name
    return (f"signature {signature.name!r} was measured on another machine ({host}, CPU at {srange}) "
            f"than profile {profile.name!r} describes (CPU at {prange}): give a signature measured "
            f"on {profile.name}, or the profile of the machine that measured {signature.name}")


def above_theory(name: str, measured: float, theoretical: float | None) -> bool:
    """True when ``measured`` exceeds ``theoretical`` by more than :data:`ABOVE_THEORY`."""
    return bool(theoretical) and measured > ABOVE_THEORY * theoretical


def mismatch_warnings(profile, signature, measured=()) -> tuple[str, ...]:
    """Every reason to doubt that ``signature`` belongs to ``profile``.

    Parameters
    ----------
    profile : Profile
    signature : Signature
    measured : iterable of MeasuredCeiling
        Measured figures beside their theoretical ceilings (``measured_ceilings``).

    Returns
    -------
    tuple of str
        One sentence per reason, naming both inputs; empty when nothing is suspicious.
    """
    out = []
    clock = clock_mismatch(profile, signature)
    if clock:
        out.append(clock)
    for m in measured:
        if above_theory(m.name, m.measured_bytes_per_s, m.theoretical_bytes_per_s):
            out.append(f"{m.name}: signature {signature.name!r} measured {m.efficiency:.1f} x the "
                       f"theoretical capacity of profile {profile.name!r} ({m.source}); a machine "
                       f"cannot beat its own link, so the signature is from another machine or "
                       f"the profile's {m.name} is wrong")
    return tuple(out)
