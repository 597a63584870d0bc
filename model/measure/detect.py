"""Describe the machine we run on: hwloc XML and Linux sysfs/procfs -> facts -> profile document.

Three layers, as everywhere in pinchpoint:

1. Parsing (:func:`~pinchpoint.measure.hwloc.parse_hwloc_xml`, :func:`~pinchpoint.measure.sysfs.read_sysfs`,
   facts in :mod:`pinchpoint.measure.machine_facts`): text and a root folder in, a frozen
   :class:`MachineFacts` out.  Nothing is invented: a value the machine does not reveal stays
   ``None`` ("unknown").  Files that are absent or unreadable (a VM without cpufreq, a virtio
   device without a PCIe link) are unknown; a file that is present but holds something that is
   not what the kernel documents writes there raises :class:`~pinchpoint.errors.InputError`
   naming the file.
2. Judgement (:func:`flags`): what looks wrong -- a PCIe device below its maximum link speed or
   width, a CPU below its nominal clock or under a power-saving governor (seed 002, "Servers
   reported only running @ 2.0 GHz ... 'cpuspeed' service was saving power"), an MTU of 1500 on
   a NIC of 10 Gbit/s or more.
3. :func:`facts_to_profile_document`: a profile document (``schema = 1``) the normal loader
   accepts, with every parameter the machine did not reveal listed under ``unknown``.
"""

from __future__ import annotations

import re
from pathlib import Path

from pinchpoint.measure.hwloc import parse_hwloc_xml
from pinchpoint.measure.sysfs import combine, read_sysfs
from pinchpoint.errors import InputError
from pinchpoint.measure.machine_facts import (PCIE_GENERATIONS, CacheFact, DiskFact, Flag, MachineFacts, NicFact, PciDevice,
                            clock_from_model_name, parse_cache_size, parse_cpu_list, parse_link_speed,
                            pcie_generation)

# The parsers and facts live in their own modules; these names stay importable from here.
__all__ = ["CacheFact", "DiskFact", "Flag", "MachineFacts", "NicFact", "PciDevice", "combine", "detect",
           "facts_to_profile_document", "flags", "memory_rate_from_signature", "parse_cache_size",
           "parse_cpu_list", "parse_hwloc_xml", "parse_link_speed", "pcie_generation", "read_sysfs",
           "unchecked", "THROTTLE_RATIO", "JUMBO_RATE", "clock_from_model_name"]

#: Ratio below which the current clock counts as throttled (idle cores clock down a little
#: under every dynamic governor; a power-saving service halves it, seed 002).
THROTTLE_RATIO = 0.9

#: NIC line rate from which an MTU of 1500 is flagged [B/s] (10 Gbit/s).
JUMBO_RATE = 10e9 / 8


# --- flags -----------------------------------------------------------------------------------

def _pcie_rate(speed, width) -> float | None:
    gen = pcie_generation(speed) if speed else None
    if gen is None or not width:
        return None
    g = PCIE_GENERATIONS[gen]
    return g.lane_rate * width * g.encoding / 8


def _fmt_gts(x: float) -> str:
    return f"{x / 1e9:g} GT/s"


def _link_text(speed: float | None, width: int | None) -> str:
    """'8 GT/s x4', '8 GT/s' or 'x4' (whatever is known)."""
    return " ".join(p for p in (_fmt_gts(speed) if speed else "", f"x{width}" if width else "") if p) or "unknown"


