"""Machine signatures: what the bundled kernels measured (or what a paper published).

A signature is the PMaC "machine profile" (Snavely et al., SC2002; Carrington et al., FGCS
2005): MAPS bandwidth vs working set, PEAK flop rates, ping-pong latency and bandwidth,
effective bandwidth, I/O rates.  On disk it is JSON::

    {"schema": 1,
     "host": {"cpu_model": ..., "cores": ..., "caches": [...], "clocks": {...}, ...},
     "compiler": {"name": ..., "version": ..., "flags": [...]},
     "created": "2026-11-22T02:15:00+00:00",
     "kernels": {"maps": {"source_sha256": "...",
                          "points": [{"op": "load", "pattern": "stride1", "threads": 1,
                                      "working_set_bytes": 4096,
                                      "result": {"unit": "B/s", "min": ..., "median": ...,
                                                 "max": ..., "repetitions": [...]}}]}}}

Units: bandwidths in bytes per second ("B/s"), times in seconds ("s"), rates in flop per
second ("flop/s").  A point's parameters are its other keys; ``"pattern"`` is ``"stride1"``,
``"random"`` (a dependent chain), ``"gather"`` (independent random accesses) or ``"scatter"``
(stores into many buckets, each filled in turn).  Published signatures (profiles/signatures/) have ``"source_sha256": null`` and
name their source in ``host.source``.
"""

from __future__ import annotations

import json
import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pinchpoint.inputs.document import Reader, key_path
from pinchpoint.errors import SignatureError, did_you_mean
from pinchpoint.frozen import deep_freeze, freeze_map, thaw
from pinchpoint.inputs.input_text import parse_bounded, read_text
from pinchpoint.paths import atomic_write, data_root, exists

SCHEMA_VERSION = 1
UNITS = ("B/s", "s", "flop/s", "instruction/s", "branch/s", "taken-branch/s", "division/s",
         "operation/s", "pair/s", "jump/s")
PATTERNS = ("stride1", "random", "gather", "scatter")
#: Point parameters of MAPS's access-shape sweeps (kernels/maps.c): concurrent streams, the
#: bytes between accesses, the inner loop's trip count, a gather's extra instructions per
#: element.  A point without them is a plain sweep (one stream, one long loop, no padding).
SHAPE_PARAMS = ("streams", "stride_bytes", "trips", "pad")
_TOP_KEYS = ("schema", "host", "compiler", "created", "kernels")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_RESULT_KEYS = ("unit", "min", "median", "max", "repetitions")


def _reader(file) -> Reader:
    return Reader(file, SignatureError, json=True)


def _is_number(x) -> bool:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:  # an integer beyond any float
        return False


