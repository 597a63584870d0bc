"""The ceilings' linear program in exact rational arithmetic, for capacities of wide spread.

HiGHS works in floating point with absolute tolerances (1e-7): when one profile holds a 1 kB/s
management port beside a 10 TB/s fabric, no scaling keeps every capacity resolvable, and the
solver answers a wrong ceiling or none.  Every capacity, weight and pass count is a
binary float and so an exact rational; sympy's simplex (Bland's rule, rational pivots, no
tolerances) then finds the true optimum.  It is dense and slow on big programs, so the ceilings
use it only when the spread demands it and the program is small (:data:`MAX_CELLS`).

The solution may route some flow round a cycle (it costs capacity but changes no rate); the
caller cancels such circulations before it reports routes.

References
----------
.. [1] R. G. Bland, "New finite pivoting rules for the simplex method", Mathematics of
   Operations Research 2(2), 103-107 (1977).
.. [2] sympy.solvers.simplex (sympy >= 1.12), https://docs.sympy.org/latest/modules/solvers/solvers.html
"""

from __future__ import annotations

#: Largest program (variables x constraint rows) solved exactly: well under a second of sympy
#: (programs of 4,000-4,700 cells, four components and six links with two-leg flows, took
#: 0.05-0.16 s on a 2-vCPU VM; at 2,500 such a program with capacities 3 B/s beside 1e12 B/s
#: was refused as "too large" after HiGHS's tolerances had lost the small link).
MAX_CELLS = 8000


def small_enough(n_var: int, n_rows: int) -> bool:
    return n_var * n_rows <= MAX_CELLS


def maximise_rate(a_ub, b_ub, a_eq) -> tuple[list[float], list[float]] | None:
    """Maximise x[0] subject to ``a_ub @ x <= b_ub``, ``a_eq @ x == 0``, ``x >= 0``.

    Returns (x, duals of the ``a_ub`` rows: d x[0] / d b_ub) as floats, or None when x[0]
    cannot be positive or is unbounded.  ``a_ub`` and ``a_eq`` are sparse
    matrices in coordinates (``row``, ``col``, ``data``, ``shape``; duplicates add).
    """
    from sympy import Matrix, Rational, zeros
    from sympy.solvers.simplex import InfeasibleLPError, UnboundedLPError, _simplex

    n_var = a_ub.shape[1]

    def rows(sparse, n_rows):
        dense = zeros(n_rows, n_var)
        for r, c, v in zip(sparse.row, sparse.col, sparse.data):  # duplicates add
            dense[int(r), int(c)] += Rational(float(v))  # exact value of the binary float
        return dense

    ub = rows(a_ub, a_ub.shape[0])
    eq = rows(a_eq, a_eq.shape[0])
    # _simplex takes A x <= B only: an equality is two inequalities.
    a = ub.col_join(eq).col_join(-eq)
    b = Matrix([Rational(float(v)) for v in b_ub] + [0] * (2 * eq.rows))
    cost = zeros(1, n_var)
    cost[0, 0] = -1
    try:
        value, x, duals = _simplex(a, b, cost)
    except (InfeasibleLPError, UnboundedLPError):  # also sympy's "oscillating system"
        return None
    tau = -value
    if tau <= 0:
        return None
    return [float(v) for v in x], [float(y) for y in duals[:ub.rows]]
