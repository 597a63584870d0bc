"""Per-level memory traffic of a traced program on a target machine's caches.

Callgrind simulates two cache levels at a time (D1 and LL; Valgrind manual, "Cachegrind:
a high-precision tracing profiler", section "Simulation details": write-allocate, LRU,
inclusive LL, and with Callgrind's ``--simulate-wb=yes`` the LL misses that evict a dirty
line).  A target with levels L1 .. Ln is simulated by n - 1 runs, run k with D1 = L1 and
LL = L(k+1); each gives the misses of L1 and of L(k+1), hence the bytes every level supplies
to the one above it (misses x line size) and the dirty lines it writes back below.

Definitions (per phase; "bytes loaded from level X" = what X supplies to the level above):

- L1: the program's load and store bytes (accesses x operand width, :mod:`pinchpoint.prediction.trace.disasm`);
- L2: (L1 read + write misses) x L1 line;  L(k+1), memory: (Lk misses) x Lk line;
- stored to L(k+1) / memory: dirty Lk lines evicted x Lk line (k >= 2).  The write-backs from
  L1 to L2 are not simulated by Callgrind and are reported as unknown (None).

The workload's hit rates (the fraction of a phase's bytes each level serves; see
:mod:`pinchpoint.prediction.convolve`) follow from the same counts:

- stride-1 loads: level l serves (bytes fetched into L1 from l or deeper) - (from deeper),
  over the load bytes; L1 serves the rest (reuse);
- random loads: a stride-1 access of s bytes misses L1 s / line of the time, a random one
  always, so the accesses that missed L1 beyond the stride-1 rate are counted as random:
  A_r = (misses - bytes / line) / (1 - s / line), clamped to [0, accesses].  Which of the two
  kinds miss deeper cannot be told from counts; the stride-1 bytes are assumed to miss first
  (streams miss with their compulsory misses).  A heuristic, named as such in the workload;
- stores whose lines were fetched by their own write misses (write-allocate, as in STREAM's
  ``a[i] = ...``) are priced like loads from the write misses; stores to lines the phase has
  loaded (write misses under half the store lines, as DAXPY's ``y``) are ``in_place`` and
  priced by where their dirty lines are written back to.

Pure: counts in, numbers out.  No I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

from pinchpoint.errors import ProfileError

#: Page size [B] and the most ways a physically indexed level is simulated with
#: (CacheGeometry.physically_indexed).
PAGE_BYTES, MAX_SIM_WAYS = 4096, 512
#: Level names the workload format knows (pinchpoint.inputs.workload.LEVEL_NAMES minus memory).
MAX_LEVELS = 4


@dataclass(frozen=True)
class CacheGeometry:
    """One simulated cache level: size [B], line [B], associativity (ways)."""

    level: int
    size_bytes: int
    line_bytes: int
    associativity: int

    @property
    def name(self) -> str:
        return f"L{self.level}"

    def valgrind_geometry(self) -> tuple[int, int, int, str | None]:
        """(size, ways, line) Valgrind accepts, and a note when it differs from the profile.

        Valgrind needs a power-of-two number of sets.  Where size / (ways x line) is not one
        (POWER4's 1440 KiB L2), the size and line are kept and the ways raised until the sets are
        a power of two: capacity misses, which set the traffic of large working sets, stay
        right; conflict misses come out lower."""
        lines = self.size_bytes // self.line_bytes
        sets = lines // self.associativity if lines % self.associativity == 0 else 0
        if sets and sets & (sets - 1) == 0:
            return self.size_bytes, self.associativity, self.line_bytes, None
        pow2 = lines & -lines  # the largest power of two dividing the number of lines
        while pow2 > 1 and lines // pow2 < self.associativity:
            pow2 //= 2
        ways = lines // pow2
        return (self.size_bytes, ways, self.line_bytes,
                f"{self.name}: {self.associativity}-way with {lines} lines has no power-of-two "
                f"set count; simulated {ways}-way ({pow2} sets), same size and line")

    def physically_indexed(self) -> tuple[int, int, int]:
        """(size, ways, line) that simulate this level as a physically indexed cache.

        Valgrind indexes its caches by virtual address.  An L1 is indexed within a page on
        current cores (virtually indexed, physically tagged), but an L2 or L3 takes its upper
        index bits from the physical frame, which the kernel picks with no regard to the
        virtual address: lines a page or more apart in a virtual power-of-two stride (a binary
        search's probes over 2^k keys, a matrix's column) spread over the sets, where a
        virtually indexed simulation piles them into one set and counts misses the machine has
        not.  Simulating the level with as many sets as a page holds lines and the capacity
        in ways (any page may take any place, LRU over all of them) removes that artefact; the
        ways are capped at MAX_SIM_WAYS, as Valgrind's search is linear in them, which leaves
        the aliasing of strides above (size / MAX_SIM_WAYS) bytes."""
        size, ways, line, _ = self.valgrind_geometry()
        sets = size // (ways * line)
        while sets > max(1, PAGE_BYTES // line) and ways * 2 <= MAX_SIM_WAYS:
            sets //= 2
            ways *= 2
        return size, ways, line

    def simulation_note(self) -> str | None:
        """What the simulation of this level changed of its geometry beyond what every outer
        level gets (:meth:`physically_indexed`), for the workload's notes; None: nothing."""
        note = self.valgrind_geometry()[3]
        if note is None or self.level == 1:
            return note
        size, ways, line = self.physically_indexed()
        return (f"{self.name}: {self.associativity}-way with {size // line} lines has no "
                f"power-of-two set count; simulated physically indexed, {ways}-way "
                f"({size // (ways * line)} sets), same size and line")


def target_caches(caches, *, source: str) -> tuple[CacheGeometry, ...]:
    """The data-side cache levels of a target, from a profile's (or a signature host's)
    cache list: dicts or objects with level, size_bytes, line_bytes, associativity/ways, type.

    Raises
    ------
    ProfileError
        No level-1 data cache, a missing line size, or levels not 1, 2, ... without gaps.
    """
    by_level: dict[int, CacheGeometry] = {}
    for c in caches:
        get = c.get if isinstance(c, Mapping) else (lambda k, d=None, _c=c: getattr(_c, k, d))
        kind = str(get("type", "unified") or "unified").lower()
        if kind not in ("data", "unified"):
            continue
        level = int(get("level"))
        size = get("size_bytes")
        line = get("line_bytes")
        ways = get("associativity", None) or get("ways", None)
        if size is None or line is None:
            raise ProfileError(f"L{level} cache lacks a size or line size, which the cache "
                               f"simulation needs", file=source, key=f"caches.L{level}")
        if ways is None:
            raise ProfileError(f"L{level} cache lacks its associativity, which the cache "
                               f"simulation needs", file=source, key=f"caches.L{level}")
        size, line = int(round(float(size))), int(round(float(line)))
        if line <= 0 or line & (line - 1) or size % line:
            raise ProfileError(f"L{level} line size {line} B must be a power of two dividing "
                               f"the size {size} B", file=source, key=f"caches.L{level}")
        by_level.setdefault(level, CacheGeometry(level, size, line, int(ways)))
    levels = sorted(by_level)
    if not levels or levels != list(range(1, len(levels) + 1)):
        raise ProfileError(f"needs data caches L1, L2, ... without gaps (found "
                           f"{', '.join(f'L{x}' for x in levels) or 'none'})", file=source,
                           key="caches")
    if len(levels) > MAX_LEVELS:
        raise ProfileError(f"{len(levels)} cache levels; the workload format names at most "
                           f"{MAX_LEVELS}", file=source, key="caches")
    return tuple(by_level[x] for x in levels)


@dataclass(frozen=True)
class RunCounts:
    """Event totals of one phase in one Callgrind run (D1 = L1, LL = ``ll``)."""

    ll: CacheGeometry
    d1mr: float
    d1mw: float
    dlmr: float
    dlmw: float
    dldmr: float
    dldmw: float

    @classmethod
    def from_events(cls, ll: CacheGeometry, ev: dict) -> "RunCounts":
        return cls(ll, ev["D1mr"], ev["D1mw"], ev["DLmr"], ev["DLmw"], ev["DLdmr"], ev["DLdmw"])


@dataclass(frozen=True)
class PhaseCounts:
    """What a phase did: accesses and bytes at L1 (from the disassembly), and one RunCounts
    per simulated outer level (runs[i].ll is level i + 2, or L1 for a one-level target)."""

    loads: float
    stores: float
    load_bytes: float
    store_bytes: float
    runs: tuple[RunCounts, ...]


@dataclass(frozen=True)
class LevelTraffic:
    """Bytes a level supplies to the one above (loaded) and receives as write-backs (stored;
    None where not simulated)."""

    level: str
    loaded_bytes: float
    stored_bytes: float | None

    def to_dict(self) -> dict:
        return {"level": self.level, "loaded_bytes": self.loaded_bytes,
                "stored_bytes": self.stored_bytes}


def _fetched(pc: PhaseCounts, l1: CacheGeometry, which: str) -> list[float]:
    """Bytes fetched into level 1, 2, ... n from the level below (``which``: read, write,
    all), and the dirty bytes each level writes back below (``which`` = "dirty")."""
    out = []
    first = pc.runs[0]
    if which != "dirty":
        m = {"read": first.d1mr, "write": first.d1mw, "all": first.d1mr + first.d1mw}[which]
        out.append(m * l1.line_bytes)
    for r in pc.runs:
        if r.ll.level == 1 and which != "dirty":
            continue  # a one-level target: its only run's LL has L1's geometry
        if which == "dirty":
            out.append((r.dldmr + r.dldmw) * r.ll.line_bytes)
        else:
            m = {"read": r.dlmr, "write": r.dlmw, "all": r.dlmr + r.dlmw}[which]
            out.append(m * r.ll.line_bytes)
    return out


def level_traffic(pc: PhaseCounts, caches: tuple[CacheGeometry, ...]) -> tuple[LevelTraffic, ...]:
    """Bytes loaded from and stored to each level (L1 .. Ln, memory) by one phase."""
    names = [c.name for c in caches[1:]] + ["memory"]
    fetched = _fetched(pc, caches[0], "all")
    dirty = _fetched(pc, caches[0], "dirty")
    out = [LevelTraffic("L1", pc.load_bytes, pc.store_bytes)]
    # Write-backs: level k's dirty evictions go to level k + 1; L1's are not simulated.
    stored: list[float | None] = [None] + dirty if len(caches) > 1 else dirty
    for name, f, s in zip(names, fetched, stored):
        out.append(LevelTraffic(name, f, s))
    return tuple(out)


def _served(total: float, fetched: list[float], names: list[str]) -> list[tuple[str, float]]:
    """(level, fraction) served of ``total`` bytes given the bytes fetched below each level."""
    if total <= 0:
        return [("L1", 1.0)]
    deeper = [min(f, total) for f in fetched]
    for i in range(1, len(deeper)):  # bytes from level >= l+1 cannot exceed those from >= l
        deeper[i] = min(deeper[i], deeper[i - 1])
    out = [("L1", (total - deeper[0]) / total)]
    for i, name in enumerate(names):
        below = deeper[i + 1] if i + 1 < len(deeper) else 0.0
        out.append((name, (deeper[i] - below) / total))
    return [(n, max(0.0, f)) for n, f in out]


@dataclass(frozen=True)
class AccessSplit:
    """Hit-rate entries of a phase: (bytes, pattern, op, in_place, [(level, fraction)])."""

    entries: tuple[tuple[float, str, str, bool, tuple[tuple[str, float], ...]], ...]
    random_load_share: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)


