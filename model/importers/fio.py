"""fio JSON output (``fio --output-format=json``) -> IO-BENCH-like signature points.

fio (J. Axboe, *fio HOWTO*, "Terse/JSON output") reports per job and direction ``io_bytes``,
``bw_bytes`` [B/s], ``iops`` and ``lat_ns`` (``min``, ``max``, ``mean`` [ns]).  Each job and
direction with I/O becomes:

* a point of kernel ``iobench`` (the name our own IO-BENCH kernel uses) with ``test`` in
  ``seq_read``, ``seq_write``, ``random_read``, ``random_write``, ``buffer_bytes`` (fio's
  ``bs``), ``file_bytes`` (``size``), ``iodepth``, ``numjobs``, ``direct``, ``ioengine`` and
  ``tool = "fio"``; result ``bw_bytes`` in B/s;
* a point of kernel ``iobench_latency`` with the same parameters; result the mean completion
  latency ``lat_ns.mean`` in seconds.

IOPS are not a separate point: at a fixed block size they are ``bw_bytes / buffer_bytes``.
Outputs with identical parameters (repeated files) are repetitions of one point.  Within one
output, ``numjobs = N`` without ``group_reporting`` (fio's default) lists N clones of a job that
ran at once ("Each thread is reported separately; to see statistics for all clones as a whole,
use group_reporting", fio HOWTO, ``numjobs``): their bandwidths add up to one figure, and their
mean latencies average.  With ``group_reporting`` fio lists the group once, already summed.
fio sizes use fio's default ``kb_base = 1024``: "4k" is 4 KiB.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from typing import Iterable

from pinchpoint.inputs.document import Reader
from pinchpoint.errors import InputError
from pinchpoint.inputs.input_text import finite_number, parse_bounded
from pinchpoint.inputs.signature import KernelRun, Point, Signature
from pinchpoint.physics import units

BANDWIDTH_KERNEL = "iobench"
LATENCY_KERNEL = "iobench_latency"
_RW = {  # fio rw= -> (pattern, directions it exercises)
    "read": "seq", "write": "seq", "rw": "seq", "readwrite": "seq", "trim": "seq",
    "randread": "random", "randwrite": "random", "randrw": "random", "randtrim": "random",
    "trimwrite": "seq", "randtrimwrite": "random",
}


def parse_fio_size(text, *, file=None, key=None) -> int | None:
    """A fio size ("4k", "1M", "16m", "4096", "1MiB") [B] with fio's kb_base = 1024; None for
    ranges and lists ("4k-64k", "4k,8k") that have no single size."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        number = finite_number(text)
        if number is None or number < 0:  # NaN, inf, a 400-digit integer
            raise InputError(f"expected a size in bytes, got {str(text)[:40]}", file=file, key=key)
        return int(number)
    if not isinstance(text, str):
        return None
    m = re.match(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgtp]?)(i?b?)\s*$", text, re.I)
    if not m:
        return None
    prefix = m.group(2).upper()
    unit = f"{prefix}iB" if prefix else "B"
    return int(units.parse(f"{m.group(1)} {unit}", "size", file=file, key=key))


def _load(text: str, file) -> dict:
    start = text.find("{")
    if start < 0:
        raise InputError("no JSON object found: write fio's output with --output-format=json", file=file)
    try:
        data = parse_bounded(json.loads, text[start:], InputError, file=file)
    except json.JSONDecodeError as exc:
        line = text[:start].count("\n") + exc.lineno
        raise InputError(f"not valid JSON ({exc.msg}); is the file cut short?", file=file, line=line) from None
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), list):
        raise InputError("expected fio JSON output with a 'jobs' list", file=file, key="jobs")
    return data


def _job_params(opts: dict, key: str, file) -> dict:
    """A job's options as signature parameters: block and file sizes, queue depth, clones, ..."""
    params: dict = {"tool": "fio"}
    bs = opts.get("bs", opts.get("blocksize", "4k"))
    size = parse_fio_size(bs, file=file, key=f"{key}.job options.bs")
    if size is not None:
        params["buffer_bytes"] = size
    else:
        params["bs"] = str(bs)
    fsize = parse_fio_size(opts.get("size"), file=file, key=f"{key}.job options.size") if "size" in opts else None
    if fsize is not None:
        params["file_bytes"] = fsize
    for name_opt in ("iodepth", "numjobs"):
        if name_opt in opts:
            value = opts[name_opt]
            try:  # fio writes strings; a 5,000-digit one is cut to fail as a whole number would
                params[name_opt] = int(value[:24] if isinstance(value, str) else value)
            except (TypeError, ValueError, OverflowError):
                raise InputError(f"expected a whole number, found {str(opts[name_opt])[:40]!r}", file=file,
                                 key=f"{key}.job options.{name_opt}") from None
    if "direct" in opts:
        params["direct"] = str(opts["direct"]).strip() in ("1", "true")
    if "ioengine" in opts:
        params["ioengine"] = str(opts["ioengine"])
    return params


