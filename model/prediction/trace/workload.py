"""Build a workload (:mod:`pinchpoint.inputs.workload`) from a traced program: Callgrind runs on the
target's caches (:mod:`pinchpoint.prediction.trace.callgrind`), the disassembly
(:mod:`pinchpoint.prediction.trace.disasm`) and the per-level traffic (:mod:`pinchpoint.prediction.trace.traffic`).

This is the PMaC application profile made by a tracer, as MetaSim made it (Snavely et al.,
"A Framework for Performance Modeling and Prediction", SC2002): per phase, the bytes each
level of the *target's* memory hierarchy serves, the flops by kind, and what the code says
(:mod:`pinchpoint.prediction.trace.phase`):

- one memory entry per access class (stride-1 or strided streams with their concurrent
  streams, gathers, pointer chases, random read-modify-writes ``op = "update"``): streams with
  their own hit rates and a footprint (``working_set``) beside them, random accesses with the
  footprint their misses imply (:mod:`pinchpoint.prediction.trace.accesses`); gathers and pointer chases are told apart
  from the code (``random_loads = "auto"``), or forced one way;
- reductions (``s += x[i]``, through rotated registers or memory operands), their partial
  sums and, for chains restarted per row, their length; whether a chain waits for the loads
  feeding it (``chain_overlap = false``: loads of a pointer chase; a gather's loads are issued
  ahead of the adds out of order); the dependency depth per element
  (:mod:`pinchpoint.prediction.trace.loops`);
- the threads each phase ran on (Callgrind's per-thread profiles) and the trip count of its
  busiest short inner loop, where that loop is counted (its back branch does not test data);
- the OpenMP parallel regions it entered (``parallel_regions``: calls of the runtime's region
  entries, :mod:`pinchpoint.prediction.trace.openmp`), each priced as a fork and a join;
- its instructions (``[phases.instructions]``): Callgrind's Ir of the phase's instructions, all
  threads, and with its branch simulation the conditional branches (Bc) and those mispredicted
  (Bcm).  The mispredictions are those of the predictor Callgrind models (the Valgrind manual,
  "Cachegrind: a high-precision tracing profiler", "Branch simulation specifics": 16384 2-bit
  saturating counters indexed by the branch's address and the last few outcomes), not of the
  machine's own predictor; those at the exits of loops whose trip counts can repeat (every
  loop exit mispredicts in that model; a history-based predictor learns those) are left out,
  those of exits on loaded or carried data kept (:mod:`pinchpoint.prediction.trace.exits`).  With
  Callgrind's jump collection, the taken jumps (``taken``: conditional jumps taken and
  unconditional jumps; calls and returns not: :func:`pinchpoint.prediction.trace.phase.phase_facts`)
  and of them those that jump back (``taken_backward``: a loop's back branches),
  at most the conditional branches (a phase with more unconditional jumps than conditional
  branches is stated at its conditional branches, the bound the workload reader checks); the
  kept mispredictions whose branch waits for a load served below L1 (``mispredicted_waits``,
  by the level serving that load: :func:`pinchpoint.prediction.trace.phase._add_waits`); and
  its integer divisions, the executions of its ``div``/``idiv`` instructions, and its
  floating-point divide and square-root instructions (``fp_divisions``, ``fp_square_roots``:
  one per executed instruction, any width), and its vector shuffles (``shuffles``,
  ``lane_shuffles``, ``fp_shuffles``: :func:`pinchpoint.prediction.trace.disasm.shuffle_kind`),
  and the conditional branches right after an instruction they fuse with (``fused_branches``:
  :meth:`pinchpoint.prediction.trace.phase.CodeFacts.fused`), all read off the disassembly.

What a trace cannot know is said in the workload rather than guessed: chains through memory,
each entry's exact footprint, the write-backs from L1 to L2 (Callgrind simulates dirty lines
at its last level only).

Pure: profiles in, a :class:`TracedWorkload` (and its TOML text) out.  No I/O.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from pinchpoint.inputs.workload import Workload, workload_from_dict
from pinchpoint.prediction.trace.accesses import (AccessClass, absorb, entry, footprint, merge_small,
                                                   probed, random_footprint)
from pinchpoint.prediction.trace.footprint_probe import split_runs
from pinchpoint.prediction.trace.compat import readable_document
from pinchpoint.prediction.trace.phase import CodeFacts, PhaseFacts, phase_facts
from pinchpoint.prediction.trace.traffic import (AccessSplit, CacheGeometry, LevelTraffic, PhaseCounts,
                                                 level_traffic, normalized, split_accesses,
                                                 store_fractions)
from pinchpoint.prediction.trace.waits import waits_doc

#: What a trace cannot know, and the assumption made for each random_loads choice.
RANDOM_TEXT = {
    "auto": "whether random loads depend on each other (pointer chase) or not (gather): decided "
            "from the code (a load whose address comes from a load that is itself indirect is a "
            "pointer chase, else a gather; --random-loads overrides)",
    "dependent": "whether random loads depend on each other (pointer chase) or not (gather): "
                 "priced as dependent (MAPS random, a pointer chase), so independent gathers "
                 "are over-predicted (--random-loads independent for a gather)",
    "independent": "whether random loads depend on each other (pointer chase) or not (gather): "
                   "priced as independent (MAPS gather, as --random-loads independent asked), "
                   "so pointer chases are under-predicted",
}
UNKNOWN = (
    "dependency chains through memory or across loops: reductions are inferred from the data "
    "flow of each loop's registers only",
    "the footprint of each memory entry: for streams the geometric mean of the sizes of the "
    "level that serves its deepest share and the level above (inside a large last level, of "
    "the half of its range a probe run places the stream in); for random accesses the one "
    "their misses imply under uniform independent references",
    "write-backs from L1 to L2: Callgrind simulates dirty lines at its last level only",
    "the machine's branch predictor: instructions.mispredicted counts the mispredictions of "
    "Callgrind's model of a simple predictor (2-bit counters), not of this machine's, less "
    "those at loop exits whose condition is an induction variable or invariant (history-based "
    "predictors learn them); exits on loaded or carried values are kept, a heuristic that "
    "follows registers within the loop, not values through memory",
    "whether a function called again reads the data of the call before: the branch outcomes "
    "of the function with the most mispredictions are taken to repeat each call (of its "
    "caller, where that calls it several times per call of its own: those calls differ) "
    "(instructions.branch_period = one call's branches; delete it for data that change)",
)


@dataclass(frozen=True)
class TracedPhase:
    name: str
    counts: PhaseCounts
    traffic: tuple[LevelTraffic, ...]
    split: AccessSplit
    flops: dict
    instructions: float
    assumed_width_accesses: float
    #: conditional branches and those Callgrind's predictor model mispredicted (None: not simulated)
    branches: float | None = None
    mispredicted: float | None = None
    #: taken jumps (None: jumps not collected)
    taken: float | None = None
    #: executed integer divides (div, idiv)
    divisions: float = 0.0
    #: executed floating-point divider instructions: {"fp_divisions": n, "fp_square_roots": n}
    divider: dict | None = None
    #: executed vector shuffles: {"shuffles": n, "lane_shuffles": n, "fp_shuffles": n}
    shuffles: dict | None = None
    #: conditional branches fused with the instruction before them (one operation each)
    fused_branches: float = 0.0
    #: of the taken jumps, those that jump back (None: jumps not collected)
    taken_backward: float | None = None

    def to_dict(self) -> dict:
        return {"name": self.name, "instructions": self.instructions, "branches": self.branches,
                "mispredicted": self.mispredicted, "taken": self.taken,
                "taken_backward": self.taken_backward,
                "divisions": self.divisions, "fused_branches": self.fused_branches,
                **dict(self.divider or {}),
                **dict(self.shuffles or {}), "flops": dict(self.flops),
                "traffic": [t.to_dict() for t in self.traffic],
                "random_load_share": self.split.random_load_share,
                "assumed_width_accesses": self.assumed_width_accesses,
                "notes": list(self.split.notes)}


@dataclass(frozen=True)
class TracedWorkload:
    """A traced program: its phases, the workload document and the loaded Workload."""

    name: str
    command: tuple[str, ...]
    caches: tuple[CacheGeometry, ...]
    target: str
    phases: tuple[TracedPhase, ...]
    notes: tuple[str, ...]
    document: dict
    random_loads: str = "dependent"

    @property
    def unknown(self) -> tuple[str, ...]:
        return (RANDOM_TEXT[self.random_loads],) + UNKNOWN

    @property
    def workload(self) -> Workload:
        return workload_from_dict(self.document, default_name=self.name)

    def to_dict(self) -> dict:
        return {"name": self.name, "command": list(self.command), "target": self.target,
                "caches": [{"level": c.level, "size_bytes": c.size_bytes,
                            "line_bytes": c.line_bytes, "associativity": c.associativity}
                           for c in self.caches],
                "phases": [p.to_dict() for p in self.phases], "notes": list(self.notes),
                "random_loads": self.random_loads, "unknown": list(self.unknown)}

    def to_toml(self) -> str:
        """The workload file: the document, headed by comments with the traffic per level."""
        import tomli_w

        head = [f"# Traced by pinchpoint trace: {' '.join(self.command)}",
                f"# Target caches ({self.target}): " + ", ".join(
                    f"{c.name} {c.size_bytes} B / {c.line_bytes} B lines / {c.associativity}-way"
                    for c in self.caches)]
        for p in self.phases:
            head.append(f"# phase {p.name!r}: bytes loaded from / stored to each level")
            for t in p.traffic:
                st = "not simulated" if t.stored_bytes is None else f"{t.stored_bytes:.0f}"
                head.append(f"#   {t.level:6s} loaded {t.loaded_bytes:.0f}  stored {st}")
        head += [f"# note: {n}" for n in self.notes]
        head += [f"# unknown to the trace: {u}" for u in self.unknown]
        return "\n".join(head) + "\n\n" + tomli_w.dumps(self.document)


def _select(functions):
    if functions is None:
        return None
    return lambda key: (key[0], key[1]) in functions


def _memory_entries(pf: PhaseFacts, runs, caches, probe=None) -> list[dict]:
    """One entry per access class; plain stores keep the write-allocate / in-place split of
    :func:`pinchpoint.prediction.trace.traffic.split_accesses`; a stride-1 update is a load and
    an in-place store of the same bytes."""
    out, far = [], None
    classes = dict(pf.classes)
    index = classes.pop(("index", "load"), None)
    if index is not None and not any(k[0] == "gather" for k in merge_small(classes)):
        # no gather left to hold them (too few to price, or a pointer chase): plain loads
        into = classes.get(("stride1", "load")) or AccessClass("stride1", "load")
        classes[("stride1", "load")] = absorb(copy.deepcopy(into), index)
    elif index is not None:
        far = _index_entry(index, runs, caches, probe)
    for (pattern, op), ac in sorted(merge_small(classes).items()):
        if ac.bytes <= 0:
            continue
        if op in ("store", "store in place") and pattern == "stride1":
            # the code says which stores go to lines the loop loads (in place); the rest are
            # written where they miss (write-allocate), as a stream.  Either way the class's
            # write misses say where its lines go: an in-place store's are its loads' read
            # misses (accesses.access_events), not its dirty evictions, which Callgrind
            # charges to the later loads that evict
            in_place = op == "store in place"
            fr = normalized(store_fractions(ac.counts(runs), caches, in_place=False))
            e = entry(AccessClass(**{**vars(ac), "op": "store"}), runs, caches, in_place=in_place,
                      probe=probe)
            e["hit_rates"] = dict(fr)
            e["working_set"] = f"{footprint(fr, caches, probed(ac, runs, probe)):.0f} B"
            out.append(e)
        elif op == "update" and pattern == "stride1":
            e = entry(ac, runs, caches, probe=probe)
            out += [{**e, "op": "load"}, {**e, "op": "store", "in_place": True}]
        else:
            out.append(entry(ac, runs, caches, probe=probe))
    if far is not None and _beyond_the_gathers(far, out, caches):
        out.append(far)
    return out


def _index_entry(index: AccessClass, runs, caches, probe=None) -> dict:
    """A gather's index loads as a stream at the levels that serve them."""
    return entry(AccessClass(**{**vars(index), "pattern": "stride1"}), runs, caches, probe=probe)