def flags(facts: MachineFacts) -> list[Flag]:
    """What in ``facts`` likely costs performance, in a stable order."""
    from pinchpoint.physics import units

    out: list[Flag] = []
    for d in facts.pci:
        if d.is_bridge or not d.downgraded:
            continue
        cur, mx = _link_text(d.current_speed, d.current_width), _link_text(d.max_speed, d.max_width)
        have, could = _pcie_rate(d.current_speed, d.current_width), _pcie_rate(d.max_speed, d.max_width)
        rates = (f": {units.format_rate(have, 'memory')} of {units.format_rate(could, 'memory')} per direction"
                 if have and could else "")
        narrow = d.current_width is not None and d.max_width is not None and d.current_width < d.max_width
        if narrow:
            why = (f"it needs a wider link (an x{d.max_width} card in an x{d.current_width} slot, "
                   "or a slot that shares its lanes?)")
        else:
            why = "it trained at a lower speed (an older slot or riser, or power management)"
        out.append(Flag("pcie-downgraded", d.address,
                        f"PCIe device {d.address} (class {d.class_code or '?'}) runs its link at {cur} but "
                        f"supports {mx}{rates}: {why} -- idle GPUs also lower the speed to save power, "
                        "so check under load"))
    if facts.nominal_clock and facts.current_clock and facts.current_clock < THROTTLE_RATIO * facts.nominal_clock:
        gov = f" (governor {facts.governor})" if facts.governor else ""
        out.append(Flag("cpu-throttled", "cpu0",
                        f"the CPU runs at {units.format_quantity(facts.current_clock, 'frequency')}, below its "
                        f"nominal {units.format_quantity(facts.nominal_clock, 'frequency')}{gov}: power saving "
                        "lowers every CPU-bound ceiling (seed 002: 'Servers reported only running @ 2.0 GHz ... "
                        "the cpuspeed service was saving power'); try the 'performance' governor"))
    if facts.governor and facts.governor.lower() in ("powersave", "conservative"):
        out.append(Flag("cpu-governor", "cpu0",
                        f"the cpufreq governor is {facts.governor!r}: it favours power over speed "
                        "(with intel_pstate, 'powersave' still scales up under load; elsewhere it pins the lowest clock)"))
    for n in facts.nics:
        if n.speed_bytes_per_s and n.speed_bytes_per_s >= JUMBO_RATE * 0.999 and n.mtu == 1500:
            out.append(Flag("mtu", n.name,
                            f"{n.name} runs at {units.format_rate(n.speed_bytes_per_s, 'network')} with an MTU of 1500 B: "
                            "per-packet costs cap the host well below line rate; jumbo frames (MTU 9000) "
                            "cut the packet rate six-fold where the path allows them"))
    return out


def unchecked(facts: MachineFacts) -> list[str]:
    """What :func:`flags` could not judge because the machine did not reveal it."""
    out = []
    if not (facts.nominal_clock and facts.current_clock):
        missing = " and ".join(n for n, v in (("nominal", facts.nominal_clock), ("current", facts.current_clock))
                               if not v)
        out.append(f"CPU clock (the {missing} clock is unknown)")
    if facts.governor is None:
        out.append("cpufreq governor (no cpufreq in sysfs)")
    if not any(d.current_speed and d.max_speed for d in facts.pci):
        out.append("PCIe link speed and width (no device reports current and maximum link)")
    if facts.nics and not any(n.speed_bytes_per_s for n in facts.nics):
        out.append("MTU against NIC speed (no NIC reports its speed)")
    return out


# --- the profile document --------------------------------------------------------------------

def _ident(text: str) -> str:
    clean = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")
    if not clean or not clean[0].isalpha():
        clean = "x" + clean
    return clean


def _bytes_text(n: float) -> str:
    for unit, f in (("GiB", 1024 ** 3), ("MiB", 1024 ** 2), ("KiB", 1024)):
        if n >= f and n % f == 0:
            return f"{n // f:d} {unit}" if isinstance(n, int) else f"{int(n // f)} {unit}"
    return f"{int(n)} B"


def _v(text, source):
    return {"value": text, "source": source} if source else text


def _hz_text(hz: float) -> str:
    return f"{hz / 1e9:.6g} GHz" if hz >= 1e9 else f"{hz / 1e6:.6g} MHz"


