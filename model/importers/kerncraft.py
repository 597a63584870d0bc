"""Kerncraft machine files (YAML) -> a profile document and likwid-bench signature points.

Kerncraft (Hammer, Eitzinger, Hager and Wellein, "Kerncraft: A Tool for Analytic Performance
Modeling of Loop Kernels", Tools for High Performance Computing 2016) describes a machine in
YAML with units inside the values: ``kerncraft version``, ``model name``, ``clock``,
``sockets``, ``cores per socket``, ``threads per core``, ``FLOPs per cycle`` (``DP: {total:
...}``), a ``memory hierarchy`` list (``level: L1 .. MEM``, ``cache per group: {sets, ways,
cl_size}``, ``size per group``, ``cores per group``) and ``benchmarks`` with likwid-bench
``kernels`` and ``measurements[LEVEL][threads per core]`` (``cores``, ``threads``,
``results: {kernel: [GB/s per core count]}``, ``stats: {kernel: [[repetitions] per core
count]}``, ``total size``, ``size per thread``).

We read files of the format kerncraft has used since 0.8.1 (``upstream throughput`` with
``transfers overlap``; kerncraft's own ``MIN_SUPPORTED_VERSION = "0.8.1dev0"``), loaded with
``yaml.safe_load`` (kerncraft's ``!!omap`` tags are standard YAML).  Sizes and rates are
decimal as kerncraft writes them ("21.12 kB" = 21 120 B, "70.86 GB/s"; kerncraft's
``PrefixedUnit.PREFIXES`` has k = 1e3, M = 1e6, G = 1e9); a cache's size is taken as
``sets * ways * cl_size`` where given (kerncraft files round "32.00 kB" for 32 KiB).  Values
with a T, P or E prefix are refused: kerncraft's table makes T 1e13 and P 1e16, so such a value
means something else to kerncraft than to every other tool.  ``INFORMATION_REQUIRED`` (what
kerncraft's templates leave where a value is not known) reads as unknown; whole numbers may be
written ``1.0`` and line sizes ``64 B``, as kerncraft's own reader takes them.

The memory link is what kerncraft's roofline model would use for a copy (kerncraft
``machinemodel.get_bandwidth``): the ``copy`` kernel's figure at the chip's core count (one
thread per core), corrected for write-allocate: likwid-bench counts the bytes a kernel reads
and writes, but every written line is first read, so the memory moves ``(read + 2 write -
read+write) / (read + write)`` times the counted bytes (1.5 for copy).  The ``mem-copy`` flow
crosses the link that many times per byte of payload (3 for copy: read, write-allocate read,
write), so its ceiling is the copy rate the file measured.  Core counts in the benchmarks above
the chip's own (a benchmark section copied from another machine) are flagged by
:func:`benchmark_flags`.  What the profile format has no field for (SP flops, NUMA domains,
caches' upstream throughputs and overlap model) goes into the signature's ``host.kerncraft``.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from pinchpoint.inputs.doc_values import bytes_text, ident
from pinchpoint.inputs.document import Reader
from pinchpoint.errors import InputError, UnitError, shown

#: The machine-file versions we read: 0.8.1 up to (not including) 0.9.
MIN_VERSION = (0, 8, 1)
MAX_VERSION = (0, 9, 0)
KERNEL = "likwid_bench"


def _doc(file) -> Reader:
    """The reader of a machine file: its refusals are InputErrors naming the file and the key."""
    return Reader(file, InputError, yaml=True)


def parse_version(text) -> tuple[int, int, int] | None:
    """'0.8.3.dev0' -> (0, 8, 3); None if it does not start with numbers."""
    m = re.match(r"^\s*([0-9]+)\.([0-9]+)(?:\.([0-9]+))?", str(text))
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def load_machine(text: str, *, file: str | None = None) -> dict:
    """Parse and check a kerncraft machine file.

    Raises
    ------
    InputError
        On YAML syntax errors (with the line), a file that is not a mapping, a missing or
        unsupported ``kerncraft version``, or missing required keys.
    """
    import yaml

    from pinchpoint.inputs.yaml_safe import load_yaml

    try:
        data = load_yaml(text, file=file)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"YAML syntax error: {problem}", file=file, line=line) from None
    if not isinstance(data, dict):
        raise _doc(file).error(None, "expected a kerncraft machine file (a YAML mapping)")
    if "kerncraft version" not in data:
        raise _doc(file).error("kerncraft version",
                               "missing: a kerncraft machine file names the version it was written for")
    raw = data["kerncraft version"]
    version = parse_version(raw)
    lo, hi = ".".join(map(str, MIN_VERSION)), ".".join(map(str, MAX_VERSION))
    if version is None or not MIN_VERSION <= version < MAX_VERSION:
        raise _doc(file).error("kerncraft version",
                               f"machine-file version {shown(raw)} is not supported: pinchpoint reads "
                               f"kerncraft machine files from {lo} up to (not including) {hi}; update the "
                               "file with kerncraft's CHANGES_SINCE notes (0.8.1 replaced 'non-overlap "
                               "upstream throughput' by 'upstream throughput')")
    for key in ("model name", "clock", "cores per socket", "memory hierarchy"):
        if key not in data:
            raise _doc(file).error(key, "missing (required to describe the machine)")
    if not isinstance(data["memory hierarchy"], list) or not data["memory hierarchy"]:
        raise _doc(file).error("memory hierarchy", "expected a list of levels (L1 ... MEM)")
    return data


@lru_cache(maxsize=4096)
def _parse_cached(text: str, dimension: str) -> float:
    from pinchpoint.physics import units

    return units.parse(text, dimension)


def _quantity(value, dimension: str, file, key) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if dimension == "dimensionless":
            return float(value)
        raise _doc(file).error(key, f"{value!r} has no unit: expected a {dimension} such as '2.3 GHz' "
                                    "or '32.00 kB'")
    if not isinstance(value, str):
        raise _doc(file).error(key, f"expected a {dimension}, found {value!r}")
    if re.match(r"^\s*[-+0-9.eE]+\s*[TPEZY](?:B|B/s|Hz|FLOP|flop)", value):
        raise _doc(file).error(key, f"{value!r} is ambiguous: kerncraft's prefix table reads T as 1e13 and "
                                    "P as 1e16 (not 1e12 and 1e15); write the value with a G prefix")
    text = re.sub(r"\bcy\b", "cycle", value)
    try:
        si = _parse_cached(text, dimension)
    except UnitError as exc:
        raise exc.located(file=file, key_prefix=key, kind=InputError) from None
    if not math.isfinite(si):
        raise _doc(file).error(key, f"{value!r} is not finite")
    if si < 0:
        raise _doc(file).error(key, f"{value!r} must not be negative")
    return si


UNKNOWN = "INFORMATION_REQUIRED"


def _unknown(value) -> bool:
    return isinstance(value, str) and value.strip().startswith(UNKNOWN)


#: Largest counts we believe (the biggest shared-memory machines have a few hundred sockets and
#: cores per socket); a larger one is a typo or an attack: 10,000,000 sockets took 3.9 GB.
_MAX_COUNT = {"sockets": 1024, "cores per socket": 4096, "threads per core": 64}


def _int(data, key, file, *, where=None, default=None) -> int | None:
    value = data.get(key, default)
    path = f"{where}.{key}" if where else key
    if value is None:
        if key in data:  # "sockets: null" is not "no sockets given"
            raise _doc(file).error(path, "expected a whole number >= 1, found null")
        return None
    if _unknown(value):
        return None
    if isinstance(value, float) and value.is_integer():  # "cores per group: 1.0"
        value = int(value)
    if isinstance(value, str) and re.match(r"^\s*[0-9]+\s*B\s*$", value):  # "cl_size: 64 B"
        value = int(value.strip()[:-1])
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _doc(file).error(path, f"expected a whole number >= 1, found {shown(value)}")
    limit = _MAX_COUNT.get(key)
    if limit is not None and value > limit:
        raise _doc(file).error(path, f"{value} is beyond any real machine (at most {limit})")
    return value


def _level_number(name, file, key) -> int | None:
    m = re.match(r"^L([1-5])$", str(name))
    if m:
        return int(m.group(1))
    if str(name) == "MEM":
        return None
    raise _doc(file).error(key, f"expected a level L1 .. L5 or MEM, found {name!r}")


def caches(machine: dict, *, file=None) -> list[dict]:
    """Profile cache entries from ``memory hierarchy``."""
    out = []
    for i, lvl in enumerate(machine["memory hierarchy"]):
        key = f"memory hierarchy[{i}]"
        _doc(file).table(lvl, key)
        level = _level_number(lvl.get("level"), file, f"{key}.level")
        if level is None:
            continue
        cpg = lvl.get("cache per group") or {}
        _doc(file).table(cpg, f"{key}.cache per group")
        sets, ways, line = (_int(cpg, k, file, where=f"{key}.cache per group") for k in ("sets", "ways", "cl_size"))
        if sets and ways and line:
            size = sets * ways * line
            size_text = bytes_text(size)
        elif lvl.get("size per group") is not None:
            size = _quantity(lvl["size per group"], "size", file, f"{key}.size per group")
            size_text = str(lvl["size per group"])
        else:
            raise _doc(file).error(key, "a cache level needs 'cache per group' (sets, ways, cl_size) or "
                                        "'size per group'")
        entry = {"level": level, "type": "data" if level == 1 else "unified", "size": size_text,
                 "source": f"kerncraft machine file, {key}"}
        if line:
            entry["line"] = f"{line} B"
        elif machine.get("cacheline size"):
            entry["line"] = str(machine["cacheline size"])
        if ways:
            entry["associativity"] = ways
        cores = _int(lvl, "cores per group", file, where=key)
        if cores:
            entry["shared_by"] = cores
        out.append(entry)
    return out


def _measurement_blocks(machine: dict, file):
    """(level name, threads per core, block, key) for every measurement block."""
    bench = machine.get("benchmarks")
    if bench is None:
        return
    _doc(file).table(bench, "benchmarks")
    meas = bench.get("measurements") or {}
    if not isinstance(meas, dict):
        raise _doc(file).error("benchmarks.measurements", "expected a mapping of levels")
    for level, per_tpc in meas.items():
        key = f"benchmarks.measurements.{level}"
        if not isinstance(per_tpc, dict):
            raise _doc(file).error(key, "expected a mapping of threads per core")
        for tpc, block in per_tpc.items():
            bkey = f"{key}.{tpc}"
            _doc(file).table(block, bkey)
            yield str(level), tpc, block, bkey


def _list(block, name, file, key, n=None, *, counts=False) -> list:
    value = block.get(name)
    if not isinstance(value, list):
        raise _doc(file).error(f"{key}.{name}", "expected a list (one entry per core count)")
    if n is not None and len(value) != n:
        raise _doc(file).error(f"{key}.{name}",
                               f"expected {n} entries (one per core count), found {len(value)}")
    if counts:
        for i, v in enumerate(value):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise _doc(file).error(f"{key}.{name}[{i}]", f"expected a whole number >= 1, found {v!r}")
    return value


def point_dicts(machine: dict, *, file=None) -> list[dict]:
    """Signature point dicts of every likwid-bench measurement in the file.

    One point per level, threads-per-core setting, core count and kernel: ``op`` (the
    likwid-bench kernel), ``pattern = "stride1"``, ``threads``, ``cores``, ``level``,
    ``working_set_bytes`` (``total size``), result in B/s with the ``stats`` repetitions where
    the file has them, else the single ``results`` figure.
    """
    out = []
    for level, tpc, block, key in _measurement_blocks(machine, file):
        cores = _list(block, "cores", file, key, counts=True)
        n = len(cores)
        threads = _list(block, "threads", file, key, n, counts=True) if "threads" in block else \
            [c * (tpc if isinstance(tpc, int) else 1) for c in cores]
        if "total size" in block:
            sizes = [_quantity(s, "size", file, f"{key}.total size[{i}]")
                     for i, s in enumerate(_list(block, "total size", file, key, n))]
        elif "size per thread" in block:
            sizes = [_quantity(s, "size", file, f"{key}.size per thread[{i}]") * t
                     for i, (s, t) in enumerate(zip(_list(block, "size per thread", file, key, n), threads))]
        else:
            raise _doc(file).error(key, "a measurement needs 'total size' or 'size per thread'")
        results = block.get("results") or {}
        stats = block.get("stats") or {}
        if not isinstance(results, dict) or not isinstance(stats, dict):
            raise _doc(file).error(f"{key}.results", "expected mappings of kernel -> values")
        for kernel, values in results.items():
            kkey = f"{key}.results.{kernel}"
            values = _list(results, kernel, file, f"{key}.results", n)
            kstats = stats.get(kernel)
            for i in range(n):
                result = _quantity(values[i], "bandwidth", file, f"{kkey}[{i}]")
                if isinstance(kstats, list) and i < len(kstats) and isinstance(kstats[i], list) and kstats[i]:
                    reps = [_quantity(v, "bandwidth", file, f"{key}.stats.{kernel}[{i}][{j}]")
                            for j, v in enumerate(kstats[i])]
                else:
                    reps = [result]
                s = sorted(reps)
                m = len(s)
                median = s[m // 2] if m % 2 else (s[m // 2 - 1] + s[m // 2]) / 2
                out.append({"op": str(kernel), "pattern": "stride1", "threads": int(threads[i]),
                            "cores": int(cores[i]), "level": level,
                            "working_set_bytes": int(round(sizes[i])),
                            "result": {"unit": "B/s", "min": s[0], "median": median, "max": s[-1],
                                       "repetitions": reps}})
    return out


def stream_bytes(machine: dict, kernel: str, *, file=None) -> tuple[float, float, float] | None:
    """(read, write, read+write) bytes per iteration of a benchmark kernel, or None."""
    bench = _doc(file).table(machine.get("benchmarks") or {}, "benchmarks")
    kernels = _doc(file).table(bench.get("kernels") or {}, "benchmarks.kernels")
    info = kernels.get(kernel)
    if not isinstance(info, dict):
        return None
    out = []
    for name in ("read streams", "write streams", "read+write streams"):
        entry = info.get(name) or {}
        key = f"benchmarks.kernels.{kernel}.{name}.bytes"
        out.append(_quantity(entry.get("bytes", "0 B"), "size", file, key) if isinstance(entry, dict) else 0.0)
    return out[0], out[1], out[2]


def write_allocate_factor(read: float, write: float, both: float) -> float:
    """Memory bytes per byte likwid-bench counts: (read + 2 write - read+write) / (read + write)
    (kerncraft ``machinemodel.get_bandwidth``; caches below L1 allocate on write)."""
    return (read + 2 * write - both) / (read + write)


def _chip_cores(machine: dict, file) -> int:
    return _int(machine, "cores per socket", file) or 1


def benchmark_flags(machine: dict, *, file=None) -> list[str]:
    """Warnings about the benchmark section: core counts above the machine's."""
    chip = _chip_cores(machine, file) * (_int(machine, "sockets", file, default=1) or 1)
    over = {}
    for level, tpc, block, key in _measurement_blocks(machine, file):
        cores = _list(block, "cores", file, key, counts=True)
        if cores and max(cores) > chip:
            over[key] = max(cores)
    if not over:
        return []
    return [f"benchmarks.measurements: {', '.join(over)} go up to {max(over.values())} cores, but the machine "
            f"has {chip}: the benchmarks were measured on another machine (a copied section?); its figures "
            "do not describe this one"]


