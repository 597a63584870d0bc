"""hwloc's XML topology (``lstopo --of xml``) -> :class:`~pinchpoint.measure.machine_facts.MachineFacts`.

Source: hwloc, *XML topology format* (hwloc2.dtd): ``cache_size`` [B], ``cache_linesize`` [B],
``cache_associativity`` (0 unknown, -1 fully associative), ``cache_type`` (0 unified, 1 data,
2 instruction), ``local_memory`` [B], ``pci_busid``, ``pci_type``, ``pci_link_speed`` [GB/s per
direction as negotiated now], ``osdev_type``.  ``osdev_type`` changed meaning with the XML
format: formats 1.x and 2.x number the types (0 block, 1 GPU, 2 network, 3 OpenFabrics, 4 DMA,
5 co-processor, 6 memory); format 3.0 (hwloc 3) stores bit flags that may combine (1 storage,
2 memory, 4 GPU, 8 co-processor, 16 network, 32 OpenFabrics, 64 DMA; hwloc 3 ``include/hwloc.h``,
``enum hwloc_obj_osdev_type_e``), so a CXL persistent-memory device is 3 (storage | memory).
Format 3.0 also writes sizes with their unit ("10485760KiB").
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace

from pinchpoint.errors import InputError
from pinchpoint.measure.hwloc_devices import (HBM_KINDS, Tree, bitmap, infos, int_attr, memories,
                                              nvlink_matrix, pci_devices)
from pinchpoint.measure.machine_facts import CacheFact, MachineFacts, clock_from_model_name
from pinchpoint.measure.nvidia import architecture_of

# --- hwloc XML -------------------------------------------------------------------------------

_HWLOC_CACHE = re.compile(r"^L([1-5])(i?)Cache$")
_CACHE_TYPES = {0: "unified", 1: "data", 2: "instruction"}
#: XML format major versions this parser knows ("1.x": files without a version attribute).
_FORMATS = (1, 2, 3)


def _format_major(root, file) -> int:
    raw = root.get("version")
    if raw is None:
        return 1
    m = re.match(r"^(\d{1,3})(\.\d{1,3}){0,3}$", raw.strip())
    if not m or int(m.group(1)) not in _FORMATS:
        raise InputError(f"hwloc XML format version {raw[:40]!r} is not one this parser knows "
                         f"(expected 1.x, 2.x or 3.x)", file=file, key="topology.version")
    return int(m.group(1))


def _cpu_kinds(root, file) -> list[tuple[int, str]]:
    """hwloc 2.4+ <cpukind> elements: (cpuset, name), the name from CoreType, CPUPart or the
    efficiency rank (hwloc, *CPU Kinds*: a higher forced_efficiency is a faster core)."""
    out = []
    for k in root.findall("cpukind"):
        bits = bitmap(k.get("cpuset"), file)
        if not bits:
            continue
        info = infos(k)
        name = info.get("CoreType") or info.get("CPUPart") or f"efficiency {k.get('forced_efficiency', '?')}"
        out.append((bits, name))
    return out


def _kind_of(obj, kinds, file) -> str | None:
    bits = bitmap(obj.get("cpuset"), file)
    if not bits:
        return None
    names = sorted({name for kbits, name in kinds if kbits & bits})
    return "+".join(names) or None


def _root(text: str, file):
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise InputError(f"not well-formed hwloc XML ({exc}); is the file truncated? "
                         "(write it with `lstopo --of xml FILE`)", file=file, line=line) from None
    if root.tag != "topology":
        raise InputError(f"not an hwloc topology: the root element is <{root.tag}>, expected <topology>",
                         file=file)
    return root


def _caches(root, objects, file) -> tuple[CacheFact, ...]:
    """Every distinct CPU cache with its count; memory-side caches are memory, not CPU caches."""
    kinds = _cpu_kinds(root, file)
    found: dict[tuple, int] = {}  # (level, type, size, line, associativity, shared_by, kind) -> count
    for o in objects:
        otype = o.get("type", "")
        m = _HWLOC_CACHE.match(otype)
        if o.get("subtype") == "MemorySideCache":  # KNL MCDRAM in cache mode, written as an L3 by hwloc 1.x/2.0
            continue
        if m:
            level = int(m.group(1))
            ctype = "instruction" if m.group(2) else _CACHE_TYPES.get(int_attr(o, "cache_type", file, default=0),
                                                                       "unified")
        elif otype == "Cache":  # hwloc 1.x
            level = int_attr(o, "depth", file)
            if level is None:
                continue
            ctype = _CACHE_TYPES.get(int_attr(o, "cache_type", file, default=0), "unified")
        else:
            continue
        size = int_attr(o, "cache_size", file)
        if size is None or size <= 0:
            continue
        line = int_attr(o, "cache_linesize", file)
        assoc = int_attr(o, "cache_associativity", file)
        n_cores = sum(1 for x in o.iter("object") if x.get("type") == "Core")  # cores, not threads
        key = (level, ctype, size, line if line and line > 0 else None,
               None if assoc is None or assoc == 0 else (0 if assoc < 0 else assoc),
               n_cores or None, _kind_of(o, kinds, file))
        found[key] = found.get(key, 0) + 1
    # Every distinct cache is kept: a hybrid CPU has a 48 KiB L1d on its P-cores and a 32 KiB one
    # on its E-cores; the kind is named only where the machine has several.
    several = len({k[-1] for k in found}) > 1
    caches = [CacheFact(*k[:6], instances=n, cpu_kind=k[6] if several else None) for k, n in found.items()]
    return tuple(sorted(caches, key=lambda c: (c.level, c.type, c.cpu_kind or "", -c.size_bytes)))


def parse_hwloc_xml(text: str, *, file: str | None = None) -> MachineFacts:
    """Parse ``lstopo --of xml`` output (hwloc formats 1.x, 2.x, 3.0) into facts [4]: CPU and
    caches here, the PCI tree (bridges with their parents and packages), NICs, disks, NVML GPUs,
    NUMA memories and the NVLink matrix in :mod:`pinchpoint.measure.hwloc_devices`.

    Raises
    ------
    InputError
        If the text is not well-formed XML (a truncated file) or not an hwloc topology.
    """
    root = _root(text, file)
    major = _format_major(root, file)
    objects = list(root.iter("object"))
    if not objects:
        raise InputError("the hwloc topology has no objects", file=file)
    tree = Tree(root, file)

    def of_type(*types):
        return [o for o in objects if o.get("type") in types]

    model = next((m for m in (infos(p).get("CPUModel") for p in tree.packages or of_type("Machine")) if m), None)
    mems = memories(objects, tree)
    memory = sum(m.size_bytes or 0 for m in mems)
    if not memory:
        memory = sum(max(0, int_attr(o, "local_memory", file, default=0)) for o in of_type("Machine"))
    pci, nics, disks, gpus = pci_devices(objects, tree, major)
    gpus = [replace(g, architecture=architecture_of(g.name)) for g in gpus]
    hostname = infos(of_type("Machine")[0]).get("HostName") if of_type("Machine") else None
    src = f"hwloc XML (topology version {root.get('version') or '1.x'})"
    sources = [("caches", src), ("cores", src), ("sockets", src), ("threads", src)]
    if memory:
        sources.append(("memory_bytes", f"{src}: NUMANode local_memory"))
    if model:
        sources.append(("cpu_model", f"{src}: CPUModel"))
    nominal = clock_from_model_name(model)
    if nominal:
        sources.append(("nominal_clock", f"{src}: the CPU model name"))
    several_kinds = any(m.kind in HBM_KINDS or m.side_cache_bytes for m in mems)
    return MachineFacts(
        cpu_model=model, sockets=len(tree.packages) or None, cores=len(of_type("Core")) or None,
        threads=len(of_type("PU")) or None, nominal_clock=nominal, caches=_caches(root, objects, file),
        memory_bytes=memory or None, pci=tuple(pci), nics=tuple(nics), disks=tuple(disks),
        hostname=hostname, sources=tuple(sources), gpus=tuple(sorted(gpus, key=lambda g: g.index)),
        memories=tuple(mems) if several_kinds else (), nvlink_bandwidths=tuple(nvlink_matrix(root, tree)))