def facts_to_profile_document(facts: MachineFacts, *, name: str | None = None,
                              memory_rate: float | None = None,
                              memory_source: str | None = None,
                              created: str | None = None) -> dict:
    """A profile document (``schema = 1``) of the detected machine.

    Links appear only where their capacity is known: Ethernet from the NIC's speed, PCIe from
    the negotiated generation and lanes (or hwloc's ``pci_link_speed``), memory only from a
    measurement (``memory_rate`` [B/s], e.g. the STREAM figure of ``detect --measure``): sysfs
    does not tell memory bandwidth, and a guess would be an invented value.  Flows follow the
    links that exist: ``nic-rx``/``nic-tx`` end at memory when the memory link is known, else
    at the CPU package (the root complex); ``mem-copy`` exists only with a memory link.

    The root complex and the memory controller are modelled as part of the CPU package (cpu0),
    as they are on every current x86 and Arm server; sysfs gives no capacity for the path
    between a core and that uncore, so a separate controller node could carry no link.
    """
    src_all = "pinchpoint detect" + (f", {created}" if created else "")
    sockets = facts.sockets or 1
    doc: dict = {"schema": 1, "name": name or _ident(facts.hostname or "this-machine"),
                 "description": f"detected: {facts.cpu_model or 'unknown CPU'}"
                                f"{f', {facts.cores} cores' if facts.cores else ''}",
                 "source": src_all, "components": {}, "links": {}, "flows": {}}
    comps, links, flows = doc["components"], doc["links"], doc["flows"]

    caches = []
    for c in facts.caches:
        entry = {"level": c.level, "type": c.type, "size": _bytes_text(c.size_bytes)}
        if c.line_bytes:
            entry["line"] = f"{c.line_bytes} B"
        if c.associativity is not None:
            entry["associativity"] = c.associativity
        if c.shared_by:
            entry["shared_by"] = c.shared_by
        if c.cpu_kind:  # a hybrid CPU: which cores have this cache (profiles have no field for it)
            entry["source"] = f"{facts.source('caches') or 'detected'}: {c.instances} of them, {c.cpu_kind} cores"
        caches.append(entry)
    for s in range(sockets):
        cpu: dict = {"kind": "cpu"}
        unknown = []
        if facts.cpu_model:
            cpu["model"] = facts.cpu_model
        if facts.nominal_clock:
            cpu["clock"] = _v(_hz_text(facts.nominal_clock), facts.source("nominal_clock"))
        else:
            unknown.append("clock")
        if facts.current_clock:
            cpu["current_clock"] = _v(_hz_text(facts.current_clock), facts.source("current_clock"))
        if facts.cores_per_socket:
            cpu["cores"] = facts.cores_per_socket
        else:
            unknown.append("cores")
        if facts.threads_per_core:
            cpu["threads_per_core"] = facts.threads_per_core
        else:
            unknown.append("threads_per_core")
        unknown += ["flops_per_cycle"]
        cpu["unknown"] = unknown
        if facts.source("caches"):
            cpu["source"] = facts.source("caches")
        if caches:
            cpu["caches"] = caches
        comps[f"cpu{s}"] = cpu
    mem: dict = {"kind": "memory"}
    if facts.memory_bytes:
        mem["size"] = _v(_bytes_text(facts.memory_bytes), facts.source("memory_bytes"))
    else:
        mem["unknown"] = ["size"]
    comps["memory"] = mem
    if memory_rate:
        links["memory"] = {"kind": "link", "between": ["cpu0", "memory"],
                           "description": "CPU package to memory, as measured: reads and writes share it",
                           "rate": {"value": f"{memory_rate / 1e9:.6g} GB/s",
                                    "source": memory_source or "measured"},
                           "shared": 1}
        flows["mem-copy"] = {"description": "memory copy by one package: read and write share the memory link",
                             "legs": [["memory", "cpu0"], ["cpu0", "memory"]]}

    by_addr = {d.address.lower(): d for d in facts.pci}
    done: set[str] = set()  # PCI functions that have a component already

    def depth(dev: PciDevice) -> int:
        """PCI functions above ``dev`` (0: right below the host bridge, a root port's level)."""
        n, seen = 0, set()
        while dev.parent and dev.parent in by_addr and dev.parent not in seen:
            seen.add(dev.parent)
            dev, n = by_addr[dev.parent], n + 1
        return n

    def socket_of(dev: PciDevice) -> str:
        return f"cpu{dev.numa_node}" if dev.numa_node is not None and f"cpu{dev.numa_node}" in comps else "cpu0"

    def upstream(dev: PciDevice) -> str:
        """The component at the other end of ``dev``'s link: the CPU package for a device on a
        root port (or the root bus), else the switch whose downstream port it hangs off.  Bridges
        alternate below a root port: switch upstream port (odd depth), downstream port (even)."""
        parent = by_addr.get(dev.parent or "")
        if parent is None or depth(parent) == 0 or not parent.is_bridge:
            return socket_of(dev) if parent is None or parent.is_bridge else upstream(parent)
        usp = parent if depth(parent) % 2 == 1 else by_addr.get(parent.parent or "", parent)
        return switch(usp)

    def switch(usp: PciDevice) -> str:
        sid = _ident(f"pcisw-{usp.address}")
        if sid not in comps:
            comps[sid] = {"kind": "switch", "model": f"PCIe switch, upstream port {usp.address}"}
            attach(sid, usp.address, "switch uplink: shared by every device below")
        return sid

    def attach(cid: str, address: str | None, role: str = "") -> str | None:
        """Add the PCIe link of a device to its root port or switch; return the link id or None."""
        dev = facts.pci_device(address)
        if dev is None:
            return None
        done.add(dev.address.lower())
        up = upstream(dev)
        lid = f"pcie-{_ident(cid)}"
        gen = pcie_generation(dev.current_speed) if dev.current_speed else None
        could = dev.downgraded and dev.max_speed and dev.max_width
        maxi = (f"; the device supports {_fmt_gts(dev.max_speed)} x{dev.max_width}"
                + (" (it could train wider or faster: see the flags)" if could else "")
                if dev.max_speed and dev.max_width else "")
        role = f" ({role})" if role else ""
        if gen and dev.current_width:
            links[lid] = {"kind": "pcie", "between": [cid, up], "generation": gen,
                          "lanes": {"value": dev.current_width,
                                    "source": f"sysfs {dev.address}/current_link_width"},
                          "description": f"PCIe {dev.address}{role}: negotiated {_fmt_gts(dev.current_speed)} "
                                         f"x{dev.current_width}{maxi}",
                          "source": f"sysfs {dev.address}/current_link_speed"}
            return lid
        if dev.link_bytes_per_s:
            links[lid] = {"kind": "link", "between": [cid, up],
                          "rate": {"value": f"{dev.link_bytes_per_s / 1e9:.6g} GB/s",
                                   "source": f"hwloc pci_link_speed of {dev.address}"},
                          "description": f"PCIe {dev.address}{role}: generation and lanes unknown"}
            return lid
        return None

    physical = [n for n in facts.nics]
    for n in physical:
        nid = _ident(f"nic-{n.name}")
        nic: dict = {"kind": "nic"}
        dev = facts.pci_device(n.pci_address)
        if dev and dev.vendor and dev.device:
            nic["model"] = f"PCI {dev.vendor}:{dev.device} ({n.pci_address})"
        unknown = []
        if n.speed_bytes_per_s:
            nic["line_rate"] = _v(f"{n.speed_bytes_per_s * 8 / 1e6:g} Mbit/s", f"sysfs class/net/{n.name}/speed")
        else:
            unknown.append("line_rate")
        if n.mtu:
            nic["mtu"] = _v(f"{n.mtu} B", f"sysfs class/net/{n.name}/mtu")
        unknown.append("max_mtu")
        nic["unknown"] = unknown
        comps[nid] = nic
        net = _ident(f"network-{n.name}")
        comps[net] = {"kind": "network", "description": f"the network beyond {n.name}"}
        chain = []
        if n.speed_bytes_per_s:
            links[_ident(f"ethernet-{n.name}")] = {"kind": "ethernet", "between": [net, nid],
                                                   "rate": _v(f"{n.speed_bytes_per_s * 8 / 1e6:g} Mbit/s",
                                                              f"sysfs class/net/{n.name}/speed")}
            chain.append(nid)
            pl = attach(nid, n.pci_address)
            if pl:
                chain += _route_up(links, pl)
                if memory_rate and chain[-1] == "cpu0":
                    chain.append("memory")
        if chain:
            suffix = "" if len(physical) == 1 else f"-{n.name}"
            end = chain[-1]
            note = "" if end == "memory" else (
                f" (ends at {end}: the links beyond are unknown"
                + ("; `detect --measure` adds memory)" if end.startswith("cpu") else ")"))
            flows[f"nic-rx{suffix}"] = {"source": net, "sink": end,
                                        "description": f"receive on {n.name}: wire -> NIC -> host{note}"}
            flows[f"nic-tx{suffix}"] = {"source": end, "sink": net,
                                        "description": f"send on {n.name}: host -> NIC -> wire{note}"}
    for d in facts.disks:
        did = _ident(f"disk-{d.name}")
        disk: dict = {"kind": "disk", "unknown": ["rate"]}
        if d.rotational is not None:
            disk["type"] = "rotational" if d.rotational else "solid state (or virtual)"
        if d.size_bytes:
            disk["size"] = _v(_bytes_text(d.size_bytes), f"sysfs block/{d.name}/size")
        else:
            disk["unknown"].append("size")
        comps[did] = disk
        attach(did, d.pci_address)
    scenarios: dict = {}
    _accelerators_and_devices(facts, comps, links, flows, scenarios, attach, memory_rate, done)
    if scenarios:
        doc["scenarios"] = scenarios
    if not links:
        del doc["links"]
    if not flows:
        del doc["flows"]
    return doc


