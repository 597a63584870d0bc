"""The values a discrete link parameter can take, for answers that must exist.

``solve`` answers the smallest valid value that reaches a target (the largest, for a parameter
that lowers capacity as it grows): a PCIe link has 1, 2, 4, 8, 12, 16 or 32 lanes, never 5.

References
----------
.. [1] PCI-SIG, *PCI Express Base Specification* 3.0 (2010), 4.2.4.8 (link widths x1, x2, x4,
   x8, x12, x16, x32) and 7.8.3/7.8.4 (Max_Payload_Size and Max_Read_Request_Size encodings:
   128 to 4096 bytes in powers of two).
.. [2] PCI-SIG, *PCI-X Addendum to the PCI Local Bus Specification* 1.0b (2002), 7.2.3
   (Maximum Memory Read Byte Count: 512, 1024, 2048 or 4096 bytes).
"""

from __future__ import annotations

#: (link kind, parameter) -> valid values in SI units, ascending.
VALID_VALUES: dict[tuple[str, str], tuple[float, ...]] = {
    ("pcie", "lanes"): (1.0, 2.0, 4.0, 8.0, 12.0, 16.0, 32.0),
    ("pcie", "mps"): (128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0),
    ("pci-x", "burst"): (512.0, 1024.0, 2048.0, 4096.0),
    ("pci", "width"): (4.0, 8.0),  # 32- or 64-bit
    ("pci-x", "width"): (4.0, 8.0),
}


def valid_values(kind: str, param: str) -> tuple[float, ...] | None:
    """The values a parameter of a link kind can take (None: any value of its dimension)."""
    return VALID_VALUES.get((kind, param))
