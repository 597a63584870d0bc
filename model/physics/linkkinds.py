"""The kinds of link a profile can declare, each with its parameters and its capacity formula.

One function per published formula.  Every formula is written with plain arithmetic (and
``_min`` for a minimum) so that the same function returns a float when given floats and a
sympy expression when given sympy symbols: the numeric and the symbolic paths cannot drift
apart.  ``formula`` is the same formula as text for tables and JSON (tests check that it
parses to the sympy expression, and gives the function's value at random in-range values).

Everything that differs between kinds lives in the kind's :class:`LinkKind` entry (see its
docstring); :func:`register` adds a kind from outside the package.

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
.. [6] PCI-SIG, *PCI Express Base Specification* rev. 6.0 (2022), 4.2.3 (FLIT mode): a 256-byte
   FLIT carries 236 bytes of TLPs, 6 of DLP, 8 of CRC and 6 of FEC; no per-TLP framing or LCRC.
.. [7] D. Foley and J. Danskin, "Ultra-Performance Pascal GPU and NVLink Interconnect", IEEE Micro
   37(2), 2017: NVLink packets of 16-byte flits, a 256-byte write is 16 data flits behind a header
   and a byte-enable flit.  NVIDIA, *H100 Tensor Core GPU Architecture* whitepaper (2022): 18
   NVLink 4 links, 900 GB/s in total (25 GB/s per link per direction); third-generation NVSwitch.
.. [8] NVIDIA, *Grace Hopper Superchip Architecture* whitepaper (2023): NVLink-C2C, 900 GB/s in
   total between Grace and Hopper (450 GB/s each way).
.. [9] Intel, *Xeon Scalable platform* technical overviews: UPI at 10.4 / 11.2 / 16 / 20 GT/s, 20
   lanes, 80-bit flits carrying 64 data bits (10.4 GT/s -> 20.8 GB/s per link and direction).
.. [10] AMD, *4th Gen AMD EPYC Processor Architecture* white paper (2022): up to four x16 xGMI links
   between sockets at up to 32 Gbit/s per lane.
.. [11] CXL Consortium, *Compute Express Link Specification* 1.1 (2019), 2.0 (2020), 3.0 (2022):
   68-byte flits (2 B protocol id, four 16-byte slots, 2 B CRC) on PCIe 5 electricals for 1.1/2.0;
   256-byte flits (2 B header, fifteen 16-byte slots, 8 B CRC, 6 B FEC) for 3.x on PCIe 6.
.. [12] JEDEC, *JESD238 HBM3* (2022); NVIDIA H100 datasheet: 5120-bit HBM3 interface, double data
   rate (5120 bit x 2619 MHz x 2 = 3.35 TB/s).
"""

from __future__ import annotations

from pinchpoint.physics import protocols
from pinchpoint.physics.kind_types import OPS, LinkKind, LinkReader, Param
from pinchpoint.physics.linkkind_samples import RATE_UNITS, BusSample, link_sample, sample_table
from pinchpoint.physics.pcie_family import (CXL_VERSIONS, PCIE_GENERATIONS, PCIE_LANES, PCIE_PARAMS, PcieGeneration,
                                            cxl_check, cxl_defaults, pcie_both_ways, pcie_bound_advice, pcie_check,
                                            pcie_defaults, pcie_generation_defaults, pcie_link_rates, pcie_raw,
                                            pcie_read_bound, pcie_read_efficiency, pcie_reverse_cost,
                                            pcie_write_efficiency)

__all__ = ["CXL_VERSIONS", "KINDS", "OPS", "PCIE_GENERATIONS", "PCIE_LANES", "RATE_UNITS", "LinkKind", "LinkReader",
           "Param", "PcieGeneration", "kind", "pcie_generation_defaults", "pcie_link_rates", "register",
           "sample_table", "unregister"]


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