RANDOM_LOADS = ("dependent", "independent")


def split_accesses(pc: PhaseCounts, caches: tuple[CacheGeometry, ...], *,
                   random_loads: str = "dependent") -> AccessSplit:
    """The memory entries (with hit rates) that price one phase's traffic; see module doc.

    ``random_loads`` says what the trace cannot know: "dependent" (each address comes from
    the load before, a pointer chase) prices them with the MAPS random curve (a dependent
    chase); "independent" (a gather) prices them with the MAPS gather curve (independent
    random loads, many misses in flight) at the level that serves them.
    """
    if random_loads not in RANDOM_LOADS:
        raise ValueError(f"random_loads must be one of {RANDOM_LOADS}, not {random_loads!r}")
    names = [c.name for c in caches[1:]] + ["memory"]
    l1 = caches[0]
    entries = []
    notes = []
    read = _fetched(pc, l1, "read")
    share = 0.0
    if pc.load_bytes > 0:
        s = pc.load_bytes / max(pc.loads, 1.0)
        misses = read[0] / l1.line_bytes
        a_r = 0.0
        if s < l1.line_bytes:
            a_r = (misses - pc.load_bytes / l1.line_bytes) / (1.0 - s / l1.line_bytes)
        a_r = min(max(a_r, 0.0), pc.loads)
        b_r = a_r * s
        b_s = pc.load_bytes - b_r
        if b_s > 0:
            stride_fetch = [min(f, b_s) for f in read]
            entries.append((b_s, "stride1", "load", False,
                            tuple(_served(b_s, stride_fetch, names))))
        if a_r > 0:
            # Random accesses each bring one line of the level above; count accesses per level.
            lines_above = [l1.line_bytes] + [c.line_bytes for c in caches[1:]]
            rand_acc = [max(f - min(f, b_s), 0.0) / lb for f, lb in zip(read, lines_above)]
            fr = _served(a_r, rand_acc, names)
            if random_loads == "dependent":
                entries.append((b_r, "random", "load", False, tuple(fr)))
            else:
                entries.append((b_r, "gather", "load", False, tuple(fr)))
            share = b_r / pc.load_bytes
            if share >= 0.01:
                notes.append(f"{share:.0%} of the load bytes missed L1 like random accesses "
                             f"(inferred from miss counts)")
    if pc.store_bytes > 0:
        write = _fetched(pc, l1, "write")
        in_place = write[0] < 0.5 * pc.store_bytes
        entries.append((pc.store_bytes, "stride1", "store", in_place,
                        store_fractions(pc, caches, in_place)))
    return AccessSplit(tuple(entries), share, tuple(notes))


