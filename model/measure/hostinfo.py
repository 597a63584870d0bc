"""What the machine a signature was measured on is: CPU model, cores, caches, clocks, memory, OS.

Read from Linux's /proc and /sys (the kernel's cache topology under
``/sys/devices/system/cpu/cpu0/cache/index*``, see Documentation/ABI/testing/sysfs-devices-system-cpu)
and from :mod:`platform`.  Anything that cannot be read is left out rather than guessed.
The result is a plain JSON-ready dict: it becomes the ``host`` block of a signature.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

#: Where Linux describes CPUs; a parameter so tests can point it at a fake tree.
SYS_CPU = Path("/sys/devices/system/cpu")
PROC = Path("/proc")


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def parse_cache_size(text: str) -> int:
    """Parse a sysfs cache size such as ``"32K"``, ``"1024K"`` or ``"32768K"`` [B].

    sysfs uses K = 1024 (binary) suffixes.
    """
    text = text.strip()
    mult = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(text[-1:].upper(), 1)
    digits = text[:-1] if mult != 1 else text
    return int(digits) * mult


def caches(sys_cpu: Path = SYS_CPU) -> list[dict]:
    """The caches seen by CPU 0, one dict per level and type.

    Returns
    -------
    list of dict
        ``{"level": int, "type": "Data"|"Instruction"|"Unified", "size_bytes": int,
        "line_bytes": int, "ways": int, "shared_cpu_list": str}``, sorted by level.
    """
    out = []
    for index in sorted((sys_cpu / "cpu0" / "cache").glob("index*")):
        level, kind, size = (_read(index / n) for n in ("level", "type", "size"))
        if not (level and kind and size):
            continue
        entry = {"level": int(level), "type": kind, "size_bytes": parse_cache_size(size)}
        line = _read(index / "coherency_line_size")
        ways = _read(index / "ways_of_associativity")
        shared = _read(index / "shared_cpu_list")
        if line and line.isdigit():
            entry["line_bytes"] = int(line)
        if ways and ways.isdigit():
            entry["ways"] = int(ways)
        if shared:
            entry["shared_cpu_list"] = shared
        out.append(entry)
    return sorted(out, key=lambda c: (c["level"], c["type"]))


def data_cache_sizes(cache_list: list[dict]) -> dict[int, int]:
    """Size of the data (or unified) cache per level [B], e.g. ``{1: 32768, 2: 1048576}``."""
    return {c["level"]: c["size_bytes"] for c in cache_list if c["type"] in ("Data", "Unified")}


def last_level_cache_bytes(cache_list: list[dict]) -> int | None:
    """Size of the last-level data/unified cache [B], or None when unknown."""
    sizes = data_cache_sizes(cache_list)
    return sizes[max(sizes)] if sizes else None


def usable_cpus() -> list[int]:
    """Ids of the CPUs this process may run on (its affinity mask; every CPU where the platform
    has no affinity call)."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def physical_cores(sys_cpu: Path = SYS_CPU) -> int | None:
    """Physical cores: distinct (package, core) pairs in /sys/.../cpu*/topology, or None."""
    pairs = set()
    for topo in sys_cpu.glob("cpu[0-9]*/topology"):
        pkg, core = _read(topo / "physical_package_id"), _read(topo / "core_id")
        if pkg is not None and core is not None:
            pairs.add((pkg, core))
    return len(pairs) or None


def _cpuinfo(proc: Path = PROC) -> dict[str, str]:
    text = _read(proc / "cpuinfo") or ""
    info: dict[str, str] = {}
    for line in text.splitlines():
        if ":" in line:
            key, _, value = line.partition(":")
            info.setdefault(key.strip(), value.strip())
    return info


def clocks(sys_cpu: Path = SYS_CPU, proc: Path = PROC) -> dict:
    """CPU clocks [Hz]: cpufreq minimum, maximum and current where exposed, else the
    'cpu MHz' line of /proc/cpuinfo as the current clock."""
    out = {}
    freq = sys_cpu / "cpu0" / "cpufreq"
    for key, name in (("min_hz", "cpuinfo_min_freq"), ("max_hz", "cpuinfo_max_freq"),
                      ("current_hz", "scaling_cur_freq")):
        value = _read(freq / name)
        if value and value.isdigit():
            out[key] = int(value) * 1000  # sysfs gives kHz
    if "current_hz" not in out:
        mhz = _cpuinfo(proc).get("cpu MHz")
        try:
            out["current_hz"] = float(mhz) * 1e6
        except (TypeError, ValueError):
            pass
    return out


def memory_bytes(proc: Path = PROC) -> int | None:
    """Total memory [B] from /proc/meminfo (MemTotal), or None."""
    for line in (_read(proc / "meminfo") or "").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    return None


def available_memory_bytes(proc: Path = PROC) -> int | None:
    """Memory available to a new process without swapping [B] (MemAvailable), or None."""
    for line in (_read(proc / "meminfo") or "").splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


def host_info() -> dict:
    """The ``host`` block of a signature for this machine."""
    info = _cpuinfo()
    cpu_model = info.get("model name") or info.get("cpu") or platform.processor() or "unknown"
    host = {
        "name": platform.node(),
        "cpu_model": cpu_model,
        "cores": physical_cores() or os.cpu_count(),
        "logical_cpus": os.cpu_count(),
        "caches": caches(),
        "clocks": clocks(),
        "memory_bytes": memory_bytes(),
        "os": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(),
    }
    return {k: v for k, v in host.items() if v not in (None, {}, [])}