def _serial(p):
    return p["lane_rate"] * p["lanes"] * p["encoding"] / 8


def _ht_eff(p):
    return protocols.ht_packet_efficiency(p["payload"], p["control"], 1 / 128)


def _fsb_duplex(p):
    return "full" if p["paths"] >= 2 else "half"


def _memory(p):
    return p["width"] * p["clock"] * p["transfers_per_clock"] * p["channels"]


def _rate(p):
    return p["rate"]


def _bonded(p):
    return p["count"] * p["link_rate"]


def _packet_eff(p):
    return p["payload"] / (p["payload"] + p["header"])


def _upi(p):
    return p["count"] * p["lane_rate"] * p["lanes"] * p["flit_payload"] / 8


def _xgmi(p):
    return p["count"] * p["lane_rate"] * p["lanes"] / 8


def _cxl_eff(p):
    return p["flit_payload"] / p["flit_size"] * p["data_share"]


_TPC = Param("transfers_per_clock", "dimensionless", "data transfers per clock (2 for DDR, 4 for quad-pumped)",
             default=1.0)


def _passes_bound(kind_name: str):
    def advise(values, raw, net):
        return f"hardware-bound at the {kind_name} link: only fewer passes over it (zero-copy, sendfile) help"
    return advise


def _pcix_bound(values, raw, net):
    """At MMRBC 4096 the bus itself binds; below it the MMRBC advice (diagnose) says more."""
    if values.get("burst", 4096.0) < 4096:
        return None
    return f"hardware-bound at the PCI-X bus ({net(raw or 0)} raw): beyond it only a PCIe NIC helps"