def _route_up(links: dict, lid: str) -> list[str]:
    """The components from a device's link up to the CPU package: [switch ..., cpuN]."""
    out, seen = [], set()
    while lid in links and lid not in seen:
        seen.add(lid)
        up = links[lid]["between"][1]
        out.append(up)
        lid = f"pcie-{_ident(up)}"
    return out


#: PCI class codes of GPUs and other accelerators: display (0x03xx) and processing accelerators (0x12xx).
_ACCELERATOR_CLASSES = ("0x03", "0x12")


def _accelerators_and_devices(facts: MachineFacts, comps, links, flows, scenarios, attach, memory_rate,
                              done) -> None:
    """GPUs (from PCI classes and nvidia-smi) as accelerator components, every other PCIe device
    with a trained link as a device, NVLink from ``topo -m``, and flows host -> each of them."""
    from pinchpoint.measure.nvidia import NVLINK_RATE

    gpus = {g.pci_address: g for g in facts.gpus if g.pci_address}
    gpu_ids: dict[int, str] = {}
    for dev in facts.pci:
        if dev.is_bridge or dev.address.lower() in done:  # NICs, disks and switches have theirs
            continue
        cls = (dev.class_code or "").lower()
        if cls.startswith("0x06"):  # host bridges, ISA bridges: no link to model
            continue
        g = gpus.get(dev.address)
        if cls.startswith(_ACCELERATOR_CLASSES) or g is not None:
            cid = f"gpu{g.index}" if g is not None else _ident(f"gpu-{dev.address}")
            comp: dict = {"kind": "accelerator", "model": (g.name if g and g.name else
                                                           f"PCI {dev.vendor}:{dev.device} ({dev.address})")}
            if g is not None and g.memory_bytes:
                comp["memory_size"] = _v(f"{g.memory_bytes // 2 ** 20} MiB", "nvidia-smi -q: FB Memory Usage Total")
            else:
                comp["unknown"] = ["memory_size"]
            if g is not None:
                gpu_ids[g.index] = cid
        elif dev.current_speed and dev.current_width:
            cid = _ident(f"pci-{dev.address}")
            comp = {"kind": "device", "model": f"PCI {dev.vendor}:{dev.device} class {dev.class_code}"}
        else:
            continue  # no trained link and not a GPU: nothing to model
        comps[cid] = comp
        lid = attach(cid, dev.address)
        if lid:
            host = _route_up(links, lid)[-1]
            start = "memory" if memory_rate and host == "cpu0" else host
            flows[f"host-to-{cid}"] = {"source": start, "sink": cid,
                                       "description": f"host -> {cid}: DMA over PCIe {dev.address}"}
            flows[f"{cid}-to-host"] = {"source": cid, "sink": start,
                                       "description": f"{cid} -> host: DMA over PCIe {dev.address}"}
            if comp["kind"] == "accelerator":
                scenarios[f"{cid}-both-ways"] = {
                    "flows": [f"host-to-{cid}", f"{cid}-to-host"],
                    "description": f"copies to and from {cid} at once: each PCIe direction also carries "
                                   "the other's ACKs and read requests"}
    _nvlinks(facts, comps, links, flows, gpu_ids, NVLINK_RATE)


