"""Operational laws, asymptotic bounds and exact mean value analysis for closed networks.

Pure functions (numpy-friendly) and one frozen result object.  Notation of Lazowska et al. [1]:
``D_k`` the service demand at station ``k`` [s] (visits x service time), ``D = sum D_k``,
``D_max = max D_k``, ``Z`` the think time [s], ``N`` the number of clients, ``X`` the throughput
[1/s], ``R`` the response time [s], ``Q_k`` the mean number at station ``k``, ``U_k`` its utilisation.

References
----------
.. [1] E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
   Performance: Computer System Analysis Using Queueing Network Models*, Prentice-Hall, 1984:
   ch. 3 (operational laws), ch. 5 (asymptotic bounds, N*), ch. 6 (exact MVA, Algorithm 6.1).
.. [2] N. J. Gunther, *Analyzing Computer System Performance with Perl::PDQ*, Springer, 2005
   (2nd ed. 2011): ch. 2 and the PDQ solver's exact MVA for closed "TERM" workloads.
.. [3] M. Reiser and S. S. Lavenberg, "Mean-value analysis of closed multichain queuing
   networks", J. ACM 27(2):313-322, 1980.
.. [4] P. J. Schweitzer, "Approximate analysis of multiclass closed networks of queues", Proc.
   Int. Conf. on Stochastic Control and Optimization, Amsterdam, 1979; Y. Bard, "Some extensions
   to multiclass queueing network analysis", 1979; [1] ch. 6.4.2 (the approximate MVA).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from pinchpoint.errors import InputError

QUEUE = "queue"
DELAY = "delay"
#: Largest population solved exactly.  The recursion visits every population in turn (about
#: 6 us each: 1e7 clients took 62 s); above this, Schweitzer's approximate MVA [4] solves each
#: shown population on its own.
MAX_EXACT = 100_000
#: Largest population accepted at all (the approximation's precision holds to about 1e12).
MAX_CLIENTS = 10 ** 12
#: Populations a result keeps: all up to this many, else this many spread evenly on a log scale.
SHOWN = 200


def utilisation(throughput, demand):
    """Utilisation law U = X D [1] ch. 3.  ``throughput`` [1/s], ``demand`` [s] -> [-]."""
    return np.asarray(throughput) * np.asarray(demand)


def little_population(throughput, response_time):
    """Little's law N = X R [1] ch. 3: mean number in the system [-]."""
    return np.asarray(throughput) * np.asarray(response_time)


def response_time_law(clients, throughput, think_time=0.0):
    """Interactive response time law R = N / X - Z [1] ch. 3 [s]."""
    return np.asarray(clients) / np.asarray(throughput) - think_time


def throughput_bound(clients, total_demand, max_demand, think_time=0.0):
    """Asymptotic upper bound X(N) <= min(N / (D + Z), 1 / D_max) [1] ch. 5 [1/s]."""
    n = np.asarray(clients, dtype=float)
    return np.minimum(n / (total_demand + think_time), 1.0 / max_demand)


def response_bound(clients, total_demand, max_demand, think_time=0.0):
    """Asymptotic lower bound R(N) >= max(D, N D_max - Z) [1] ch. 5 [s]."""
    n = np.asarray(clients, dtype=float)
    return np.maximum(total_demand, n * max_demand - think_time)


def saturation_population(total_demand, max_demand, think_time=0.0):
    """N* = (D + Z) / D_max [1] ch. 5: the population where the two throughput bounds cross."""
    return (total_demand + think_time) / max_demand


