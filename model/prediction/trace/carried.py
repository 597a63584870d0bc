"""The operations on a traced phase's loop-carried chains, by kind, and where those chains
restart on each entry of a short loop that exits on their data.

Each loop's chain (:mod:`pinchpoint.prediction.trace.recurrence`, per iteration) counts times
its iterations, the fewer of its back branch's and its top's executions (a rotated loop,
entered at its test, runs its back branch once more per entry).  Left out where the chain
restarts on every entry and the next entry overlaps it out of order: loops whose entries each
fit a reorder buffer (:data:`CHAIN_WINDOW` instructions) and whose back branch is a learnt,
counted exit; and reductions of adds alone, which the flops' chained adds price (PEAK
add_chains' overlap).  A short loop whose back branch tests data (a GCD's ``while (y)``, a
tree walk's) overlaps its next entry only while that exit is predicted: its chains are kept,
with its entries and its exit's mispredictions (``exits``, ``exits_mispredicted``), so that
the model can price the share that waits (Dependencies), where such loops hold nearly all of
the phase's chains (:data:`ON_EXITS`, in nominal cycles): the sum ``s += gcd`` an outer loop
carries beside a GCD's divisions is one add per entry.

Pure: loop facts and counts in, numbers out.
"""

from __future__ import annotations

import math

from pinchpoint.prediction.trace.recurrence import NOMINAL

#: A chain of FMAs restarted on every entry of its loop is priced as PEAK add_chains' adds (its
#: multiplies off the chain) only when an entry's instructions fit in the reorder buffer
#: (AMD's software optimization guides: 320 entries on Zen 4, 448 on Zen 5; Intel Golden
#: Cove: 512).  Longer entries are one chain each, priced at the FMA's latency.  Chains of
#: adds keep their length at any size: add_chains itself measures the overlap fading.
CHAIN_WINDOW = 512
#: Share of the chains' nominal cycles that loops exiting on data must hold for the phase's
#: chains to be priced as theirs.
ON_EXITS = 0.9


def carried_chains(code, by_loop: dict, runs_at: dict, missed_at: dict) -> dict:
    """Kind -> operations on the chains of the loops in ``by_loop`` ((facts, instructions,
    flops, object) per loop), with ``exits`` and ``exits_mispredicted`` where every kept chain
    is in a short loop that exits on data.  ``runs_at``: (object, address) -> executions;
    ``missed_at``: (object, address) -> Callgrind's mispredictions of the branch there;
    ``code``: the phase's CodeFacts (trip counts, counted exits)."""
    total: dict[str, float] = {}
    exits_on_data = missed = 0.0
    cycles = {True: 0.0, False: 0.0}  # nominal cycles of chains in loops exiting on data, not
    for facts, ir, _, obj in by_loop.values():
        iterations = min(runs_at.get((obj, facts.end), 0.0),
                         runs_at.get((obj, facts.start), math.inf))
        if not facts.carried or iterations <= 0:
            continue
        exits = code.trip_counts.get((obj, facts.end), (0.0, 0.0))[1]
        short = exits > 0 and ir / exits <= CHAIN_WINDOW
        adds_only = facts.chained and set(facts.carried) <= {"fp_add", "fp_add_to_other", "fma"}
        if (short and code.counted(obj, facts)) or (exits > 0 and adds_only):
            continue
        if short:
            exits_on_data += exits
            missed += missed_at.get((obj, facts.end), 0.0)
        for kind, n in facts.carried.items():
            total[kind] = total.get(kind, 0.0) + n * iterations
            cycles[short] += n * iterations * NOMINAL[kind]
    if exits_on_data > 0 and cycles[True] >= ON_EXITS * (cycles[True] + cycles[False]):
        total["exits"] = exits_on_data
        total["exits_mispredicted"] = min(missed, exits_on_data)
    return total