def memory_rate(machine: dict, *, file=None) -> tuple[float, str, float] | None:
    """The memory bandwidth kerncraft would use for a copy [B/s], its description and the
    passes per payload byte of a copy; None when the file has no MEM copy (or load) figure.

    The figure of the ``copy`` kernel (else ``load``) at the chip's core count (else the most
    cores measured below it), one thread per core, times the write-allocate factor (module
    docstring).
    """
    chip = _chip_cores(machine, file)
    for kernel in ("copy", "load"):
        for level, tpc, block, key in _measurement_blocks(machine, file):
            if level != "MEM" or str(tpc) != "1":
                continue
            cores = _list(block, "cores", file, key, counts=True)
            results = block.get("results") or {}
            if not isinstance(results, dict):
                raise _doc(file).error(f"{key}.results", "expected mappings of kernel -> values")
            fitting = [c for c in cores if c <= chip]
            if kernel not in results or not fitting:
                continue
            values = _list(results, kernel, file, f"{key}.results", len(cores))
            rates = [_quantity(v, "bandwidth", file, f"{key}.results.{kernel}[{j}]") for j, v in enumerate(values)]
            i = cores.index(max(fitting))  # the chip's count; else the most measured below it
            counted = rates[i]
            below = "" if cores[i] == chip else f", the most cores measured (the chip has {chip}): a lower bound"
            streams = stream_bytes(machine, kernel, file=file) or ((8.0, 8.0, 0.0) if kernel == "copy"
                                                                  else (8.0, 0.0, 0.0))
            factor = write_allocate_factor(*streams)
            read, write, both = streams
            passes = (read + 2 * write - both) / (write or read)  # per payload byte (written, or read)
            how = (f"likwid-bench {kernel} {counted / 1e9:.4g} GB/s on {cores[i]} cores{below} (1 thread per "
                   f"core, {key}.results.{kernel}[{i}]) x {factor:g} for write-allocate (kerncraft's stream "
                   "accounting)")
            return counted * factor, how, passes
    return None