def _nvlinks(facts, comps, links, flows, gpu_ids, rates) -> None:
    """NVLink from ``nvidia-smi topo -m``: the same NV# between every pair of three or more GPUs is
    an NVSwitch fabric (one switch node, each GPU's links to it); otherwise direct bonded links."""
    pairs = [(i, j, n) for i, j, n in facts.nvlinks if i in gpu_ids and j in gpu_ids]
    if not pairs:
        return
    arch = {g.index: g.architecture for g in facts.gpus}
    counts = {n for _, _, n in pairs}
    members = sorted({x for i, j, _ in pairs for x in (i, j)})
    fabric = len(members) >= 3 and len(counts) == 1 and len(pairs) == len(members) * (len(members) - 1) // 2
    src = "nvidia-smi topo -m"

    def rate(i):
        r = rates.get(arch.get(i) or "")
        return None if r is None else {"value": f"{r / 1e9:g} GB/s",
                                       "source": f"NVIDIA {arch[i]} architecture whitepaper (per link and direction)"}

    if fabric:
        comps["nvswitch"] = {"kind": "switch", "model": "NVLink fabric (NVSwitch): every GPU pair shows NV"
                                                         f"{pairs[0][2]} in topo -m"}
        for i in members:
            if rate(i) is None:
                continue
            links[f"nvlink-{gpu_ids[i]}"] = {"kind": "nvlink", "between": [gpu_ids[i], "nvswitch"],
                                             "count": {"value": pairs[0][2], "source": src},
                                             "link_rate": rate(i)}
    else:
        for i, j, n in pairs:
            if rate(i) is None:
                continue
            links[f"nvlink-{gpu_ids[i]}-{gpu_ids[j]}"] = {"kind": "nvlink", "between": [gpu_ids[i], gpu_ids[j]],
                                                          "count": {"value": n, "source": src},
                                                          "link_rate": rate(i)}
    a, b = gpu_ids[pairs[0][0]], gpu_ids[pairs[0][1]]
    if any(l["kind"] == "nvlink" for l in links.values()):
        flows[f"{a}-to-{b}"] = {"source": a, "sink": b, "description": f"GPU -> GPU over NVLink ({src})"}


