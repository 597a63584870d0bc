"""Bus protocol efficiency: the share of a bus's raw capacity that carries payload.

Pure functions (layer 1), numpy-friendly and sympy-friendly: every function uses only
arithmetic, so it returns a float for floats, an array for arrays and an expression for
sympy symbols.

References
----------
.. [1] PCI-SIG, *PCI-X Addendum to the PCI Local Bus Specification*, rev. 2.0 (2002): split
   transactions, attribute phase, Maximum Memory Read Byte Count (MMRBC).
.. [2] Intel, *PRO/10GbE adapter support note CS-025829*: raise MMRBC from 512 to 4096 bytes.
.. [3] Intel, *AN 456: PCI Express High Performance Reference Design* (2007); Xilinx WP350,
   *Understanding Performance of PCI Express Systems* (2014); R. Neugebauer et al.,
   "Understanding PCIe performance for end host networking", SIGCOMM 2018.
.. [5] PCI-SIG, *PCI Express Base Specification* rev. 5.0 (2019), 2.2 (TLP headers: 4DW memory
   requests, 3DW completions), 2.3.1.1 (read completion boundary), 3.6 (ACK and UpdateFC DLLPs,
   8 bytes on the wire with framing), 4.2.2 (gen 3+ framing: a 4-byte STP token with the sequence
   number); rev. 6.0 (2022), FLIT mode.
.. [4] HyperTransport Consortium, *HyperTransport I/O Link Specification* rev. 1.10 (2003):
   4-byte control packets (8 bytes for sized writes with address), 64-byte max payload.
"""

from __future__ import annotations


def pcix_burst_efficiency(burst_bytes, overhead_clocks=8.0, width_bytes=8.0):
    """Share of PCI-X clocks that move data in bursts of ``burst_bytes``.

    eff = (M / w) / (M / w + O): a burst of M bytes takes M / w data clocks on a w-byte bus
    plus O clocks of address, attribute, decode and turnaround [1].

    Parameters
    ----------
    burst_bytes : float
        Burst length M [B]; for DMA reads the MMRBC (512 .. 4096).
    overhead_clocks : float
        Non-data clocks per transaction O [cycles]; about 8, about 14 counting the split
        request [1].
    width_bytes : float
        Bus width w [B] (8 for a 64-bit bus).

    Returns
    -------
    float
        Efficiency in (0, 1] [-]; 512 B -> 0.889, 4096 B -> 0.985 with O = 8.
    """
    data_clocks = burst_bytes / width_bytes
    return data_clocks / (data_clocks + overhead_clocks)


def split_read_bound(outstanding, burst_bytes, latency_s, peak_bytes_per_s):
    """Latency bound of PCI-X DMA reads with split transactions [1], [2].

    X <= N x MMRBC / (T_latency + MMRBC / B_peak): each of N outstanding reads returns MMRBC
    bytes one memory latency plus one burst time after it was issued.

    Parameters
    ----------
    outstanding : float
        Outstanding split reads N [-].
    burst_bytes : float
        MMRBC [B].
    latency_s : float
        Memory read latency seen from the bus [s].
    peak_bytes_per_s : float
        Raw bus capacity [B/s].

    Returns
    -------
    float
        Throughput bound [B/s]; 1 us, MMRBC 512, 1.066 GB/s -> 2.77 Gbit/s per outstanding read.
    """
    return outstanding_read_bound(outstanding, burst_bytes, latency_s, peak_bytes_per_s)


def pcie_tlp_efficiency(payload_bytes, header_bytes=24.0, dllp_overhead=0.05):
    """Share of PCIe link bytes that carry write payload [3].

    Each TLP adds framing (2 B), sequence number (2 B), header (12 or 16 B) and LCRC (4 B):
    ``header_bytes`` = 20 for 3DW headers, 24 for 4DW (64-bit addresses).  ACK and
    flow-control DLLPs take a further share ``dllp_overhead`` (a few per cent up to about 15 %).

    Parameters
    ----------
    payload_bytes : float
        Max payload size MPS [B] (128, 256, 512 ...).
    header_bytes : float
        Per-TLP overhead [B].
    dllp_overhead : float
        Share of link time spent on DLLPs [-].

    Returns
    -------
    float
        Efficiency [-]; MPS 256, 24 B, 5 % -> 0.87.
    """
    return payload_bytes / (payload_bytes + header_bytes) * (1 - dllp_overhead)


