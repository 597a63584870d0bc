"""Linux sysfs and procfs under any root folder -> :class:`~pinchpoint.measure.machine_facts.MachineFacts`.

Files that are absent or unreadable (a VM without cpufreq, a virtio device without a PCIe
link) are unknown; a file that is present but holds something other than what the kernel
documents raises :class:`~pinchpoint.errors.InputError` naming the file.  Sources: the Linux
sysfs ABI documents named in :mod:`pinchpoint.measure.machine_facts`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pinchpoint.physics.linkkinds import PCIE_LANES
from pinchpoint.measure.machine_facts import (PCI_ADDR, SPEED_UNKNOWN, CacheFact, DiskFact, MachineFacts, NicFact, PciDevice,
                            bad_value, clock_from_model_name, parse_cache_size, parse_cpu_list,
                            parse_link_speed, positive_or_none)

_PCIE_WIDTHS = {int(x) for x in PCIE_LANES}

# --- sysfs and procfs ------------------------------------------------------------------------

def _read(path: Path) -> str | None:
    """The stripped text of a sysfs file, or None where it is absent or unreadable (EINVAL on a
    downed link's speed, EACCES ...)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except (OSError, ValueError):
        return None


def _read_int(path: Path, what: str = "a whole number") -> int | None:
    text = _read(path)
    if text is None or text == "":
        return None
    try:
        return int(text, 0) if text.lower().startswith("0x") else int(text)
    except ValueError:
        raise bad_value(path, what, text) from None


def _cpuinfo(proc: Path) -> dict[str, str]:
    info: dict[str, str] = {}
    for line in (_read(proc / "cpuinfo") or "").splitlines():
        key, sep, value = line.partition(":")
        if sep:
            info.setdefault(key.strip(), value.strip())
    return info


#: Linux's PMU folders that list the CPUs of each core type on Intel hybrid parts, named as
#: hwloc's cpukinds name them (CoreType "IntelCore" / "IntelAtom").
HYBRID_PMUS = (("cpu_core", "IntelCore"), ("cpu_atom", "IntelAtom"))


def _cpu_kinds(sys: Path) -> dict[int, str]:
    """CPU number -> core type on a hybrid CPU (empty where the kernel lists none)."""
    kinds: dict[int, str] = {}
    for pmu, name in HYBRID_PMUS:
        text = _read(sys / "devices" / pmu / "cpus")
        if text:
            for cpu in parse_cpu_list(text, file=sys / "devices" / pmu / "cpus"):
                kinds[cpu] = name
    return kinds if len(set(kinds.values())) > 1 else {}


def _cache_record(index: Path):
    """(level, type, size, line, ways, shared CPUs) of one cache index folder, or None."""
    level = _read_int(index / "level", "a cache level")
    kind = _read(index / "type")
    size = _read(index / "size")
    if level is None or not kind or not size:
        return None
    ctype = {"data": "data", "instruction": "instruction", "unified": "unified"}.get(kind.lower())
    if ctype is None:
        raise bad_value(index / "type", "'Data', 'Instruction' or 'Unified'", kind)
    size_bytes = parse_cache_size(size, file=index / "size")
    if size_bytes <= 0 or level < 1 or level > 5:  # "0K": the kernel does not know it
        return None
    shared_text = _read(index / "shared_cpu_list")
    shared = frozenset(parse_cpu_list(shared_text, file=index / "shared_cpu_list")) \
        if shared_text else None
    ways = _read_int(index / "ways_of_associativity")
    line = _read_int(index / "coherency_line_size")
    return (level, ctype, size_bytes, line if line and line > 0 else None,
            ways if ways and ways > 0 else None,  # 0: not reported, not "fully associative"
            shared)


def _cpu_caches(cpus: list[Path], core_of: dict[int, tuple[int, int]], threads_per_core: int,
                kinds: dict[int, str]) -> list[CacheFact]:
    """Every distinct cache of the machine, from every CPU's cache folders.

    A hybrid CPU (P- and E-cores) has caches of several sizes per level: each distinct kind is
    kept, with how many there are and which core type it serves.  ``shared_by`` counts cores
    (CPUs of one core count once), not hardware threads.  Where only some CPUs list their
    caches (a trimmed tree), the count of instances is unknown (None)."""
    seen: dict[tuple, set] = {}
    listed = 0
    for cpu in cpus:
        n = int(cpu.name[3:])
        records = [r for r in (_cache_record(i) for i in sorted((cpu / "cache").glob("index*")))
                   if r is not None]
        listed += bool(records)
        for level, ctype, size, line, ways, shared in records:
            shared = shared or frozenset({n})
            if all(c in core_of for c in shared):
                sharing = len({core_of[c] for c in shared})
            else:
                sharing = max(1, -(-len(shared) // max(1, threads_per_core)))
            served = {kinds.get(c) for c in shared}
            kind = served.pop() if len(served) == 1 else None  # a cache of both core types
            seen.setdefault((level, ctype, size, line, ways, sharing, kind), set()).add(shared)
    complete = listed == len(cpus) and listed > 0
    out = [CacheFact(level, ctype, size, line, ways, sharing,
                     instances=len(sets) if complete else None, cpu_kind=kind)
           for (level, ctype, size, line, ways, sharing, kind), sets in seen.items()]
    return sorted(out, key=lambda c: (c.level, c.type, -c.size_bytes))


def _device_pci_address(dev_link: Path) -> str | None:
    """The PCI address on the path a ``device`` link resolves to (virtio and USB devices sit
    below their PCI function)."""
    if not os.path.lexists(dev_link):
        return None
    try:
        real = Path(os.path.realpath(dev_link))
    except OSError:
        return None
    for part in reversed(real.parts):
        if PCI_ADDR.match(part):
            return part.lower()
    return None


def _pci_devices(sys: Path) -> list[PciDevice]:
    base = sys / "bus" / "pci" / "devices"
    if not base.is_dir():
        return []
    out = []
    for d in sorted(base.iterdir()):
        if not PCI_ADDR.match(d.name):
            continue
        speeds = {}
        for name in ("current_link_speed", "max_link_speed"):
            text = _read(d / name)
            speeds[name] = None if text is None else parse_link_speed(text, file=d / name)
        widths = {}
        for name in ("current_link_width", "max_link_width"):
            w = _read_int(d / name, "a link width such as '16'")
            # 0 or 255: no link; a count PCIe does not define (3, 5 ...) is not a trained width
            widths[name] = w if w in _PCIE_WIDTHS else None
        numa = _read_int(d / "numa_node", "a NUMA node number")
        out.append(PciDevice(
            d.name.lower(), _read(d / "class"), _read(d / "vendor"), _read(d / "device"),
            speeds["current_link_speed"], widths["current_link_width"],
            speeds["max_link_speed"], widths["max_link_width"],
            numa_node=numa if numa is not None and numa >= 0 else None, parent=_pci_parent(d)))
    return out


def _pci_parent(dev: Path) -> str | None:
    """The PCI function above ``dev`` on the path its link resolves to (a root or switch port),
    None right below the host bridge."""
    try:
        parts = Path(os.path.realpath(dev)).parts
    except OSError:
        return None
    addrs = [p.lower() for p in parts if PCI_ADDR.match(p)]
    return addrs[-2] if len(addrs) >= 2 else None


def _nics(sys: Path) -> list[NicFact]:
    base = sys / "class" / "net"
    if not base.is_dir():
        return []
    out = []
    for d in sorted(base.iterdir()):
        if not os.path.lexists(d / "device"):  # lo, bridges, tunnels, ifb: no hardware behind
            continue
        speed = _read_int(d / "speed", "a speed in Mbit/s")
        if speed is not None and (speed <= 0 or speed in SPEED_UNKNOWN or speed > 10_000_000):
            speed = None  # SPEED_UNKNOWN: -1 now, 65535 or (u32)-1 from older drivers
        mtu = _read_int(d / "mtu", "an MTU in bytes")
        out.append(NicFact(d.name, speed * 1e6 / 8 if speed else None,
                           mtu if mtu and mtu > 0 else None, _device_pci_address(d / "device")))
    return out


def _disks(sys: Path) -> list[DiskFact]:
    base = sys / "block"
    if not base.is_dir():
        return []
    out = []
    for d in sorted(base.iterdir()):
        if not os.path.lexists(d / "device"):  # loop, ram, zram, dm-*: no hardware behind
            continue
        sectors = _read_int(d / "size", "a size in 512-byte sectors")
        rot = _read_int(d / "queue" / "rotational", "0 or 1")
        out.append(DiskFact(d.name, sectors * 512 if sectors and sectors > 0 else None,
                            None if rot is None else bool(rot), _device_pci_address(d / "device")))
    return out


def _topology(cpu_dir: Path):
    """(online CPU folders, packages, (package, core) pairs, CPU number -> (package, core))."""
    cpus = sorted((p for p in cpu_dir.glob("cpu[0-9]*") if p.name[3:].isdigit()),
                  key=lambda p: int(p.name[3:])) if cpu_dir.is_dir() else []
    online = _read(cpu_dir / "online")
    online_set = set(parse_cpu_list(online, file=cpu_dir / "online")) if online else None
    packages, cores, core_of, online_cpus = set(), set(), {}, []
    for c in cpus:
        if online_set is not None and int(c.name[3:]) not in online_set:
            continue
        online_cpus.append(c)
        pkg = _read_int(c / "topology" / "physical_package_id", "a package number")
        core = _read_int(c / "topology" / "core_id", "a core number")
        if pkg is not None and core is not None:
            packages.add(pkg)
            cores.add((pkg, core))
            core_of[int(c.name[3:])] = (pkg, core)
    return online_cpus, packages, cores, core_of


def _nominal_clock(freq: Path, model: str | None, sources: list) -> float | None:
    """intel_pstate's base frequency, else the model name's "@ N GHz", else cpufreq's maximum [1]."""
    base = positive_or_none(_read_int(freq / "base_frequency", "a frequency in kHz"))
    if base:
        sources.append(("nominal_clock", "sysfs cpufreq/base_frequency"))
        return base * 1e3
    if clock_from_model_name(model):
        sources.append(("nominal_clock", "/proc/cpuinfo model name"))
        return clock_from_model_name(model)
    cmax = positive_or_none(_read_int(freq / "cpuinfo_max_freq", "a frequency in kHz"))
    if cmax:
        sources.append(("nominal_clock", "sysfs cpufreq/cpuinfo_max_freq"))
        return cmax * 1e3
    return None


def _current_clock(freq: Path, proc: Path, info: dict, sources: list) -> float | None:
    current = positive_or_none(_read_int(freq / "scaling_cur_freq", "a frequency in kHz"))
    if current:
        sources.append(("current_clock", "sysfs cpufreq/scaling_cur_freq"))
        return current * 1e3
    mhz = info.get("cpu MHz")
    if mhz is None:
        return None
    try:
        hz = positive_or_none(float(mhz[:32]) * 1e6)
    except ValueError:
        raise bad_value(proc / "cpuinfo", "'cpu MHz' to be a number", mhz) from None
    if hz:
        sources.append(("current_clock", "/proc/cpuinfo cpu MHz"))
    return hz


def _memtotal(proc: Path, sources: list) -> int | None:
    for line in (_read(proc / "meminfo") or "").splitlines():
        if line.startswith("MemTotal:"):
            m = re.match(r"^MemTotal:\s*([0-9]{1,20})\s*kB\s*$", line)
            if not m:
                raise bad_value(proc / "meminfo", "'MemTotal: N kB'", line)
            sources.append(("memory_bytes", "/proc/meminfo MemTotal (less than installed: the kernel's own "
                                            "share is not counted)"))
            return positive_or_none(int(m.group(1)) * 1024)
    return None


def read_sysfs(root: Path | str = Path("/")) -> MachineFacts:
    """Read the machine from ``ROOT/sys`` and ``ROOT/proc`` [1]_ [2]_ [3]_.

    Parameters
    ----------
    root : path
        The folder holding ``sys`` and ``proc`` ("/" on a live system; a recorded tree in
        tests).

    Raises
    ------
    InputError
        If a file that exists holds text that is not what the kernel writes there.
    """
    root = Path(root)
    sys, proc = root / "sys", root / "proc"
    cpu_dir = sys / "devices" / "system" / "cpu"
    sources: list[tuple[str, str]] = []
    online_cpus, packages, cores, core_of = _topology(cpu_dir)
    info = _cpuinfo(proc)
    n_threads = len(online_cpus) or sum(1 for line in (_read(proc / "cpuinfo") or "").splitlines()
                                        if line.startswith("processor"))
    threads = n_threads or None
    n_cores = len(cores) or None
    if n_cores:
        sources.append(("cores", "sysfs cpu*/topology"))
    tpc = max(1, (threads or 1) // (n_cores or threads or 1))
    model = info.get("model name") or info.get("cpu") or info.get("Model") or None
    model = " ".join(model.split()) if model else None
    if model:
        sources.append(("cpu_model", "/proc/cpuinfo"))
    freq = cpu_dir / "cpu0" / "cpufreq"
    nominal = _nominal_clock(freq, model, sources)
    current_hz = _current_clock(freq, proc, info, sources)
    memory = _memtotal(proc, sources)
    caches = _cpu_caches(online_cpus, core_of, tpc, _cpu_kinds(sys)) if online_cpus else []
    if caches:
        sources.append(("caches", "sysfs cpu*/cache/index*"))
    return MachineFacts(
        cpu_model=model, sockets=len(packages) or None, cores=n_cores, threads=threads,
        nominal_clock=nominal, current_clock=current_hz, governor=_read(freq / "scaling_governor") or None,
        caches=tuple(caches), memory_bytes=memory, pci=tuple(_pci_devices(sys)),
        nics=tuple(_nics(sys)), disks=tuple(_disks(sys)), hostname=_read(proc / "sys" / "kernel" / "hostname"),
        sources=tuple(sources))


def combine(primary: MachineFacts, secondary: MachineFacts) -> MachineFacts:
    """Facts from ``primary`` where known, else from ``secondary`` (hwloc over sysfs for the
    topology; sysfs adds clocks, NIC speeds and PCIe link details)."""
    out = {}
    for name in ("cpu_model", "sockets", "cores", "threads", "nominal_clock", "current_clock",
                 "governor", "memory_bytes", "hostname"):
        out[name] = getattr(primary, name) if getattr(primary, name) is not None else getattr(secondary, name)
    # The kernel's MemTotal counts memory hotplugged into a VM that hwloc's NUMA nodes can miss.
    if secondary.memory_bytes is not None:
        out["memory_bytes"] = secondary.memory_bytes
    out["caches"] = primary.caches or secondary.caches
    for name in ("gpus", "nvlinks", "memories", "nvlink_bandwidths"):  # hwloc's GPUs, NUMA memories, NVLink
        out[name] = getattr(primary, name) or getattr(secondary, name)
    # PCI: union by address, fields filled from either side.
    # sysfs knows more of a PCI function (full class, both link speeds): it fills first.
    pci: dict[str, PciDevice] = {d.address.lower(): d for d in primary.pci}
    for d in secondary.pci:
        other = pci.get(d.address.lower())
        if other is None:
            pci[d.address.lower()] = d
        else:
            merged = {k: getattr(d, k) if getattr(d, k) is not None else getattr(other, k)
                      for k in PciDevice.__dataclass_fields__}
            merged["address"] = d.address.lower()
            pci[d.address.lower()] = PciDevice(**merged)
    out["pci"] = tuple(sorted(pci.values(), key=lambda d: d.address))
    for name, cls in (("nics", NicFact), ("disks", DiskFact)):
        items = {x.name: x for x in getattr(secondary, name)}
        for x in getattr(primary, name):
            other = items.get(x.name)
            items[x.name] = x if other is None else cls(**{
                k: getattr(x, k) if getattr(x, k) is not None else getattr(other, k)
                for k in cls.__dataclass_fields__})
        out[name] = tuple(sorted(items.values(), key=lambda x: x.name))
    psrc, ssrc = dict(primary.sources), dict(secondary.sources)
    final = {}
    for key in set(psrc) | set(ssrc):
        used_primary = key in psrc and (not hasattr(primary, key) or getattr(primary, key) not in (None, ()))
        if key == "memory_bytes" and secondary.memory_bytes is not None:
            used_primary = False
        final[key] = psrc[key] if used_primary else ssrc.get(key, psrc.get(key))
    out["sources"] = tuple(sorted(final.items()))
    return MachineFacts(**out)