def store_fractions(pc: PhaseCounts, caches: tuple[CacheGeometry, ...], in_place: bool):
    """Hit fractions of a phase's stores: write-allocated ones from their write misses, stores
    in place (to lines the phase also loads) by the deepest level their dirty lines reach."""
    names = [c.name for c in caches[1:]] + ["memory"]
    if not in_place:
        return tuple(_served(pc.store_bytes, _fetched(pc, caches[0], "write"), names))
    dirty = _fetched(pc, caches[0], "dirty")
    # Dirty lines reach level 2 (unknown amount), and those evicted from level k reach k + 1.
    if len(caches) > 1:
        return tuple(_served(pc.store_bytes, [dirty[0] if dirty else 0.0] + dirty, names))
    return tuple(_served(pc.store_bytes, dirty, names))


def normalized(fractions) -> tuple[tuple[str, float], ...]:
    """Fractions rounded for a file and summing to exactly 1 (the reader checks 1e-6)."""
    pairs = [(n, round(f, 9)) for n, f in fractions if f > 0]
    if not pairs:
        return (("L1", 1.0),)
    total = math.fsum(f for _, f in pairs)
    pairs = [(n, f / total) for n, f in pairs]
    fix = 1.0 - math.fsum(f for _, f in pairs)
    i = max(range(len(pairs)), key=lambda j: pairs[j][1])
    pairs[i] = (pairs[i][0], pairs[i][1] + fix)
    return tuple(pairs)
