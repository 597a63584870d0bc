"""Tail probabilities and a quantile of the chi-square, F and Student's t distributions.

The USL fit (:mod:`pinchpoint.physics.usl`) needs three numbers per series: a chi-square or F tail
probability for its beta test and a t quantile for its intervals.  scipy.special has them, but
importing it takes about 0.24 s, most of a `scale` process; mpmath (which sympy requires)
computes the same regularized incomplete gamma and beta functions in pure Python, imported in
about 0.03 s.  Each function is the textbook identity (Abramowitz and Stegun, *Handbook of
Mathematical Functions*, 1964, 26.4.19, 26.6.2 and 26.7.1):

- chi-square with k degrees of freedom: P(X > x) = Q(k/2, x/2), the regularized upper
  incomplete gamma function;
- F with (d1, d2): P(F > f) = I_z(d2/2, d1/2) with z = d2 / (d2 + d1 f), the regularized
  incomplete beta function;
- Student's t with v: P(T > t) = I_z(v/2, 1/2) / 2 with z = v / (v + t^2) for t >= 0; its
  quantile solves that for t with mpmath's root finder (secant method).

``tests/planning/test_distributions.py`` checks them against scipy.stats.
"""

from __future__ import annotations

import math

import mpmath


def chi2_sf(x: float, df: float) -> float:
    """P(X > x) for a chi-square variable with ``df`` degrees of freedom."""
    if x <= 0:
        return 1.0
    return float(mpmath.gammainc(df / 2.0, x / 2.0, mpmath.inf, regularized=True))


def f_sf(f: float, d1: float, d2: float) -> float:
    """P(F > f) for an F variable with (``d1``, ``d2``) degrees of freedom."""
    if f <= 0:
        return 1.0
    return float(_ibeta(d2 / 2.0, d1 / 2.0, d2, d1 * f))


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom."""
    tail = _t_tail(abs(t), df)
    return float(tail if t >= 0 else 1 - tail)


def t_ppf(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom, 0 < q < 1."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"a quantile needs 0 < q < 1, got {q!r}")
    if q < 0.5:
        return -t_ppf(1.0 - q, df)
    if q == 0.5:
        return 0.0
    with mpmath.workdps(25):
        # log P(T > t) against log t: nearly straight (the tail falls as t^-df), so the secant
        # method converges from the normal quantile with Cornish and Fisher's first correction
        z = math.sqrt(2.0) * float(mpmath.erfinv(2.0 * q - 1.0))
        u0 = math.log(z * (1.0 + (z * z + 1.0) / (4.0 * df)))
        log_p = mpmath.log(1 - mpmath.mpf(q))
        u = mpmath.findroot(lambda u: mpmath.log(_t_tail(mpmath.exp(u), df)) - log_p, (u0, u0 + 0.1))
        return float(mpmath.exp(u))


def _t_tail(t, df):
    return 0.5 * _ibeta(df / 2.0, 0.5, df, t * t)


def _ibeta(a, b, u, v):
    """I_z(a, b) at z = u / (u + v), z formed with 40 digits: in double precision z would round
    towards 1 when v << u (t near 0) and lose the digits of the answer."""
    with mpmath.workdps(40):
        return mpmath.betainc(a, b, 0, mpmath.mpf(u) / (mpmath.mpf(u) + v), regularized=True)