def ht_packet_efficiency(payload_bytes=64.0, control_bytes=8.0, crc_share=1 / 128):
    """Share of HyperTransport link bytes that carry payload [4].

    A sized posted write of 64 bytes travels with an 8-byte control packet (64/72 = 88.9 %); a
    read response with a 4-byte one (64/68 = 94.1 %).  HT1/HT2 insert a periodic CRC window
    costing about 0.78 % (1/128).

    Parameters
    ----------
    payload_bytes : float
        Data bytes per packet [B].
    control_bytes : float
        Control packet bytes per data packet [B].
    crc_share : float
        Share of bit times spent on periodic CRC [-].

    Returns
    -------
    float
        Efficiency [-].
    """
    return payload_bytes / (payload_bytes + control_bytes) * (1 - crc_share)




# --- PCIe as it behaves: transfers, reads, and both directions at once -----------------------

#: Bytes a DLLP (ACK, UpdateFC) takes on the wire outside FLIT mode: 6 plus 2 of framing [5].
DLLP_BYTES = 8.0
#: A 3DW completion header is 4 bytes shorter than a 4DW memory request header [5].
COMPLETION_HEADER_SAVING = 4.0


def _ceil(x):
    """ceil for floats and arrays, sympy's ceiling for expressions (the symbolic path)."""
    import numpy as np

    try:
        return np.ceil(x)
    except TypeError:
        import sympy

        return sympy.ceiling(x)


def transfer_share(size_bytes, cost_s, rate_bytes_per_s):
    """Share of a stream's rate that transfers of ``size_bytes`` with a fixed cost each reach.

    rate(S) = S / (t0 + S / B), so the share is S / (S + t0 x B): a DMA setup, a descriptor
    fetch and a doorbell write cost the same whether the transfer is 4 KiB or 1 GiB.

    Parameters
    ----------
    size_bytes : float
        Bytes per transfer S [B].
    cost_s : float
        Fixed cost per transfer t0 [s].
    rate_bytes_per_s : float
        Streaming rate B [B/s].

    Returns
    -------
    float
        Share in (0, 1] [-].
    """
    return size_bytes / (size_bytes + cost_s * rate_bytes_per_s)


def pcie_tlps(size_bytes, chunk_bytes):
    """TLPs for ``size_bytes`` in chunks of at most ``chunk_bytes``: ceil(S / chunk) [5];
    ``size_bytes=None`` is a stream: 1 / chunk TLPs per byte."""
    return 1 / chunk_bytes if size_bytes is None else _ceil(size_bytes / chunk_bytes)


def pcie_wire_bytes(size_bytes, op, *, mps=256.0, mrrs=512.0, completion=None, tlp_overhead=24.0,
                    acks_per_tlp=1.0, flit=False):
    """Link bytes for ``size_bytes`` of payload moved by ``op``, on the direction the data takes
    and on the other one [5]: (data direction, other direction).

    A write (posted) sends ceil(S / MPS) TLPs of ``tlp_overhead`` bytes beside the data; the
    receiver answers each with ``acks_per_tlp`` ACK or UpdateFC DLLPs of 8 bytes on the other
    direction.  A read sends ceil(S / MRRS) requests (``tlp_overhead`` each, no data) on the other
    direction; the data comes back in ceil(S / completion) completions with a 3DW header (4 bytes
    less), and the DLLPs that answer the requests travel with them.  Completions are at most
    MPS, smaller where the root complex splits them at its read completion boundary.  DLLPs
    cost nothing in FLIT mode (they ride in the FLIT's DLP bytes).  ``size_bytes=None`` is a
    stream: bytes per payload byte.
    """
    completion = mps if completion is None else _min(completion, mps)
    n_bytes = 1.0 if size_bytes is None else size_bytes
    dllp = 0.0 if flit else DLLP_BYTES * acks_per_tlp
    if op == "write":
        n_wr = pcie_tlps(size_bytes, mps)
        return n_bytes + n_wr * tlp_overhead, n_wr * dllp
    n_req = pcie_tlps(size_bytes, mrrs)
    n_cpl = pcie_tlps(size_bytes, completion)
    return (n_bytes + n_cpl * (tlp_overhead - COMPLETION_HEADER_SAVING) + n_req * dllp,
            n_req * tlp_overhead + n_cpl * dllp)


