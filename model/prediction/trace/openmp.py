"""OpenMP parallel regions a traced program entered, from Callgrind's call counts.

A compiler turns ``#pragma omp parallel`` (and ``parallel for``, ``parallel sections``) into a
call of its runtime's entry with the region's body outlined into a function of its own
(``kernel._omp_fn.0`` for GCC): GCC's libgomp since GCC 4.9 ``GOMP_parallel``,
``GOMP_parallel_loop_*`` and ``GOMP_parallel_sections`` (and ``GOMP_parallel_reductions`` for
task reductions since GCC 9), which run the body on the calling thread too and return after
the join; before that ``GOMP_parallel_start`` (and its loop and sections variants) with the
body called by the program itself (the GNU libgomp manual, "The libgomp ABI", "Implementing
PARALLEL construct"); LLVM's libomp ``__kmpc_fork_call`` (the LLVM OpenMP runtime library
interface reference, "Parallel (fork/join)").
Each call of an entry is one region: a fork and a join of the team.

A region is attributed to the phase that holds its body where the entry calls the body on the
calling thread (the libgomp entries that do), since the body's work and threads are that phase's;
otherwise to the phase of the call site.  Pure: a profile in, counts out.
"""

from __future__ import annotations

import re

#: Runtime functions whose every call starts a parallel region (GOMP_parallel_end is not one).
REGION_ENTRY = re.compile(r"^(GOMP_parallel(_start|_loop_\w+|_sections(_start)?|_reductions)?"
                          r"|__kmpc_fork_call)$")
#: Entries that call the region's body themselves on the calling thread.
CALLS_BODY = re.compile(r"^(GOMP_parallel(_reductions|_sections)?|GOMP_parallel_loop_(?!\w*_start$)\w+)$")


def region_calls(prof) -> tuple[dict, dict]:
    """(call sites, bodies) of the profile's region entries: ``{(obj, fn, addr, entry): count}``
    for each site calling an entry, ``{(entry, (body obj, body fn)): count}`` for each body an
    entry called."""
    sites, bodies = {}, {}
    for (obj, fn, addr, (cob, callee)), n in prof.calls.items():
        if REGION_ENTRY.match(callee):
            sites[(obj, fn, addr, callee)] = sites.get((obj, fn, addr, callee), 0.0) + n
        elif CALLS_BODY.match(fn) and cob and cob != obj:
            # the runtime's own helpers live in its object; a body lives in the program's
            key = (fn, (cob, callee))
            bodies[key] = bodies.get(key, 0.0) + n
    return sites, bodies


def parallel_regions(prof, select=None) -> float:
    """Regions the instructions ``select((obj, fn, addr))`` accepts entered (all: every region
    of the run): by body for entries that call it, else by call site."""
    sites, bodies = region_calls(prof)
    by_body = {entry for entry, _ in bodies}
    total = 0.0
    for (entry, (obj, fn)), n in bodies.items():
        if select is None or select((obj, fn, None)):
            total += n
    for (obj, fn, addr, entry), n in sites.items():
        if entry not in by_body and (select is None or select((obj, fn, addr))):
            total += n
    return total
