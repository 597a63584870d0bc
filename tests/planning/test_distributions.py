"""pinchpoint.physics.distributions (mpmath) against scipy.stats, and the USL fit (nlopt) against scipy's
least_squares: the answers `scale` gave when it used scipy, kept without importing scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.physics import distributions as d
from pinchpoint.physics import usl

scipy_stats = pytest.importorskip("scipy.stats")

dofs = st.integers(1, 2000)


@given(dofs, st.floats(0.5001, 1 - 1e-9))
@settings(max_examples=60, deadline=None)
def test_t_quantile_matches_scipy(df, q):
    assert d.t_ppf(q, df) == pytest.approx(scipy_stats.t.ppf(q, df), rel=1e-8)
    assert d.t_ppf(1 - q, df) == pytest.approx(-d.t_ppf(q, df), rel=1e-12)


@given(dofs, st.floats(1e-6, 500.0))
@settings(max_examples=60, deadline=None)
def test_tails_match_scipy(df, x):
    assert d.chi2_sf(x, df) == pytest.approx(scipy_stats.chi2.sf(x, df), rel=1e-9, abs=1e-300)
    assert d.f_sf(x, 1, df) == pytest.approx(scipy_stats.f.sf(x, 1, df), rel=1e-9, abs=1e-300)
    assert d.t_sf(x, df) == pytest.approx(scipy_stats.t.sf(x, df), rel=1e-9, abs=1e-300)
    assert d.t_sf(-x, df) == pytest.approx(scipy_stats.t.sf(-x, df), rel=1e-9)


def test_hand_values():
    # t(1) is Cauchy: its 0.975 quantile is tan(0.475 pi); chi2(2) has sf exp(-x/2)
    assert d.t_ppf(0.975, 1) == pytest.approx(math.tan(0.475 * math.pi), rel=1e-12)
    assert d.chi2_sf(3.0, 2) == pytest.approx(math.exp(-1.5), rel=1e-14)
    assert d.t_ppf(0.5, 7) == 0.0 and d.chi2_sf(0.0, 3) == 1.0 and d.f_sf(0.0, 1, 4) == 1.0
    with pytest.raises(ValueError, match="0 < q < 1"):
        d.t_ppf(1.0, 3)


def _scipy_fit(n, x):
    """The fit `scale` made with scipy: trust-region least_squares from the same five starts."""
    from scipy.optimize import least_squares

    best = None
    for a0, b0 in ((0.0, 0.0), (0.05, 1e-4), (0.3, 1e-2), (0.8, 0.2), (0.02, 1e-3)):
        res = least_squares(lambda t: usl.usl(n, *t) - x, [float(np.max(x / n)), a0, b0],
                            bounds=([1e-300, 0, 0], [np.inf, 1, 1]), method="trf", x_scale="jac",
                            xtol=1e-12, ftol=1e-12, gtol=1e-12, max_nfev=400)
        if best is None or res.cost < best.cost:
            best = res
    return 2 * best.cost


@given(st.lists(st.integers(1, 64), min_size=4, max_size=12, unique=True),
       st.floats(1.0, 1000.0), st.floats(0.0, 0.5), st.floats(-6.0, -1.0),
       st.lists(st.floats(-0.05, 0.05), min_size=12, max_size=12))
@settings(max_examples=40, deadline=None)
def test_fit_is_never_worse_than_scipys(clients, gamma, alpha, log_beta, noise):
    n = np.array(sorted(clients), dtype=float)
    x = usl.usl(n, gamma, alpha, 10 ** log_beta) * (1 + np.array(noise[:n.size]))
    f = usl.fit(n, x)
    assert f.rss <= _scipy_fit(n, x) * (1 + 1e-7) + 1e-18 * float(np.dot(x, x))
