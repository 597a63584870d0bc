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

from pinchpoint.physics.linkkinds import KINDS

def valid_values(kind: str, param: str) -> tuple[float, ...] | None:
    """The values a parameter of a link kind can take (None: any value of its dimension).

    Each kind lists them in its registry entry (``LinkKind.valid_values``), with the sources
    above for the built-in ones."""
    definition = KINDS.get(kind)
    return None if definition is None else definition.valid_values.get(param)
