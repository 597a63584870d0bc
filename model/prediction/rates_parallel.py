"""OpenMP pricing: the fork and join of a parallel region, read off kernels/omp.c.

A loop run as ``#pragma omp parallel for`` many times on little data is held by its regions'
fork and join, not by its flops or bytes.  The signature's ``omp`` kernel measures that cost by
the method of the EPCC OpenMP microbenchmarks (J. M. Bull, "Measuring Synchronisation and
Scheduling Overheads in OpenMP", EWOMP 1999): the time of a region around a known work body less
the body alone, per team size 1 .. N.  A phase's regions cost

    T_regions = parallel_regions x repeat x overhead(threads),

the overhead interpolated linearly between the measured team sizes (a team size outside them
is refused, or with ``extrapolate`` priced at the nearest one and listed).  The statistic is the
caller's (:func:`pinchpoint.prediction.rates_base.statistic`: best is the fastest repetition).
"""

from __future__ import annotations

import numpy as np

from pinchpoint.inputs.workload_data import Phase
from pinchpoint.prediction.rates_base import RatesBase

#: The kernel and its op that price a region's fork and join.
REGION_KERNEL, REGION_OP = "omp", "parallel"


class ParallelRates(RatesBase):
    """The fork/join time of an OpenMP parallel region per team size (mixed into
    SignatureRates)."""

    def region_overheads(self) -> tuple[np.ndarray, np.ndarray]:
        """(team sizes, overhead per region [s]) the signature measured, by team size; empty
        arrays without the omp kernel's parallel points."""
        if REGION_KERNEL not in self.signature.kernels:
            return np.array([]), np.array([])
        by_team: dict[int, float] = {}
        for p in self.signature.points(REGION_KERNEL, op=REGION_OP):
            t = int(p.params.get("threads", 1))
            v = self._value(p.result, "time")
            by_team[t] = min(v, by_team.get(t, v))  # repeated points: the fastest
        teams = sorted(by_team)
        return np.array(teams, dtype=float), np.array([by_team[t] for t in teams])

    def region_overhead(self, threads: int, key: str) -> float | None:
        """Time [s] of one region's fork and join for a team of ``threads``; None where the
        signature has no omp kernel and ``extrapolate`` allows leaving it out (listed)."""
        teams, secs = self.region_overheads()
        if not len(teams):
            self._extrapolated(key, f"its parallel regions need the omp kernel's fork/join "
                                    f"times (kernels/omp.c; pinchpoint measure runs it where the "
                                    f"compiler has OpenMP), which signature "
                                    f"{self.signature.name!r} did not measure",
                               "no fork/join time (the phase's parallel regions left out)")
            return None
        x = self._range(float(threads), float(teams[0]), float(teams[-1]), "thread count", key)
        return float(np.interp(x, teams, secs))


def regions_time(phase: Phase, rates: ParallelRates, key: str, detail: list) -> float:
    """Time [s] of the phase's parallel regions' forks and joins (0 without regions)."""
    n = phase.parallel_regions * phase.repeat
    if n <= 0:
        return 0.0
    each = rates.region_overhead(phase.threads, f"{key}.parallel_regions")
    if each is None:
        return 0.0
    detail.append(f"{n:.4g} parallel regions of {phase.threads} threads at {each * 1e6:.4g} us "
                  f"each (omp parallel)")
    return n * each
