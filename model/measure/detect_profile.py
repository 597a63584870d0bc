"""Detected facts -> a profile document (``schema = 1``) that the normal loader accepts.

Links appear only where their capacity is known: Ethernet from the NIC's speed, PCIe from the
negotiated generation and lanes (sysfs) or from hwloc's ``pci_link_speed``, NVLink from
``nvidia-smi topo -m`` or hwloc's NVLinkBandwidth matrix, memory only from a measurement
(``memory_rate`` [B/s], e.g. the STREAM figure of ``detect --measure``): sysfs does not tell
memory bandwidth, and a guess would be an invented value.

The PCIe tree keeps its shape: a switch (its upstream port and the downstream ports below it)
becomes one ``switch`` component whose uplink every device below shares, and a device hangs off
the package its root port belongs to.  The root complex and the memory controller are part of
the CPU package (``cpuN``), as on every current x86 and Arm server; sysfs gives no capacity for
the path between a core and that uncore, so a separate node could carry no link.
"""

from __future__ import annotations

from pinchpoint.inputs.doc_values import bytes_text, hz_text, ident, sourced
from pinchpoint.measure.detect_pcie import PcieTree
from pinchpoint.measure.detect_nvlink import add_nvlinks
from pinchpoint.measure.hwloc_devices import HBM_KINDS
from pinchpoint.measure.machine_facts import MachineFacts, PciDevice

#: PCI class codes of GPUs and other accelerators: display (0x03xx) and processing accelerators (0x12xx).
_ACCELERATOR_CLASSES = ("0x03", "0x12")