def _beyond_the_gathers(index: dict, entries: list, caches) -> bool:
    """Whether a gather's index stream (:func:`_index_entry`) is priced beside the gathers:
    when most of its lines come from beyond L1 and its footprint lies in a farther level than
    their targets'.  MAPS gather walks an index as large as its target beside it, so the
    gather's figure holds an index read from the target's level; keys streamed from L3 or
    memory into a small table (a histogram of 32 MiB of keys into 32 KiB of bins: 0.84 ns per
    key on the Intel Xeon VM, 0.27-0.30 with the keys in L1 or L2) also cost their stream."""
    def level(e):  # 0 .. len(caches): the first cache the entry's footprint fits, or memory
        size = float(e["working_set"].split()[0])
        return next((i for i, c in enumerate(caches) if size <= c.size_bytes), len(caches))

    targets = [level(e) for e in entries if e["pattern"] == "gather"]
    return (index["hit_rates"].get(caches[0].name, 0.0) < 0.5
            and level(index) > max(targets, default=0))


def _flops_doc(flops: dict) -> dict:
    fl = {k: round(v) for k, v in flops.items() if v > 0}
    if fl.get("chained_adds", 0) > fl.get("add_multiply", 0):  # rounding
        fl["chained_adds"] = fl["add_multiply"]
    if fl.get("chained_fma", 0) > fl.get("fma", 0):
        fl["chained_fma"] = fl["fma"]
    return fl