def _name_from(machine: dict, file) -> str:
    stem = Path(file).stem if file else str(machine.get("model name", "kerncraft"))
    return ident(stem, prefix="k")


def to_profile_document(machine: dict, *, file: str | None = None) -> dict:
    """A profile document of the machine: one cpu component per socket with its caches and
    flop rate, memory, and -- where the file has MEM measurements -- a measured memory link per
    socket and a ``mem-copy`` flow."""
    src = f"kerncraft machine file {Path(file).name if file else ''}".strip()
    clock_hz = _quantity(machine["clock"], "frequency", file, "clock")
    if clock_hz <= 0:
        raise _doc(file).error("clock", f"{machine['clock']!r} must be greater than zero")
    sockets = _int(machine, "sockets", file, default=1)
    cores = _int(machine, "cores per socket", file)
    tpc = _int(machine, "threads per core", file, default=1)
    cpu: dict[str, Any] = {"kind": "cpu", "model": str(machine["model name"]),
                           "clock": {"value": str(machine["clock"]), "source": f"{src}: clock"},
                           "cores": cores, "threads_per_core": tpc, "source": src}
    flops = machine.get("FLOPs per cycle")
    total = flops.get("DP", {}).get("total") if isinstance(flops, dict) and isinstance(flops.get("DP"), dict) else None
    if _unknown(total):
        total = None
    if total is not None:
        if isinstance(total, bool) or not isinstance(total, (int, float)) or total <= 0:
            raise _doc(file).error("FLOPs per cycle.DP.total",
                                   f"expected a positive number, found {total!r}")
        cpu["flops_per_cycle"] = {"value": total, "source": f"{src}: FLOPs per cycle.DP.total"}
    else:
        cpu["unknown"] = ["flops_per_cycle"]
    cache_list = caches(machine, file=file)
    if cache_list:
        cpu["caches"] = cache_list
    doc: dict[str, Any] = {
        "schema": 1, "name": _name_from(machine, file),
        "description": f"{machine['model name']} ({sockets} x {cores} cores at {machine['clock']}), "
                       f"from a kerncraft machine file",
        "source": src, "components": {}, "links": {}, "flows": {}}
    for s in range(sockets):
        doc["components"][f"cpu{s}"] = dict(cpu)
    doc["components"]["memory"] = {"kind": "memory", "unknown": ["size"],
                                   "description": "main memory of all NUMA domains"}
    mem = memory_rate(machine, file=file)
    if mem:
        rate, how, passes = mem
        for s in range(sockets):
            doc["links"][f"mem{s}"] = {
                "kind": "link", "between": [f"cpu{s}", "memory"], "shared": 1,
                "description": "one socket's memory bandwidth for a copy, write-allocate bytes included",
                "rate": {"value": f"{rate / 1e9:.6g} GB/s", "source": f"{src}: {how}"}}
        doc["flows"]["mem-copy"] = {"description": "memory copy by socket 0: reads, write-allocate reads and "
                                                   "writes share its memory link",
                                    "legs": [["memory", "cpu0"], ["cpu0", "memory"]],
                                    "passes": {"mem0": passes}}
    else:
        doc.pop("links")
        doc.pop("flows")
    return doc


