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

from pinchpoint.errors import InputError
from pinchpoint.measure.machine_facts import (CacheFact, DiskFact, MachineFacts, NicFact, PciDevice, clock_from_model_name,
                            positive_or_none)

# --- hwloc XML -------------------------------------------------------------------------------

_HWLOC_CACHE = re.compile(r"^L([1-5])(i?)Cache$")
_CACHE_TYPES = {0: "unified", 1: "data", 2: "instruction"}
#: XML format major versions this parser knows ("1.x": files without a version attribute).
_FORMATS = (1, 2, 3)
#: format 3.0 osdev_type bits
_OSDEV3_STORAGE, _OSDEV3_MEMORY, _OSDEV3_NETWORK = 1, 2, 16
#: formats 1.x and 2.x osdev_type numbers
_OSDEV2_BLOCK, _OSDEV2_NETWORK = 0, 2


def _format_major(root, file) -> int:
    raw = root.get("version")
    if raw is None:
        return 1
    m = re.match(r"^(\d+)(\.\d+)*$", raw.strip())
    if not m or int(m.group(1)) not in _FORMATS:
        raise InputError(f"hwloc XML format version {raw!r} is not one this parser knows "
                         f"(expected 1.x, 2.x or 3.x)", file=file, key="topology.version")
    return int(m.group(1))


def _osdev_kind(od, major: int, file) -> str | None:
    """'network', 'disk' or None (memory, GPU, DMA ... devices) for an OSDev object."""
    kind = _int_attr(od, "osdev_type", file)
    if kind is None:
        return None
    if major >= 3:
        if kind & _OSDEV3_NETWORK:
            return "network"
        if kind & _OSDEV3_STORAGE and not kind & _OSDEV3_MEMORY:  # CXL PMEM is memory first
            return "disk"
        return None
    if kind == _OSDEV2_BLOCK and od.get("subtype") == "CXLMem":  # 2.x files list CXL memory as block
        return None
    return {_OSDEV2_NETWORK: "network", _OSDEV2_BLOCK: "disk"}.get(kind)


def _kib(text: str | None) -> int | None:
    """hwloc's Size info: KiB, "10485760" (formats 1.x, 2.x) or "10485760KiB" (3.0) -> bytes."""
    m = re.match(r"^\s*(\d+)\s*(KiB)?\s*$", text or "")
    return int(m.group(1)) * 1024 if m else None


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


def _bitmap(text: str | None, file) -> int | None:
    """An hwloc bitmap ("0x000ff000", "0xffffffff,0x0000000f": 32-bit words, most significant
    first) as an int; None for none or an infinite set ("0xf...f")."""
    if not text or "f...f" in text:
        return None
    try:
        return int("".join(w.strip().lower().removeprefix("0x").rjust(8, "0") for w in text.split(",")), 16)
    except ValueError:
        raise InputError(f"expected an hwloc cpuset such as 0x000000ff, found {text[:40]!r}", file=file,
                         key="cpuset") from None


def _cpu_kinds(root, file) -> list[tuple[int, str]]:
    """hwloc 2.4+ <cpukind> elements: (cpuset, name), the name from CoreType, CPUPart or the
    efficiency rank (hwloc, *CPU Kinds*: a higher forced_efficiency is a faster core)."""
    out = []
    for k in root.findall("cpukind"):
        bits = _bitmap(k.get("cpuset"), file)
        if not bits:
            continue
        info = _infos(k)
        name = info.get("CoreType") or info.get("CPUPart") or f"efficiency {k.get('forced_efficiency', '?')}"
        out.append((bits, name))
    return out


def _kind_of(obj, kinds, file) -> str | None:
    bits = _bitmap(obj.get("cpuset"), file)
    if not bits:
        return None
    names = sorted({name for kbits, name in kinds if kbits & bits})
    return "+".join(names) or None


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
    major = _format_major(root, file)
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

    kinds = _cpu_kinds(root, file)
    found: dict[tuple, int] = {}  # (level, type, size, line, associativity, shared_by, kind) -> count
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
        if size is None or size <= 0:
            continue
        line = _int_attr(o, "cache_linesize", file)
        assoc = _int_attr(o, "cache_associativity", file)
        n_cores = sum(1 for x in o.iter("object") if x.get("type") == "Core")  # cores, not threads
        key = (level, ctype, size, line if line and line > 0 else None,
               None if assoc is None or assoc == 0 else (0 if assoc < 0 else assoc),
               n_cores or None, _kind_of(o, kinds, file))
        found[key] = found.get(key, 0) + 1
    # Every distinct cache is kept: a hybrid CPU has a 48 KiB L1d on its P-cores and a 32 KiB one
    # on its E-cores; the kind is named only where the machine has several.
    several = len({k[-1] for k in found}) > 1
    caches = [CacheFact(*k[:6], instances=n, cpu_kind=k[6] if several else None) for k, n in found.items()]

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
        speed = positive_or_none(_float_attr(o, "pci_link_speed", file))  # 0: no link; nan, inf: nonsense
        pci.append(PciDevice(addr, class_code, vendor, device,
                             link_bytes_per_s=speed * 1e9 if speed else None))
        for od in o.iter("object"):
            if od.get("type") != "OSDev":
                continue
            kind = _osdev_kind(od, major, file)
            name = od.get("name")
            if not name:
                continue
            if kind == "network":
                nics.append(NicFact(name, pci_address=addr))
            elif kind == "disk":
                disks.append(DiskFact(name, _kib(_infos(od).get("Size")), pci_address=addr))

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
        caches=tuple(sorted(caches, key=lambda c: (c.level, c.type, c.cpu_kind or "", -c.size_bytes))),
        memory_bytes=memory or None, pci=tuple(pci), nics=tuple(nics), disks=tuple(disks),
        hostname=hostname, sources=tuple(sources))