def _branch_counts(pf: PhaseFacts, out: dict, caches=None) -> None:
    """The branch counts of ``out`` (an instruction table holding its total), each within what
    it is a part of: a conditional branch or an indirect jump is one of the instructions, a
    misprediction one of the branches (jumps), a fused branch or a taken one one of them; the
    waits by level (:func:`.waits.waits_doc`, on the target's ``caches``)."""
    out["branches"] = min(round(pf.branches), out["total"])
    out["mispredicted"] = min(round(pf.mispredicted or 0.0), out["branches"])
    if pf.taken is not None:
        out["taken"] = min(round(pf.taken), out["branches"])
        if pf.taken_backward is not None:
            out["taken_backward"] = min(round(pf.taken_backward), out["taken"])
    if round(pf.fused) > 0:
        out["fused_branches"] = min(round(pf.fused), out["branches"])
    jumps, missed = (round(n) for n in pf.indirect)
    if missed > 0:
        out["indirect"] = min(jumps, out["total"])
        out["indirect_mispredicted"] = min(missed, out["indirect"])
    if pf.branch_period is not None and (out["mispredicted"] > 0 or missed > 0):
        out["branch_period"] = max(1, round(pf.branch_period))
        if pf.taken_period is not None:
            out["taken_period"] = max(1, round(pf.taken_period))
    waits = {lv: round(n) for lv, n in pf.waits.items() if round(n) > 0}
    if waits and sum(waits.values()) <= out["mispredicted"]:
        out["mispredicted_waits"] = waits_doc(waits, caches)


