"""Universal Scalability Law: fit measured throughput vs clients, flag retrograde scaling.

    X(N) = gamma N / (1 + alpha (N - 1) + beta N (N - 1))        [1], [2] ch. 4-6

``gamma`` [1/s] is the throughput of one client, ``alpha`` [-] the contention (the serial
fraction of Amdahl's law), ``beta`` [-] the coherency (crosstalk) penalty.  With ``beta = 0`` the
law is Amdahl's and throughput never falls as clients are added; with ``beta > 0`` it peaks at
``N* = sqrt((1 - alpha) / beta)`` and then falls: *retrograde* scaling.  A retrograde curve on
hardware that scales under another software stack is the shape of a software bottleneck: J. De
Gelas ("No More Apple Mysteries, Part Two", AnandTech, 2005-09-01) measured MySQL on one dual G5
at 113 and 62 queries/s for 5 and 10 clients under Mac OS X, 411 and 443 under Yellow Dog Linux.

The fit is bounded non-linear least squares (``alpha``, ``beta`` in [0, 1], ``gamma`` > 0) from
several starting points: ``gamma`` in closed form for each (``alpha``, ``beta``), those two by
nlopt's BOBYQA (:func:`_fit`).  Standard errors come from the Jacobian at the solution,
``cov = s^2 (J^T J)^-1`` with ``s^2 = RSS / (n - k)``, and intervals from Student's t
(:mod:`pinchpoint.physics.distributions`).  Whether ``beta`` is significantly above zero is decided by the
nested-model test against the best ``beta = 0`` (Amdahl) fit: an F test when the full fit has
residual degrees of freedom.  Without them (one to three points) the noise cannot be estimated:
there is no test and no fitted peak, and the verdict says only what the points show, whether
throughput falls between two client counts by more than an assumed relative noise (default 5 %).
One point is a reference figure: nothing is fitted.  Throughputs are fitted scaled to their
largest value (the law is linear in ``gamma``), so 1e-300 and 1e300 fit as 1 does.

A significant ``beta`` alone does not make a series retrograde: a USL fitted to throughput that
rises to a plateau (the exact MVA solution of Jain's Example 34.2 [4]) can put a peak at 13 clients
with a tiny, significant ``beta``.  *Retrograde* needs the fall to be seen: some measured point
lies below a point at fewer clients by more than the noise (series too short to fit the noise),
or the fitted peak lies inside the measured range and the fitted curve falls from it to the
largest client count by more than the noise.  The noise margin of a difference of two values is ``t s sqrt(2)`` (``s`` the residual
standard error, ``t`` Student's quantile at the confidence level), or ``2 r X`` with the assumed
relative noise ``r`` when ``s`` cannot be estimated.  Client counts may be fractional and below
one (the average active sessions of the usl package's ``oracledb`` data set [5]).

References
----------
.. [1] N. J. Gunther, "A Simple Capacity Model of Massively Parallel Transaction Systems",
   CMG Conference, 1993; N. J. Gunther, *Guerrilla Capacity Planning*, Springer, 2007, ch. 4-6.
.. [2] N. J. Gunther, *Analyzing Computer System Performance with Perl::PDQ*, 2nd ed., 2011.
.. [3] J. Nocedal and S. J. Wright, *Numerical Optimization*, 2nd ed., 2006, sec. 10.3
   (covariance of non-linear least-squares estimates).
.. [4] R. Jain, *The Art of Computer Systems Performance Analysis*, Wiley, 1991, Example 34.2.
.. [5] S. Moeding, *usl: Analyze System Scalability with the Universal Scalability Law*, R
   package (https://github.com/smoeding/usl), data set ``oracledb``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pinchpoint.errors import InputError

PARAMS = ("gamma", "alpha", "beta")
DEFAULT_NOISE = 0.05  # assumed relative measurement noise when the data cannot estimate it
#: Client counts read: fractional average sessions (0.1) up to any real population; outside
#: this range N (N - 1) loses all precision or overflows.
CLIENTS_RANGE = (1e-6, 1e9)
#: A fixed gamma, relative to the largest throughput, outside this range describes other data.
GAMMA_RANGE = (1e-12, 1e12)
LEVEL = 0.95


def usl(clients, gamma, alpha, beta):
    """USL throughput X(N) [same unit as gamma] for ``clients`` N [-] (numpy-friendly) [1]."""
    n = np.asarray(clients, dtype=float)
    return gamma * n / (1.0 + alpha * (n - 1.0) + beta * n * (n - 1.0))


def peak_clients(alpha: float, beta: float) -> float:
    """N at which X(N) peaks, sqrt((1 - alpha) / beta) [1]; inf when beta = 0."""
    if beta <= 0:
        return math.inf
    return math.sqrt(max(1.0 - alpha, 0.0) / beta)


@dataclass(frozen=True)
class Estimate:
    value: float
    stderr: float | None  # None: no residual degrees of freedom, or past the float range
    low: float | None
    high: float | None
    fixed: bool = False

    def to_dict(self) -> dict:
        return {"value": self.value, "stderr": self.stderr, "ci_low": self.low, "ci_high": self.high,
                "fixed": self.fixed}


@dataclass(frozen=True)
class BetaTest:
    """Nested-model test of beta = 0 (Amdahl) against the full USL."""

    method: str  # "F", or "none" when the noise cannot be estimated (statistic, p_value: nan)
    statistic: float
    p_value: float
    rss_amdahl: float
    rss_usl: float | None
    noise: float | None  # relative noise assumed when untested
    significant: bool

    def to_dict(self) -> dict:
        return {"method": self.method, "statistic": self.statistic, "p_value": self.p_value,
                "rss_amdahl": self.rss_amdahl, "rss_usl": self.rss_usl, "assumed_relative_noise": self.noise,
                "significant": self.significant}


@dataclass(frozen=True, eq=False)
class USLFit:
    """A USL fit of one series, its peak and the retrograde verdict."""

    series: str
    clients: np.ndarray
    throughput: np.ndarray
    gamma: Estimate | None  # None when the series is too short for the full fit
    alpha: Estimate | None
    beta: Estimate | None
    rss: float | None
    dof: int | None
    amdahl: tuple[float, float] | None  # (gamma, alpha) of the beta = 0 fit; None for one point
    test: BetaTest
    level: float = LEVEL
    notes: tuple[str, ...] = field(default=())
    #: When the series is too short for the full fit but falls: the USL with alpha held at 0 (or
    #: at its --fix value) through the points, (gamma, alpha, beta).  One curve consistent with
    #: the data, not an estimate: it places no peak and is drawn only between the points.
    alpha_held: tuple[float, float, float] | None = None
    #: The fall is seen: in the data, or in the fitted curve past a peak inside the measured range
    #: (module docstring); None before that was judged (only beta's test decides then).
    falls: bool | None = None

    @property
    def fitted(self) -> bool:
        return self.beta is not None

    def _params(self) -> tuple[float, float, float] | None:
        if self.fitted:
            return self.gamma.value, self.alpha.value, self.beta.value
        return self.alpha_held

    @property
    def tested(self) -> bool:
        """beta was tested (the full fit has residual degrees of freedom to estimate the noise)."""
        return self.test.method == "F"

    @property
    def peak_clients(self) -> float | None:
        """N at the fitted peak; None when the points cannot determine the curve."""
        return peak_clients(self.alpha.value, self.beta.value) if self.fitted and self.tested else None

    @property
    def peak_throughput(self) -> float | None:
        n = self.peak_clients
        if n is None or not math.isfinite(n):
            return None
        return float(usl(n, *self._params()))

    @property
    def retrograde(self) -> bool:
        """Throughput seen to fall past a peak, beta significantly > 0 where it can be tested
        (module docstring)."""
        if not self.tested:
            return bool(self.falls)
        return self.test.significant and self.falls is not False

    @property
    def verdict(self) -> str:
        if self.amdahl is None:
            return ("one client count: nothing to fit (a reference figure); measure at several client counts "
                    "to see how throughput scales")
        if not self.tested:
            return self._short_verdict()
        if self.test.significant and not self.retrograde:
            pk = self.peak_clients
            where = (f"the fitted peak at N = {pk:.3g} is beyond the largest measured N = {self.clients.max():g}"
                     if pk is not None and pk > self.clients.max() else
                     "the fitted curve's fall is within the noise")
            return (f"not retrograde: beta > 0 (p = {self.test.p_value:.2g}) but throughput does not fall "
                    f"within the measured range ({where}): it levels off; measure more clients to see a fall")
        if self.retrograde:
            where = (f" past N = {self.peak_clients:.3g}" if self.peak_clients and math.isfinite(self.peak_clients)
                     else "")
            return ("retrograde: throughput falls as clients are added" + where + " (beta > 0, p = "
                    f"{self.test.p_value:.2g}): " + _CAUSE)
        if self.fitted and self.alpha.value > 0.5:
            return (f"not retrograde; strongly serialised (alpha = {self.alpha.value:.2f}): throughput levels off "
                    f"near {self.gamma.value / self.alpha.value:.4g}")
        return "not retrograde: throughput rises or levels off with clients (beta not significant)"

    def _short_verdict(self) -> str:
        """What one to three points show, without a test or a peak."""
        n, x = self.clients, self.throughput
        drops = [(x[i] - x[j], i, j) for i in range(n.size) for j in range(i + 1, n.size) if n[j] > n[i]]
        why = (f"{n.size} points cannot estimate the noise: no significance test and no peak position; "
               "measure more client counts")
        if self.retrograde and drops:
            _, i, j = max(drops)
            return (f"retrograde in the measured points: throughput falls from {x[i]:.4g} at N = {n[i]:g} to "
                    f"{x[j]:.4g} at N = {n[j]:g} ({(x[j] - x[i]) / x[i]:+.0%}), more than the assumed "
                    f"{self.test.noise:.0%} noise; {why}.  A fall as clients are added is the shape of " + _CAUSE)
        return (f"not retrograde in the measured points: no fall larger than the assumed {self.test.noise:.0%} "
                f"noise; {why}")

    def predict(self, clients) -> np.ndarray:
        p = self._params()
        if p is not None:
            return usl(clients, *p)
        if self.amdahl is None:
            return np.full(np.shape(clients), np.nan)
        g, a = self.amdahl
        return usl(clients, g, a, 0.0)

    def to_dict(self) -> dict:
        pk = self.peak_clients
        return {
            "series": self.series,
            "points": [{"clients": float(n), "throughput": float(x)} for n, x in zip(self.clients, self.throughput)],
            "fitted": self.fitted,
            **{p: (getattr(self, p).to_dict() if self.fitted else None) for p in PARAMS},
            "confidence_level": self.level, "rss": self.rss, "dof": self.dof,
            "peak_clients": pk if pk is None or math.isfinite(pk) else None,
            "peak_throughput": self.peak_throughput,
            "amdahl_fit": ({"gamma": self.amdahl[0], "alpha": self.amdahl[1]} if self.amdahl else None),
            "alpha_held_fit": (dict(zip(PARAMS, self.alpha_held)) if self.alpha_held else None),
            "beta_test": self.test.to_dict(),
            "retrograde": self.retrograde, "verdict": self.verdict, "notes": list(self.notes),
        }


_CAUSE = ("contention in software (locks, thread or process handling, coherency traffic), "
          "not a hardware ceiling")


def _check_data(clients, throughput, series: str):
    n = np.asarray(clients, dtype=float)
    x = np.asarray(throughput, dtype=float)
    if n.ndim != 1 or n.shape != x.shape:
        raise InputError(f"series {series!r}: clients and throughput must be two columns of equal length")
    if not (np.all(np.isfinite(n)) and np.all(np.isfinite(x))):
        raise InputError(f"series {series!r}: clients and throughput must be finite numbers")
    if np.any(n <= 0):
        raise InputError(f"series {series!r}: the number of clients must be > 0, got {n.min():g}")
    lo, hi = CLIENTS_RANGE
    if np.any(n < lo) or np.any(n > hi):
        raise InputError(f"series {series!r}: client counts must lie in {lo:g} .. {hi:g}, got "
                         f"{n.min():g} .. {n.max():g}")
    if np.any(x <= 0):
        raise InputError(f"series {series!r}: throughput must be > 0, got {x.min():g}")
    order = np.argsort(n, kind="stable")
    return n[order], x[order]


def _jacobian_columns(n, gamma, alpha, beta):
    """dX/d(gamma, alpha, beta) of the law at each N."""
    d = 1.0 + alpha * (n - 1.0) + beta * n * (n - 1.0)
    f = n / d
    return {"gamma": f, "alpha": -gamma * f * (n - 1.0) / d, "beta": -gamma * f * n * (n - 1.0) / d}


def _fit(n, x, fixed: dict[str, float]):
    """Least-squares fit of the free parameters; returns (params dict, rss, jacobian, free names).

    gamma enters the law linearly: for given (alpha, beta) its least-squares value is
    sum(x f) / sum(f^2), f = N / (1 + alpha (N - 1) + beta N (N - 1)) (variable projection,
    Golub and Pereyra, SIAM J. Numer. Anal. 10, 1973).  So the search runs over the free ones of
    (alpha, beta) only, in [0, 1], by nlopt's BOBYQA (Powell's bounded quadratic-model method,
    which needs no derivatives), each scaled by its term's largest size in the data so that
    alpha ~ 0.1 and beta ~ 1e-4 are searched alike, from several starting points (the problem
    is small but not convex).  Its sum of squares is never above that of scipy's trust-region
    least_squares, which it replaced (tests/planning/test_distributions.py)."""
    import nlopt

    free = [p for p in PARAMS if p not in fixed]
    search = [p for p in ("alpha", "beta") if p in free]
    scale = {"alpha": float(np.max(np.abs(n - 1.0))) or 1.0,
             "beta": float(np.max(np.abs(n * (n - 1.0)))) or 1.0}
    best: list = [math.inf, None]

    def rss(theta, _grad=None):
        v = dict(fixed)
        v.update({p: t / scale[p] for p, t in zip(search, theta)})
        f = usl(n, 1.0, v["alpha"], v["beta"])  # X / gamma
        if "gamma" in free:
            v["gamma"] = float(np.dot(x, f) / np.dot(f, f))
        r = v["gamma"] * f - x
        value = float(np.dot(r, r))
        if value < best[0]:
            best[:] = [value, v]
        return value

    if not search:
        rss(())
    for a0, b0 in ((0.0, 0.0), (0.05, 1e-4), (0.3, 1e-2), (0.8, 0.2), (0.02, 1e-3)) if search else ():
        start = {"alpha": a0, "beta": b0}
        opt = nlopt.opt(nlopt.LN_BOBYQA, len(search))
        opt.set_lower_bounds([0.0] * len(search))
        opt.set_upper_bounds([scale[p] for p in search])
        opt.set_min_objective(rss)
        opt.set_xtol_rel(1e-13)
        opt.set_maxeval(2000)
        try:
            opt.optimize([start[p] * scale[p] for p in search])
        except (nlopt.RoundoffLimited, nlopt.runtime_error):
            pass  # stopped by round-off (or a failure): the best point seen so far is kept
    v = best[1]
    if v is None:  # every evaluation was nan: values no float arithmetic can fit
        raise InputError("the USL cannot be fitted to these values (no finite sum of squares)")
    columns = _jacobian_columns(n, v["gamma"], v["alpha"], v["beta"])
    jac = np.column_stack([columns[p] for p in free]) if free else np.empty((n.size, 0))
    return {p: float(v[p]) for p in PARAMS}, best[0], jac, free


def fit(clients, throughput, *, series: str = "data", fixed: dict[str, float] | None = None,
        noise: float | None = None, level: float = LEVEL) -> USLFit:
    """Fit the USL to one series and test whether beta > 0 (module docstring).

    Parameters
    ----------
    clients, throughput : array_like
        N [-] and X [any rate unit] per measurement.
    fixed : dict, optional
        Parameters held at given values ({"alpha": 0.0}); the others are fitted.
    noise : float, optional
        Relative measurement noise [-] a fall must exceed when the data cannot estimate the
        noise (default 5 %).  Ignored otherwise.

    Raises
    ------
    InputError
        Bad values, too few different client counts for the beta = 0 model, or a fixed
        parameter out of its bounds.
    """
    fixed = dict(fixed or {})
    n, x = _check_data(clients, throughput, series)
    top = float(x.max())  # the fit runs on x / top: gamma is linear, the rest scale-free
    _check_fixed(fixed, top)
    rel = DEFAULT_NOISE if noise is None else float(noise)
    if not (math.isfinite(rel) and rel > 0):
        raise InputError(f"the relative noise must be > 0, got {noise!r}", key="noise")
    if n.size == 1:
        test = BetaTest("none", math.nan, math.nan, math.nan, None, rel, False)
        return USLFit(series, n, x, None, None, None, None, None, None, test, level,
                      (), None, False)
    k0 = len([p for p in ("gamma", "alpha") if p not in fixed])
    if len(set(n.tolist())) < k0:  # (np.unique would import numpy.ma: 11 ms)
        raise InputError(f"series {series!r}: needs measurements at {k0} or more different client counts")
    scaled = {k: (v / top if k == "gamma" else v) for k, v in fixed.items()}
    f = _fit_scaled(n, x / top, scaled, rel, level, series)
    up = lambda e: None if e is None else Estimate(  # noqa: E731
        e.value * top, *(_scaled_back(v, top) for v in (e.stderr, e.low, e.high)), e.fixed)
    sq = lambda v: None if v is None else v * top * top  # noqa: E731 (inf past 1e154: JSON null)
    t = f.test
    return USLFit(series, n, x, up(f.gamma), f.alpha, f.beta, sq(f.rss), f.dof,
                  (f.amdahl[0] * top, f.amdahl[1]),
                  BetaTest(t.method, t.statistic, t.p_value, sq(t.rss_amdahl), sq(t.rss_usl), t.noise, t.significant),
                  level, f.notes, None if f.alpha_held is None else (f.alpha_held[0] * top, *f.alpha_held[1:]),
                  f.falls)


def _scaled_back(v: float | None, top: float) -> float | None:
    """A spread or a bound of gamma fitted on x / top, in the data's unit; None where that
    overflows the floating-point range (throughputs near 1e300 with a wide interval): the
    bound is then unknown, not infinite."""
    if v is None:
        return None
    out = v * top
    return out if math.isfinite(out) else None


def _check_fixed(fixed: dict, top: float) -> None:
    for k, v in fixed.items():
        if k not in PARAMS:
            raise InputError(f"no USL parameter {k!r} (parameters: {', '.join(PARAMS)})", key="fix")
        ok = v > 0 if k == "gamma" else 0 <= v <= 1
        if not (math.isfinite(v) and ok):
            raise InputError(f"{k} = {v!r} is out of bounds ({'> 0' if k == 'gamma' else 'in [0, 1]'})", key="fix")
        lo, hi = GAMMA_RANGE
        if k == "gamma" and not lo <= v / top <= hi:
            raise InputError(f"gamma = {v!r} is out of range for throughputs of at most {top:.4g} (expected "
                             f"{lo:g} .. {hi:g} times that)", key="fix")
    if "beta" in fixed:
        raise InputError("beta cannot be fixed: the fit exists to estimate it", key="fix")


def _fit_scaled(n, x, fixed: dict, rel: float, level: float, series: str) -> USLFit:
    """:func:`fit` on throughputs scaled to at most 1 (two points or more)."""
    from pinchpoint.physics.distributions import f_sf, t_ppf

    k_full = len([p for p in PARAMS if p not in fixed])
    amdahl_fixed = {**fixed, "beta": 0.0}
    k0 = len([p for p in PARAMS if p not in amdahl_fixed])
    notes = []
    p0, rss0, _, _ = _fit(n, x, amdahl_fixed) if k0 else (amdahl_fixed, float(np.sum((usl(n, **amdahl_fixed) - x) ** 2)), None, [])
    ests, rss, dof = _full_fit(n, x, fixed, k_full, level, notes)
    if dof:
        s2 = max(rss / dof, (1e-9 ** 2) * float(np.mean(x)) ** 2)  # exact data: round-off, not zero
        f_stat = max(rss0 - rss, 0.0) / s2
        p_value = f_sf(f_stat, 1, dof)
        test = BetaTest("F", f_stat, p_value, rss0, rss, None, bool(p_value < 1 - level and ests["beta"].value > 0))
        margin = np.full(n.size, t_ppf(0.5 + level / 2, dof) * math.sqrt(s2) * math.sqrt(2))
        curve = (ests["gamma"].value, ests["alpha"].value, ests["beta"].value)
    else:
        test = BetaTest("none", math.nan, math.nan, rss0, rss, rel, False)
        notes.append(f"the measurement noise cannot be estimated from {n.size} points: a fall counts when it "
                     f"exceeds twice the assumed {rel:.0%} relative noise (--noise); beta is not tested")
        margin, curve = 2 * rel * x, None
    falls = _falls(n, x, margin, curve)
    held = None
    if not dof and falls and not {"gamma", "alpha"} <= set(fixed):
        pa, _, _, _ = _fit(n, x, {"alpha": 0.0, **fixed})
        held = (float(pa["gamma"]), float(pa["alpha"]), float(pa["beta"]))
        notes.append(f"one USL curve through the points, alpha held at {held[1]:g} (beta = {held[2]:.3g}): "
                     "an illustration between the points, which cannot place its peak")
    return USLFit(series, n, x, ests["gamma"], ests["alpha"], ests["beta"], rss, dof,
                  (float(p0["gamma"]), float(p0["alpha"])), test, level, tuple(notes), held, falls)


def _full_fit(n, x, fixed: dict, k_full: int, level: float, notes: list):
    """The estimates of the full USL (None each when the points are too few), RSS, dof."""
    from pinchpoint.physics.distributions import t_ppf

    ests = {p: None for p in PARAMS}
    if n.size < k_full:
        notes.append(f"{n.size} points cannot determine the {k_full} USL parameters: only the beta = 0 "
                     "(Amdahl) model is fitted")
        return ests, None, None
    pv, rss, jac, free = _fit(n, x, fixed)
    dof = int(n.size - k_full)
    se = {}
    if dof > 0:
        cov = rss / dof * np.linalg.pinv(jac.T @ jac)
        t = t_ppf(0.5 + level / 2, dof)
        se = {p: float(math.sqrt(max(cov[i, i], 0.0))) for i, p in enumerate(free)}
    else:
        notes.append(f"{n.size} points for {k_full} parameters: an exact fit with no residual degrees of "
                     "freedom, so no confidence intervals")
    for p in PARAMS:
        if p in fixed:
            ests[p] = Estimate(fixed[p], None, None, None, fixed=True)
        elif p in se:
            lo_b, hi_b = (0.0, math.inf) if p == "gamma" else (0.0, 1.0)
            ests[p] = Estimate(pv[p], se[p], max(pv[p] - t * se[p], lo_b), min(pv[p] + t * se[p], hi_b))
        else:
            ests[p] = Estimate(pv[p], None, None, None)
    return ests, rss, dof


def _falls(n, x, margin, curve) -> bool:
    """Is the fall seen?  With residual degrees of freedom the fitted curve smooths the noise:
    its peak must lie inside the measured range and the curve must fall from it to the largest N
    by more than the margin.  Without them (two or three points) the data themselves must fall:
    a point below one at fewer clients by more than the assumed noise."""
    if curve is not None and margin.size and np.all(margin == margin[0]) and margin[0] > 0:
        pk = peak_clients(curve[1], curve[2])
        if not (math.isfinite(pk) and n.min() <= pk < n.max()):
            return False
        return float(usl(pk, *curve) - usl(n.max(), *curve)) > float(margin[0])
    return any(x[i] - x[j] > margin[i] for i in range(n.size) for j in range(i + 1, n.size) if n[j] > n[i])
