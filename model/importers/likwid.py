"""likwid-bench text output -> signature points.

likwid-bench (Treibig, Hager and Wellein, "LIKWID: A lightweight performance-oriented tool suite
for x86 multicore environments", PSTI 2010) prints one block per run::

    LIKWID MICRO BENCHMARK
    Test: copy
    Using 1 work groups
    Using 2 threads
    ...
    Time:                   1.835798e+00 sec      (older versions: "Runtime: 1.83 s")
    Size (Byte):            99968                 (the whole working set, all threads)
    MByte/s:                57099.99              (1 MByte = 10^6 B; bytes counted without
                                                   write-allocate traffic)

Each run becomes a point of kernel ``likwid_bench``: ``{"op": TEST, "pattern": "stride1",
"threads": N, "working_set_bytes": SIZE, "result": {"unit": "B/s", ...}}``; runs with the same
parameters (several files, or one file holding several runs) are repetitions of one point.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import subprocess
from typing import Iterable

from pinchpoint.errors import InputError, MeasurementError, shown
from pinchpoint.inputs.signature import KernelRun, Point, Signature

KERNEL = "likwid_bench"
_KEYVAL = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 ()/._-]*?)\s*:\s*(.*?)\s*$")


def _number(text: str, file, line: int, key: str) -> float:
    m = re.match(r"^([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)", text)
    if not m:
        raise InputError(f"expected a number after '{key}:', found {shown(text)}", file=file, key=key, line=line)
    value = float(m.group(1))
    if not math.isfinite(value):  # "1e400": int() of it would raise OverflowError
        raise InputError(f"{shown(m.group(1))} is not a finite number", file=file, key=key, line=line)
    return value


def _finished(cur: dict, file, start_line: int) -> dict:
    """A complete run record, or an error naming the line where the incomplete one starts."""
    missing = [k for k in ("op", "working_set_bytes", "bytes_per_s") if k not in cur]
    if missing:
        names = {"op": "Test:", "working_set_bytes": "Size (Byte):", "bytes_per_s": "MByte/s:"}
        raise InputError(f"the likwid-bench run starting here has no {', '.join(names[m] for m in missing)} "
                         "line (is the output cut short?)", file=file, line=start_line)
    cur.setdefault("threads", 1)
    cur.setdefault("time_s", None)
    cur.setdefault("iterations", None)
    return cur


def _field(cur: dict, key: str, value: str, file, i: int) -> None:
    """One 'key: value' line of a run into its record."""
    if key == "Test":
        if not re.match(r"^[A-Za-z0-9_]+$", value):
            raise InputError(f"expected a kernel name after 'Test:', found {value[:40]!r}", file=file,
                             key="Test", line=i)
        cur["op"] = value
    elif key == "Size (Byte)":
        cur["working_set_bytes"] = int(_number(value, file, i, key))
    elif key == "MByte/s":
        v = _number(value, file, i, key)
        if v < 0:
            raise InputError(f"a bandwidth cannot be negative ({value[:40]!r})", file=file, key=key, line=i)
        cur["bytes_per_s"] = v * 1e6
    elif key in ("Time", "Runtime"):
        cur["time_s"] = _number(value, file, i, key)
    elif key == "Iterations":
        cur["iterations"] = int(_number(value, file, i, key))


def parse_likwid_bench(text: str, *, file: str | None = None) -> list[dict]:
    """The runs in likwid-bench output, as plain records.

    Returns
    -------
    list of dict
        ``{"op": str, "threads": int, "working_set_bytes": int, "bytes_per_s": float,
        "time_s": float or None, "iterations": int or None}`` per run, in file order.

    Raises
    ------
    InputError
        If the text holds no complete run, or a run lacks 'Test', 'Size (Byte)' or 'MByte/s'.
    """
    runs: list[dict] = []
    cur: dict | None = None
    start_line = 0
    for i, raw in enumerate(text.splitlines(), start=1):
        if "LIKWID MICRO BENCHMARK" in raw:
            if cur is not None:
                runs.append(_finished(cur, file, start_line))
            cur, start_line = {}, i
            continue
        if cur is None:
            continue
        m = re.match(r"^\s*Using\s+([0-9]{1,9})\s+threads?\s*$", raw)  # no 5,000-digit counts
        if m:
            cur["threads"] = int(m.group(1))
            continue
        m = _KEYVAL.match(raw)
        if m:
            _field(cur, m.group(1), m.group(2), file, i)
    if cur is not None:
        runs.append(_finished(cur, file, start_line))
    if not runs:
        raise InputError("no likwid-bench run found (expected 'LIKWID MICRO BENCHMARK', 'Test:', "
                         "'Size (Byte):' and 'MByte/s:' lines)", file=file)
    return runs


def run_likwid_bench(test: str, working_set_kb: int, iterations: int | None = None, *,
                     timeout: float = 600) -> dict:
    """Run ``likwid-bench -t TEST -w S0:<kB>kB:1`` (one thread on the first hardware thread of
    socket 0; likwid's kB is 1000 B) for ``iterations`` (``-i``) or, without, for 1 s (``-s 1``)
    and return its run as :func:`parse_likwid_bench` reads it.

    Raises
    ------
    MeasurementError
        If likwid-bench fails, times out or prints no complete run.
    """
    cmd = ["likwid-bench", "-t", test, "-w", f"S0:{working_set_kb}kB:1"]
    cmd += ["-i", str(iterations)] if iterations else ["-s", "1"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise MeasurementError(f"likwid-bench -t {test} failed: {proc.stderr.strip()[:300]}")
        (run,) = parse_likwid_bench(proc.stdout, file=f"likwid-bench -t {test}")
    except (OSError, subprocess.TimeoutExpired, InputError, ValueError) as exc:
        raise MeasurementError(f"likwid-bench -t {test} failed: {exc}") from None
    if run["time_s"] is None or run["iterations"] is None:
        raise MeasurementError(f"likwid-bench -t {test} printed no Time or Iterations line")
    return run


def point_dicts(runs: Iterable[dict]) -> list[dict]:
    """Group runs into signature point dicts (same op, threads and working set: repetitions)."""
    groups: dict[tuple, list[float]] = {}
    for r in runs:
        groups.setdefault((r["op"], r["threads"], r["working_set_bytes"]), []).append(r["bytes_per_s"])
    out = []
    for (op, threads, ws), reps in groups.items():
        s = sorted(reps)
        n = len(s)
        median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
        out.append({"op": op, "pattern": "stride1", "threads": threads, "working_set_bytes": ws,
                    "result": {"unit": "B/s", "min": s[0], "median": median, "max": s[-1],
                               "repetitions": reps}})
    return out


def to_signature(texts: Iterable[tuple[str, str | None]]):
    """A :class:`~pinchpoint.inputs.signature.Signature` of the runs in one or more outputs.

    ``texts`` holds (text, file name) pairs.  The host is unknown to likwid-bench's output: the
    signature says so (``cpu_model = "unknown"``) and names the files.
    """
    runs, files = [], []
    for text, file in texts:
        runs.extend(parse_likwid_bench(text, file=file))
        files.append(str(file))
    points = tuple(Point.from_dict(d, file=", ".join(files), key=f"points[{i}]")
                   for i, d in enumerate(point_dicts(runs)))
    host = {"name": "likwid-bench import", "cpu_model": "unknown",
            "source": f"likwid-bench output: {', '.join(files)}"}
    created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return Signature(host, {"name": "likwid-bench", "version": "unknown", "flags": [],
                                "note": "bytes counted without write-allocate traffic"},
                     created, {KERNEL: KernelRun(None, points)})