def instructions_doc(pf: PhaseFacts, caches=None) -> dict | None:
    """``[phases.instructions]`` of a phase: its Ir, Bc and Bcm summed over its instructions and
    threads, as its flops and bytes are, its executed integer divides, floating-point divider
    instructions and vector shuffles (None when it ran no instruction); with the target's
    ``caches``, the footprint of the load its mispredicted branches wait for."""
    total = round(pf.instructions)
    if total <= 0:
        return None
    out = {"total": total}
    if pf.branches is not None:
        _branch_counts(pf, out, caches)
        if "mispredicted_waits" in out and pf.wait_levels and caches:
            # the footprint the waited-for load ranges over, from its own hits (as a gather's)
            out["waits_working_set"] = f"{random_footprint(pf.wait_levels, caches):.0f} B"
    if round(pf.divisions) > 0:  # each integer divide is one of the instructions
        out["divisions"] = min(round(pf.divisions), total)
        weighted, sampled = pf.quotients
        if sampled >= pf.divisions / 2:  # the sampled divisions are most of them
            out["quotient_bits"] = min(64, max(1, round(weighted / sampled, 1)))
    for count, n in pf.divider.items():  # so is each FP divide and square root
        if round(n) > 0:
            out[count] = min(round(n), total)
    left = total  # and each shuffle, of one kind or another
    for count, n in pf.shuffles.items():
        if round(n) > 0:
            out[count] = min(round(n), left)
            left -= out[count]
    return out


