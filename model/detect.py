"""Describe the machine we run on: hwloc XML and Linux sysfs/procfs -> facts -> profile document.

Three layers, as everywhere in pinchpoint:

1. Parsing (:func:`parse_hwloc_xml`, :func:`read_sysfs`): text and a root folder in, a frozen
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

Sources
-------
.. [1] Linux ``Documentation/ABI/testing/sysfs-devices-system-cpu`` (cache ``index*``:
   ``level``, ``type``, ``size``, ``coherency_line_size``, ``ways_of_associativity``,
   ``shared_cpu_list``; ``cpufreq``: ``cpuinfo_max_freq``, ``scaling_cur_freq`` [kHz],
   ``scaling_governor``, ``base_frequency`` [kHz] of intel_pstate).
.. [2] Linux ``Documentation/ABI/testing/sysfs-bus-pci`` (``current_link_speed`` such as
   "8.0 GT/s PCIe", ``current_link_width``, ``max_link_speed``, ``max_link_width``,
   ``numa_node``, ``class``, ``vendor``, ``device``).
.. [3] Linux ``Documentation/ABI/testing/sysfs-class-net`` (``speed`` [Mbit/s], -1 when
   unknown; ``mtu`` [B]) and ``Documentation/ABI/stable/sysfs-block`` (``size`` in 512-byte
   sectors, ``queue/rotational``).
.. [4] hwloc, *XML topology format* (hwloc2.dtd): ``cache_size`` [B], ``cache_linesize`` [B],
   ``cache_associativity`` (0 unknown, -1 fully associative), ``cache_type`` (0 unified, 1 data,
   2 instruction), ``local_memory`` [B], ``pci_busid``, ``pci_type``, ``pci_link_speed``
   [GB/s per direction as negotiated now], ``osdev_type`` (0 block, 2 network).
.. [5] PCI-SIG, *PCI Express Base Specification* (generation lane rates 2.5, 5, 8, 16, 32,
   64 GT/s).
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass
from pathlib import Path

from .errors import InputError
from .protocols import PCIE_GENERATIONS

#: Ratio below which the current clock counts as throttled (idle cores clock down a little
#: under every dynamic governor; a power-saving service halves it, seed 002).
THROTTLE_RATIO = 0.9

#: NIC line rate from which an MTU of 1500 is flagged [B/s] (10 Gbit/s).
JUMBO_RATE = 10e9 / 8

#: Values of /sys/class/net/IFACE/speed [Mbit/s] that mean "unknown" (ethtool SPEED_UNKNOWN
#: is -1; older drivers wrote 65535 or 4294967295).
_SPEED_UNKNOWN = (65535, 4294967295)

_PCI_ADDR = re.compile(r"^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
_GTS = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*GT/s(?:\s+PCIe)?\s*$")
_GHZ = re.compile(r"@\s*([0-9]+(?:\.[0-9]+)?)\s*GHz", re.I)


# --- facts -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class CacheFact:
    """One cache of one core: sizes in bytes; ``shared_by`` in cores (None: unknown)."""

    level: int
    type: str  # "data", "instruction" or "unified"
    size_bytes: int
    line_bytes: int | None = None
    associativity: int | None = None  # 0 = fully associative
    shared_by: int | None = None


@dataclass(frozen=True)
class PciDevice:
    """A PCI function and its link: speeds in transfers per second per lane [1/s]."""

    address: str
    class_code: str | None = None  # "0x020000"
    vendor: str | None = None
    device: str | None = None
    current_speed: float | None = None
    current_width: int | None = None
    max_speed: float | None = None
    max_width: int | None = None
    link_bytes_per_s: float | None = None  # hwloc pci_link_speed (one direction, as negotiated)
    numa_node: int | None = None

    @property
    def is_bridge(self) -> bool:
        return bool(self.class_code) and self.class_code.lower().startswith("0x0604")

    @property
    def downgraded(self) -> bool:
        """True if the link runs below the device's maximum speed or width."""
        slow = (self.current_speed is not None and self.max_speed is not None
                and self.current_speed < self.max_speed * 0.999)
        narrow = (self.current_width is not None and self.max_width is not None
                  and self.current_width < self.max_width)
        return slow or narrow


