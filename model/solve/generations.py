"""A PCIe link at another generation: the what-if behind ``solve --vary pcie.generation`` and the
report's generation select.

A profile states a PCIe link's ``generation`` and the reader fills the lane rate and line code
from it (:mod:`pinchpoint.physics.pcie_family`); the link keeps only those parameters.  Another
generation is therefore the same link with that generation's lane rate and line code and, where
the link kept the generation's framing defaults (not values of its own), that generation's
framing: generation 6 runs in FLIT mode (236 TLP bytes per 256-byte FLIT, 16 bytes per TLP, no
separate DLLP share).

References
----------
.. [1] PCI-SIG, *PCI Express Base Specification* 1.1 (2005), 2.0 (2007), 3.0 (2010), 4.0 (2017),
   5.0 (2019): lane rates 2.5, 5, 8, 16, 32 GT/s; 8b/10b up to 2.0, 128b/130b from 3.0.
.. [2] PCI-SIG, *PCI Express Base Specification* 6.0 (2022): 64 GT/s PAM4, FLIT mode.
"""

from __future__ import annotations

import math

from pinchpoint.physics.pcie_family import PCIE_GENERATIONS

#: Link kinds with a generation that sets lane rate and line code alone.
KINDS_WITH_GENERATION = ("pcie",)

#: Parameters set by the FLIT mode of a generation (changed only where the link kept a default).
_FRAMING = ("flit_payload", "tlp_overhead", "dllp_overhead")


def has_generation(link) -> bool:
    return link.kind in KINDS_WITH_GENERATION


def generations() -> tuple[int, ...]:
    return tuple(sorted(PCIE_GENERATIONS))


def current_generation(link) -> int | None:
    """The generation whose lane rate and line code the link has (None: rates of its own)."""
    for gen, g in PCIE_GENERATIONS.items():
        if (math.isclose(link.params["lane_rate"].si, g.lane_rate, rel_tol=1e-9)
                and math.isclose(link.params["encoding"].si, g.encoding, rel_tol=1e-9)):
            return gen
    return None


def _framing_is_default(link) -> bool:
    """True when the link's framing is the default of a non-FLIT or of the FLIT generation."""
    for g in (PCIE_GENERATIONS[5], PCIE_GENERATIONS[6]):
        if all(math.isclose(link.params[p].si, getattr(g, p), rel_tol=1e-9, abs_tol=1e-12) for p in _FRAMING
               if p in link.params):
            return True
    return False


def generation_values(link, gen: int) -> dict[str, float]:
    """Parameter -> SI value that turn ``link`` into generation ``gen``."""
    g = PCIE_GENERATIONS[gen]
    out = {"lane_rate": g.lane_rate, "encoding": g.encoding}
    if _framing_is_default(link):
        out.update({p: float(getattr(g, p)) for p in _FRAMING if p in link.params})
    return out


def with_generation(profile, link_id: str, gen: int):
    """A copy of ``profile`` with link ``link_id`` at PCIe generation ``gen``."""
    link = profile.link(link_id)
    for param, value in generation_values(link, gen).items():
        profile = profile.with_link_param(link_id, param, value)
    return profile


__all__ = ["KINDS_WITH_GENERATION", "current_generation", "generation_values", "generations", "has_generation",
           "with_generation"]
