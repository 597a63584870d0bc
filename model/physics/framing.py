"""Framing on the wire: how much of a line's rate is payload (goodput, as iperf reports it).

Pure functions (layer 1), numpy-friendly: sizes in bytes, rates in bytes per second.  Goodput
means what iperf-like tools report: application payload bytes per second, every header
excluded [6].

References
----------
.. [1] IEEE 802.3-2018: preamble and SFD 8 B, header 14 B (18 B with an 802.1Q VLAN tag), FCS
   4 B, minimum inter-packet gap 12 B (96 bit times); minimum frame 64 B.
.. [2] RFC 791 (IPv4 header 20 B), RFC 8200 (IPv6 header 40 B), RFC 9293 (TCP header 20 B),
   RFC 7323 (timestamps option: 10 B padded to 12 B; on by default in Linux), RFC 768 (UDP 8 B).
.. [3] RFC 2684 (LLC/SNAP encapsulation over AAL5, 8 B), ITU-T I.363.5 (AAL5 trailer 8 B,
   padding to 48 B), ITU-T I.432 / G.707: OC-3c/STM-1 155.52 Mbit/s line, 149.76 Mbit/s SONET
   payload; 53-byte cells carry 48 B.  RFC 2225: default IP MTU 9180 over ATM.
.. [4] ANSI X3.139 (FDDI MAC): preamble 8 B, SD 1, FC 1, DA 6, SA 6, FCS 4, ED/FS 2 B;
   RFC 1390 (IP over FDDI: LLC/SNAP 8 B, MTU 4352).
.. [5] G. Sidhu, R. Andrews, A. Oppenheimer, *Inside AppleTalk*, 2nd ed. (1990): DDP long header
   13 B, at most 586 data bytes; ATP header 8 B.  Apple's Open Transport FAQ gives 617 bytes as
   the AppleTalk datagram limit (counting link headers).
.. [6] RFC 6349, *Framework for TCP Throughput Testing* (2011), section 3.3.1 (maximum achievable
   TCP throughput): 1 Gbit/s, MTU 1500, IPv4, timestamps: 1448/1538 = 94.15 %.
"""

from __future__ import annotations

import math

#: Ethernet bytes per frame on the wire beyond the MTU: preamble+SFD 8, header 14, FCS 4, IFG 12 [1].
ETHERNET_OVERHEAD = 38.0
#: An 802.1Q tag [1].
VLAN_TAG = 4.0
#: Ethernet header plus FCS: what crosses a host bus with the IP packet (no preamble, no gap) [1].
ETHERNET_FRAME_HEADERS = 18.0
IPV4_HEADER = 20.0
IPV6_HEADER = 40.0
TCP_HEADER = 20.0
TCP_TIMESTAMPS = 12.0
UDP_HEADER = 8.0

#: ATM constants [3].
ATM_CELL = 53.0
ATM_CELL_PAYLOAD = 48.0
AAL5_TRAILER = 8.0
LLC_SNAP = 8.0
OC3C_LINE_RATE = 155.52e6 / 8  # [B/s]
OC3C_PAYLOAD_RATE = 149.76e6 / 8  # [B/s] the SONET payload envelope

#: FDDI constants [4].
FDDI_RATE = 100e6 / 8  # [B/s]
FDDI_MTU = 4352.0
FDDI_OVERHEAD = 8 + 1 + 1 + 6 + 6 + 4 + 2 + LLC_SNAP  # preamble .. ED/FS + LLC/SNAP = 36 B

#: AppleTalk constants [5].
DDP_MAX_DATA = 586.0
DDP_LONG_HEADER = 13.0
ATP_HEADER = 8.0
#: Apple's Open Transport FAQ [5]: "datagram size for AppleTalk is limited to a maximum of 617 bytes".
APPLETALK_FAQ_DATAGRAM = 617.0


def transport_headers(protocol="tcp", ip_version=4, timestamps=True):
    """IP plus transport header bytes per packet [2].

    Parameters
    ----------
    protocol : {"tcp", "udp"}
    ip_version : {4, 6}
    timestamps : bool
        TCP timestamps option (12 B; the Linux default).

    Returns
    -------
    float
        Header bytes [B]: 52 for TCP/IPv4 with timestamps, 40 without, 28 for UDP/IPv4.
    """
    if protocol not in ("tcp", "udp"):
        raise ValueError(f"protocol must be 'tcp' or 'udp', not {protocol!r}")
    if ip_version not in (4, 6):
        raise ValueError(f"ip_version must be 4 or 6, not {ip_version!r}")
    ip = IPV4_HEADER if ip_version == 4 else IPV6_HEADER
    if protocol == "udp":
        return ip + UDP_HEADER
    return ip + TCP_HEADER + (TCP_TIMESTAMPS if timestamps else 0.0)


def payload_per_packet(mtu_bytes, protocol="tcp", ip_version=4, timestamps=True):
    """Application payload in one full packet: the MSS for TCP [B] [2].

    MTU 1500, TCP/IPv4 with timestamps -> 1448; without -> 1460; UDP/IPv4 -> 1472.
    """
    return mtu_bytes - transport_headers(protocol, ip_version, timestamps)