@dataclass(frozen=True)
class NicFact:
    """A network interface with a device behind it: ``speed`` [B/s], ``mtu`` [B]."""

    name: str
    speed: float | None = None
    mtu: int | None = None
    pci_address: str | None = None


@dataclass(frozen=True)
class DiskFact:
    """A block device with a device behind it: ``size_bytes`` [B]."""

    name: str
    size_bytes: int | None = None
    rotational: bool | None = None
    pci_address: str | None = None


@dataclass(frozen=True)
class MachineFacts:
    """What detection found.  ``None`` (or an empty tuple) means unknown, never zero.

    Clocks in hertz, sizes in bytes.  ``sources`` maps a field name to where it was read.
    """

    cpu_model: str | None = None
    sockets: int | None = None
    cores: int | None = None  # physical cores in all sockets
    threads: int | None = None  # logical CPUs in all sockets
    nominal_clock: float | None = None
    current_clock: float | None = None
    governor: str | None = None
    caches: tuple[CacheFact, ...] = ()
    memory_bytes: int | None = None
    pci: tuple[PciDevice, ...] = ()
    nics: tuple[NicFact, ...] = ()
    disks: tuple[DiskFact, ...] = ()
    hostname: str | None = None
    sources: tuple[tuple[str, str], ...] = ()

    def source(self, name: str) -> str | None:
        return dict(self.sources).get(name)

    @property
    def cores_per_socket(self) -> int | None:
        if self.cores is None:
            return None
        return max(1, self.cores // (self.sockets or 1))

    @property
    def threads_per_core(self) -> int | None:
        if self.cores is None or self.threads is None or self.cores == 0:
            return None
        return max(1, self.threads // self.cores)

    def pci_device(self, address: str | None) -> PciDevice | None:
        for d in self.pci:
            if address is not None and d.address.lower() == address.lower():
                return d
        return None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["sources"] = dict(self.sources)
        d["nominal_clock_hz"] = d.pop("nominal_clock")
        d["current_clock_hz"] = d.pop("current_clock")
        for nic in d["nics"]:
            nic["speed_bytes_per_s"] = nic.pop("speed")
        for dev in d["pci"]:
            dev["current_speed_transfers_per_s"] = dev.pop("current_speed")
            dev["max_speed_transfers_per_s"] = dev.pop("max_speed")
        return d


@dataclass(frozen=True)
class Flag:
    """Something detection found that likely costs performance."""

    kind: str  # "pcie-downgraded", "cpu-throttled", "cpu-governor", "mtu"
    subject: str  # the device, CPU or interface
    message: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "subject": self.subject, "message": self.message}


# --- small parsers ---------------------------------------------------------------------------

def _bad(path, what: str, text: str) -> InputError:
    return InputError(f"expected {what}, found {text[:60]!r}", file=str(path))


def parse_link_speed(text: str, *, file=None) -> float | None:
    """A sysfs PCIe link speed ("8.0 GT/s PCIe", "2.5 GT/s", "Unknown") -> transfers/s per lane.

    Returns None for "Unknown" (a link that is down or not PCIe) [2].
    """
    t = text.strip()
    if t.lower().startswith("unknown") or t == "":
        return None
    m = _GTS.match(t)
    if not m:
        raise _bad(file, "a PCIe link speed such as '8.0 GT/s PCIe'", t)
    speed = float(m.group(1)) * 1e9
    return speed if speed > 0 else None  # "0.0 GT/s": no link trained


def pcie_generation(transfers_per_s: float) -> int | None:
    """The PCIe generation whose lane rate this is (2.5 GT/s -> 1, 16 GT/s -> 4) [5]."""
    for gen, (rate, _enc) in PCIE_GENERATIONS.items():
        if abs(rate - transfers_per_s) <= 1e-3 * rate:
            return gen
    return None


def parse_cache_size(text: str, *, file=None) -> int:
    """A sysfs cache size ("32K", "1024K", "32M"; K = 1024) [B] [1]."""
    m = re.match(r"^\s*([0-9]+)\s*([KMG]?)B?\s*$", text, re.I)
    if not m:
        raise _bad(file, "a cache size such as '32K'", text)
    return int(m.group(1)) * {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}[m.group(2).upper()]


def parse_cpu_list(text: str, *, file=None) -> list[int]:
    """A kernel CPU list ("0-3,8-11", "0") -> the CPU numbers."""
    out: list[int] = []
    t = text.strip()
    if not t:
        return out
    for part in t.split(","):
        m = re.match(r"^\s*([0-9]+)(?:-([0-9]+))?\s*$", part)
        if not m:
            raise _bad(file, "a CPU list such as '0-3,8'", text)
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        out.extend(range(lo, hi + 1))
    return out


def clock_from_model_name(model: str | None) -> float | None:
    """The nominal clock an Intel model name states ("... CPU @ 2.60GHz") [Hz], else None."""
    if not model:
        return None
    m = _GHZ.search(model)
    return float(m.group(1)) * 1e9 if m else None


# --- hwloc XML -------------------------------------------------------------------------------

_HWLOC_CACHE = re.compile(r"^L([1-5])(i?)Cache$")
_CACHE_TYPES = {0: "unified", 1: "data", 2: "instruction"}


def _int_attr(el, name, file, *, default=None):
    raw = el.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise InputError(f"attribute {name}={raw!r} of a {el.get('type')} object is not a whole number",
                         file=file, key=name) from None


def _float_attr(el, name, file):
    raw = el.get(name)
    if raw is None:
        return None
    try:
        return float(raw)
    except ValueError:
        raise InputError(f"attribute {name}={raw!r} of a {el.get('type')} object is not a number",
                         file=file, key=name) from None


def _infos(el) -> dict[str, str]:
    return {i.get("name"): i.get("value") for i in el.findall("info") if i.get("name")}


def parse_hwloc_xml(text: str, *, file: str | None = None) -> MachineFacts:
    """Parse ``lstopo --of xml`` output (hwloc 1.x or 2.x) into facts [4].

    Parameters
    ----------
    text : str
        The XML document.
    file : str, optional
        Its name, for error messages.

    Raises
    ------
    InputError
        If the text is not well-formed XML (a truncated file) or not an hwloc topology.
    """
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise InputError(f"not well-formed hwloc XML ({exc}); is the file truncated? "
                         "(write it with `lstopo --of xml FILE`)", file=file, line=line) from None
    if root.tag != "topology":
        raise InputError(f"not an hwloc topology: the root element is <{root.tag}>, expected <topology>",
                         file=file)
    objects = list(root.iter("object"))
    if not objects:
        raise InputError("the hwloc topology has no objects", file=file)

    def of_type(*types):
        return [o for o in objects if o.get("type") in types]

    packages = of_type("Package", "Socket")
    cores = of_type("Core")
    pus = of_type("PU")
    model = None
    for p in packages or of_type("Machine"):
        info = _infos(p)
        model = info.get("CPUModel") or model
        if model:
            break

    caches: dict[tuple[int, str], CacheFact] = {}
    for o in objects:
        otype = o.get("type", "")
        m = _HWLOC_CACHE.match(otype)
        if m:
            level = int(m.group(1))
            ctype = "instruction" if m.group(2) else _CACHE_TYPES.get(_int_attr(o, "cache_type", file, default=0),
                                                                       "unified")
        elif otype == "Cache":  # hwloc 1.x
            level = _int_attr(o, "depth", file)
            if level is None:
                continue
            ctype = _CACHE_TYPES.get(_int_attr(o, "cache_type", file, default=0), "unified")
        else:
            continue
        size = _int_attr(o, "cache_size", file)
        if size is None or size <= 0 or (level, ctype) in caches:
            continue
        line = _int_attr(o, "cache_linesize", file)
        assoc = _int_attr(o, "cache_associativity", file)
        n_cores = sum(1 for x in o.iter("object") if x.get("type") == "Core")
        caches[(level, ctype)] = CacheFact(
            level, ctype, size, line if line and line > 0 else None,
            None if assoc is None or assoc == 0 else (0 if assoc < 0 else assoc),
            n_cores or None)

    memory = 0
    for o in of_type("NUMANode"):
        memory += max(0, _int_attr(o, "local_memory", file, default=0))
    if not memory:
        for o in of_type("Machine"):
            memory += max(0, _int_attr(o, "local_memory", file, default=0))

    pci, nics, disks = [], [], []
    for o in of_type("PCIDev"):
        addr = o.get("pci_busid")
        if not addr:
            continue
        class_code = vendor = device = None
        ptype = (o.get("pci_type") or "").split()
        if ptype:
            class_code = "0x" + ptype[0].lower()
            if len(ptype) > 1:
                ids = ptype[1].strip("[]").split(":")
                if len(ids) == 2:
                    vendor, device = "0x" + ids[0].lower(), "0x" + ids[1].lower()
        speed = _positive(_float_attr(o, "pci_link_speed", file))  # 0: no link; nan, inf: nonsense
        pci.append(PciDevice(addr, class_code, vendor, device,
                             link_bytes_per_s=speed * 1e9 if speed else None))
        for od in o.iter("object"):
            if od.get("type") != "OSDev":
                continue
            kind = od.get("osdev_type")
            name = od.get("name")
            if not name:
                continue
            if kind == "2":
                nics.append(NicFact(name, pci_address=addr))
            elif kind == "0":
                size = _infos(od).get("Size")
                size_bytes = int(size) * 1024 if size and size.isdigit() else None  # hwloc: KiB
                disks.append(DiskFact(name, size_bytes, pci_address=addr))

    hostname = _infos(of_type("Machine")[0]).get("HostName") if of_type("Machine") else None
    version = root.get("version") or "1.x"
    src = f"hwloc XML (topology version {version})"
    sources = [("caches", src), ("cores", src), ("sockets", src), ("threads", src)]
    if memory:
        sources.append(("memory_bytes", f"{src}: NUMANode local_memory"))
    if model:
        sources.append(("cpu_model", f"{src}: CPUModel"))
    nominal = clock_from_model_name(model)
    if nominal:
        sources.append(("nominal_clock", f"{src}: the CPU model name"))
    return MachineFacts(
        cpu_model=model, sockets=len(packages) or None, cores=len(cores) or None,
        threads=len(pus) or None, nominal_clock=nominal,
        caches=tuple(sorted(caches.values(), key=lambda c: (c.level, c.type))),
        memory_bytes=memory or None, pci=tuple(pci), nics=tuple(nics), disks=tuple(disks),
        hostname=hostname, sources=tuple(sources))


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
        raise _bad(path, what, text) from None


def _positive(x):
    """x where it is a positive finite number, else None (0 and negatives mean 'not known')."""
    return x if x is not None and x > 0 and x != float("inf") else None  # nan > 0 is False


def _cpuinfo(proc: Path) -> dict[str, str]:
    info: dict[str, str] = {}
    for line in (_read(proc / "cpuinfo") or "").splitlines():
        key, sep, value = line.partition(":")
        if sep:
            info.setdefault(key.strip(), value.strip())
    return info


def _cpu_caches(cpu0: Path, threads_per_core: int) -> list[CacheFact]:
    out = []
    for index in sorted((cpu0 / "cache").glob("index*")):
        level = _read_int(index / "level", "a cache level")
        kind = _read(index / "type")
        size = _read(index / "size")
        if level is None or not kind or not size:
            continue
        ctype = {"data": "data", "instruction": "instruction", "unified": "unified"}.get(kind.lower())
        if ctype is None:
            raise _bad(index / "type", "'Data', 'Instruction' or 'Unified'", kind)
        shared_text = _read(index / "shared_cpu_list")
        shared = None
        if shared_text:
            n = len(parse_cpu_list(shared_text, file=index / "shared_cpu_list"))
            shared = max(1, -(-n // max(1, threads_per_core)))
        ways = _read_int(index / "ways_of_associativity")
        size_bytes = parse_cache_size(size, file=index / "size")
        if size_bytes <= 0 or level < 1 or level > 5:  # "0K": the kernel does not know it
            continue
        line = _read_int(index / "coherency_line_size")
        out.append(CacheFact(level, ctype, size_bytes, line if line and line > 0 else None,
                             ways if ways and ways > 0 else None,  # 0: not reported, not "fully associative"
                             shared))
    return sorted(out, key=lambda c: (c.level, c.type))


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
        if _PCI_ADDR.match(part):
            return part.lower()
    return None


def _pci_devices(sys: Path) -> list[PciDevice]:
    base = sys / "bus" / "pci" / "devices"
    if not base.is_dir():
        return []
    out = []
    for d in sorted(base.iterdir()):
        if not _PCI_ADDR.match(d.name):
            continue
        speeds = {}
        for name in ("current_link_speed", "max_link_speed"):
            text = _read(d / name)
            speeds[name] = None if text is None else parse_link_speed(text, file=d / name)
        widths = {}
        for name in ("current_link_width", "max_link_width"):
            w = _read_int(d / name, "a link width such as '16'")
            widths[name] = w if w and 0 < w <= 32 else None  # 0 or 255: no link
        numa = _read_int(d / "numa_node", "a NUMA node number")
        out.append(PciDevice(
            d.name.lower(), _read(d / "class"), _read(d / "vendor"), _read(d / "device"),
            speeds["current_link_speed"], widths["current_link_width"],
            speeds["max_link_speed"], widths["max_link_width"],
            numa_node=numa if numa is not None and numa >= 0 else None))
    return out


def _nics(sys: Path) -> list[NicFact]:
    base = sys / "class" / "net"
    if not base.is_dir():
        return []
    out = []
    for d in sorted(base.iterdir()):
        if not os.path.lexists(d / "device"):  # lo, bridges, tunnels, ifb: no hardware behind
            continue
        speed = _read_int(d / "speed", "a speed in Mbit/s")
        if speed is not None and (speed <= 0 or speed in _SPEED_UNKNOWN or speed > 10_000_000):
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
    cpus = sorted((p for p in cpu_dir.glob("cpu[0-9]*") if p.name[3:].isdigit()),
                  key=lambda p: int(p.name[3:])) if cpu_dir.is_dir() else []
    packages, cores = set(), set()
    online = _read(cpu_dir / "online")
    online_set = set(parse_cpu_list(online, file=cpu_dir / "online")) if online else None
    n_threads = 0
    for c in cpus:
        if online_set is not None and int(c.name[3:]) not in online_set:
            continue
        n_threads += 1
        pkg = _read_int(c / "topology" / "physical_package_id", "a package number")
        core = _read_int(c / "topology" / "core_id", "a core number")
        if pkg is not None and core is not None:
            packages.add(pkg)
            cores.add((pkg, core))
    info = _cpuinfo(proc)
    if n_threads == 0:
        n_threads = sum(1 for line in (_read(proc / "cpuinfo") or "").splitlines()
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
    nominal = None
    base = _positive(_read_int(freq / "base_frequency", "a frequency in kHz"))
    if base:
        nominal = base * 1e3
        sources.append(("nominal_clock", "sysfs cpufreq/base_frequency"))
    elif clock_from_model_name(model):
        nominal = clock_from_model_name(model)
        sources.append(("nominal_clock", "/proc/cpuinfo model name"))
    else:
        cmax = _positive(_read_int(freq / "cpuinfo_max_freq", "a frequency in kHz"))
        if cmax:
            nominal = cmax * 1e3
            sources.append(("nominal_clock", "sysfs cpufreq/cpuinfo_max_freq"))
    current = _positive(_read_int(freq / "scaling_cur_freq", "a frequency in kHz"))
    current_hz = current * 1e3 if current else None
    if current_hz:
        sources.append(("current_clock", "sysfs cpufreq/scaling_cur_freq"))
    else:
        mhz = info.get("cpu MHz")
        if mhz is not None:
            try:
                current_hz = _positive(float(mhz) * 1e6)
                if current_hz:
                    sources.append(("current_clock", "/proc/cpuinfo cpu MHz"))
            except ValueError:
                raise _bad(proc / "cpuinfo", "'cpu MHz' to be a number", mhz) from None
    governor = _read(freq / "scaling_governor") or None

    memory = None
    for line in (_read(proc / "meminfo") or "").splitlines():
        if line.startswith("MemTotal:"):
            m = re.match(r"^MemTotal:\s*([0-9]+)\s*kB\s*$", line)
            if not m:
                raise _bad(proc / "meminfo", "'MemTotal: N kB'", line)
            memory = _positive(int(m.group(1)) * 1024)
            sources.append(("memory_bytes", "/proc/meminfo MemTotal (less than installed: the kernel's own share is not counted)"))
    caches = _cpu_caches(cpu_dir / "cpu0", tpc) if cpus else []
    if caches:
        sources.append(("caches", "sysfs cpu0/cache/index*"))
    hostname = _read(proc / "sys" / "kernel" / "hostname")
    return MachineFacts(
        cpu_model=model, sockets=len(packages) or None, cores=n_cores, threads=threads,
        nominal_clock=nominal, current_clock=current_hz, governor=governor,
        caches=tuple(caches), memory_bytes=memory, pci=tuple(_pci_devices(sys)),
        nics=tuple(_nics(sys)), disks=tuple(_disks(sys)), hostname=hostname, sources=tuple(sources))


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


# --- flags -----------------------------------------------------------------------------------

def _pcie_rate(speed, width) -> float | None:
    gen = pcie_generation(speed) if speed else None
    if gen is None or not width:
        return None
    rate, enc = PCIE_GENERATIONS[gen]
    return rate * width * enc / 8


def _fmt_gts(x: float) -> str:
    return f"{x / 1e9:g} GT/s"


def _link_text(speed: float | None, width: int | None) -> str:
    """'8 GT/s x4', '8 GT/s' or 'x4' (whatever is known)."""
    return " ".join(p for p in (_fmt_gts(speed) if speed else "", f"x{width}" if width else "") if p) or "unknown"


def flags(facts: MachineFacts) -> list[Flag]:
    """What in ``facts`` likely costs performance, in a stable order."""
    from . import units

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
        if n.speed and n.speed >= JUMBO_RATE * 0.999 and n.mtu == 1500:
            out.append(Flag("mtu", n.name,
                            f"{n.name} runs at {units.format_rate(n.speed, 'network')} with an MTU of 1500 B: "
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
    if facts.nics and not any(n.speed for n in facts.nics):
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

    def attach(cid: str, address: str | None) -> str | None:
        """Add the PCIe link of a device; return the link id or None when unknown."""
        dev = facts.pci_device(address)
        if dev is None:
            return None
        cpu = f"cpu{dev.numa_node}" if dev.numa_node is not None and f"cpu{dev.numa_node}" in comps else "cpu0"
        lid = f"pcie-{_ident(cid)}"
        gen = pcie_generation(dev.current_speed) if dev.current_speed else None
        maxi = (f"; the device supports {_fmt_gts(dev.max_speed)} x{dev.max_width}"
                if dev.max_speed and dev.max_width else "")
        if gen and dev.current_width:
            links[lid] = {"kind": "pcie", "between": [cid, cpu], "generation": gen,
                          "lanes": {"value": dev.current_width,
                                    "source": f"sysfs {dev.address}/current_link_width"},
                          "description": f"PCIe {dev.address}: negotiated {_fmt_gts(dev.current_speed)} "
                                         f"x{dev.current_width}{maxi}",
                          "source": f"sysfs {dev.address}/current_link_speed"}
            return lid
        if dev.link_bytes_per_s:
            links[lid] = {"kind": "link", "between": [cid, cpu],
                          "rate": {"value": f"{dev.link_bytes_per_s / 1e9:.6g} GB/s",
                                   "source": f"hwloc pci_link_speed of {dev.address}"},
                          "description": f"PCIe {dev.address}: generation and lanes unknown"}
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
        if n.speed:
            nic["line_rate"] = _v(f"{n.speed * 8 / 1e6:g} Mbit/s", f"sysfs class/net/{n.name}/speed")
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
        if n.speed:
            links[_ident(f"ethernet-{n.name}")] = {"kind": "ethernet", "between": [net, nid],
                                                   "rate": _v(f"{n.speed * 8 / 1e6:g} Mbit/s",
                                                              f"sysfs class/net/{n.name}/speed")}
            chain.append(nid)
            pl = attach(nid, n.pci_address)
            if pl:
                chain.append(links[pl]["between"][1])
                if memory_rate and links[pl]["between"][1] == "cpu0":
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
    if not links:
        del doc["links"]
    if not flows:
        del doc["flows"]
    return doc


def memory_rate_from_signature(signature, *, file: str | None = None) -> tuple[float, str]:
    """The memory bandwidth a signature measured [B/s] and a source text for the profile.

    The highest of: the best STREAM median over the ops at the largest working set (STREAM
    counts 16 or 24 bytes per element, no write-allocate traffic, so the figure is what a
    program gets rather than what the DRAM moves; our STREAM runs one thread); the MAPS
    stride-1 load median at the largest working set with the most threads; the best
    likwid-bench median at the largest working set with the most threads.  A single thread
    rarely saturates a modern memory system, so the multi-threaded figures usually win.

    Raises
    ------
    InputError
        If the signature has none of these points.
    """
    def best(points, what):
        if not points:
            return None
        largest = max(p["working_set_bytes"] for p in points)
        top = [p for p in points if p["working_set_bytes"] == largest]
        if "threads" in top[0].params:
            most = max(p.get("threads", 1) for p in top)
            top = [p for p in top if p.get("threads", 1) == most]
        chosen = max(top, key=lambda p: p.result.median)
        label = ", ".join(f"{k}={v}" for k, v in chosen.params.items()
                          if k in ("op", "threads", "working_set_bytes"))
        host = signature.host.get("name") or signature.host.get("cpu_model")
        return chosen.result.median, (f"measured: {what} median ({label}) on {host}, "
                                      f"{signature.created}" + (f" ({file})" if file else ""))

    kernels = signature.kernels
    candidates = []
    if "stream" in kernels:
        candidates.append(([p for p in kernels["stream"].points if "working_set_bytes" in p.params
                            and p.result.unit == "B/s"], "STREAM"))
    if "maps" in kernels:
        candidates.append(([p for p in kernels["maps"].points if p.get("pattern") == "stride1"
                            and p.get("op") == "load" and "working_set_bytes" in p.params
                            and p.result.unit == "B/s"], "MAPS stride-1 load"))
    if "likwid_bench" in kernels:
        candidates.append(([p for p in kernels["likwid_bench"].points if "working_set_bytes" in p.params
                            and p.result.unit == "B/s"], "likwid-bench"))
    found = [got for points, what in candidates if (got := best(points, what))]
    if found:
        return max(found, key=lambda g: g[0])
    raise InputError("the signature has no STREAM, MAPS stride-1 load or likwid-bench bandwidth "
                     "points to take the memory bandwidth from", file=file, key="kernels")


def detect(root: Path | str = Path("/"), hwloc_xml: str | None = None, *,
           hwloc_file: str | None = None) -> MachineFacts:
    """Facts of a machine: hwloc's XML where given (topology, caches), over sysfs (clocks,
    NIC speeds, PCIe link details)."""
    sysfs = read_sysfs(root)
    if hwloc_xml is None:
        return sysfs
    return combine(parse_hwloc_xml(hwloc_xml, file=hwloc_file), sysfs)


__all__ = ["CacheFact", "PciDevice", "NicFact", "DiskFact", "MachineFacts", "Flag",
           "parse_hwloc_xml", "read_sysfs", "combine", "detect", "flags",
           "facts_to_profile_document", "memory_rate_from_signature", "unchecked", "parse_link_speed", "pcie_generation", "parse_cache_size",
           "parse_cpu_list", "clock_from_model_name"]