@dataclass(frozen=True)
class Result:
    """One measured (or published) figure with every repetition kept.

    Parameters
    ----------
    unit : str
        "B/s" [bytes per second], "s" [seconds] or "flop/s" [flop per second].
    min, median, max : float
        Statistics over ``repetitions``, in ``unit``.
    repetitions : tuple of float
        Every value, in the order measured.
    """

    unit: str
    min: float
    median: float
    max: float
    repetitions: tuple[float, ...]

    def __post_init__(self):
        object.__setattr__(self, "repetitions", tuple(float(r) for r in self.repetitions))
        self.validate()

    def validate(self, file=None, key="result"):
        if self.unit not in UNITS:
            raise SignatureError(f"unknown unit {self.unit!r} (use one of {', '.join(UNITS)})",
                                 file=file, key=f"{key}.unit")
        if not self.repetitions:
            raise SignatureError("no repetitions", file=file, key=f"{key}.repetitions")
        for i, r in enumerate(self.repetitions):
            if not _is_number(r) or r < 0:
                raise SignatureError(f"{r!r} is not a finite non-negative number",
                                     file=file, key=f"{key}.repetitions[{i}]")
        for name in ("min", "median", "max"):
            v = getattr(self, name)
            if not _is_number(v) or v < 0:
                raise SignatureError(f"{v!r} is not a finite non-negative number",
                                     file=file, key=f"{key}.{name}")
        if not self.min <= self.median <= self.max:
            raise SignatureError(f"min <= median <= max does not hold "
                                 f"({self.min}, {self.median}, {self.max})", file=file, key=key)
        lo, hi = min(self.repetitions), max(self.repetitions)
        tol = 1e-9 * max(abs(hi), 1e-300)
        if abs(self.min - lo) > tol or abs(self.max - hi) > tol:
            raise SignatureError("min and max do not match the repetitions", file=file, key=key)

    @classmethod
    def from_repetitions(cls, unit: str, repetitions) -> "Result":
        """Build a result from raw repetitions (min, median and max computed)."""
        reps = tuple(float(r) for r in repetitions)
        if not reps:
            raise SignatureError("no repetitions", key="result.repetitions")
        return cls(unit, min(reps), statistics.median(reps), max(reps), reps)

    @property
    def spread(self) -> float:
        """max / min over the repetitions (1.0 = perfectly repeatable); inf if min is 0."""
        return self.max / self.min if self.min > 0 else math.inf

    def to_dict(self) -> dict:
        return {"unit": self.unit, "min": self.min, "median": self.median, "max": self.max,
                "repetitions": list(self.repetitions)}

    @classmethod
    def from_dict(cls, d, *, file=None, key="result") -> "Result":
        doc = _reader(file)
        doc.table(d, key, _RESULT_KEYS, _RESULT_KEYS)
        reps = doc.list(d["repetitions"], key_path(key, "repetitions"))
        stats = [doc.number(d[name], key_path(key, name)) for name in ("min", "median", "max")]
        reps = tuple(doc.number(r, key_path(key_path(key, "repetitions"), i)) for i, r in enumerate(reps))
        try:
            return cls(d["unit"], *stats, reps)
        except SignatureError as exc:  # validate() names keys under "result": put them under ``key``
            raise doc.adopt(SignatureError(exc.message, key=exc.key.replace("result", key, 1)
                                           if exc.key else key)) from None


def _check_param(name, value, file, key):
    if not isinstance(value, (str, int, float, bool)) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise SignatureError(f"{value!r} is not a string, number or boolean", file=file, key=key)
    if name == "pattern" and value not in PATTERNS:
        raise SignatureError(f"{value!r} is not one of {', '.join(PATTERNS)}", file=file, key=key)
    if name.endswith("_bytes") or name in _COUNTS:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SignatureError(f"{value!r} is not a number (a size or a count)", file=file, key=key)
        if value < 0:
            raise SignatureError(f"{value!r} must not be negative", file=file, key=key)


#: Parameters that are counts: a string there ("1024") was accepted and failed in a prediction.
_COUNTS = ("loop_length", "threads", "processes", "nodes", "cpus_per_node", "pad")
#: The unit each kernel's results are in (a MAPS point in "s" was read as B/s); a point's
#: ``metric`` says it for kernels that report several (ping: latency in s, bandwidth in B/s).
_KERNEL_UNITS = {"peak": "flop/s", "maps": "B/s", "stream": "B/s", "iobench": "B/s", "netstream": "B/s",
                 "memperf": "B/s", "cachebench": "B/s", "xbench_memory": "B/s", "core": "branch/s"}
#: kernels/core.c's loops that count instructions rather than branches.
_INSTRUCTION_OPS = ("alu", "mix", "retire")
#: kernels/core.c's loops that count taken branches (loop iterations).
_TAKEN_OPS = ("taken", "taken_jumps")
#: kernels/core.c's loops that count integer divisions.
_DIVISION_OPS = ("divide", "divide_chain")
#: kernels/core.c's loops that time one dependency chain (operations of one kind, each waiting).
CHAIN_OPS = ("alu_chain", "multiply_chain", "load_chain", "load_index_chain", "fmul_chain",
             "fdiv_chain", "vector_chain")
#: kernels/core.c's chain loop that counts add-multiply pairs.
_PAIR_OPS = ("fadd_fmul_chain",)
#: kernels/core.c's loops that count floating-point divider instructions (divides, square roots).
_DIVIDER_OPS = ("fdiv", "fsqrt", "fdiv_sqrt", "fdiv_ymm", "fsqrt_ymm")
#: kernels/core.c's loops that count shuffle instructions.
_SHUFFLE_OPS = ("shuffle", "shuffle_lane", "shuffle_fp")
#: kernels/core.c's loops that count indirect jumps.
_INDIRECT_OPS = ("indirect_sorted", "indirect_random")


