"""The memory bandwidth of a kerncraft machine file, as a copy sees it.

Kerncraft's roofline model (kerncraft ``machinemodel.get_bandwidth``) takes the ``copy``
kernel's figure at the chip's core count (one thread per core) and corrects it for
write-allocate: likwid-bench counts the bytes a kernel reads and writes, but on a chip that
reads every written line first the memory moves ``(read + 2 write - read+write) / (read +
write)`` times the counted bytes (1.5 for copy).  Kerncraft notes that it does not yet support
chips that avoid that read; Ice Lake SP and ThunderX2 do for streaming stores, and their files
show it: at the chip's full core count the copy figure x 1.5 is above what the same cores read
alone (the ``load`` figure) and above the DIMMs' peak.  So the factor applies only where the
file's own figures allow it (copy x factor at most the load figure at full load; below the
chip's core count the load figure is core-bound and says nothing), and a capacity never exceeds the DIMMs' peak when the
file's ``machine state`` (its dmidecode section) says what they are: DIMMs per socket x data
width x configured transfer rate (JEDEC JESD79-4 DDR4: 64 data bits per DIMM).
"""

from __future__ import annotations

import re

from pinchpoint.importers.kerncraft_values import (chip_cores, entries, machine_reader, measurement_blocks, quantity,
                                                   whole)


def stream_bytes(machine: dict, kernel: str, *, file=None) -> tuple[float, float, float] | None:
    """(read, write, read+write) bytes per iteration of a benchmark kernel, or None."""
    bench = machine_reader(file).table(machine.get("benchmarks") or {}, "benchmarks")
    kernels = machine_reader(file).table(bench.get("kernels") or {}, "benchmarks.kernels")
    info = kernels.get(kernel)
    if not isinstance(info, dict):
        return None
    out = []
    for name in ("read streams", "write streams", "read+write streams"):
        entry = info.get(name) or {}
        key = f"benchmarks.kernels.{kernel}.{name}.bytes"
        out.append(quantity(entry.get("bytes", "0 B"), "size", file, key) if isinstance(entry, dict) else 0.0)
    read, write, both = out
    # a kernel moves some bytes, and a stream read and written is one of each kind
    if read + write <= 0 or both > min(read, write):
        raise machine_reader(file).error(
            f"benchmarks.kernels.{kernel}",
            f"read streams ({read:g} B) and write streams ({write:g} B) must move bytes, and the "
            f"read+write streams ({both:g} B) be at most the smaller of the two")
    return read, write, both


def write_allocate_factor(read: float, write: float, both: float) -> float:
    """Memory bytes per byte likwid-bench counts: (read + 2 write - read+write) / (read + write)
    (kerncraft ``machinemodel.get_bandwidth``; caches below L1 allocate on write)."""
    return (read + 2 * write - both) / (read + write)


def _mem_figures(machine: dict, file) -> dict[str, tuple[float, int, str]]:
    """Each MEM kernel's figure at the chip's core count (else the most cores measured below
    it), one thread per core: kernel -> (counted B/s, cores, key)."""
    chip = chip_cores(machine, file)
    out: dict[str, tuple[float, int, str]] = {}
    for level, tpc, block, key in measurement_blocks(machine, file):
        if level != "MEM" or str(tpc) != "1":
            continue
        cores = entries(block, "cores", file, key, counts=True)
        results = block.get("results") or {}
        if not isinstance(results, dict):
            raise machine_reader(file).error(f"{key}.results", "expected mappings of kernel -> values")
        fitting = [c for c in cores if c <= chip]
        for kernel in ("copy", "load"):
            if kernel in results and fitting and kernel not in out:
                values = entries(results, kernel, file, f"{key}.results", len(cores))
                i = cores.index(max(fitting))  # the chip's count; else the most measured below it
                out[kernel] = (quantity(values[i], "bandwidth", file, f"{key}.results.{kernel}[{i}]"), cores[i],
                               f"{key}.results.{kernel}[{i}]")
    return out