def to_signature(machine: dict, *, file: str | None = None):
    """A :class:`~pinchpoint.inputs.signature.Signature` of the file's likwid-bench measurements.

    Raises
    ------
    InputError
        If the file has no measurements.
    """
    from pinchpoint.inputs.signature import KernelRun, Point, Signature

    dicts = point_dicts(machine, file=file)
    if not dicts:
        raise _doc(file).error("benchmarks.measurements",
                               "the machine file has no likwid-bench measurements to import")
    points = tuple(Point.from_dict(d, file=file, key=f"points[{i}]") for i, d in enumerate(dicts))
    host = {"name": _name_from(machine, file), "cpu_model": str(machine["model name"]),
            "kerncraft": extras(machine, file=file),
            "cores": (_int(machine, "cores per socket", file) or 1) * (_int(machine, "sockets", file, default=1)),
            "clocks": {"nominal_hz": _quantity(machine["clock"], "frequency", file, "clock")},
            "source": f"kerncraft machine file {file or ''} (kerncraft version {machine['kerncraft version']})".strip()}
    created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return Signature(host, {"name": "likwid-bench", "version": "unknown", "flags": [],
                                "note": "measurements from the kerncraft machine file"},
                     created, {KERNEL: KernelRun(None, points)})


def extras(machine: dict, *, file=None) -> dict:
    """What the profile format has no field for: SP flops per cycle, NUMA domains, each cache
    level's upstream throughput and whether its transfers overlap (kerncraft's ECM inputs)."""
    out: dict[str, Any] = {}
    flops = machine.get("FLOPs per cycle")
    if isinstance(flops, dict) and isinstance(flops.get("SP"), dict) and not _unknown(flops["SP"].get("total")):
        out["sp_flops_per_cycle"] = flops["SP"].get("total")
    for key in ("NUMA domains per socket", "cores per NUMA domain"):
        value = _int(machine, key, file)
        if value is not None:
            out[key.replace(" ", "_")] = value
    levels = []
    for i, lvl in enumerate(machine["memory hierarchy"]):
        if not isinstance(lvl, dict):
            continue
        entry = {"level": str(lvl.get("level"))}
        up = lvl.get("upstream throughput")
        if isinstance(up, list) and up:
            entry["upstream_throughput"] = [str(x) if not isinstance(x, list) else [str(y) for y in x] for x in up]
        if "transfers overlap" in lvl:
            entry["transfers_overlap"] = bool(lvl["transfers overlap"])
        levels.append(entry)
    out["memory_hierarchy"] = levels
    for model in ("overlapping model", "non-overlapping model"):
        ports = (machine.get(model) or {}).get("ports") if isinstance(machine.get(model), dict) else None
        if ports is not None:
            out[model.replace(" ", "_").replace("-", "_") + "_ports"] = (
                {str(k): [str(p) for p in v] for k, v in ports.items()} if isinstance(ports, dict)
                else [str(p) for p in ports])
    return out
