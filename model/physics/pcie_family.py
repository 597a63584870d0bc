"""The PCIe family: generations, CXL versions, the pcie kind's parameters and how it prices writes
and reads, and what a generation fills in and checks in a link table.

The ``pcie`` and ``cxl`` entries of :data:`pinchpoint.physics.linkkinds.KINDS` use these hooks (their
``defaults``, ``check``, ``bound_advice``, efficiencies and costs); nothing else names a generation.

References
----------
.. [3] PCI-SIG, *PCI Express Base Specification* rev. 1.1 (2005), 3.0 (2010), 4.0 (2017),
   5.0 (2019), 6.0 (2022).
.. [6] PCI-SIG, *PCI Express Base Specification* rev. 6.0 (2022), 4.2.3 (FLIT mode): a 256-byte
   FLIT carries 236 bytes of TLPs, 6 of DLP, 8 of CRC and 6 of FEC; no per-TLP framing or LCRC.
.. [5] PCI-SIG, *PCI Express Base Specification* rev. 5.0 (2019), 2.2 (4DW memory requests, 3DW
   completions), 2.3.1.1 (read completion boundary), 3.6 (ACK and UpdateFC DLLPs), 7.5.3.4
   (Max_Payload_Size, Max_Read_Request_Size, Extended Tag Field Enable).
.. [11] CXL Consortium, *Compute Express Link Specification* 1.1 (2019), 2.0 (2020), 3.0 (2022):
   68-byte flits (2 B protocol id, four 16-byte slots, 2 B CRC) on PCIe 5 electricals for 1.1/2.0;
   256-byte flits (2 B header, fifteen 16-byte slots, 8 B CRC, 6 B FEC) for 3.x on PCIe 6.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from pinchpoint.physics import protocols
from pinchpoint.physics.kind_types import LinkReader, Param


PCIE_LANES = (1.0, 2.0, 4.0, 8.0, 12.0, 16.0, 32.0)


@dataclass(frozen=True)
class PcieGeneration:
    """What a PCIe (or CXL) generation fixes: lane rate, line code, and in FLIT mode the FLIT [3], [6]."""

    lane_rate: float  # [1/s]
    encoding: float  # line-code efficiency [-]
    flit: bool = False  # FLIT mode: the TLP overheads below replace framing, sequence number and LCRC
    flit_payload: float = 1.0  # share of a FLIT that carries TLP bytes [-]
    tlp_overhead: float = 24.0  # per-TLP bytes: STP/framing + sequence 4, 4DW header 16, LCRC 4 [B]
    # share of link time lost to traffic not counted per TLP [-]: 0, since the ACK/FC DLLPs are
    # counted per TLP (acks_per_tlp) on the direction that carries them
    dllp_overhead: float = 0.0
    acks_per_tlp: float = 1.0  # DLLPs per TLP received; FLIT mode: 0, they ride in the FLIT's DLP bytes
    source: str = ""


#: PCI Express generations [3], [6].  Generation 6 runs FLIT mode only: PAM4 without a line code,
#: 236 TLP bytes per 256-byte FLIT, DLLPs inside the FLIT's 6 DLP bytes, a TLP pays only its header.
PCIE_GENERATIONS: dict[int, PcieGeneration] = {
    1: PcieGeneration(2.5e9, 8 / 10, source="PCI Express Base Specification 1.1: 2.5 GT/s, 8b/10b"),
    2: PcieGeneration(5.0e9, 8 / 10, source="PCI Express Base Specification 2.0: 5 GT/s, 8b/10b"),
    3: PcieGeneration(8.0e9, 128 / 130, source="PCI Express Base Specification 3.0: 8 GT/s, 128b/130b"),
    4: PcieGeneration(16.0e9, 128 / 130, source="PCI Express Base Specification 4.0: 16 GT/s, 128b/130b"),
    5: PcieGeneration(32.0e9, 128 / 130, source="PCI Express Base Specification 5.0: 32 GT/s, 128b/130b"),
    6: PcieGeneration(64.0e9, 1.0, flit=True, flit_payload=236 / 256, tlp_overhead=16.0, dllp_overhead=0.0,
                      acks_per_tlp=0.0, source="PCI Express Base Specification 6.0: 64 GT/s PAM4, FLIT mode "
                             "(236 B of TLPs, 6 DLP, 8 CRC, 6 FEC per 256 B)"),
}


#: CXL versions: (flit bytes, slot bytes per flit, PCIe generations it runs on) [11].
CXL_VERSIONS: dict[str, tuple[float, float, tuple[int, ...]]] = {
    "1.1": (68.0, 64.0, (5,)),
    "2.0": (68.0, 64.0, (5,)),
    "3.0": (256.0, 240.0, (5, 6)),
    "3.1": (256.0, 240.0, (5, 6)),
}


def _generation(table: dict, reader: LinkReader, allowed: tuple[int, ...], what: str):
    """The ``generation`` key of a pcie or cxl table (a whole number or {value, source}) and its source."""
    gen = table.get("generation")
    gen_source = None
    if isinstance(gen, dict):  # { value = 5, source = "..." }
        reader.check_keys(gen, {"value", "source"}, "generation")
        gen_source = reader.text(gen, "source", "generation")
        gen = gen.get("value")
    if gen is not None and (not isinstance(gen, int) or isinstance(gen, bool) or gen not in allowed):
        raise reader.error("generation", f"expected a {what} generation {allowed[0]}..{allowed[-1]}, got {gen!r}")
    return gen, gen_source


def _lane_defaults(table: dict, gen, gen_source) -> PcieGeneration:
    """Fill lane_rate and encoding from a generation, unless the profile states them [3]."""
    if gen is None:  # stated rates: the defaults of a link that is not in FLIT mode
        return PCIE_GENERATIONS[1]
    g = PCIE_GENERATIONS[gen]
    spec = "; ".join(x for x in (gen_source, g.source) if x)
    table.setdefault("lane_rate", {"value": f"{g.lane_rate / 1e9:g} GT/s", "source": spec})
    table.setdefault("encoding", {"value": g.encoding, "source": spec})
    return g


def pcie_defaults(table: dict, reader: LinkReader) -> dict:
    """What a PCIe generation fixes: lane rate, line code and FLIT-mode overheads [3] [6]."""
    gen, gen_source = _generation(table, reader, tuple(PCIE_GENERATIONS), "PCIe")
    g = _lane_defaults(table, gen, gen_source)
    src = g.source or "PCI Express Base Specification"
    for name in ("tlp_overhead", "dllp_overhead", "flit_payload", "acks_per_tlp"):
        value = getattr(g, name)
        table.setdefault(name, {"value": f"{value:g} B" if name == "tlp_overhead" else value, "source": src})
    return table


def cxl_defaults(table: dict, reader: LinkReader) -> dict:
    """What a CXL version and PCIe generation fix: lane rate, line code, flit and slot bytes [11]."""
    gen, gen_source = _generation(table, reader, (5, 6), "CXL")
    _lane_defaults(table, gen, gen_source)
    version = table.get("version")
    if version is None:
        return table
    if not isinstance(version, str) or version not in CXL_VERSIONS:
        raise reader.error("version", f"expected a CXL version ({', '.join(CXL_VERSIONS)}), got {version!r}")
    size, payload, gens = CXL_VERSIONS[version]
    if gen is not None and gen not in gens:
        raise reader.error("generation", f"CXL {version} runs on PCIe generation "
                           f"{' or '.join(map(str, gens))}, not {gen}")
    src = f"CXL Specification {version}: {size:g}-byte flits, {payload:g} bytes of slots"
    table.setdefault("flit_size", {"value": f"{size:g} B", "source": src})
    table.setdefault("flit_payload", {"value": f"{payload:g} B", "source": src})
    return table


def pcie_check(values: Mapping[str, float]):
    for name in ("lane_rate", "encoding"):
        if name not in values:
            return name, "missing: give 'generation' (1..6) or both lane_rate and encoding"
    return None


def cxl_check(values: Mapping[str, float]):
    for name in ("lane_rate", "encoding", "flit_size", "flit_payload"):
        if name not in values:
            return name, "missing: give 'generation' (5 or 6) and 'version' ('1.1', '2.0', '3.0', '3.1')"
    if values["flit_payload"] > values["flit_size"]:
        return "flit_payload", "a flit carries at most its own size"
    return None


def pcie_bound_advice(values, raw, net):
    return ("the PCIe link binds: check the negotiated speed and width (lspci -vv: LnkSta against "
            "LnkCap) and MaxPayload / MaxReadReq")


def pcie_generation_defaults(generation: int) -> tuple[float, float]:
    """(lane_rate [1/s], encoding [-]) of a PCIe generation, from the specifications [3]."""
    g = PCIE_GENERATIONS[generation]
    return g.lane_rate, g.encoding


# --- the pcie kind: parameters, writes and reads -------------------------------------------------

#: Max_Payload_Size and Max_Read_Request_Size encodings [5].
PCIE_SIZES = (128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0)

PCIE_PARAMS = (
    Param("lanes", "dimensionless", "negotiated lanes (x1 .. x16)", integer=True, choices=PCIE_LANES),
    Param("lane_rate", "frequency", "transfers per second per lane (from generation)", required=False),
    Param("encoding", "dimensionless", "line-code efficiency (from generation)", required=False, maximum=1.0),
    Param("mps", "size", "max payload size", default=256.0, choices=PCIE_SIZES),
    Param("tlp_overhead", "size", "per-TLP framing, sequence, header and LCRC (FLIT mode: the header); at least "
          "the 4 bytes a completion's 3DW header saves", required=False, minimum=4.0),
    Param("dllp_overhead", "dimensionless", "share of link time lost to traffic not counted per TLP (0: the "
          "ACK/FC DLLPs are counted per TLP, acks_per_tlp)", required=False, positive=False, maximum=1.0,
          maximum_included=False),
    Param("flit_payload", "dimensionless", "share of a FLIT that carries TLPs (1 without FLIT mode)",
          required=False, maximum=1.0),
    Param("mrrs", "size", "max read request size", default=512.0, choices=PCIE_SIZES),
    Param("completion", "size", "read completion size (RCB chunks on some root complexes; else the MPS)",
          required=False, choices=(64.0,) + PCIE_SIZES),
    Param("acks_per_tlp", "dimensionless", "ACK and UpdateFC DLLPs returned per TLP received (links coalesce "
          "them: 1 is already generous)", default=1.0, positive=False, maximum=8.0),
    Param("transfer_cost", "time", "fixed cost per transfer (DMA setup, descriptor and doorbell)",
          required=False, positive=False),
    Param("transfer_size", "size", "bytes per transfer (a DMA or a copy); absent: a stream", required=False),
    Param("outstanding_reads", "dimensionless", "read requests one requester keeps in flight (its tags)",
          required=False, integer=True, minimum=1),
    Param("read_latency", "time", "round trip of a read request to its first completion", required=False),
)


def pcie_raw(p):
    """Raw capacity per direction [B/s]: lane rate x lanes x line code / 8."""
    return p["lane_rate"] * p["lanes"] * p["encoding"] / 8


def _wire(p, op):
    """(data direction, other direction) bytes; FLIT mode is ``acks_per_tlp = 0`` (generation 6
    sets it), so the same arithmetic serves floats and sympy symbols."""
    return protocols.pcie_wire_bytes(
        p.get("transfer_size"), op, mps=p["mps"], mrrs=p.get("mrrs", 512.0), completion=p.get("completion"),
        tlp_overhead=p["tlp_overhead"], acks_per_tlp=p.get("acks_per_tlp", 1.0))


def _budget(p):
    return (1 - p["dllp_overhead"]) * p["flit_payload"]


def _op_efficiency(p, op):
    """Payload share of the data direction for ``op``, whole TLPs per transfer and the fixed cost
    per transfer where the profile states them [5]."""
    size = p.get("transfer_size")
    n_bytes = 1 if size is None else size
    eff = n_bytes / _wire(p, op)[0] * _budget(p)
    if size is not None and "transfer_cost" in p:
        eff = eff * protocols.transfer_share(size, p["transfer_cost"], pcie_raw(p) * eff)
    return eff


def pcie_write_efficiency(p):
    """Efficiency of posted writes (4DW TLPs): MPS / (MPS + tlp_overhead) for a stream."""
    if "transfer_size" not in p:  # written out, so that the symbolic path reads as the formula
        return p["mps"] / (p["mps"] + p["tlp_overhead"]) * (1 - p["dllp_overhead"]) * p["flit_payload"]
    return _op_efficiency(p, "write")


def pcie_read_efficiency(p):
    """Efficiency of reads: completions (3DW) bring the data, with the DLLPs that answer the requests."""
    return _op_efficiency(p, "read")


def pcie_reverse_cost(p, op):
    """Bytes the other direction carries per payload byte, as a share of its raw capacity:
    the DLLPs answering writes, or the read requests and the DLLPs answering completions."""
    size = p.get("transfer_size")
    return _wire(p, op)[1] / (1 if size is None else size) / _budget(p)


def pcie_read_bound(p):
    """One requester's reads [B/s], where the link states its outstanding requests and round trip."""
    if "outstanding_reads" not in p or "read_latency" not in p:
        return None
    rate = pcie_raw(p) * pcie_read_efficiency(p)
    return protocols.outstanding_read_bound(p["outstanding_reads"], p["mrrs"], p["read_latency"], rate)


def pcie_link_rates(p: Mapping[str, float], size: float | None = None) -> dict[str, float]:
    """Payload rates of a pcie link [B/s] from its parameter values: ``write`` and ``read`` one
    way, ``both`` each way with writes one way and reads the other (see
    :func:`pinchpoint.physics.protocols.pcie_rates`); ``size`` defaults to the link's transfer_size
    (a stream when absent)."""
    size = p.get("transfer_size") if size is None else size
    rates = protocols.pcie_rates(
        pcie_raw(p), size, mps=p["mps"], mrrs=p["mrrs"], completion=p.get("completion"),
        tlp_overhead=p["tlp_overhead"], dllp_overhead=p["dllp_overhead"], flit_payload=p["flit_payload"],
        acks_per_tlp=p["acks_per_tlp"], transfer_cost=p.get("transfer_cost", 0.0))
    return {k: float(v) for k, v in rates.items()}


def pcie_both_ways(p):
    return pcie_link_rates(p)["both"]