#: How far copy x write-allocate may exceed the read-only figure before the file shows that the
#: chip skipped the write-allocate read (both at the chip's full core count, where the load figure
#: is the memory's read bandwidth; mixed reads and writes reach less than reads alone).
AVOID_MARGIN = 0.05

_DIMM_FIELD = re.compile(r"^\s*(Size|Data Width|Speed|Configured (?:Memory|Clock) Speed):\s*(.*?)\s*$", re.M)


def dimm_peak(machine: dict, *, file=None) -> tuple[float, str] | None:
    """The DIMMs' peak per socket [B/s] from the dmidecode text in ``machine state`` (DMI type 17
    "Memory Device": Size, Data Width, Speed, Configured Memory Speed), or None where the file
    does not say.  DIMMs on a shared channel would make the true peak lower: an upper bound."""
    state = machine.get("machine state")
    if not isinstance(state, str) or "Memory Device" not in state:
        return None
    total, kinds = 0.0, set()
    for block in state.split("Memory Device")[1:]:
        fields = dict(_DIMM_FIELD.findall(block.split("\n\n", 1)[0] if "\n\n" in block else block))
        width = re.fullmatch(r"([0-9]{1,4}) bits", fields.get("Data Width", ""))
        speed = re.fullmatch(r"([0-9]{1,6}) MT/s", fields.get("Configured Memory Speed")
                             or fields.get("Configured Clock Speed") or fields.get("Speed", ""))
        if not fields.get("Size") or "No Module" in fields["Size"] or not (width and speed):
            continue
        total += int(width.group(1)) / 8 * int(speed.group(1)) * 1e6
        kinds.add(f"{width.group(1)}-bit {speed.group(1)} MT/s")
    sockets = whole(machine, "sockets", file, default=1) or 1
    if not total:
        return None
    return total / sockets, (f"machine state (dmidecode): DIMMs of {', '.join(sorted(kinds))}, "
                             f"{total / sockets / 1e9:.4g} GB/s per socket")


def memory_rate(machine: dict, *, file=None) -> tuple[float, str, float] | None:
    """The memory bandwidth of a copy [B/s], its description and the memory passes per payload
    byte of a copy; None when the file has no MEM copy (or load) figure (module docstring)."""
    figs = _mem_figures(machine, file)
    kernel = next((k for k in ("copy", "load") if k in figs), None)
    if kernel is None:
        return None
    counted, cores, key = figs[kernel]
    chip = chip_cores(machine, file)
    below = "" if cores == chip else f", the most cores measured (the chip has {chip}): a lower bound"
    read, write, both = stream_bytes(machine, kernel, file=file) or ((8.0, 8.0, 0.0) if kernel == "copy"
                                                                    else (8.0, 0.0, 0.0))
    factor = write_allocate_factor(read, write, both)
    how = [f"likwid-bench {kernel} {counted / 1e9:.4g} GB/s on {cores} cores{below} (1 thread per core, {key})"]
    load = figs.get("load")
    peak = dimm_peak(machine, file=file)
    if factor > 1 and load and cores == chip == load[1] and counted * factor > load[0] * (1 + AVOID_MARGIN):
        how.append(f"not x {factor:g} for write-allocate: that would be {counted * factor / 1e9:.4g} GB/s, above "
                   f"the {load[0] / 1e9:.4g} GB/s the same cores read alone ({load[2]}); this chip avoids the "
                   "write-allocate read of streaming stores")
        factor = 1.0
    elif factor > 1:
        how.append(f"x {factor:g} for write-allocate (kerncraft's stream accounting)")
    rate = counted * factor
    if peak and rate > peak[0]:
        how.append(f"capped at the DIMMs' peak {peak[0] / 1e9:.4g} GB/s ({peak[1]})")
        rate = peak[0]
    passes = factor * (read + write) / (write or read)  # memory bytes per payload byte (written, or read)
    return rate, "; ".join(how), passes
