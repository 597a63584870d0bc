"""Build a workload (:mod:`pinchpoint.inputs.workload`) from a traced program: Callgrind runs on the
target's caches (:mod:`pinchpoint.prediction.trace.callgrind`), the disassembly
(:mod:`pinchpoint.prediction.trace.disasm`) and the per-level traffic (:mod:`pinchpoint.prediction.trace.traffic`).

This is the PMaC application profile made by a tracer, as MetaSim made it (Snavely et al.,
"A Framework for Performance Modeling and Prediction", SC2002): per phase, the bytes each
level of the *target's* memory hierarchy serves, the flops by kind, and what a trace cannot
know, said in the workload rather than guessed:

- whether random loads depend on each other (a pointer chase) or not (a gather): they are
  priced with MAPS random, a dependent chase, unless ``random_loads = "independent"`` says
  they are a gather (MAPS gather);
- dependency chains other than register accumulations: reductions (``s += x[i]``) are
  inferred from the code by :mod:`pinchpoint.prediction.trace.chains`; chains through memory are not;
- the write-backs from L1 to L2 (Callgrind simulates dirty lines at its last level only).

Pure: profiles in, a :class:`TracedWorkload` (and its TOML text) out.  No I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.prediction.trace.callgrind import CallgrindProfile
from pinchpoint.prediction.trace.chains import find_chains
from pinchpoint.prediction.trace.disasm import Instruction
from pinchpoint.prediction.trace.traffic import (AccessSplit, CacheGeometry, LevelTraffic, PhaseCounts, RunCounts,
                            level_traffic, normalized, split_accesses)
from pinchpoint.inputs.workload import Workload, workload_from_dict

#: What a trace cannot know, and the assumption made for each random_loads choice.
RANDOM_TEXT = {
    "dependent": "whether random loads depend on each other (pointer chase) or not (gather): "
                 "priced as dependent (MAPS random, a pointer chase), so independent gathers "
                 "are over-predicted (--random-loads independent for a gather)",
    "independent": "whether random loads depend on each other (pointer chase) or not (gather): "
                   "priced as independent (MAPS gather, as --random-loads independent asked), "
                   "so pointer chases are under-predicted",
}
UNKNOWN = (
    "dependency chains through memory or across loops: reductions are inferred from registers "
    "only (an add into a register nothing else in its loop writes)",
    "write-backs from L1 to L2: Callgrind simulates dirty lines at its last level only",
)
_DEFAULT = Instruction("?", 8, False, ())


@dataclass(frozen=True)
class TracedPhase:
    name: str
    counts: PhaseCounts
    traffic: tuple[LevelTraffic, ...]
    split: AccessSplit
    flops: dict
    instructions: float
    assumed_width_accesses: float

    def to_dict(self) -> dict:
        return {"name": self.name, "instructions": self.instructions, "flops": dict(self.flops),
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


def _select(profile: CallgrindProfile, functions):
    if functions is None:
        return None
    return lambda key: (key[0], key[1]) in functions


def _phase_counts(runs, disasm, functions):
    """(PhaseCounts, flops, instructions, accesses of assumed width) of the instructions of
    ``functions`` (None: all)."""
    first = runs[0][1]
    sel = _select(first, functions)
    i_ir, i_dr, i_dw = first.index("Ir"), first.index("Dr"), first.index("Dw")
    loads = stores = lb = sb = ir = assumed = 0.0
    flops = {"division": 0.0, "add_multiply": 0.0, "fma": 0.0}
    executed = []
    for key, c in first.costs.items():
        if sel is not None and not sel(key):
            continue
        ins = disasm.get(key[0], {}).get(key[2], _DEFAULT)
        executed.append(((key[0], key[1]), key[2], c[i_ir], ins))
        dr, dw = c[i_dr], c[i_dw]
        loads += dr
        stores += dw
        lb += dr * ins.mem_bytes
        sb += dw * ins.mem_bytes
        if not ins.width_known:
            assumed += dr + dw
        ir += c[i_ir]
        for kind, n in ins.flops:
            flops[kind] += n * c[i_ir]
    rc = tuple(RunCounts.from_events(ll, prof.totals(_select(prof, functions)))
               for ll, prof in runs)
    adds, fmas, chains = find_chains(executed)
    if chains:
        flops.update(chained_adds=adds, chained_fma=fmas, chains=chains)
    return PhaseCounts(loads, stores, lb, sb, rc), flops, ir, assumed


def _memory_entries(split: AccessSplit) -> list[dict]:
    out = []
    for nbytes, pattern, op, in_place, fr in split.entries:
        if nbytes <= 0:
            continue
        e = {"bytes": f"{nbytes:.0f} B", "pattern": pattern, "op": op,
             "hit_rates": dict(normalized(fr))}
        if in_place:
            e["in_place"] = True
        out.append(e)
    return out


def build_traced_workload(runs, disasm, caches: tuple[CacheGeometry, ...], *, name: str,
                          command, target: str, top_functions: int | None = None,
                          notes=(), random_loads: str = "dependent") -> TracedWorkload:
    """Turn Callgrind runs into a workload.

    Parameters
    ----------
    runs : sequence of (CacheGeometry, CallgrindProfile)
        One run per outer level: D1 = L1 and LL = the given level (L2 .. Ln; L1 alone for a
        one-level target), in level order.
    disasm : dict
        Object file -> {address: Instruction}.
    caches : tuple of CacheGeometry
        The target's levels, L1 first.
    top_functions : int, optional
        One phase per function for the ``top_functions`` functions with the most instructions,
        and one phase "other" for the rest; None: one phase, the whole program.
    random_loads : {"dependent", "independent"}
        How to price loads that miss like random accesses (see
        :func:`pinchpoint.prediction.trace.traffic.split_accesses`); the trace cannot tell.
    """
    groups: list[tuple[str, set | None]] = []
    if top_functions:
        ranked = sorted(runs[0][1].functions().items(), key=lambda kv: -kv[1]["Ir"])
        top = [k for k, v in ranked[:top_functions] if v["Ir"] > 0]
        groups = [(fn, {(obj, fn)}) for obj, fn in top]
        rest = {k for k, _ in ranked[top_functions:]}
        if rest:
            groups.append(("other", rest))
    else:
        groups = [(name, None)]
    phases, docs = [], []
    for pname, fns in groups:
        pc, flops, ir, assumed = _phase_counts(runs, disasm, fns)
        split = split_accesses(pc, caches, random_loads=random_loads)
        tp = TracedPhase(pname, pc, level_traffic(pc, caches), split, flops, ir, assumed)
        phases.append(tp)
        ph = {"name": pname}
        mem = _memory_entries(split)
        if mem:
            ph["memory"] = mem
        fl = {k: round(v) for k, v in flops.items() if v > 0}
        if fl.get("chained_adds", 0) > fl.get("add_multiply", 0):  # rounding
            fl["chained_adds"] = fl["add_multiply"]
        if fl.get("chained_fma", 0) > fl.get("fma", 0):
            fl["chained_fma"] = fl["fma"]
        if fl:
            ph["flops"] = fl
        docs.append(ph)
    all_notes = list(notes)
    total_acc = sum(p.counts.loads + p.counts.stores for p in phases)
    total_assumed = sum(p.assumed_width_accesses for p in phases)
    if total_acc and total_assumed / total_acc > 0.01:
        all_notes.append(f"{total_assumed / total_acc:.1%} of the memory accesses had no operand "
                         f"size in the disassembly and were counted as 8 B")
    for p in phases:
        all_notes += [f"{p.name}: {n}" for n in p.split.notes]
    doc = {"schema": 1, "name": name,
           "description": f"traced on the caches of {target}; unknown to the trace: "
                          + "; ".join((RANDOM_TEXT[random_loads],) + UNKNOWN),
           "source": f"pinchpoint trace (Callgrind cache simulation + objdump): "
                     f"{' '.join(command)}",
           "phases": docs}
    tw = TracedWorkload(name, tuple(command), tuple(caches), target, tuple(phases),
                        tuple(all_notes), doc, random_loads)
    tw.workload  # validate now: a traced workload must load with the ordinary reader
    return tw