class ProfileBuilder:
    """One profile document built from ``facts`` part by part (CPUs, memory, NICs, disks, PCIe
    devices, NVLink), each part a method; :meth:`document` assembles them."""

    def __init__(self, facts: MachineFacts, *, memory_rate: float | None = None, memory_source: str | None = None):
        self.facts, self.memory_rate, self.memory_source = facts, memory_rate, memory_source
        self.comps: dict = {}
        self.links: dict = {}
        self.flows: dict = {}
        self.scenarios: dict = {}
        self.pcie = PcieTree(facts, self.comps, self.links)
        self.gpu_ids: dict[int, str] = {}  # NVML / nvidia-smi index -> component
        self.by_address: dict[str, str] = {}  # PCI address -> component of a GPU

    # -- CPUs and memory ----------------------------------------------------------------------

    def _cache_entries(self) -> list[dict]:
        out = []
        for c in self.facts.caches:
            entry = {"level": c.level, "type": c.type, "size": bytes_text(c.size_bytes)}
            if c.line_bytes:
                entry["line"] = f"{c.line_bytes} B"
            if c.associativity is not None:
                entry["associativity"] = c.associativity
            if c.shared_by:
                entry["shared_by"] = c.shared_by
            if c.cpu_kind:  # a hybrid CPU: which cores have this cache (profiles have no field for it)
                where = self.facts.source("caches") or "detected"
                entry["source"] = f"{where}: {c.instances} of them, {c.cpu_kind} cores"
            out.append(entry)
        return out

    def cpus(self) -> None:
        f = self.facts
        cpu: dict = {"kind": "cpu"}
        unknown = []
        if f.cpu_model:
            cpu["model"] = f.cpu_model
        if f.nominal_clock:
            cpu["clock"] = sourced(hz_text(f.nominal_clock), f.source("nominal_clock"))
        else:
            unknown.append("clock")
        if f.current_clock:
            cpu["current_clock"] = sourced(hz_text(f.current_clock), f.source("current_clock"))
        for key, value in (("cores", f.cores_per_socket), ("threads_per_core", f.threads_per_core)):
            if value:
                cpu[key] = value
            else:
                unknown.append(key)
        cpu["unknown"] = unknown + ["flops_per_cycle"]
        if f.source("caches"):
            cpu["source"] = f.source("caches")
        caches = self._cache_entries()
        if caches:
            cpu["caches"] = caches
        for s in range(f.sockets or 1):
            self.comps[f"cpu{s}"] = dict(cpu, unknown=list(cpu["unknown"]))

    def memory(self) -> None:
        f = self.facts
        hbm = sum(m.size_bytes or 0 for m in f.memories if (m.kind or "").upper() in HBM_KINDS)
        side = sorted({m.side_cache_bytes for m in f.memories if m.side_cache_bytes})
        mem: dict = {"kind": "memory"}
        total = f.memory_bytes - hbm if f.memory_bytes and f.memory_bytes > hbm else f.memory_bytes
        if total:
            mem["size"] = sourced(bytes_text(total), f.source("memory_bytes"))
        else:
            mem["unknown"] = ["size"]
        if side:
            mem["description"] = (f"behind a memory-side cache of {', '.join(bytes_text(s) for s in side)} per node "
                                  "(on-package MCDRAM/HBM in cache mode: memory, not a CPU cache)")
        self.comps["memory"] = mem
        if hbm:
            self.comps["hbm"] = {"kind": "memory", "type": "on-package high-bandwidth memory (HBM/MCDRAM), flat mode",
                                 "size": sourced(bytes_text(hbm), "hwloc XML: NUMANode subtype HBM/MCDRAM")}
        if self.memory_rate:
            self.links["memory"] = {"kind": "link", "between": ["cpu0", "memory"],
                                    "description": "CPU package to memory, as measured: reads and writes share it",
                                    "rate": {"value": f"{self.memory_rate / 1e9:.6g} GB/s",
                                             "source": self.memory_source or "measured"},
                                    "shared": 1}
            self.flows["mem-copy"] = {"description": "memory copy by one package: read and write share the memory link",
                                      "legs": [["memory", "cpu0"], ["cpu0", "memory"]]}

    def _host_end(self, lid: str) -> str | None:
        """Where host traffic of a device's link starts: memory (when measured) or its package."""
        host = self.pcie.route_up(lid)[-1]
        if not host.startswith("cpu"):
            return None  # an uplink on the way is unknown: no path to the host
        return "memory" if self.memory_rate and host == "cpu0" else host

    # -- NICs and disks -----------------------------------------------------------------------

    def nics(self) -> None:
        """One nic component per PCI function (its ports share the card), one wire per port."""
        groups: dict[str, list] = {}
        for n in self.facts.nics:
            groups.setdefault((n.pci_address or "").lower() or f"name:{n.name}", []).append(n)
        several = len(self.facts.nics) > 1
        for ports in groups.values():
            first = ports[0]
            nid = ident(f"nic-{first.name}")
            nic: dict = {"kind": "nic", "unknown": []}
            dev = self.facts.pci_device(first.pci_address)
            if dev and dev.vendor and dev.device:
                nic["model"] = f"PCI {dev.vendor}:{dev.device} ({first.pci_address})"
            if len(ports) > 1:
                nic["description"] = f"one PCI function, ports {', '.join(p.name for p in ports)}"
            rated = [p for p in ports if p.speed_bytes_per_s]
            if len({p.speed_bytes_per_s for p in rated}) == 1:
                nic["line_rate"] = sourced(f"{rated[0].speed_bytes_per_s * 8 / 1e6:g} Mbit/s",
                                           f"sysfs class/net/{rated[0].name}/speed")
            else:  # none known, or ports at different speeds: then each wire states its own
                nic["unknown"].append("line_rate")
                if rated:
                    nic["description"] += "; the ports run at different speeds (each wire's rate)"
            if first.mtu:
                nic["mtu"] = sourced(f"{first.mtu} B", f"sysfs class/net/{first.name}/mtu")
            nic["unknown"].append("max_mtu")
            self.comps[nid] = nic
            pl = self.pcie.attach(nid, first.pci_address)
            for port in ports:
                self._port(port, nid, pl, several)

    def _port(self, n, nid: str, pl: str | None, several: bool) -> None:
        net = ident(f"network-{n.name}")
        self.comps[net] = {"kind": "network", "description": f"the network beyond {n.name}"}
        if not n.speed_bytes_per_s:
            return
        self.links[ident(f"ethernet-{n.name}")] = {
            "kind": "ethernet", "between": [net, nid],
            "rate": sourced(f"{n.speed_bytes_per_s * 8 / 1e6:g} Mbit/s", f"sysfs class/net/{n.name}/speed")}
        end = (self._host_end(pl) or self.pcie.route_up(pl)[-1]) if pl else nid
        note = "" if end == "memory" else (
            f" (ends at {end}: the links beyond are unknown"
            + ("; `detect --measure` adds memory)" if end.startswith("cpu") else ")"))
        suffix = f"-{n.name}" if several else ""
        self.flows[f"nic-rx{suffix}"] = {"source": net, "sink": end,
                                         "description": f"receive on {n.name}: wire -> NIC -> host{note}"}
        self.flows[f"nic-tx{suffix}"] = {"source": end, "sink": net,
                                         "description": f"send on {n.name}: host -> NIC -> wire{note}"}

    def disks(self) -> None:
        for d in self.facts.disks:
            did = ident(f"disk-{d.name}")
            disk: dict = {"kind": "disk", "unknown": ["rate"]}
            if d.rotational is not None:
                disk["type"] = "rotational" if d.rotational else "solid state (or virtual)"
            if d.size_bytes:
                disk["size"] = sourced(bytes_text(d.size_bytes), f"sysfs block/{d.name}/size")
            else:
                disk["unknown"].append("size")
            self.comps[did] = disk
            self.pcie.attach(did, d.pci_address)

    # -- GPUs and other PCIe devices ----------------------------------------------------------

    # long: one branch per PCI device class that carries modelled traffic
    def _device_component(self, dev: PciDevice) -> tuple[str, dict] | None:
        """(id, component) of a GPU, another accelerator or a device with a trained link; None
        for what carries no modelled traffic (bridges, NVSwitch management functions)."""
        cls = (dev.class_code or "").lower()
        if dev.is_bridge or cls.startswith("0x06") or dev.subtype == "NVSwitch":
            return None
        g = next((g for g in self.facts.gpus if g.pci_address and g.pci_address.lower() == dev.address.lower()), None)
        if cls.startswith(_ACCELERATOR_CLASSES) or g is not None:
            cid = f"gpu{g.index}" if g is not None else ident(f"gpu-{dev.address}")
            comp: dict = {"kind": "accelerator",
                          "model": g.name if g and g.name else f"PCI {dev.vendor}:{dev.device} ({dev.address})"}
            if g is not None and g.memory_bytes:
                comp["memory_size"] = sourced(f"{g.memory_bytes // 2 ** 20} MiB",
                                              "nvidia-smi -q: FB Memory Usage Total")
            else:
                comp["unknown"] = ["memory_size"]
            if g is not None:
                self.gpu_ids[g.index] = cid
            self.by_address[dev.address.lower()] = cid
            return cid, comp
        if dev.current_speed and dev.current_width:
            return ident(f"pci-{dev.address}"), {"kind": "device",
                                                 "model": f"PCI {dev.vendor}:{dev.device} class {dev.class_code}"}
        return None

    def devices(self) -> None:
        """GPUs (from PCI classes, hwloc's NVML devices and nvidia-smi) as accelerators, every
        other PCIe device with a trained link as a device, and flows host <-> each of them."""
        to_gpus = []
        for dev in self.facts.pci:
            if self.pcie.has(dev.address):  # NICs and disks have theirs
                continue
            made = self._device_component(dev)
            if made is None:
                continue
            cid, comp = made
            self.comps[cid] = comp
            lid = self.pcie.attach(cid, dev.address)
            start = self._host_end(lid) if lid else None
            if start is None:
                continue
            self.flows[f"host-to-{cid}"] = {"source": start, "sink": cid,
                                            "description": f"host -> {cid}: DMA over PCIe {dev.address}"}
            self.flows[f"{cid}-to-host"] = {"source": cid, "sink": start,
                                            "description": f"{cid} -> host: DMA over PCIe {dev.address}"}
            if comp["kind"] == "accelerator":
                to_gpus.append(f"host-to-{cid}")
                self.scenarios[f"{cid}-both-ways"] = {
                    "flows": [f"host-to-{cid}", f"{cid}-to-host"],
                    "description": f"copies to and from {cid} at once: each PCIe direction also carries "
                                   "the other's ACKs and read requests"}
        if len(to_gpus) > 1:
            self.scenarios["host-to-all-accelerators"] = {
                "flows": to_gpus, "description": "the host copies to every accelerator at once: accelerators "
                                                 "below one switch or root port share its uplink"}

    def document(self, *, name: str, description: str, source: str) -> dict:
        self.cpus()
        self.memory()
        self.nics()
        self.disks()
        self.devices()
        add_nvlinks(self.facts, self.comps, self.links, self.flows, self.gpu_ids, self.by_address)
        doc: dict = {"schema": 1, "name": name, "description": description, "source": source,
                     "components": self.comps}
        for key, part in (("links", self.links), ("flows", self.flows), ("scenarios", self.scenarios)):
            if part:
                doc[key] = part
        return doc


def facts_to_profile_document(facts: MachineFacts, *, name: str | None = None,
                              memory_rate: float | None = None,
                              memory_source: str | None = None,
                              created: str | None = None) -> dict:
    """A profile document (``schema = 1``) of the detected machine (module docstring).

    Flows follow the links that exist: ``nic-rx``/``nic-tx`` end at memory when the memory link
    is known, else at the CPU package (the root complex); ``mem-copy`` exists only with a memory
    link; ``host-to-X``/``X-to-host`` for every device whose path up to its package is known.
    """
    builder = ProfileBuilder(facts, memory_rate=memory_rate, memory_source=memory_source)
    description = f"detected: {facts.cpu_model or 'unknown CPU'}" + (f", {facts.cores} cores" if facts.cores else "")
    return builder.document(name=name or ident(facts.hostname or "this-machine"), description=description,
                            source="pinchpoint detect" + (f", {created}" if created else ""))