def _expected_unit(kernel: str, point: "Point") -> str | None:
    metric = point.params.get("metric")
    if metric == "latency":
        return "s"
    if isinstance(metric, str) and metric.startswith("bandwidth"):
        return "B/s"
    if kernel == "core" and point.params.get("op") in _INSTRUCTION_OPS + _DIVIDER_OPS + _SHUFFLE_OPS:
        return "instruction/s"
    if kernel == "core" and point.params.get("op") in _TAKEN_OPS:
        return "taken-branch/s"
    if kernel == "core" and point.params.get("op") in _DIVISION_OPS:
        return "division/s"
    if kernel == "core" and point.params.get("op") in CHAIN_OPS:
        return "operation/s"
    if kernel == "core" and point.params.get("op") in _PAIR_OPS:
        return "pair/s"
    if kernel == "core" and point.params.get("op") in _INDIRECT_OPS:
        return "jump/s"
    return _KERNEL_UNITS.get(kernel)


def _check_meaning(doc: Reader, kernel: str, run: "KernelRun", key: str) -> None:
    """Each point's unit is the one its kernel (or metric) reports, and a known kernel's rate is
    above zero (a kernel of another tool may report a zero)."""
    for i, point in enumerate(run.points):
        where = f"{key}.points[{i}].result"
        unit = point.result.unit
        expected = _expected_unit(kernel, point)
        if expected is not None and unit != expected:
            raise doc.error(f"{where}.unit", f"{unit!r} is not the unit of this result (expected {expected!r})")
        if kernel in _KERNEL_UNITS and unit != "s" and point.result.max <= 0:
            raise doc.error(f"{where}.max", f"a rate of {point.result.max!r} {unit} cannot be a measurement "
                                            "(a run that moved nothing failed)")


def _check_host(doc: Reader, host: Mapping) -> None:
    """``host.caches``, read by the predictions, is a list of tables with a size."""
    if "caches" not in host:
        return
    for i, cache in enumerate(doc.list(host["caches"], "host.caches")):
        key = f"host.caches[{i}]"
        doc.table(cache, key, required=("size_bytes",))
        doc.number(cache["size_bytes"], f"{key}.size_bytes", positive=True)
        if "level" in cache:
            doc.whole(cache["level"], f"{key}.level", minimum=1, what="a cache level")


@dataclass(frozen=True, eq=True)
class Point:
    """One measured point: its parameters (op, pattern, sizes ...) and its result."""

    params: Mapping[str, Any]
    result: Result

    def __post_init__(self):
        object.__setattr__(self, "params", freeze_map(self.params))
        for name, value in self.params.items():
            if name == "result":
                raise SignatureError("'result' cannot be a parameter name", key="params")
            _check_param(name, value, None, f"params.{name}")

    def __getitem__(self, name):
        return self.params[name]

    def get(self, name, default=None):
        return self.params.get(name, default)

    @property
    def shaped(self) -> bool:
        """True for a point of an access-shape sweep (streams, a stride, short loops, a pad)."""
        return (self.params.get("streams", 1) != 1 or "stride_bytes" in self.params
                or "trips" in self.params or "pad" in self.params)

    def matches(self, **param_filter) -> bool:
        """True if every given parameter has the given value."""
        return all(name in self.params and self.params[name] == v
                   for name, v in param_filter.items())

    def to_dict(self) -> dict:
        return {**self.params, "result": self.result.to_dict()}

    @classmethod
    def from_dict(cls, d, *, file=None, key="point") -> "Point":
        _reader(file).table(d, key, required=("result",))
        params = {k: v for k, v in d.items() if k != "result"}
        for name, value in params.items():
            if not isinstance(name, str) or not name:
                raise SignatureError("parameter names must be non-empty strings", file=file,
                                     key=key)
            _check_param(name, value, file, f"{key}.{name}")
        return cls(params, Result.from_dict(d["result"], file=file, key=f"{key}.result"))


