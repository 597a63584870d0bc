"""The host CPU as a ceiling on network throughput: cycles per byte and per packet.

Pure functions (layer 1): clocks in hertz, sizes in bytes, rates in payload bytes per second.

X <= clock x cores_used / (cycles_per_byte + cycles_per_packet / payload_per_packet)

References
----------
.. [1] A. Foong, T. Huff, H. Hum, J. Patwardhan, G. Regnier, "TCP performance re-visited",
   ISPASS 2003: the "1 GHz of CPU per 1 Gbit/s" rule of thumb (MTU 1500).
.. [2] R. Jones, *Care and feeding of netperf* / netperf manual: service demand, microseconds
   of CPU per KB (1024 B) transferred; 1 us/KB = 1.024e9 B/s = 8.2 Gbit/s per core.
.. [3] AARNet's Canberra-to-Perth 10 GbE tests: the "cpuspeed" service ran a 3.16 GHz Xeon X5460
   at 2.0 GHz, and throughput rose once it was turned off.
"""

from __future__ import annotations

#: The rule of thumb [1]: 1 Hz per bit/s at MTU 1500, i.e. 12000 cycles per 1500-byte packet.
#: We take it as a per-packet cost (interrupts, driver, protocol processing per packet), so
#: jumbo frames scale it up; with no measured cycles_per_byte this is an estimate, not a bound.
RULE_OF_THUMB_CYCLES_PER_PACKET = 1500 * 8.0
RULE_OF_THUMB_MTU = 1500.0


def cpu_ceiling(clock_hz, cores_used, payload_per_packet, cycles_per_byte=0.0, cycles_per_packet=0.0):
    """Payload rate a CPU can process [B/s]: clock x cores / (cpb + cpp / payload).

    Parameters
    ----------
    clock_hz : float
        Clock the cores run at now [Hz] (a throttled clock lowers the ceiling).
    cores_used : float
        Cores doing network work [-] (one per stream at most).
    payload_per_packet : float
        Payload bytes per packet [B] (the MSS for TCP).
    cycles_per_byte : float
        Cost per payload byte [cycles/B] (copies, checksums).
    cycles_per_packet : float
        Cost per packet [cycles] (interrupt, driver, protocol processing).

    Returns
    -------
    float
        Ceiling [B/s].
    """
    per_byte = cycles_per_byte + cycles_per_packet / payload_per_packet
    return clock_hz * cores_used / per_byte


def rule_of_thumb_ceiling(clock_hz, cores_used, payload_per_packet):
    """The 1 GHz per 1 Gbit/s rule [1] as a per-packet cost [B/s].

    12000 cycles per packet: 2 GHz, one core, MTU 1500 (1448 B payload): 1.93 Gbit/s; the
    same core with MTU 9000 (8948 B): 11.9 Gbit/s.
    """
    return cpu_ceiling(clock_hz, cores_used, payload_per_packet, 0.0, RULE_OF_THUMB_CYCLES_PER_PACKET)


def service_demand_ceiling(us_per_kb, cores_used=1.0):
    """Ceiling from netperf's service demand [B/s] [2]: cores x 1024 B / (SD x 1e-6 s).

    1 us/KB -> 1.024e9 B/s = 8.19 Gbit/s per core.
    """
    return cores_used * 1024.0 / (us_per_kb * 1e-6)


def cores_in_use(streams, cores_available):
    """Cores that can work on N streams [-]: each stream's processing runs on one core at a time."""
    return min(streams, cores_available)
