"""Fit a traced workload document to the workload reader this installation has.

The trace emits the whole workload vocabulary (footprints beside hit rates, strides, streams,
random read-modify-writes, trip counts, chain overlap and dependency depth, instruction and
branch counts).  A reader that predates some of those keys refuses the file; rather than write
a file nothing can read, the keys it refuses are left out (an update becomes a load and an
in-place store of the same bytes) and the caller notes which.  Pure: a document in, a document out.
"""

from __future__ import annotations

import copy

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.workload import workload_from_dict

#: Keys newer than the oldest reader, by where they sit.
MEMORY_KEYS = ("working_set", "stride", "streams")
PHASE_KEYS = ("inner_trips", "instructions", "parallel_regions")
FLOP_KEYS = ("chain_overlap", "dependency_depth", "chain_length")


def _reads(doc) -> bool:
    try:
        workload_from_dict(doc)
    except WorkloadError:
        return False
    return True


def _without(doc, where: str, key: str):
    out = copy.deepcopy(doc)
    for ph in out["phases"]:
        if where == "phase":
            ph.pop(key, None)
        elif where == "flops":
            ph.get("flops", {}).pop(key, None)
        elif key == "update":
            mem = []
            for e in ph.get("memory", []):
                if e.get("op") == "update":
                    mem += [{**e, "op": "load"},
                            {**e, "op": "store", "pattern": "stride1", "in_place": True}]
                else:
                    mem.append(e)
            if mem:
                ph["memory"] = mem
        else:
            for e in ph.get("memory", []):
                if key != "working_set" or "hit_rates" in e:
                    e.pop(key, None)
    return out


def _probe(where: str, key: str) -> dict:
    """The smallest document that uses ``key``."""
    mem = {"bytes": "8 KiB", "pattern": "stride1", "op": "load", "hit_rates": {"L1": 1.0}}
    flops = {"add_multiply": 8, "chained_adds": 4, "chains": 1}
    phase = {"name": "p", "memory": [mem], "flops": flops}
    if key == "update":
        mem.update(pattern="gather", op="update")
    elif where == "memory":
        mem[key] = {"working_set": "8 KiB", "stride": "64 B", "streams": 2}[key]
    elif where == "phase":
        phase[key] = {"total": 8} if key == "instructions" else 8
    else:
        flops[key] = {"chain_overlap": False, "dependency_depth": 2, "chain_length": 4}[key]
    return {"schema": 1, "name": "probe", "phases": [phase]}


def readable_document(doc) -> tuple[dict, set]:
    """(the document the reader accepts, the keys left out for it)."""
    if _reads(doc):
        return doc, set()
    dropped = set()
    candidates = ([("memory", "update")] + [("memory", k) for k in MEMORY_KEYS]
                  + [("phase", k) for k in PHASE_KEYS] + [("flops", k) for k in FLOP_KEYS])
    for where, key in candidates:
        if not _reads(_probe(where, key)):
            trial = _without(doc, where, key)
            if trial != doc:
                doc = trial
                dropped.add('op = "update"' if key == "update" else key)
    return doc, dropped