def memory_rate_from_signature(signature, *, file: str | None = None) -> tuple[float, str]:
    """The memory bandwidth a signature measured [B/s] and a source text for the profile.

    The memory bandwidth by :func:`pinchpoint.prediction.rates.memory_bandwidth` (the policy every
    caller shares): the highest of the signature's memory sources (STREAM, MAPS stride-1,
    likwid-bench, Memperf, Xbench), each at its largest working set with the most threads (a
    single thread rarely saturates a modern memory system, so the multi-threaded figures usually
    win); PEAK DOT x 8 B/flop only without any of them.

    Each figure is the best of its repetitions, as STREAM ("Best Rate MB/s", McCalpin) and
    likwid-bench report bandwidth: interference on a shared machine only slows a transfer, so
    the median of one noisy run (45.0 GB/s in one run, 73.4 GB/s minutes later on a shared VM)
    says more about the neighbours than the machine.  The source text records the repetitions,
    the median and the spread (max/min).

    Raises
    ------
    InputError
        If the signature has none of these points.
    """
    from pinchpoint.prediction.rates import memory_bandwidth

    got = memory_bandwidth(signature, "best")
    if got is None:
        raise InputError("the signature has no STREAM, MAPS stride-1, likwid-bench, Memperf or Xbench "
                         "bandwidth points (nor PEAK DOT) to take the memory bandwidth from", file=file,
                         key="kernels")
    r = got.point.result
    label = ", ".join(f"{k}={v}" for k, v in got.point.params.items()
                      if k in ("op", "threads", "working_set_bytes", "loop_length"))
    host = signature.host.get("name") or signature.host.get("cpu_model")
    what = got.label + (" x 8 B/flop" if got.peak_loop else "")
    return got.bytes_per_s, (f"measured: {what} best of {len(r.repetitions)} repetitions ({label + '; ' if label else ''}median "
                             f"{r.median / 1e9:.4g} GB/s, spread max/min {r.spread:.3g}) on {host}, "
                             f"{signature.created}" + (f" ({file})" if file else ""))


