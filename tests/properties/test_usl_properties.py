"""Property: the USL fit recovers known parameters from noisy synthetic data."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.physics import usl


@settings(max_examples=25, deadline=None)
@given(gamma=st.floats(5.0, 5000.0), alpha=st.floats(0.0, 0.3), beta=st.floats(0.0, 0.004),
       seed=st.integers(0, 2**32 - 1))
def test_fit_recovers_parameters_from_noisy_data(gamma, alpha, beta, seed):
    rng = np.random.default_rng(seed)
    n = np.arange(1, 41, dtype=float)
    noise = 0.01  # 1 % multiplicative measurement noise
    x = usl.usl(n, gamma, alpha, beta) * (1 + noise * rng.standard_normal(n.size))
    f = usl.fit(n, x)
    # Tolerances about five standard errors for 40 points at 1 % noise (checked over many seeds).
    assert abs(f.gamma.value / gamma - 1) < 0.05
    assert abs(f.alpha.value - alpha) < 0.03
    assert abs(f.beta.value - beta) < 2e-4 + 0.1 * beta
    # the truth lies within (a generous multiple of) the reported standard error
    assert abs(f.beta.value - beta) <= 6 * f.beta.stderr + 1e-6
    if beta >= 0.002:  # the peak (at most 22 clients) lies well inside the data: retrograde
        assert f.retrograde


@settings(max_examples=25, deadline=None)
@given(gamma=st.floats(5.0, 5000.0), alpha=st.floats(0.0, 0.9))
def test_noise_free_amdahl_data_is_never_retrograde(gamma, alpha):
    n = np.arange(1, 25, dtype=float)
    f = usl.fit(n, usl.usl(n, gamma, alpha, 0.0))
    assert not f.retrograde
    assert f.peak_clients is None or f.peak_clients > 24 or f.beta.value < 1e-9


@settings(max_examples=25, deadline=None)
@given(exponent=st.integers(250, 305), seed=st.integers(0, 2**32 - 1))
def test_throughputs_near_the_float_limit_give_finite_or_unknown_bounds(exponent, seed):
    """A fit on x / top scaled back: a spread or bound past the float range is None (unknown),
    never infinite; gamma itself and the scale-free alpha and beta stay as at any scale."""
    rng = np.random.default_rng(seed)
    n = np.sort(rng.choice(np.arange(1, 200), size=6, replace=False)).astype(float)
    x = (50 + 10 * n - 0.05 * n * n) * 10.0 ** exponent / 1e4
    f = usl.fit(n, x)
    small = usl.fit(n, x / 10.0 ** exponent)
    for p in usl.PARAMS:
        e = getattr(f, p)
        assert np.isfinite(e.value)
        assert all(v is None or np.isfinite(v) for v in (e.stderr, e.low, e.high))
    # the two data sets differ in their last bits only (10^k is not exact in binary)
    assert np.isclose(f.alpha.value, small.alpha.value, rtol=1e-5, atol=1e-9)
    assert np.isclose(f.beta.value, small.beta.value, rtol=1e-5, atol=1e-9)
    assert np.isclose(f.gamma.value / 10.0 ** exponent, small.gamma.value, rtol=1e-5)
