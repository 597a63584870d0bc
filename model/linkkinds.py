"""The kinds of link a profile can declare, each with its parameters and its capacity formula.

One function per published formula.  Every formula is written with plain arithmetic (and
``_min`` for a minimum) so that the same function returns a float when given floats and a
sympy expression when given sympy symbols: the numeric and the symbolic paths cannot drift
apart.  ``formula`` is the same formula as text for tables and JSON (a test checks that it
parses to the sympy expression).

Capacities are in bytes per second: per direction for full-duplex links, shared by both
directions (and every device on the segment) for half-duplex ones.

References
----------
.. [1] PCI-SIG, *PCI Local Bus Specification* rev. 3.0 (2004); *PCI-X 2.0 Addendum* (2002).
.. [2] HyperTransport Consortium, *HyperTransport I/O Link Specification* rev. 1.10 (2003).
.. [3] PCI-SIG, *PCI Express Base Specification* rev. 1.1 (2005), 3.0 (2010), 4.0 (2017),
   5.0 (2019), 6.0 (2022).
.. [4] Apple, *Power Mac G5 Developer Note* (2003): two unidirectional 32-bit FSB paths per
   processor at half the core clock.
.. [5] JEDEC, *JESD79 DDR SDRAM* (2000): two transfers per clock on a 64-bit channel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

from . import protocols


@dataclass(frozen=True)
class Param:
    """One parameter of a link or component kind.

    ``dimension`` is a key of :data:`pinchpoint.units.DIMENSIONS`; ``integer`` parameters take
    plain whole numbers (lanes, generation); ``default`` (an SI float) is used when absent.
    """

    name: str
    dimension: str
    doc: str
    default: float | None = None
    integer: bool = False
    required: bool = True
    positive: bool = True
    maximum: float | None = None  # largest valid value (fractions: 1)
    maximum_included: bool = True  # False: values must stay below ``maximum``

    @property
    def optional(self) -> bool:
        return self.default is not None or not self.required

    def problem(self, si: float, *, whole: bool = True) -> str | None:
        """Why ``si`` [SI units] is not a valid value of this parameter, or None when it is.

        The one place where valid ranges live: every value is finite; positive parameters
        (rates, sizes, clocks, counts) are above zero, the others at least zero; integer ones
        whole (unless ``whole`` is False: what-if questions may ask about 5.3 lanes); fractions
        below their maximum (a DLLP share of 1 leaves no time for data).
        """
        if not math.isfinite(si):
            return "is not finite"
        if self.positive and si <= 0:
            return "must be greater than zero"
        if si < 0:
            return "must not be negative"
        if whole and self.integer and si != int(si):
            return "must be a whole number"
        if self.maximum is not None:
            if si > self.maximum or (si == self.maximum and not self.maximum_included):
                return f"must be {'at most' if self.maximum_included else 'below'} {self.maximum:g}"
        return None


@dataclass(frozen=True)
class LinkKind:
    """A kind of link: its parameters, duplex rule and capacity formula."""

    name: str
    description: str
    params: tuple[Param, ...]
    capacity: Callable[[Mapping], object]
    formula: str
    duplex: Callable[[Mapping], str] = field(default=lambda p: "full")
    efficiency: Callable[[Mapping], object] | None = None
    efficiency_formula: str = ""
    network: bool = False  # format figures in bit/s rather than B/s
    source: str = ""

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


def _half(p):
    return "half"


def _full(p):
    return "full"


_WIDTH = Param("width", "size", "data path width (per direction for point-to-point links)")
_CLOCK = Param("clock", "frequency", "bus clock")


def _bus(p):
    return p["width"] * p["clock"]


def _clocked(p):
    return p["width"] * p["clock"] * p["transfers_per_clock"]


def _pcix_eff(p):
    return protocols.pcix_burst_efficiency(p["burst"], p["overhead_clocks"], p["width"])


def _pcie_capacity(p):
    return p["lane_rate"] * p["lanes"] * p["encoding"] / 8


def _pcie_eff(p):
    return protocols.pcie_tlp_efficiency(p["mps"], p["tlp_overhead"], p["dllp_overhead"])


def _ht_eff(p):
    return protocols.ht_packet_efficiency(p["payload"], p["control"], 1 / 128)


def _fsb_duplex(p):
    return "full" if p["paths"] >= 2 else "half"


def _memory(p):
    return p["width"] * p["clock"] * p["transfers_per_clock"] * p["channels"]


def _rate(p):
    return p["rate"]


_TPC = Param("transfers_per_clock", "dimensionless", "data transfers per clock (2 for DDR, 4 for quad-pumped)",
             default=1.0)

KINDS: dict[str, LinkKind] = {
    "pci": LinkKind(
        "pci", "parallel PCI bus: one shared capacity for both directions and every device [1]",
        (_WIDTH, _CLOCK), _bus, "width*clock", duplex=_half, source="PCI Local Bus Specification 3.0",
    ),
    "pci-x": LinkKind(
        "pci-x", "parallel PCI-X bus: shared, half duplex; bursts pay address/attribute clocks [1]",
        (_WIDTH, _CLOCK,
         Param("burst", "size", "burst length: MMRBC for DMA reads", default=512.0),
         Param("overhead_clocks", "dimensionless", "non-data clocks per transaction", default=8.0)),
        _bus, "width*clock", duplex=_half,
        efficiency=_pcix_eff, efficiency_formula="(burst/width)/(burst/width + overhead_clocks)",
        source="PCI-X 2.0 Addendum to the PCI Local Bus Specification",
    ),
    "pcie": LinkKind(
        "pcie", "PCI Express: serial lanes, each direction separately, line-coded [3]",
        (Param("lanes", "dimensionless", "negotiated lanes (x1 .. x16)", integer=True),
         Param("lane_rate", "frequency", "transfers per second per lane (from generation)", required=False),
         Param("encoding", "dimensionless", "line-code efficiency (from generation)", required=False,
               maximum=1.0),
         Param("mps", "size", "max payload size", default=256.0),
         Param("tlp_overhead", "size", "per-TLP framing, sequence, header and LCRC", default=24.0),
         Param("dllp_overhead", "dimensionless", "share of link time used by ACK/FC DLLPs", default=0.05,
               positive=False, maximum=1.0, maximum_included=False)),
        _pcie_capacity, "lane_rate*lanes*encoding/8",
        efficiency=_pcie_eff, efficiency_formula="mps/(mps + tlp_overhead)*(1 - dllp_overhead)",
        source="PCI Express Base Specification",
    ),
    "hypertransport": LinkKind(
        "hypertransport", "HyperTransport: two unidirectional point-to-point paths, DDR clocking [2]",
        (_WIDTH, _CLOCK, Param("transfers_per_clock", "dimensionless", "2: double data rate", default=2.0),
         Param("payload", "size", "payload bytes per data packet", default=64.0),
         Param("control", "size", "control packet bytes per data packet", default=8.0)),
        _clocked, "width*clock*transfers_per_clock",
        efficiency=_ht_eff, efficiency_formula="payload/(payload + control)*(1 - 1/128)",
        source="HyperTransport I/O Link Specification 1.10",
    ),
    "fsb": LinkKind(
        "fsb", "front-side bus: 'paths = 2' is two unidirectional paths (G5), 1 a shared bus (Intel) [4]",
        (_WIDTH, _CLOCK, _TPC,
         Param("paths", "dimensionless", "2: one path each way; 1: one shared bus", default=1.0, integer=True)),
        _clocked, "width*clock*transfers_per_clock", duplex=_fsb_duplex,
        source="Apple Power Mac G5 Developer Note; Intel FSB datasheets",
    ),
    "memory": LinkKind(
        "memory", "DRAM channels: one capacity shared by reads and writes [5]",
        (Param("width", "size", "data width per channel"), Param("clock", "frequency", "memory clock"),
         Param("transfers_per_clock", "dimensionless", "2 for DDR", default=2.0),
         Param("channels", "dimensionless", "independent channels", default=1.0, integer=True)),
        _memory, "width*clock*transfers_per_clock*channels", duplex=_half,
        source="JEDEC DDR SDRAM standards",
    ),
    "ethernet": LinkKind(
        "ethernet", "Ethernet port: line rate each way (framing is modelled by `diagnose`)",
        (Param("rate", "bandwidth", "line rate"),), _rate, "rate", network=True,
        source="IEEE 802.3",
    ),
    "line": LinkKind(
        "line", "a network line of a given rate, each way (ATM, FDDI, a WAN circuit ...)",
        (Param("rate", "bandwidth", "line rate"),), _rate, "rate", network=True,
    ),
    "link": LinkKind(
        "link", "a generic link of a given capacity, each way ('duplex = \"half\"' to share it)",
        (Param("rate", "bandwidth", "capacity"),
         Param("shared", "dimensionless", "1: half duplex (one capacity for both directions)",
               default=0.0, integer=True, positive=False, maximum=1.0)),
        _rate, "rate", duplex=lambda p: "half" if p["shared"] else "full",
    ),
    "disk": LinkKind(
        "disk", "a storage device interface: one sustained rate shared by reads and writes",
        (Param("rate", "bandwidth", "sustained transfer rate"),), _rate, "rate", duplex=_half,
    ),
}


def kind(name: str) -> LinkKind:
    """The link kind called ``name`` (KeyError if there is none)."""
    return KINDS[name]


def pcie_generation_defaults(generation: int) -> tuple[float, float]:
    """(lane_rate [1/s], encoding [-]) of a PCIe generation, from the specifications [3]."""
    return protocols.PCIE_GENERATIONS[generation]
