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
    return outstanding * burst_bytes / (latency_s + burst_bytes / peak_bytes_per_s)


#: PCI Express generations: (transfer rate per lane [1/s], line-code efficiency) [3].
PCIE_GENERATIONS = {
    1: (2.5e9, 8 / 10),
    2: (5.0e9, 8 / 10),
    3: (8.0e9, 128 / 130),
    4: (16.0e9, 128 / 130),
    5: (32.0e9, 128 / 130),
    6: (64.0e9, 242 / 256),  # PAM4 with 256-byte FLITs: 242 payload bytes per FLIT
}


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