def ethernet_wire_bytes(mtu_bytes, vlan=False):
    """Bytes one full-size frame occupies on the wire, gap included [B] [1]: MTU + 38 (+4 VLAN)."""
    return mtu_bytes + ETHERNET_OVERHEAD + (VLAN_TAG if vlan else 0.0)


def ethernet_efficiency(mtu_bytes, protocol="tcp", ip_version=4, timestamps=True, vlan=False):
    """Payload share of an Ethernet line carrying full-size packets [-] [1], [2], [6].

    eff = (MTU - IP - transport) / (MTU + 38 (+4 with VLAN)).

    Returns
    -------
    float
        1500, TCP/IPv4, timestamps: 1448/1538 = 0.9415; 9000: 8948/9038 = 0.9900.
    """
    return payload_per_packet(mtu_bytes, protocol, ip_version, timestamps) / ethernet_wire_bytes(mtu_bytes, vlan)


def ethernet_goodput(line_bytes_per_s, mtu_bytes, protocol="tcp", ip_version=4, timestamps=True, vlan=False):
    """Goodput ceiling of an Ethernet line [B/s]: line rate x :func:`ethernet_efficiency`.

    1 Gbit/s, MTU 1500, TCP/IPv4 with timestamps: 941.5 Mbit/s (949.3 without timestamps).
    """
    return line_bytes_per_s * ethernet_efficiency(mtu_bytes, protocol, ip_version, timestamps, vlan)


def aal5_cells(packet_bytes, llc_snap=True):
    """ATM cells an IP packet of ``packet_bytes`` needs over AAL5 [3].

    cells = ceil((L + 8 trailer (+ 8 LLC/SNAP)) / 48).  Not sympy-friendly (a ceiling).
    """
    total = packet_bytes + AAL5_TRAILER + (LLC_SNAP if llc_snap else 0.0)
    try:
        return math.ceil(total / ATM_CELL_PAYLOAD)
    except TypeError:  # numpy arrays
        import numpy as np

        return np.ceil(np.asarray(total) / ATM_CELL_PAYLOAD)


def atm_efficiency(mtu_bytes, protocol="tcp", ip_version=4, timestamps=True, llc_snap=True):
    """Payload share of the ATM cell stream for full-size packets (the "cell tax") [-] [3]."""
    return (payload_per_packet(mtu_bytes, protocol, ip_version, timestamps)
            / (aal5_cells(mtu_bytes, llc_snap) * ATM_CELL))


def atm_oc3_goodput(mtu_bytes=9180.0, protocol="tcp", ip_version=4, timestamps=False, llc_snap=True,
                    payload_rate=OC3C_PAYLOAD_RATE):
    """Goodput over AAL5 on a SONET OC-3c line [B/s] [3].

    The 155.52 Mbit/s line carries a 149.76 Mbit/s payload envelope filled with 53-byte cells.

    Returns
    -------
    float
        TCP/IPv4 without timestamps: about 129 Mbit/s at MTU 1500, 134.5 Mbit/s at MTU 9180.
    """
    return payload_rate * atm_efficiency(mtu_bytes, protocol, ip_version, timestamps, llc_snap)


def fddi_goodput(mtu_bytes=FDDI_MTU, protocol="tcp", ip_version=4, timestamps=False, rate=FDDI_RATE):
    """Goodput of FDDI (100 Mbit/s data rate, token overhead ignored) [B/s] [4].

    eff = (MTU - headers) / (MTU + 36): MTU 4352, TCP/IPv4 without timestamps -> 98.3 Mbit/s.
    """
    return rate * payload_per_packet(mtu_bytes, protocol, ip_version, timestamps) / (mtu_bytes + FDDI_OVERHEAD)


def ddp_goodput(line_bytes_per_s, data_bytes=DDP_MAX_DATA - ATP_HEADER, atp=True):
    """Goodput of AppleTalk DDP over EtherTalk phase 2 (802.3 + LLC/SNAP) [B/s] [5].

    Each datagram carries at most 586 bytes after the 13-byte long DDP header (578 after an ATP
    header); the frame adds LLC/SNAP 8 B and the 38 bytes of Ethernet overhead.  ATP's
    request/acknowledge exchange costs more than this (Apple's Open Transport FAQ: 35-45 Mbit/s on fast
    Ethernet), so this is a framing ceiling only.

    Returns
    -------
    float
        10 Mbit/s line: 578 / 645 -> 8.96 Mbit/s.
    """
    packet = data_bytes + (ATP_HEADER if atp else 0.0) + DDP_LONG_HEADER + LLC_SNAP
    return line_bytes_per_s * data_bytes / (packet + ETHERNET_OVERHEAD)


def bus_bytes_per_payload(mtu_bytes, protocol="tcp", ip_version=4, timestamps=True):
    """Bytes crossing a host bus (NIC DMA) per payload byte: (MTU + 18) / payload [-].

    The Ethernet header and FCS travel with each packet; descriptors and completions are not
    modelled.  MTU 9000, UDP/IPv4: 9018 / 8972 = 1.0051.
    """
    return (mtu_bytes + ETHERNET_FRAME_HEADERS) / payload_per_packet(mtu_bytes, protocol, ip_version, timestamps)