def _check(demands, kinds, think_time, clients):
    d = np.asarray(demands, dtype=float)
    if d.ndim != 1 or d.size == 0:
        raise InputError("give at least one service demand", key="demands")
    if not np.all(np.isfinite(d)) or np.any(d < 0):
        raise InputError(f"service demands must be finite and >= 0, got {list(d)}", key="demands")
    kinds = tuple(kinds) if kinds is not None else (QUEUE,) * d.size
    if len(kinds) != d.size or any(k not in (QUEUE, DELAY) for k in kinds):
        raise InputError(f"each station is 'queue' or 'delay' ({d.size} of them), got {kinds}", key="demands")
    if not any(k == QUEUE and x > 0 for k, x in zip(kinds, d)):
        raise InputError("at least one queueing station needs a demand > 0", key="demands")
    if not (math.isfinite(think_time) and think_time >= 0):
        raise InputError(f"the think time must be >= 0, got {think_time!r}", key="think")
    if isinstance(clients, bool) or int(clients) != clients or clients < 1:
        raise InputError(f"the number of clients must be a whole number >= 1, got {clients!r}", key="clients")
    if clients > MAX_CLIENTS:
        raise InputError(f"at most {MAX_CLIENTS:.0e} clients can be solved, got {clients!r}", key="clients")
    return d, kinds


def shown_populations(n_max: int) -> np.ndarray:
    """The populations a result keeps: 1..N, or :data:`SHOWN` of them log-spaced with 1 and N."""
    if n_max <= SHOWN:
        return np.arange(1, n_max + 1)
    return np.unique(np.round(np.geomspace(1, n_max, SHOWN)).astype(np.int64))


@dataclass(frozen=True, eq=False)
class MVAResult:
    """MVA of a single-class closed network at the populations ``clients`` (exact up to
    :data:`MAX_EXACT` clients, Schweitzer's approximation beyond: ``method`` says which)."""

    names: tuple[str, ...]
    kinds: tuple[str, ...]
    demands: np.ndarray  # [s], per station
    think_time: float  # [s]
    throughput: np.ndarray  # X(n) [1/s], shape (N,)
    response_time: np.ndarray  # R(n) [s], shape (N,)
    queue_length: np.ndarray  # Q_k(n), shape (K, N)
    residence_time: np.ndarray  # R_k(n) [s], shape (K, N)
    clients: np.ndarray = None  # the populations n, shape (N,); 1..N when not given
    method: str = "exact"

    def __post_init__(self):
        if self.clients is None:
            object.__setattr__(self, "clients", np.arange(1, self.throughput.size + 1))

    @property
    def utilisation(self) -> np.ndarray:
        """U_k(n) = X(n) D_k, shape (K, N)."""
        return self.demands[:, None] * self.throughput[None, :]

    @property
    def total_demand(self) -> float:
        return float(self.demands.sum())

    @property
    def max_demand(self) -> float:
        return float(max(d for d, k in zip(self.demands, self.kinds) if k == QUEUE))

    @property
    def bottleneck(self) -> str:
        q = [(d, n) for d, n, k in zip(self.demands, self.names, self.kinds) if k == QUEUE]
        return max(q)[1]

    @property
    def n_star(self) -> float:
        return saturation_population(self.total_demand, self.max_demand, self.think_time)

    def to_dict(self) -> dict:
        n = self.clients
        xb = throughput_bound(n, self.total_demand, self.max_demand, self.think_time)
        return {
            "stations": [{"name": s, "kind": k, "demand_s": float(d)}
                         for s, k, d in zip(self.names, self.kinds, self.demands)],
            "think_time_s": self.think_time,
            "total_demand_s": self.total_demand, "max_demand_s": self.max_demand,
            "bottleneck": self.bottleneck, "n_star": self.n_star, "method": self.method,
            "throughput_limit_per_s": 1.0 / self.max_demand,
            "points": [{"clients": int(c), "throughput_per_s": float(x), "response_time_s": float(r),
                        "throughput_bound_per_s": float(b),
                        "utilisation": {s: float(u) for s, u in zip(self.names, self.utilisation[:, i])},
                        "queue_length": {s: float(q) for s, q in zip(self.names, self.queue_length[:, i])}}
                       for i, (c, x, r, b) in enumerate(zip(n, self.throughput, self.response_time, xb))],
        }