KINDS: dict[str, LinkKind] = {
    "pci": LinkKind(
        "pci", "parallel PCI bus: one shared capacity for both directions and every device [1]",
        (_WIDTH, _CLOCK), _bus, "width*clock", duplex=_half, source="PCI Local Bus Specification 3.0",
        advice="a shared bus: move devices to another bus segment or to PCI-X/PCIe",
        example={"width": "32 bit", "clock": "33 MHz"},
        valid_values={"width": (4.0, 8.0)},  # 32- or 64-bit [1]
        sample=BusSample("pci"),
    ),
    "pci-x": LinkKind(
        "pci-x", "parallel PCI-X bus: shared, half duplex; bursts pay address/attribute clocks [1]",
        (_WIDTH, _CLOCK,
         Param("burst", "size", "burst length: MMRBC for DMA reads", default=512.0),
         Param("overhead_clocks", "dimensionless", "non-data clocks per transaction", default=8.0)),
        _bus, "width*clock", duplex=_half,
        efficiency=_pcix_eff, efficiency_formula="(burst/width)/(burst/width + overhead_clocks)",
        source="PCI-X 2.0 Addendum to the PCI Local Bus Specification",
        advice="raise MMRBC (burst) to 4096; a faster clock (133 MHz) or PCI-X 2.0 (266/533)",
        example={"width": "64 bit", "clock": "133 MHz", "burst": "4096 B"},
        bound_advice=_pcix_bound,
        # MMRBC: 512, 1024, 2048 or 4096 bytes (PCI-X Addendum 1.0b, 7.2.3); 32- or 64-bit
        valid_values={"burst": (512.0, 1024.0, 2048.0, 4096.0), "width": (4.0, 8.0)},
        sample=BusSample("pci-x"),
    ),
    "pcie": LinkKind(
        "pcie", "PCI Express: serial lanes, each direction separately, line-coded; FLIT mode from gen 6 [3] [6]",
        PCIE_PARAMS, pcie_raw, "lane_rate*lanes*encoding/8",
        efficiency=pcie_write_efficiency,
        efficiency_formula="mps/(mps + tlp_overhead)*(1 - dllp_overhead)*flit_payload",
        read_efficiency=pcie_read_efficiency,
        read_efficiency_formula="mrrs/(mrrs + mrrs/min(completion, mps)*(tlp_overhead - 4) + 8*acks_per_tlp)"
                                "*(1 - dllp_overhead)*flit_payload",
        reverse_cost=pcie_reverse_cost, read_bound=pcie_read_bound,
        transfer_formula="transfer_size/(transfer_size + ceiling(transfer_size/mps)*tlp_overhead)"
                         "*(1 - dllp_overhead)*flit_payload, then x transfer_size/(transfer_size + "
                         "transfer_cost*rate) where rate is the capacity times that",
        both_ways=pcie_both_ways,
        source="PCI Express Base Specification",
        advice="a card below its maximum link trains narrower or slower: use a slot wired for its full "
               "width and generation; MPS 256+ and MRRS 512+; fewer, larger transfers",
        example={"generation": 4, "lanes": 16},
        text_keys=frozenset({"generation"}), defaults=pcie_defaults, check=pcie_check,
        bound_advice=pcie_bound_advice,
        # link widths (Base Specification 3.0, 4.2.4.8) and Max_Payload_Size encodings (7.8.3/7.8.4)
        valid_values={"lanes": PCIE_LANES, "mps": (128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0)},
    ),
    "hypertransport": LinkKind(
        "hypertransport", "HyperTransport: two unidirectional point-to-point paths, DDR clocking [2]",
        (_WIDTH, _CLOCK, Param("transfers_per_clock", "dimensionless", "2: double data rate", default=2.0),
         Param("payload", "size", "payload bytes per data packet", default=64.0),
         Param("control", "size", "control packet bytes per data packet", default=8.0)),
        _clocked, "width*clock*transfers_per_clock",
        efficiency=_ht_eff, efficiency_formula="payload/(payload + control)*(1 - 1/128)",
        source="HyperTransport I/O Link Specification 1.10",
        advice="a wider (16-bit) or faster HyperTransport link",
        example={"width": "16 bit", "clock": "800 MHz"},
        bound_advice=_passes_bound("hypertransport"),
        sample=BusSample("hypertransport"),
    ),
    "fsb": LinkKind(
        "fsb", "front-side bus: 'paths = 2' is two unidirectional paths (G5), 1 a shared bus (Intel) [4]",
        (_WIDTH, _CLOCK, _TPC,
         Param("paths", "dimensionless", "2: one path each way; 1: one shared bus", default=1.0, integer=True,
               choices=(1.0, 2.0))),
        _clocked, "width*clock*transfers_per_clock", duplex=_fsb_duplex,
        source="Apple Power Mac G5 Developer Note; Intel FSB datasheets",
        advice="a faster FSB, or a platform with an integrated memory controller",
        example={"width": "64 bit", "clock": "333 MHz", "transfers_per_clock": 4},
        bound_advice=_passes_bound("fsb"), memory_path=True,
        sample=BusSample("fsb"),
    ),
    "memory": LinkKind(
        "memory", "DRAM channels: one capacity shared by reads and writes [5]",
        (Param("width", "size", "data width per channel"), Param("clock", "frequency", "memory clock"),
         Param("transfers_per_clock", "dimensionless", "2 for DDR", default=2.0),
         Param("channels", "dimensionless", "independent channels", default=1.0, integer=True)),
        _memory, "width*clock*transfers_per_clock*channels", duplex=_half,
        source="JEDEC DDR SDRAM standards",
        advice="populate every channel; faster DIMMs",
        example={"width": "64 bit", "clock": "2400 MHz", "channels": 8},
        bound_advice=_passes_bound("memory"), memory=True, memory_path=True,
        sample=BusSample("memory"),
    ),
    "hbm": LinkKind(
        "hbm", "an accelerator's HBM stacks: interface width x clock x 2, shared by reads and writes [12]",
        (Param("width", "size", "interface width of all stacks together (1024 bit per stack)"),
         Param("clock", "frequency", "memory clock"),
         Param("transfers_per_clock", "dimensionless", "2: double data rate", default=2.0)),
        _clocked, "width*clock*transfers_per_clock", duplex=_half,
        source="JEDEC JESD235/JESD238 HBM; GPU datasheets",
        advice="HBM is the fastest memory there is: reuse data on chip (shared memory, L2) instead",
        example={"width": "5120 bit", "clock": "2619 MHz"},
        sample=BusSample("hbm", widths=(1024, 2048, 4096, 5120, 6144), mhz=(500, 3200)),
    ),
    "nvlink": LinkKind(
        "nvlink", "NVIDIA NVLink: 'count' bonded links, each 'link_rate' per direction [7]",
        (Param("count", "dimensionless", "links bonded between the two ends (NV# in nvidia-smi topo -m)",
               integer=True, minimum=1, maximum=18),
         Param("link_rate", "bandwidth", "data rate of one link, each way (NVLink 4: 25 GB/s)"),
         Param("payload", "size", "data bytes per packet", default=256.0),
         Param("header", "size", "header and byte-enable flits per packet", default=32.0)),
        _bonded, "count*link_rate",
        efficiency=_packet_eff, efficiency_formula="payload/(payload + header)",
        source="Foley and Danskin, IEEE Micro 37(2) 2017; NVIDIA H100 architecture whitepaper",
        advice="more links bonded between the pair (an NVSwitch gives every GPU all its links)",
        example={"count": 18, "link_rate": "25 GB/s"}, peer=True,
    ),
    "nvlink-c2c": LinkKind(
        "nvlink-c2c", "NVLink-C2C between a Grace CPU and a Hopper GPU: one coherent link, each way [8]",
        (Param("rate", "bandwidth", "data rate each way (Grace Hopper: 450 GB/s)"),),
        _rate, "rate",
        source="NVIDIA Grace Hopper Superchip Architecture whitepaper",
        advice="already the fastest CPU-GPU path; keep data on the GPU's HBM for bandwidth-bound kernels",
        example={"rate": "450 GB/s"},
    ),
    "upi": LinkKind(
        "upi", "Intel Ultra Path Interconnect between sockets: 20 lanes, 80-bit flits with 64 data bits [9]",
        (Param("lane_rate", "frequency", "transfers per second per lane (10.4 .. 24 GT/s)"),
         Param("count", "dimensionless", "UPI links between the two sockets", default=1.0, integer=True,
               minimum=1, maximum=6),
         Param("lanes", "dimensionless", "lanes per link, each way", default=20.0, integer=True,
               choices=(20.0,)),
         Param("flit_payload", "dimensionless", "data bits per flit bit (64 of 80)", default=0.8, maximum=1.0)),
        _upi, "count*lane_rate*lanes*flit_payload/8",
        source="Intel Xeon Scalable platform technical overviews",
        advice="keep memory and devices local to the socket that uses them (NUMA placement)",
        example={"lane_rate": "16 GT/s", "count": 4},
    ),
    "xgmi": LinkKind(
        "xgmi", "AMD Infinity Fabric socket links (xGMI): x16 links at up to 32 Gbit/s per lane [10]",
        (Param("lane_rate", "frequency", "transfers per second per lane"),
         Param("count", "dimensionless", "xGMI links between the two sockets", default=1.0, integer=True,
               minimum=1, maximum=4),
         Param("lanes", "dimensionless", "lanes per link", default=16.0, integer=True, choices=(8.0, 16.0))),
        _xgmi, "count*lane_rate*lanes/8",
        source="AMD 4th Gen EPYC Processor Architecture white paper",
        advice="keep memory and devices local to the socket that uses them (NUMA placement); four xGMI links",
        example={"lane_rate": "32 GT/s", "count": 4},
    ),
    "cxl": LinkKind(
        "cxl", "Compute Express Link on PCIe 5/6 electricals: 68-byte flits (1.1, 2.0), 256-byte (3.x) [11]",
        (Param("lanes", "dimensionless", "negotiated lanes", integer=True, choices=PCIE_LANES),
         Param("lane_rate", "frequency", "transfers per second per lane (from generation)", required=False),
         Param("encoding", "dimensionless", "line-code efficiency (from generation)", required=False,
               maximum=1.0),
         Param("flit_size", "size", "flit bytes (from version: 68 or 256)", required=False),
         Param("flit_payload", "size", "slot bytes per flit (from version: 64 or 240)", required=False),
         Param("data_share", "dimensionless", "share of slots carrying data: one header slot per four data "
               "slots of a 64-byte line", default=0.8, maximum=1.0)),
        _serial, "lane_rate*lanes*encoding/8",
        efficiency=_cxl_eff, efficiency_formula="flit_payload/flit_size*data_share",
        source="CXL Specification 1.1, 2.0, 3.0",
        advice="CXL memory adds a link and a controller: keep hot data in local DRAM, interleave cold pages",
        example={"generation": 5, "version": "2.0", "lanes": 16},
        text_keys=frozenset({"generation", "version"}), defaults=cxl_defaults, check=cxl_check,
    ),
    "ethernet": LinkKind(
        "ethernet", "Ethernet port: line rate each way (framing is modelled by `diagnose`)",
        (Param("rate", "bandwidth", "line rate (absent: the NIC's line_rate)", required=False),), _rate, "rate",
        network=True, owners={"nic": ("line_rate", "rate")},
        source="IEEE 802.3", advice="a faster port, or several ports bonded",
        example={"rate": "100 Gbit/s"},
    ),
    "line": LinkKind(
        "line", "a network line of a given rate, each way (ATM, FDDI, a WAN circuit ...)",
        (Param("rate", "bandwidth", "line rate (absent: the NIC's line_rate)", required=False),), _rate, "rate",
        network=True, owners={"nic": ("line_rate", "rate")},
        advice="a faster line", example={"rate": "155 Mbit/s"},
    ),
    "link": LinkKind(
        "link", "a generic link of a given capacity, each way ('duplex = \"half\"' to share it)",
        (Param("rate", "bandwidth", "capacity"),
         Param("shared", "dimensionless", "1: half duplex (one capacity for both directions)",
               default=0.0, integer=True, positive=False, choices=(0.0, 1.0))),
        _rate, "rate", duplex=lambda p: "half" if p["shared"] else "full",
        advice="a faster link", example={"rate": "10 GB/s"},
        sample=link_sample,
    ),
    "disk": LinkKind(
        "disk", "a storage device interface: one sustained rate shared by reads and writes",
        (Param("rate", "bandwidth", "sustained transfer rate (absent: the disk's rate)", required=False),), _rate,
        "rate", duplex=_half, owners={"disk": ("rate", "rate")},
        advice="a faster device, or several striped", example={"rate": "3 GB/s"},
    ),
}

def kind(name: str) -> LinkKind:
    """The link kind called ``name`` (KeyError if there is none)."""
    return KINDS[name]


def register(definition: LinkKind, *, replace: bool = False) -> LinkKind:
    """Add a link kind to the registry (from outside the package too, as pyhf's custom modifiers).

    Profiles may use it from then on: the reader, ceilings, explanations, what-if, sweeps,
    diagnose and reports all look kinds up here.  ``replace`` allows redefining a name.
    """
    if not isinstance(definition, LinkKind):
        raise TypeError(f"expected a LinkKind, got {type(definition).__name__}")
    if definition.name in KINDS and not replace:
        raise ValueError(f"link kind {definition.name!r} is already registered (replace=True to redefine it)")
    KINDS[definition.name] = definition
    return definition


def unregister(name: str) -> LinkKind:
    """Remove a link kind from the registry and return it (KeyError if there is none)."""
    return KINDS.pop(name)