def detect(root: Path | str | None = Path("/"), hwloc_xml: str | None = None, *,
           hwloc_file: str | None = None, nvidia_smi_q: str | None = None, nvidia_topo: str | None = None,
           nvidia_files: tuple[str | None, str | None] = (None, None)) -> MachineFacts:
    """Facts of a machine: hwloc's XML where given (topology, caches), over sysfs (clocks,
    NIC speeds, PCIe link details); GPUs and NVLink from ``nvidia-smi -q`` and ``topo -m`` text.
    ``root = None`` with an XML: the file's machine only, no /sys (an XML file from another
    machine must not pick up this one's CPU, memory or disks)."""
    from dataclasses import replace

    from pinchpoint.measure.nvidia import parse_nvidia_smi_q, parse_topo_matrix

    if root is None:
        if hwloc_xml is None:
            raise ValueError("detect needs a sysfs root, an hwloc XML, or both")
        facts = parse_hwloc_xml(hwloc_xml, file=hwloc_file)
    else:
        sysfs = read_sysfs(root)
        facts = sysfs if hwloc_xml is None else combine(parse_hwloc_xml(hwloc_xml, file=hwloc_file), sysfs)
    if nvidia_smi_q:
        facts = replace(facts, gpus=parse_nvidia_smi_q(nvidia_smi_q, file=nvidia_files[0]))
    if nvidia_topo:
        facts = replace(facts, nvlinks=parse_topo_matrix(nvidia_topo, file=nvidia_files[1]))
    return facts


__all__ = ["CacheFact", "PciDevice", "NicFact", "DiskFact", "MachineFacts", "Flag",
           "parse_hwloc_xml", "read_sysfs", "combine", "detect", "flags",
           "facts_to_profile_document", "memory_rate_from_signature", "unchecked", "parse_link_speed", "pcie_generation", "parse_cache_size",
           "parse_cpu_list", "clock_from_model_name"]

