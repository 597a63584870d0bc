"""The operations on a traced phase's loop-carried chains, by kind, and where those chains
restart on each entry of a short loop (a counted one, or one that exits on their data).

Each loop's chain (:mod:`pinchpoint.prediction.trace.recurrence`, per iteration) counts times
its iterations, the fewer of its back branch's and its top's executions (a rotated loop,
entered at its test, runs its back branch once more per entry).  Reductions of adds alone
restarted on each entry are left out: the flops' chained adds price them (PEAK add_chains'
overlap).  Where a chain restarts on every entry of a short loop (an entry fits a reorder
buffer, :data:`CHAIN_WINDOW` instructions), the next entries overlap it out of order:
- a counted loop (an FNV hash's 24 steps per string): as many entries overlap as the core's
  window holds, which PEAK add_chains measures for chains of adds; its chains are kept with
  the loops' entries (``entries``), where such loops hold nearly all of the phase's chains
  (:data:`ON_EXITS`, in nominal cycles), and left out otherwise;
- a loop whose back branch tests data (a GCD's ``while (y)``, a tree walk's) overlaps its
  next entry only while that exit is predicted: its chains are kept, with its entries and its
  exit's mispredictions (``exits``, ``exits_mispredicted``), so that the model can price the
  share that waits (Dependencies), where such loops hold nearly all of the phase's chains:
  the sum ``s += gcd`` an outer loop carries beside a GCD's divisions is one add per entry.

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
#: Kinds of a reduction of adds alone (the flops' chained adds price it).
ADDS = {"fp_add", "fp_add_to_other", "fma"}
#: Share of the chains' nominal cycles that short loops (counted ones, or those exiting on data)
#: must hold for the phase's chains to be priced as theirs.
ON_EXITS = 0.9


def carried_chains(code, by_loop: dict, runs_at: dict, missed_at: dict) -> dict:
    """Kind -> operations on the chains of the loops in ``by_loop`` ((facts, instructions,
    flops, object) per loop), with ``entries`` where nearly every chain restarts on the entries
    of short counted loops, else with ``exits`` and ``exits_mispredicted`` where every kept
    chain is in a short loop that exits on data.  ``runs_at``: (object, address) ->
    executions; ``missed_at``: (object, address) -> Callgrind's mispredictions of the branch
    there; ``code``: the phase's CodeFacts (trip counts, counted exits)."""
    total: dict[str, float] = {}
    counted: dict[str, float] = {}  # the chains of short counted loops, apart
    exits_on_data = missed = entries = 0.0
    # nominal cycles of chains in short counted loops, loops exiting on data, other loops
    cycles = {"counted": 0.0, "on_data": 0.0, "other": 0.0}
    for facts, ir, _, obj in by_loop.values():
        iterations = min(runs_at.get((obj, facts.end), 0.0),
                         runs_at.get((obj, facts.start), math.inf))
        if not facts.carried or iterations <= 0:
            continue
        exits = code.trip_counts.get((obj, facts.end), (0.0, 0.0))[1]
        short = exits > 0 and ir / exits <= CHAIN_WINDOW
        if exits > 0 and facts.chained and set(facts.carried) <= ADDS:
            continue  # adds alone: the flops' chained adds
        if short and code.counted(obj, facts):
            entries += exits
            _add(counted, facts.carried, iterations, cycles, "counted")
            continue
        if short:
            exits_on_data += exits
            missed += missed_at.get((obj, facts.end), 0.0)
        _add(total, facts.carried, iterations, cycles, "on_data" if short else "other")
    if entries > 0 and cycles["counted"] >= ON_EXITS * sum(cycles.values()):
        return {**counted, "entries": entries}
    if exits_on_data > 0 and cycles["on_data"] >= ON_EXITS * (cycles["on_data"] + cycles["other"]):
        total["exits"] = exits_on_data
        total["exits_mispredicted"] = min(missed, exits_on_data)
    return total


def _add(into: dict, carried: dict, iterations: float, cycles: dict, group: str) -> None:
    """Add a loop's chained operations per iteration times ``iterations`` to ``into``, and
    their nominal cycles to ``cycles[group]``."""
    for kind, n in carried.items():
        into[kind] = into.get(kind, 0.0) + n * iterations
        cycles[group] += n * iterations * NOMINAL[kind]
