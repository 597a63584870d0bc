"""The PCIe tree of detected facts as profile components and links.

A PCIe switch is an upstream port with downstream ports below it (PCI Express Base
Specification, 1.3 "PCI Express Fabric Topology": a switch is a logical assembly of virtual
PCI-to-PCI bridges); below a root port, bridges alternate: upstream port (odd depth),
downstream port (even depth).  A switch becomes one ``switch`` component whose uplink (the link
above its upstream port) every device below it shares; a device's link goes up to the switch
whose downstream port it hangs off, or to its package (``cpuN``) when it sits on a root port.
"""

from __future__ import annotations

from pinchpoint.inputs.doc_values import ident
from pinchpoint.measure.machine_facts import (PCIE_GENERATIONS, MachineFacts, PciDevice, pcie_generation,
                                              pcie_links_of_rate)


def gts_text(x: float) -> str:
    return f"{x / 1e9:g} GT/s"


def link_text(speed: float | None, width: int | None) -> str:
    """'8 GT/s x4', '8 GT/s' or 'x4' (whatever is known)."""
    return " ".join(p for p in (gts_text(speed) if speed else "", f"x{width}" if width else "") if p) or "unknown"


def _same_line_code(fits: list[tuple[int, int]]) -> bool:
    codes = {(PCIE_GENERATIONS[g].encoding, PCIE_GENERATIONS[g].flit) for g, _ in fits}
    return len(codes) == 1


class PcieTree:
    """Adds PCIe links of devices (and the switches above them) to ``comps`` and ``links``."""

    def __init__(self, facts: MachineFacts, comps: dict, links: dict):
        self.facts, self.comps, self.links = facts, comps, links
        self.by_addr = {d.address.lower(): d for d in facts.pci}
        self.done: set[str] = set()  # PCI functions that have a component already

    def has(self, address: str) -> bool:
        return address.lower() in self.done

    def depth(self, dev: PciDevice) -> int:
        """PCI functions above ``dev`` (0: right below the host bridge, a root port's level)."""
        n, seen = 0, set()
        while dev.parent and dev.parent in self.by_addr and dev.parent not in seen:
            seen.add(dev.parent)
            dev, n = self.by_addr[dev.parent], n + 1
        return n

    def socket_of(self, dev: PciDevice) -> str:
        """The package a device hangs off: hwloc's locality, else sysfs's NUMA node, else cpu0."""
        for index in (dev.package, dev.numa_node):
            if index is not None and f"cpu{index}" in self.comps:
                return f"cpu{index}"
        return "cpu0"

    def upstream(self, dev: PciDevice) -> str:
        """The component at the other end of ``dev``'s link (module docstring)."""
        seen = set()
        while True:
            parent = self.by_addr.get(dev.parent or "")
            if parent is None or parent.address in seen:
                return self.socket_of(dev)
            seen.add(parent.address)
            if not parent.is_bridge:
                dev = parent  # a function below a non-bridge: take that one's place
                continue
            if self.depth(parent) == 0:
                return self.socket_of(dev)  # a root port
            usp = parent if self.depth(parent) % 2 == 1 else self.by_addr.get(parent.parent or "", parent)
            return self.switch(usp)

    def switch(self, usp: PciDevice) -> str:
        sid = ident(f"pcisw-{usp.address}")
        if sid not in self.comps:
            self.comps[sid] = {"kind": "switch", "model": f"PCIe switch, upstream port {usp.address}"}
            self.attach(sid, usp.address, "switch uplink: shared by every device below")
        return sid

    def attach(self, cid: str, address: str | None, role: str = "") -> str | None:
        """Add the PCIe link of a device to its root port or switch; return the link id or None."""
        dev = self.facts.pci_device(address)
        if dev is None:
            return None
        self.done.add(dev.address.lower())
        up = self.upstream(dev)
        lid = f"pcie-{ident(cid)}"
        role = f" ({role})" if role else ""
        link = self._negotiated(dev, cid, up, role) or self._from_rate(dev, cid, up, role)
        if link is None:
            return None
        self.links[lid] = link
        return lid

    def _negotiated(self, dev: PciDevice, cid: str, up: str, role: str) -> dict | None:
        """The link as sysfs reports it: negotiated generation and width."""
        gen = pcie_generation(dev.current_speed) if dev.current_speed else None
        if not (gen and dev.current_width):
            return None
        could = dev.downgraded and dev.max_speed and dev.max_width
        maxi = (f"; the device supports {gts_text(dev.max_speed)} x{dev.max_width}"
                + (" (it could train wider or faster: see the flags)" if could else "")
                if dev.max_speed and dev.max_width else "")
        return {"kind": "pcie", "between": [cid, up], "generation": gen,
                "lanes": {"value": dev.current_width, "source": f"sysfs {dev.address}/current_link_width"},
                "description": f"PCIe {dev.address}{role}: negotiated {gts_text(dev.current_speed)} "
                               f"x{dev.current_width}{maxi}",
                "source": f"sysfs {dev.address}/current_link_speed"}

    def _from_rate(self, dev: PciDevice, cid: str, up: str, role: str) -> dict | None:
        """The link from hwloc's rate: generation and lanes where the rate fits them (several
        fits share the line code and so the ceiling), else a plain link of that rate."""
        rate = dev.link_bytes_per_s
        if not rate:
            return None
        gbs = f"{rate / 1e9:.6g} GB/s"
        fits = pcie_links_of_rate(rate)
        src = f"hwloc pci_link_speed of {dev.address}: {gbs} per direction"
        if fits and _same_line_code(fits):
            gen, lanes = fits[0]
            alike = " = ".join(f"{gts_text(PCIE_GENERATIONS[g].lane_rate)} x{w}" for g, w in fits)
            return {"kind": "pcie", "between": [cid, up], "generation": gen,
                    "lanes": {"value": lanes, "source": src},
                    "description": f"PCIe {dev.address}{role}: {gbs} per direction ({alike}: "
                                   "the same data rate and line code, so the same ceiling)",
                    "source": src}
        return {"kind": "link", "between": [cid, up], "rate": {"value": gbs, "source": src},
                "description": f"PCIe {dev.address}{role}: generation and lanes unknown"}

    def route_up(self, lid: str) -> list[str]:
        """The components from a device's link up to the CPU package: [switch ..., cpuN]."""
        out, seen = [], set()
        while lid in self.links and lid not in seen:
            seen.add(lid)
            up = self.links[lid]["between"][1]
            out.append(up)
            lid = f"pcie-{ident(up)}"
        return out
