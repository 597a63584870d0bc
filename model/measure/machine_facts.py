"""What a machine reveals about itself, as frozen facts, and the small parsers for sysfs/hwloc text.

The data layer of :mod:`pinchpoint.measure.detect`: :class:`MachineFacts` (CPU, caches, clocks, memory,
PCI devices, NICs, disks) and :class:`Flag`.  A value the machine does not reveal stays
``None`` ("unknown"); nothing here is invented.

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

import re
from dataclasses import asdict, dataclass

from pinchpoint.errors import InputError
from pinchpoint.physics.linkkinds import PCIE_GENERATIONS

#: Values of /sys/class/net/IFACE/speed [Mbit/s] that mean "unknown" (ethtool SPEED_UNKNOWN
#: is -1; older drivers wrote 65535 or 4294967295).
SPEED_UNKNOWN = (65535, 4294967295)

PCI_ADDR = re.compile(r"^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
_GTS = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*GT/s(?:\s+PCIe)?\s*$")
_GHZ = re.compile(r"@\s*([0-9]{1,4}(?:\.[0-9]{1,6})?)\s*GHz", re.I)


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
    instances: int | None = None  # how many such caches the machine has (None: not counted)
    cpu_kind: str | None = None  # the core type they serve on a hybrid CPU ("IntelAtom", "0xd87")


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
    parent: str | None = None  # the PCI function above it (a root or switch port); None: the host bridge
    package: int | None = None  # the CPU package (socket) it hangs off, counted from 0 (hwloc locality)
    subtype: str | None = None  # hwloc's subtype ("NVSwitch")

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
class GpuFact:
    """A GPU as ``nvidia-smi -q`` describes it: ``memory_bytes`` [B], ``memory_clock`` (maximum) [Hz]."""

    index: int
    pci_address: str | None = None  # "0000:00:06.0"
    name: str | None = None
    architecture: str | None = None  # "Hopper"
    memory_bytes: int | None = None
    memory_clock: float | None = None


@dataclass(frozen=True)
class NicFact:
    """A network interface with a device behind it: ``speed_bytes_per_s`` (sysfs's ``speed``),
    ``mtu`` [B]."""

    name: str
    speed_bytes_per_s: float | None = None
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
class MemoryFact:
    """One NUMA node's memory: ``kind`` as hwloc's subtype names it ("DRAM", "HBM", "MCDRAM",
    "NVM"; None: ordinary memory), ``size_bytes`` [B], and the memory-side cache in front of it
    (KNL's MCDRAM in cache mode, Xeon Max HBM in cache mode) [B]."""

    node: int
    size_bytes: int | None = None
    kind: str | None = None
    package: int | None = None
    side_cache_bytes: int | None = None


@dataclass(frozen=True)
class NvlinkFact:
    """An NVLink connection from hwloc's NVLinkBandwidth matrix: ends "gpu:N" (NVML index),
    "pci:ADDRESS" (an NVSwitch) or "package:N" (a POWER CPU), bandwidth per direction [B/s]."""

    a: str
    b: str
    bytes_per_s: float


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
    gpus: tuple[GpuFact, ...] = ()
    nvlinks: tuple[tuple[int, int, int], ...] = ()  # (GPU index, GPU index, bonded NVLinks) from topo -m
    memories: tuple[MemoryFact, ...] = ()  # per NUMA node, where hwloc tells them apart
    nvlink_bandwidths: tuple[NvlinkFact, ...] = ()  # hwloc's NVLinkBandwidth matrix

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

def bad_value(path, what: str, text: str) -> InputError:
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
        raise bad_value(file, "a PCIe link speed such as '8.0 GT/s PCIe'", t)
    speed = float(m.group(1)) * 1e9
    return speed if speed > 0 else None  # "0.0 GT/s": no link trained


def pcie_links_of_rate(bytes_per_s: float) -> list[tuple[int, int]]:
    """The (generation, lanes) whose data rate per direction is ``bytes_per_s`` (hwloc's
    ``pci_link_speed``: lane rate x lanes x encoding / 8), slowest generation first.  Several
    may fit (8 GT/s x16 = 16 GT/s x8 = 32 GT/s x4 = 15.75 GB/s); those share the line code [5]."""
    out = []
    for gen, g in PCIE_GENERATIONS.items():
        for lanes in (1, 2, 4, 8, 12, 16, 32):
            if abs(g.lane_rate * lanes * g.encoding / 8 - bytes_per_s) <= 1e-4 * bytes_per_s:
                out.append((gen, lanes))
    return out


def pcie_generation(transfers_per_s: float) -> int | None:
    """The PCIe generation whose lane rate this is (2.5 GT/s -> 1, 16 GT/s -> 4) [5]."""
    for gen, g in PCIE_GENERATIONS.items():
        if abs(g.lane_rate - transfers_per_s) <= 1e-3 * g.lane_rate:
            return gen
    return None


def parse_cache_size(text: str, *, file=None) -> int:
    """A sysfs cache size ("32K", "1024K", "32M"; K = 1024) [B] [1]."""
    m = re.match(r"^\s*([0-9]+)\s*([KMG]?)B?\s*$", text, re.I)
    if not m:
        raise bad_value(file, "a cache size such as '32K'", text)
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
            raise bad_value(file, "a CPU list such as '0-3,8'", text)
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        out.extend(range(lo, hi + 1))
    return out


def clock_from_model_name(model: str | None) -> float | None:
    """The nominal clock an Intel model name states ("... CPU @ 2.60GHz") [Hz], else None."""
    if not model:
        return None
    m = _GHZ.search(model)
    return positive_or_none(float(m.group(1)) * 1e9) if m else None  # "@ 0.00GHz" says nothing


def positive_or_none(x):
    """x where it is a positive finite number, else None (0 and negatives mean 'not known')."""
    return x if x is not None and x > 0 and x != float("inf") else None  # nan > 0 is False