def _direction_records(job: dict, key: str, name: str, params: dict, pattern: str, file) -> list[dict]:
    """One record per direction (read, write, trim) that moved data."""
    out = []
    for direction in ("read", "write", "trim"):
        d = job.get(direction)
        if not isinstance(d, dict):
            continue
        try:
            io_bytes = d.get("io_bytes", 0)
            bw = float(d["bw_bytes"]) if "bw_bytes" in d else float(d["bw"]) * 1024  # old fio: KiB/s
            if not math.isfinite(bw) or bw < 0:
                raise ValueError(bw)
        except (KeyError, TypeError, ValueError, OverflowError):
            raise InputError("expected 'bw_bytes' (or 'bw' in KiB/s) as a finite number >= 0", file=file,
                             key=f"{key}.{direction}.bw_bytes") from None
        if not io_bytes:
            continue
        lat = d.get("lat_ns")
        latency = None
        if isinstance(lat, dict) and finite_number(lat.get("mean")) is not None and lat.get("N", 1):
            latency = finite_number(lat["mean"]) * 1e-9
        out.append({"params": {**params, "test": f"{pattern}_{direction}"},
                    "bytes_per_s": bw, "latency_s": latency, "job": name,
                    "clone_of": (name, job.get("groupid"), direction), "clones": params.get("numjobs", 1)})
    return out


def parse_fio_json(text: str, *, file: str | None = None) -> list[dict]:
    """The measurements in one fio JSON output, as plain records.

    Returns
    -------
    list of dict
        ``{"params": {...}, "bytes_per_s": float, "latency_s": float or None}`` per job and
        direction with I/O.

    Raises
    ------
    InputError
        On text that is not fio JSON, a job that reports an error, or a missing field.
    """
    data = _load(text, file)
    doc = Reader(file, InputError, json=True)
    glob = doc.table(data.get("global options", {}), "global options")
    out = []
    for j, job in enumerate(data["jobs"]):
        key = f"jobs[{j}]"
        doc.table(job, key)
        name = job.get("jobname", key)
        for field, value in (("jobname", name), ("groupid", job.get("groupid"))):
            if isinstance(value, (dict, list)):  # hashed below to group a job's clones
                raise InputError(f"fio's {field} is a single value, not {type(value).__name__}",
                                 file=file, key=f"{key}.{field}")
        if job.get("error", 0):
            raise InputError(f"fio job {name!r} failed with error {job['error']}", file=file, key=f"{key}.error")
        opts = {**glob, **doc.table(job.get("job options") or {}, f"{key}.job options")}
        rw = str(opts.get("rw", opts.get("readwrite", "read")))
        pattern = _RW.get(rw.split(":")[0])
        if pattern is None:
            raise InputError(f"unknown fio rw={rw[:40]!r}", file=file, key=f"{key}.job options.rw")
        out += _direction_records(job, key, name, _job_params(opts, key, file), pattern, file)
    out = _sum_clones(out, file)
    if not out:
        raise InputError("no job in this fio output moved any data", file=file, key="jobs")
    return out


def _sum_clones(records: list[dict], file) -> list[dict]:
    """One record per job and direction: the N concurrent clones of ``numjobs = N`` summed."""
    groups: dict = {}
    for r in records:
        groups.setdefault(r.pop("clone_of"), []).append(r)
    out = []
    for (name, _, _), rs in groups.items():
        n = rs[0].pop("clones")
        for r in rs[1:]:
            r.pop("clones")
        if len(rs) == 1:  # group_reporting, or numjobs = 1
            out.append(rs[0])
            continue
        if len(rs) != n:
            raise InputError(f"fio job {name!r} has numjobs={n} but {len(rs)} entries in one output: "
                             "expected one per clone (numjobs) or one in all (group_reporting)",
                             file=file, key="jobs")
        lats = [r["latency_s"] for r in rs if r["latency_s"] is not None]
        out.append({**rs[0], "bytes_per_s": sum(r["bytes_per_s"] for r in rs),
                    "latency_s": sum(lats) / len(lats) if lats else None})
    return out


def _group(records, value_key) -> list[dict]:
    groups: dict[str, tuple[dict, list[float]]] = {}
    for r in records:
        if r[value_key] is None:
            continue
        k = json.dumps(r["params"], sort_keys=True)
        groups.setdefault(k, (r["params"], []))[1].append(r[value_key])
    out = []
    for params, reps in groups.values():
        s = sorted(reps)
        n = len(s)
        median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
        out.append({**params, "result": {"unit": "B/s" if value_key == "bytes_per_s" else "s",
                                         "min": s[0], "median": median, "max": s[-1], "repetitions": reps}})
    return out


def point_dicts(records: Iterable[dict]) -> dict[str, list[dict]]:
    """Kernel name -> signature point dicts (bandwidth and mean latency)."""
    records = list(records)
    return {BANDWIDTH_KERNEL: _group(records, "bytes_per_s"), LATENCY_KERNEL: _group(records, "latency_s")}


def to_signature(texts: Iterable[tuple[str, str | None]]):
    """A :class:`~pinchpoint.inputs.signature.Signature` of one or more fio JSON outputs."""
    records, files, versions = [], [], set()
    for text, file in texts:
        records.extend(parse_fio_json(text, file=file))
        files.append(str(file))
        try:
            versions.add(str(json.loads(text[text.find("{"):]).get("fio version", "fio")))
        except (ValueError, AttributeError):
            pass
    kernels = {}
    for kernel, dicts in point_dicts(records).items():
        if dicts:
            kernels[kernel] = KernelRun(None, tuple(Point.from_dict(d, file=", ".join(files),
                                                                    key=f"kernels.{kernel}.points[{i}]")
                                                    for i, d in enumerate(dicts)))
    host = {"name": "fio import", "cpu_model": "unknown", "source": f"fio JSON output: {', '.join(files)}"}
    created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return Signature(host, {"name": "fio", "version": ", ".join(sorted(versions)) or "unknown", "flags": []}, created, kernels)