@dataclass(frozen=True)
class KernelRun:
    """All points of one kernel and the SHA-256 of the source that produced them
    (None for published signatures, which have no source of ours)."""

    source_sha256: str | None
    points: tuple[Point, ...] = field(default_factory=tuple)

    def __post_init__(self):
        object.__setattr__(self, "points", tuple(self.points))
        if self.source_sha256 is not None and not _SHA256.match(str(self.source_sha256)):
            raise SignatureError("must be 64 lowercase hex digits or null", key="source_sha256")

    def to_dict(self) -> dict:
        return {"source_sha256": self.source_sha256, "points": [p.to_dict() for p in self.points]}

    @classmethod
    def from_dict(cls, d, *, file=None, key="kernel") -> "KernelRun":
        doc = _reader(file)
        doc.table(d, key, ("source_sha256", "points"), ("source_sha256", "points"))
        sha = d["source_sha256"]
        if sha is not None and (not isinstance(sha, str) or not _SHA256.match(sha)):
            raise doc.error(key_path(key, "source_sha256"), f"{sha!r} is not 64 lowercase hex digits or null")
        points_key = key_path(key, "points")
        points = tuple(Point.from_dict(p, file=file, key=key_path(points_key, i))
                       for i, p in enumerate(doc.list(d["points"], points_key)))
        return cls(sha, points)


@dataclass(frozen=True)
class Signature:
    """A machine signature: host, compiler, creation time and the points of every kernel."""

    host: Mapping[str, Any]
    compiler: Mapping[str, Any]
    created: str
    kernels: Mapping[str, KernelRun]
    schema: int = SCHEMA_VERSION
    #: the file it was read from (None: built in memory), which names it when a value of it
    #: is refused while it prices a workload
    file: str | None = field(default=None, compare=False)

    def __post_init__(self):
        # read-only all the way down (host facts are nested tables and arrays) and hashable
        object.__setattr__(self, "host", deep_freeze(self.host))
        object.__setattr__(self, "compiler", deep_freeze(self.compiler))
        object.__setattr__(self, "kernels", freeze_map(self.kernels))

    # ---- lookups used by the rest of pinchpoint ---------------------------------------------

    def __repr__(self) -> str:
        kernels = ", ".join(f"{k} ({len(r.points)} points)" for k, r in self.kernels.items())
        return f"Signature({self.name!r}: {self.host.get('cpu_model', '?')}, {self.created}; {kernels})"

    def points(self, kernel: str, **param_filter) -> list[Point]:
        """Points of ``kernel`` whose parameters equal every value in ``param_filter``.

        Raises
        ------
        SignatureError
            If the signature has no such kernel.
        """
        if kernel not in self.kernels:
            have = ", ".join(sorted(self.kernels)) or "none"
            raise SignatureError(f"no kernel {kernel!r} in this signature (it has {have})",
                                 key=f"kernels.{kernel}")
        return [p for p in self.kernels[kernel].points if p.matches(**param_filter)]

    def value(self, kernel: str, stat: str = "median", **param_filter) -> float:
        """The ``stat`` ("min", "median" or "max") of the single point matching the filter."""
        found = self.points(kernel, **param_filter)
        if len(found) != 1:
            raise SignatureError(f"{len(found)} points match {param_filter!r} (need exactly one)",
                                 key=f"kernels.{kernel}.points")
        return getattr(found[0].result, stat)

    def curve(self, kernel: str, x: str, **param_filter) -> list[tuple[float, Result]]:
        """(x, result) pairs sorted by the parameter ``x``, e.g. the MAPS staircase:
        ``sig.curve("maps", "working_set_bytes", op="load", pattern="stride1", threads=1)``.
        Points of MAPS's shape sweeps (streams, strides, trips) join only when the filter names
        their shape, so the plain staircase stays one curve."""
        shaped = any(k in param_filter for k in SHAPE_PARAMS)
        return sorted(((p[x], p.result) for p in self.points(kernel, **param_filter) if x in
                       p.params and (shaped or not p.shaped)), key=lambda t: t[0])

    @property
    def name(self) -> str:
        return str(self.host.get("name", "unnamed"))

    # ---- (de)serialisation ------------------------------------------------------------------------

    def to_dict(self) -> dict:
        return {"schema": self.schema, "host": thaw(self.host), "compiler": thaw(self.compiler),
                "created": self.created,
                "kernels": {k: v.to_dict() for k, v in self.kernels.items()}}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, allow_nan=False) + "\n"

    @classmethod
    def from_dict(cls, d, *, file=None) -> "Signature":
        doc = _reader(file)
        if not isinstance(d, Mapping):
            raise doc.error(None, "the top level must be an object")
        if "schema" in d and (d["schema"] != SCHEMA_VERSION or isinstance(d["schema"], bool)):
            raise doc.error("schema", f"unsupported schema {d['schema']!r} (this pinchpoint reads {SCHEMA_VERSION})")
        # "pinchpoint": the block `signature show --json` puts first (which tool printed it)
        doc.table(d, None, _TOP_KEYS + ("pinchpoint",), _TOP_KEYS)
        host = doc.table(d["host"], "host")
        if "cpu_model" not in host:
            raise doc.error("host.cpu_model", "missing or not a string")
        doc.text(host["cpu_model"], "host.cpu_model")
        _check_host(doc, host)
        doc.table(d["compiler"], "compiler")
        if not isinstance(d["created"], str) or not d["created"]:
            raise doc.error("created", "must be a non-empty date string")
        kernels = {}
        for name, run in doc.table(d["kernels"], "kernels").items():
            if not isinstance(name, str) or not re.match(r"^[a-z][a-z0-9_]*$", name):
                raise doc.error("kernels", f"{name!r} is not a kernel name")
            kernels[name] = KernelRun.from_dict(run, file=file, key=f"kernels.{name}")
            _check_meaning(doc, name, kernels[name], f"kernels.{name}")
        return cls(dict(d["host"]), dict(d["compiler"]), d["created"], kernels, d["schema"],
                   None if file is None else str(file))