def _min(a, b):
    """min for floats, sympy's Min for expressions (the symbolic path)."""
    try:
        return min(a, b)
    except TypeError:
        import sympy

        return sympy.Min(a, b)


def pcie_rates(raw_bytes_per_s, size_bytes, *, mps=256.0, mrrs=512.0, completion=None, tlp_overhead=24.0,
               dllp_overhead=0.0, flit_payload=1.0, acks_per_tlp=1.0, flit=False, transfer_cost=0.0):
    """Effective PCIe rates per direction for writes, reads and both at once [3], [5].

    The bytes of :func:`pcie_wire_bytes`: each direction has ``raw x (1 - dllp_overhead) x
    flit_payload`` for TLPs and DLLPs, where ``dllp_overhead`` is link time lost to anything not
    counted per TLP (0 unless a platform is measured: the ACK and flow-control DLLPs are counted
    per TLP, once, on the direction that carries them).  One way, a direction carries its data
    and the DLLPs that answer the other's TLPs; the other direction's bytes cost nothing while it
    idles.  When the device writes and reads at once, each direction carries its own data and
    the other's DLLPs and (one way) the read requests, so the two directions together carry less
    than twice one.

    Parameters
    ----------
    raw_bytes_per_s : float
        Raw capacity per direction after the line code [B/s].
    size_bytes : float or None
        Bytes per transfer [B]; None for a stream (no rounding up, no per-transfer cost).
    mps, mrrs, completion : float
        Max payload size, max read request size, completion size (default: MPS) [B].
    tlp_overhead : float
        Per-TLP bytes of a 4DW request: framing, sequence, header, LCRC (FLIT mode: the header) [B].
    dllp_overhead : float
        Share of each direction lost to link traffic not counted per TLP [-].
    flit_payload : float
        Share of a FLIT that carries TLPs (1 outside FLIT mode) [-].
    acks_per_tlp : float
        DLLPs returned per TLP received [-].
    flit : bool
        FLIT mode (PCIe 6): DLLPs cost no TLP bytes.
    transfer_cost : float
        Fixed cost per transfer [s].

    Returns
    -------
    dict
        ``write``, ``read``: one-way payload rates [B/s]; ``both``: the payload rate each way
        with writes one way and reads the other at the same rate [B/s].
    """
    stream = size_bytes is None
    n_bytes = 1.0 if stream else size_bytes
    budget = raw_bytes_per_s * (1 - dllp_overhead) * flit_payload
    kw = dict(mps=mps, mrrs=mrrs, completion=completion, tlp_overhead=tlp_overhead, acks_per_tlp=acks_per_tlp,
              flit=flit)
    w_data, w_back = pcie_wire_bytes(size_bytes, "write", **kw)
    r_data, r_back = pcie_wire_bytes(size_bytes, "read", **kw)

    def with_cost(rate):
        return rate if stream else n_bytes / (transfer_cost + n_bytes / rate)

    write = with_cost(budget * n_bytes / w_data)
    read = with_cost(budget * n_bytes / max(r_data, r_back))
    both = with_cost(budget * n_bytes / max(w_data + r_back, r_data + w_back))
    return {"write": write, "read": read, "both": both}


def outstanding_read_bound(outstanding, request_bytes, latency_s, rate_bytes_per_s):
    """Reads bounded by the requests a requester keeps outstanding [1], [5]: each of N requests
    returns ``request_bytes`` one round trip plus its own transfer time after it was issued,
    X <= N x R / (latency + R / rate) (Little's law; the PCI-X split read bound is the same)."""
    return outstanding * request_bytes / (latency_s + request_bytes / rate_bytes_per_s)