def mva(demands: Sequence[float], clients: int, *, think_time: float = 0.0,
        kinds: Sequence[str] | None = None, names: Sequence[str] | None = None) -> MVAResult:
    """Exact mean value analysis of a closed single-class product-form network [1] Algorithm 6.1, [3].

    For n = 1..N, with Q_k(0) = 0::

        R_k(n) = D_k (1 + Q_k(n-1))   queueing station (load independent)
        R_k(n) = D_k                  delay station
        X(n)   = n / (Z + sum_k R_k(n))
        Q_k(n) = X(n) R_k(n)

    Parameters
    ----------
    demands : sequence of float
        Service demand of each station [s].
    clients : int
        Largest population N [-].
    think_time : float
        Think time Z [s].
    kinds : sequence of {"queue", "delay"}, optional
        Station kinds (all "queue" by default).
    names : sequence of str, optional
        Station names for reports.
    """
    d, kinds = _check(demands, kinds, think_time, clients)
    names = tuple(names) if names is not None else tuple(f"station{i + 1}" for i in range(d.size))
    n_max = int(clients)
    is_queue = np.array([k == QUEUE for k in kinds])
    keep = shown_populations(n_max)
    if n_max > MAX_EXACT:
        return _schweitzer(d, is_queue, float(think_time), keep, names, tuple(kinds))
    xs, rs = np.empty(keep.size), np.empty(keep.size)
    qs, rks = np.empty((d.size, keep.size)), np.empty((d.size, keep.size))
    q = np.zeros(d.size)
    slot = 0
    for n in range(1, n_max + 1):  # the recursion is sequential in n by nature
        rk = np.where(is_queue, d * (1.0 + q), d)
        r = rk.sum()
        x = n / (think_time + r)
        q = x * rk
        if n == keep[slot]:
            xs[slot], rs[slot], qs[:, slot], rks[:, slot] = x, r, q, rk
            slot += 1
    return MVAResult(names, tuple(kinds), d, float(think_time), xs, rs, qs, rks, keep, "exact")


def _schweitzer(d, is_queue, z: float, keep, names, kinds) -> MVAResult:
    """Schweitzer's approximate MVA [4] at each population of ``keep``.

    The exact recursion needs Q_k(n - 1); the approximation takes Q_k(n - 1) = (n - 1) / n Q_k(n),
    so each population is one equation in X: with Q_k = X D_k / (1 - X D_k (n - 1) / n) at a
    queue and X D_k at a delay station, Z X + sum_k Q_k(X) = n, increasing in X on
    [0, n / ((n - 1) D_max)): one root, found by bracketing (mpmath's Anderson-Bjorck method).
    Its error is a few per cent near N* and vanishes as N grows past it (X -> 1 / D_max).
    """
    import mpmath

    d_max = float(d[is_queue].max())
    xs, rs = np.empty(keep.size), np.empty(keep.size)
    qs, rks = np.empty((d.size, keep.size)), np.empty((d.size, keep.size))
    for i, n in enumerate(keep.tolist()):
        shrink = (n - 1) / n

        def queues(x):
            return np.where(is_queue, x * d / (1.0 - x * d * shrink), x * d)

        hi = 1.0 / (d_max * shrink) if n > 1 else n / float(d.sum() + z)
        # g(0) = -n < 0 and g -> +inf at hi: the root lies inside the bracket
        x = float(mpmath.findroot(lambda u: z * float(u) + float(queues(float(u)).sum()) - n,
                                  (0.0, hi * (1 - 1e-15)), solver="anderson", verify=False)) if n > 1 else hi
        q = queues(x)
        xs[i], qs[:, i] = x, q
        rks[:, i] = q / x
        rs[i] = float(rks[:, i].sum())
    return MVAResult(names, kinds, d, z, xs, rs, qs, rks, keep, "Schweitzer approximate MVA")