def _phase_doc(pname: str, pf: PhaseFacts, runs, caches, probe=None) -> dict:
    ph = {"name": pname}
    if pf.threads > 1:
        ph["threads"] = pf.threads
    if pf.regions > 0:
        ph["parallel_regions"] = round(pf.regions)
    ins = instructions_doc(pf, caches)
    if ins is not None:
        ph["instructions"] = ins
    for k in ("inner_trips", "inner_loops"):
        if k in pf.loop:
            ph[k] = pf.loop[k]
    deps = {k: round(v) for k, v in pf.dependencies.items() if round(v) > 0}
    if deps:
        ph["dependencies"] = deps
    mem = _memory_entries(pf, runs, caches, probe)
    if mem:
        ph["memory"] = mem
    fl = _flops_doc(pf.flops)
    if fl:
        if "chained_adds" in fl and "chain_length" in pf.loop:
            fl["chain_length"] = pf.loop["chain_length"]
        if "chains" in fl and pf.loop.get("chain_overlap") is False:
            fl["chain_overlap"] = False
        if "dependency_depth" in pf.loop:
            fl["dependency_depth"] = pf.loop["dependency_depth"]
        ph["flops"] = fl
    return ph


def _groups(runs, name, top_functions):
    if not top_functions:
        return [(name, None)]
    ranked = sorted(runs[0][1].functions().items(), key=lambda kv: -kv[1]["Ir"])
    top = [k for k, v in ranked[:top_functions] if v["Ir"] > 0]
    groups = [(fn, {(obj, fn)}) for obj, fn in top]
    rest = {k for k, _ in ranked[top_functions:]}
    if rest:
        groups.append(("other", rest))
    return groups


def build_traced_workload(runs, disasm, caches: tuple[CacheGeometry, ...], *, name: str,
                          command, target: str, top_functions: int | None = None,
                          notes=(), random_loads: str = "auto") -> TracedWorkload:
    """Turn Callgrind runs into a workload.

    Parameters
    ----------
    runs : sequence of (CacheGeometry, CallgrindProfile)
        One run per outer level: D1 = L1 and LL = the given level (L2 .. Ln; L1 alone for a
        one-level target), in level order; then the probe run of a large last level, if any
        (:mod:`pinchpoint.prediction.trace.footprint_probe`).
    disasm : dict
        Object file -> {address: Instruction}.
    caches : tuple of CacheGeometry
        The target's levels, L1 first.
    top_functions : int, optional
        One phase per function for the ``top_functions`` functions with the most instructions,
        and one phase "other" for the rest; None: one phase, the whole program.
    random_loads : {"auto", "dependent", "independent"}
        Loads whose address is a loaded value: "auto" decides from the code
        (:mod:`pinchpoint.prediction.trace.loops`: a pointer chase when the address comes from
        an indirect load, else a gather); the others force one kind for all of them.
    """
    code = CodeFacts(disasm)
    phases, docs = [], []
    runs, probe_runs = split_runs(runs, caches)
    probe = probe_runs[0][0] if probe_runs else None
    for pname, fns in _groups(runs, name, top_functions):
        pf = phase_facts(runs, code, _select(fns), random_loads, l1=caches[0],
                         probe_runs=probe_runs)
        pc = pf.counts
        split = split_accesses(pc, caches)
        phases.append(TracedPhase(pname, pc, level_traffic(pc, caches), split, pf.flops,
                                  pf.instructions, pf.assumed, pf.branches, pf.mispredicted,
                                  pf.taken, pf.divisions, dict(pf.divider), dict(pf.shuffles),
                                  pf.fused, pf.taken_backward))
        docs.append(_phase_doc(pname, pf, runs, caches, probe))
    all_notes = list(notes)
    total_acc = sum(p.counts.loads + p.counts.stores for p in phases)
    total_assumed = sum(p.assumed_width_accesses for p in phases)
    if total_acc and total_assumed / total_acc > 0.01:
        all_notes.append(f"{total_assumed / total_acc:.1%} of the memory accesses had no operand "
                         f"size in the disassembly and were counted as 8 B")
    doc = {"schema": 1, "name": name,
           "description": f"traced on the caches of {target}; unknown to the trace: "
                          + "; ".join((RANDOM_TEXT[random_loads],) + UNKNOWN),
           "source": f"pinchpoint trace (Callgrind cache simulation + objdump): "
                     f"{' '.join(command)}",
           "phases": docs}
    doc, dropped = readable_document(doc)
    if dropped:
        all_notes.append("this version's workload reader does not read "
                         + ", ".join(sorted(dropped)) + "; left out of the file")
    tw = TracedWorkload(name, tuple(command), tuple(caches), target, tuple(phases),
                        tuple(all_notes), doc, random_loads)
    tw.workload  # validate now: a traced workload must load with the ordinary reader
    return tw
