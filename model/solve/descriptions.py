"""Descriptions that no longer fit their link.

A child profile inherits its parent's link tables and may override a value (``extends``): a
link the parent described as "PCIe 5.0 x16" and the child made generation 3 with 8 lanes keeps
the old text.  :func:`stale_description` reads what a description states -- a PCIe generation
("PCIe 5.0", "Gen5"), a width ("x16"), a result after "=" ("= 63.0 GB/s") -- and says where the
link's own values disagree.  Generations and widths as the PCI Express Base Specification names
them; the rate is compared within 2 % (descriptions round).
"""

from __future__ import annotations

import re

from pinchpoint.errors import UnitError
from pinchpoint.physics import units
from pinchpoint.solve.generations import current_generation, has_generation

_GENERATION = re.compile(r"\bPCIe\s*(?:Gen\s*)?([1-6])(?:\.0)?\b|\bGen\s*([1-6])\b", re.IGNORECASE)
_DOTTED = re.compile(r"(?<![\d.])([1-6])\.0\b")
_WIDTH = re.compile(r"(?<![\w.])x(\d{1,2})\b")
_RESULT = re.compile(r"=\s*([\d.]+\s*[kMGT]?(?:B/s|bit/s))")

#: Relative difference above which a stated rate no longer fits.
RATE_TOLERANCE = 0.02


def _pcie(link, text: str) -> list[str]:
    """A generation or width the description names, none of which the link has ("PCIe 5.0 x16
    slot, trained to 4.0 x16" fits a generation-4 link: it names both)."""
    out = []
    named = {int(a or b) for a, b in _GENERATION.findall(text)}
    if named:
        named |= {int(g) for g in _DOTTED.findall(text)}
    gen = current_generation(link)
    if named and gen is not None and gen not in named:
        out.append(f"says PCIe generation {', '.join(map(str, sorted(named)))}, the link is generation {gen}")
    widths = {int(w) for w in _WIDTH.findall(text)}
    lanes = link.params["lanes"].si
    if widths and lanes not in widths:
        out.append(f"says {', '.join(f'x{w}' for w in sorted(widths))}, the link has {lanes:g} lanes")
    return out


def _rate(link, text: str) -> list[str]:
    m = _RESULT.search(text)
    if not m:
        return []
    try:
        stated = units.parse(m.group(1), "bandwidth")
    except UnitError:
        return []
    actual = [link.capacity_bytes_per_s, link.effective_capacity_bytes_per_s]
    if all(abs(stated - a) > RATE_TOLERANCE * a for a in actual):
        conv = "network" if link.definition.network else "memory"
        return [f"says {m.group(1).strip()}, the link's capacity is {units.format_rate(actual[0], conv)}"]
    return []


def stale_description(link) -> str | None:
    """What in the link's description contradicts its values (None when nothing does)."""
    text = link.description or ""
    if not text:
        return None
    problems = (_pcie(link, text) if has_generation(link) else []) + _rate(link, text)
    if not problems:
        return None
    return (f"the description of link {link.id!r} no longer fits it ({'; '.join(problems)}): "
            "inherited from a parent profile and not updated?")


__all__ = ["RATE_TOLERANCE", "stale_description"]
