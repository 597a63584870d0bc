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

The memory link is the bandwidth a copy sees (:mod:`pinchpoint.importers.kerncraft_memory`:
kerncraft's ``copy`` figure with its write-allocate correction where the chip makes that read,
never above the DIMMs' peak); the ``mem-copy`` flow crosses the link as many times per byte of
payload as the memory moves (3 for copy with write-allocate: read, write-allocate read, write;
2 without), so its ceiling is the copy rate the file measured.  A file's own slips are read
with a warning where the figure does not depend on them (a core list with a comma lost, a
malformed repetition); ``model type`` names the CPU where ``model name`` is null.  Core counts in the benchmarks above
the chip's own (a benchmark section copied from another machine) are flagged by
:func:`benchmark_flags`.  What the profile format has no field for (SP flops, NUMA domains,
caches' upstream throughputs and overlap model) goes into the signature's ``host.kerncraft``.
"""

from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path
from typing import Any

import yaml

from pinchpoint.errors import InputError, shown
from pinchpoint.importers.kerncraft_memory import memory_rate, stream_bytes, write_allocate_factor
from pinchpoint.importers.kerncraft_values import (UNKNOWN, chip_cores, entries, is_unknown, machine_reader,
                                                   measurement_blocks, quantity, whole)
from pinchpoint.inputs.doc_values import bytes_text, ident
from pinchpoint.inputs.signature import KernelRun, Point, Signature
from pinchpoint.inputs.yaml_safe import load_yaml

__all__ = ["KERNEL", "MAX_VERSION", "MIN_VERSION", "UNKNOWN", "benchmark_flags", "caches", "extras", "load_machine",
           "memory_rate", "parse_version", "point_dicts", "stream_bytes", "to_profile_document", "to_signature",
           "write_allocate_factor"]

#: The machine-file versions we read: 0.8.1 up to (not including) 0.9.
MIN_VERSION = (0, 8, 1)
MAX_VERSION = (0, 9, 0)
KERNEL = "likwid_bench"
#: Longest run of digits read (no machine figure needs more; Python converts at most 4,300).
MAX_NUMBER_DIGITS = 100
_LONG_DIGITS = re.compile(r"[0-9]{%d,}" % (MAX_NUMBER_DIGITS + 1))
_MERGED = re.compile(r"^\s*[0-9]{1,6}(\s+[0-9]{1,6})+\s*$")


def parse_version(text) -> tuple[int, int, int] | None:
    """'0.8.3.dev0' -> (0, 8, 3); None if it does not start with numbers."""
    m = re.match(r"^\s*([0-9]+)\.([0-9]+)(?:\.([0-9]+))?", str(text))
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def load_machine(text: str, *, file: str | None = None, notes: list[str] | None = None) -> dict:
    """Parse and check a kerncraft machine file; repairs it makes (a core list with a missing
    comma) are appended to ``notes``.

    Raises
    ------
    InputError
        On YAML syntax errors (with the line), a number too long to be one, a file that is not
        a mapping, a missing or unsupported ``kerncraft version``, or missing required keys.
    """
    digits = _LONG_DIGITS.search(text)
    if digits:  # Python refuses to convert more than 4,300 digits, deep inside the YAML reader
        raise InputError(f"a number of more than {MAX_NUMBER_DIGITS} digits", file=file,
                         line=text.count("\n", 0, digits.start()) + 1)
    try:
        data = load_yaml(text, file=file)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"YAML syntax error: {problem}", file=file, line=line) from None
    if not isinstance(data, dict):
        raise machine_reader(file).error(None, "expected a kerncraft machine file (a YAML mapping)")
    if "kerncraft version" not in data:
        raise machine_reader(file).error("kerncraft version",
                               "missing: a kerncraft machine file names the version it was written for")
    raw = data["kerncraft version"]
    version = parse_version(raw)
    lo, hi = ".".join(map(str, MIN_VERSION)), ".".join(map(str, MAX_VERSION))
    if version is None or not MIN_VERSION <= version < MAX_VERSION:
        raise machine_reader(file).error("kerncraft version",
                               f"machine-file version {shown(raw)} is not supported: pinchpoint reads "
                               f"kerncraft machine files from {lo} up to (not including) {hi}; update the "
                               "file with kerncraft's CHANGES_SINCE notes (0.8.1 replaced 'non-overlap "
                               "upstream throughput' by 'upstream throughput')")
    for key in ("model name", "clock", "cores per socket", "memory hierarchy"):
        if key not in data:
            raise machine_reader(file).error(key, "missing (required to describe the machine)")
    if not isinstance(data["memory hierarchy"], list) or not data["memory hierarchy"]:
        raise machine_reader(file).error("memory hierarchy", "expected a list of levels (L1 ... MEM)")
    _split_merged_counts(data, file, notes)
    return data


def _split_merged_counts(machine: dict, file, notes: list[str] | None) -> None:
    """A core or thread list entry such as '38 39' is two entries with the comma lost; it is
    read as two where that makes the list as long as the block's results (else it stays and is
    refused where a figure needs it)."""
    for level, tpc, block, key in measurement_blocks(machine, file):
        results = block.get("results")
        lengths = {len(v) for v in results.values() if isinstance(v, list)} if isinstance(results, dict) else set()
        for name in ("cores", "threads"):
            value = block.get(name)
            if not isinstance(value, list) or len(lengths) != 1:
                continue
            merged = [isinstance(v, str) and _MERGED.match(v) is not None for v in value]
            if not any(merged):
                continue
            split = [x for v, m in zip(value, merged) for x in ([int(y) for y in v.split()] if m else [v])]
            if len(split) == next(iter(lengths)) != len(value):
                bad = [f"{key}.{name}[{i}] = {v!r}" for i, (v, m) in enumerate(zip(value, merged)) if m]
                if notes is not None:
                    notes.append(f"{', '.join(bad)}: read as {len(split) - len(value) + len(bad)} entries "
                                 "(a comma missing in the list)")
                block[name] = split


def _level_number(name, file, key) -> int | None:
    m = re.match(r"^L([1-5])$", str(name))
    if m:
        return int(m.group(1))
    if str(name) == "MEM":
        return None
    raise machine_reader(file).error(key, f"expected a level L1 .. L5 or MEM, found {name!r}")


def caches(machine: dict, *, file=None) -> list[dict]:
    """Profile cache entries from ``memory hierarchy``."""
    out = []
    for i, lvl in enumerate(machine["memory hierarchy"]):
        key = f"memory hierarchy[{i}]"
        machine_reader(file).table(lvl, key)
        level = _level_number(lvl.get("level"), file, f"{key}.level")
        if level is None:
            continue
        cpg = lvl.get("cache per group") or {}
        machine_reader(file).table(cpg, f"{key}.cache per group")
        sets, ways, line = (whole(cpg, k, file, where=f"{key}.cache per group") for k in ("sets", "ways", "cl_size"))
        if sets and ways and line:
            size = sets * ways * line
            size_text = bytes_text(size)
        elif lvl.get("size per group") is not None:
            size = quantity(lvl["size per group"], "size", file, f"{key}.size per group")
            size_text = str(lvl["size per group"])
        else:
            raise machine_reader(file).error(key, "a cache level needs 'cache per group' (sets, ways, cl_size) or "
                                        "'size per group'")
        entry = {"level": level, "type": "data" if level == 1 else "unified", "size": size_text,
                 "source": f"kerncraft machine file, {key}"}
        if line:
            entry["line"] = f"{line} B"
        elif machine.get("cacheline size"):
            entry["line"] = str(machine["cacheline size"])
        if ways:
            entry["associativity"] = ways
        cores = whole(lvl, "cores per group", file, where=key)
        if cores:
            entry["shared_by"] = cores
        out.append(entry)
    return out


def _repetitions(kstats, i: int, result: float, file, key: str, skipped: list | None) -> list[float]:
    """The repetitions of one figure; a malformed one ('14.14 GB/s 14.12 GB/s', a comma lost) is
    skipped and listed in ``skipped`` (the figure itself is in ``results``)."""
    if not (isinstance(kstats, list) and i < len(kstats) and isinstance(kstats[i], list) and kstats[i]):
        return [result]
    reps = []
    for j, v in enumerate(kstats[i]):
        try:
            reps.append(quantity(v, "bandwidth", file, f"{key}[{i}][{j}]"))
        except InputError:
            if skipped is None:
                raise
            skipped.append((f"{key}[{i}][{j}]", v))
    return reps or [result]


def point_dicts(machine: dict, *, file=None, notes: list[str] | None = None) -> list[dict]:
    """Signature point dicts of every likwid-bench measurement in the file.

    One point per level, threads-per-core setting, core count and kernel: ``op`` (the
    likwid-bench kernel), ``pattern = "stride1"``, ``threads``, ``cores``, ``level``,
    ``working_set_bytes`` (``total size``), result in B/s with the ``stats`` repetitions where
    the file has them, else the single ``results`` figure.
    """
    out = []
    skipped: list[tuple[str, Any]] | None = [] if notes is not None else None
    for level, tpc, block, key in measurement_blocks(machine, file):
        cores = entries(block, "cores", file, key, counts=True)
        n = len(cores)
        threads = entries(block, "threads", file, key, n, counts=True) if "threads" in block else \
            [c * (tpc if isinstance(tpc, int) else 1) for c in cores]
        if "total size" in block:
            sizes = [quantity(s, "size", file, f"{key}.total size[{i}]")
                     for i, s in enumerate(entries(block, "total size", file, key, n))]
        elif "size per thread" in block:
            sizes = [quantity(s, "size", file, f"{key}.size per thread[{i}]") * t
                     for i, (s, t) in enumerate(zip(entries(block, "size per thread", file, key, n), threads))]
        else:
            raise machine_reader(file).error(key, "a measurement needs 'total size' or 'size per thread'")
        results = block.get("results") or {}
        stats = block.get("stats") or {}
        if not isinstance(results, dict) or not isinstance(stats, dict):
            raise machine_reader(file).error(f"{key}.results", "expected mappings of kernel -> values")
        for kernel, values in results.items():
            kkey = f"{key}.results.{kernel}"
            values = entries(results, kernel, file, f"{key}.results", n)
            kstats = stats.get(kernel)
            for i in range(n):
                result = quantity(values[i], "bandwidth", file, f"{kkey}[{i}]")
                reps = _repetitions(kstats, i, result, file, f"{key}.stats.{kernel}", skipped)
                s = sorted(reps)
                m = len(s)
                median = s[m // 2] if m % 2 else (s[m // 2 - 1] + s[m // 2]) / 2
                out.append({"op": str(kernel), "pattern": "stride1", "threads": int(threads[i]),
                            "cores": int(cores[i]), "level": level,
                            "working_set_bytes": int(round(sizes[i])),
                            "result": {"unit": "B/s", "min": s[0], "median": median, "max": s[-1],
                                       "repetitions": reps}})
    if skipped:
        notes.append(f"{len(skipped)} stats repetitions are not one bandwidth each (first {skipped[0][0]} = "
                     f"{shown(skipped[0][1])}, a comma lost?): skipped; each figure keeps its 'results' value "
                     "and its other repetitions")
    return out


def benchmark_flags(machine: dict, *, file=None) -> list[str]:
    """Warnings about the benchmark section: core counts above the machine's."""
    chip = chip_cores(machine, file) * (whole(machine, "sockets", file, default=1) or 1)
    over = {}
    for level, tpc, block, key in measurement_blocks(machine, file):
        cores = entries(block, "cores", file, key, counts=True)
        if cores and max(cores) > chip:
            over[key] = max(cores)
    if not over:
        return []
    return [f"benchmarks.measurements: {', '.join(over)} go up to {max(over.values())} cores, but the machine "
            f"has {chip}: the benchmarks were measured on another machine (a copied section?); its figures "
            "do not describe this one"]


def model_name(machine: dict) -> str:
    """``model name``, else ``model type`` where the name is null (kerncraft's own files leave it
    empty: ``model name: # CN9980``), else "unknown CPU" -- never "None"."""
    for key in ("model name", "model type"):
        value = machine.get(key)
        if value is not None and str(value).strip() and not is_unknown(value):
            return str(value).strip()
    return "unknown CPU"


def _name_from(machine: dict, file) -> str:
    stem = Path(file).stem if file else model_name(machine)
    return ident(stem, prefix="k")


def to_profile_document(machine: dict, *, file: str | None = None) -> dict:
    """A profile document of the machine: one cpu component per socket with its caches and
    flop rate, memory, and -- where the file has MEM measurements -- a measured memory link per
    socket and a ``mem-copy`` flow."""
    src = f"kerncraft machine file {Path(file).name if file else ''}".strip()
    clock_hz = quantity(machine["clock"], "frequency", file, "clock")
    if clock_hz <= 0:
        raise machine_reader(file).error("clock", f"{machine['clock']!r} must be greater than zero")
    sockets = whole(machine, "sockets", file, default=1)
    cores = whole(machine, "cores per socket", file)
    tpc = whole(machine, "threads per core", file, default=1)
    cpu: dict[str, Any] = {"kind": "cpu", "model": model_name(machine),
                           "clock": {"value": str(machine["clock"]), "source": f"{src}: clock"},
                           "cores": cores, "threads_per_core": tpc, "source": src}
    flops = machine.get("FLOPs per cycle")
    total = flops.get("DP", {}).get("total") if isinstance(flops, dict) and isinstance(flops.get("DP"), dict) else None
    if is_unknown(total):
        total = None
    if total is not None:
        if isinstance(total, bool) or not isinstance(total, (int, float)) or total <= 0:
            raise machine_reader(file).error("FLOPs per cycle.DP.total",
                                   f"expected a positive number, found {total!r}")
        cpu["flops_per_cycle"] = {"value": total, "source": f"{src}: FLOPs per cycle.DP.total"}
    else:
        cpu["unknown"] = ["flops_per_cycle"]
    cache_list = caches(machine, file=file)
    if cache_list:
        cpu["caches"] = cache_list
    doc: dict[str, Any] = {
        "schema": 1, "name": _name_from(machine, file),
        "description": f"{model_name(machine)} ({sockets} x {cores} cores at {machine['clock']}), "
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
                "description": "one socket's memory bandwidth for a copy (the source says how it was read)",
                "rate": {"value": f"{rate / 1e9:.6g} GB/s", "source": f"{src}: {how}"}}
        doc["flows"]["mem-copy"] = {"description": "memory copy by socket 0: its reads, writes (and write-allocate "
                                                   "reads where the chip makes them) share its memory link",
                                    "legs": [["memory", "cpu0"], ["cpu0", "memory"]],
                                    "passes": {"mem0": passes}}
    else:
        doc.pop("links")
        doc.pop("flows")
    return doc


def to_signature(machine: dict, *, file: str | None = None, notes: list[str] | None = None):
    """A :class:`~pinchpoint.inputs.signature.Signature` of the file's likwid-bench measurements.

    Raises
    ------
    InputError
        If the file has no measurements.
    """
    dicts = point_dicts(machine, file=file, notes=notes)
    if not dicts:
        raise machine_reader(file).error("benchmarks.measurements",
                               "the machine file has no likwid-bench measurements to import")
    points = tuple(Point.from_dict(d, file=file, key=f"points[{i}]") for i, d in enumerate(dicts))
    host = {"name": _name_from(machine, file), "cpu_model": model_name(machine),
            "kerncraft": extras(machine, file=file),
            "cores": (whole(machine, "cores per socket", file) or 1) * (whole(machine, "sockets", file, default=1)),
            "clocks": {"nominal_hz": quantity(machine["clock"], "frequency", file, "clock")},
            "source": f"kerncraft machine file {file or ''} (kerncraft version {machine['kerncraft version']})".strip()}
    created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return Signature(host, {"name": "likwid-bench", "version": "unknown", "flags": [],
                                "note": "measurements from the kerncraft machine file"},
                     created, {KERNEL: KernelRun(None, points)})


def _strings(value) -> list[str] | str:
    """A port list as strings; a lone value (a hand-edited file's) as one string."""
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else str(value)


def extras(machine: dict, *, file=None) -> dict:
    """What the profile format has no field for: SP flops per cycle, NUMA domains, each cache
    level's upstream throughput and whether its transfers overlap (kerncraft's ECM inputs)."""
    out: dict[str, Any] = {}
    flops = machine.get("FLOPs per cycle")
    if isinstance(flops, dict) and isinstance(flops.get("SP"), dict) and not is_unknown(flops["SP"].get("total")):
        out["sp_flops_per_cycle"] = flops["SP"].get("total")
    for key in ("NUMA domains per socket", "cores per NUMA domain"):
        value = whole(machine, key, file)
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
                {str(k): _strings(v) for k, v in ports.items()} if isinstance(ports, dict)
                else _strings(ports))
    return out