def loads_signature(text: str, *, file=None) -> Signature:
    """Parse signature JSON text (``file`` names it in error messages)."""
    try:
        data = parse_bounded(json.loads, text, SignatureError, file=file)
    except json.JSONDecodeError as exc:
        raise SignatureError(f"not valid JSON: {exc.msg}", file=file, line=exc.lineno) from None
    return Signature.from_dict(data, file=file)


def load_signature(path) -> Signature:
    """Read and validate a signature file.

    Raises
    ------
    SignatureError
        Naming the file and the key path of the first problem found.
    """
    path = Path(path)
    return loads_signature(read_text(path, SignatureError), file=str(path))


def dump_signature(signature: Signature, path) -> None:
    """Write a signature atomically (a reader sees the old file or the whole new one)."""
    text = signature.to_json()
    with atomic_write(path) as out:
        out.write(text)


# ---- bundled (published) signatures -------------------------------------------------------------

def bundled_dir() -> Path:
    """profiles/signatures/ in a checkout, pinchpoint/profiles/signatures in a wheel."""
    return data_root("profiles") / "signatures"


def bundled_signatures() -> dict[str, Path]:
    """Short name (``host.name``) -> file of every bundled signature."""
    out = {}
    for path in sorted(bundled_dir().glob("*.json")):
        try:
            name = json.loads(path.read_text(encoding="utf-8"))["host"]["name"]
        except (OSError, ValueError, KeyError, TypeError):
            name = path.stem
        out[str(name)] = path
    return out


def find_bundled(name: str) -> Path:
    """The file of a bundled signature, by short name ("p690", "powermac-g5-xbench") or
    file stem.

    Raises
    ------
    SignatureError
        If no bundled signature has that name.
    """
    table = bundled_signatures()
    if name in table:
        return table[name]
    for path in table.values():
        if path.stem == name or path.name == name:
            return path
    raise SignatureError(f"no bundled signature named {name!r} (have: {', '.join(table)})")


def load_bundled(name: str) -> Signature:
    """Load a bundled signature by short name."""
    return load_signature(find_bundled(name))


def resolve_signature(name_or_path) -> Signature:
    """A Signature object as given, else one read from a JSON path or a bundled name (an
    unknown name is answered with the closest bundled names): :func:`pinchpoint.load_signature`."""
    if isinstance(name_or_path, Signature):
        return name_or_path
    text = str(name_or_path)
    path = Path(text)
    # the one rule: an existing path, anything that looks like a file name, else a bundled name
    if exists(path) or path.suffix == ".json" or "/" in text:
        return load_signature(path)
    try:
        found = find_bundled(text)
    except SignatureError as exc:
        names = list(bundled_signatures()) + [p.stem for p in bundled_signatures().values()]
        raise SignatureError(exc.message + did_you_mean(text, names), file=exc.file, key=exc.key) from None
    return load_signature(found)
