"""USL fits: the seed 001 MySQL series, exact synthetic data, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pinchpoint import usl
from pinchpoint.concurrency_io import read_series
from pinchpoint.errors import InputError

# seed 001 (AnandTech, "No More Apple Mysteries, Part Two", 2005-09-01, "The Xserve Server Platform"):
# MySQL on one dual 2.5 GHz G5, queries/s. "At 5 concurrent simulated users ... 411 versus 113 queries per
# second. It gets worse at 10 concurrent users: 443 queries per second on Linux versus 62 on Mac Os X."
SEED001_MACOSX = {5: 113, 10: 62}
SEED001_LINUX = {5: 411, 10: 443}
BUNDLED = "mysql-g5-anandtech-2005-09-01"


def test_formula_and_peak():
    assert usl.usl(1, 100.0, 0.3, 0.01) == pytest.approx(100.0)  # X(1) = gamma
    # X(N) = 100 * 10 / (1 + 0.3 * 9 + 0.01 * 90) = 1000 / 4.6
    assert usl.usl(10, 100.0, 0.3, 0.01) == pytest.approx(1000 / 4.6)
    assert usl.peak_clients(0.19, 0.01) == pytest.approx(9.0)  # sqrt(0.81 / 0.01)
    assert math.isinf(usl.peak_clients(0.2, 0.0))


def test_bundled_file_holds_the_seed_figures():
    data = read_series(BUNDLED)
    got = {s.name: dict(zip(s.clients.tolist(), s.throughput.tolist())) for s in data.series}
    assert got == {"macosx-server-10.4": SEED001_MACOSX, "yellow-dog-linux-4.0.1": SEED001_LINUX}
    assert data.unit == "queries/s"
    assert any("anandtech.com/show/1778" in c for c in data.comments)


def test_seed001_macosx_is_retrograde():
    f = usl.fit(list(SEED001_MACOSX), list(SEED001_MACOSX.values()), series="macosx")
    assert f.retrograde
    assert "contention in software" in f.verdict
    # no beta = 0 curve can fall: the best one is flat at the mean, 87.5 q/s
    assert f.amdahl[0] * 1 == pytest.approx(87.5, rel=1e-6) and f.amdahl[1] == pytest.approx(1.0, abs=1e-6)


def test_seed001_macosx_alpha_held_curve_peaks_near_two_clients():
    # With alpha = 0 the USL through (5, 113) and (10, 62) solves by hand:
    # 10 (1 + 20 b) / (5 (1 + 90 b)) = 62 / 113  ->  b = (2 - r) / (90 r - 40), r = 62 / 113
    r = 62 / 113
    beta = (2 - r) / (90 * r - 40)
    gamma = 113 * (1 + 20 * beta) / 5
    f = usl.fit(list(SEED001_MACOSX), list(SEED001_MACOSX.values()), series="macosx")
    assert f.alpha_held == pytest.approx((gamma, 0.0, beta), rel=1e-6)
    # seed 001: Mac OS X "shows better performance going from one to a second connection ... After that,
    # however, performance completely collapses": the curve peaks between 2 and 3 clients.
    assert 2 < f.peak_clients < 3


def test_seed001_linux_is_not_retrograde():
    f = usl.fit(list(SEED001_LINUX), list(SEED001_LINUX.values()), series="linux")
    assert not f.retrograde
    # an Amdahl curve passes through both points: 2 (1 + 4 alpha) / (1 + 9 alpha) = 443 / 411
    alpha = (2 - 443 / 411) / (9 * 443 / 411 - 8)
    assert f.amdahl[1] == pytest.approx(alpha, rel=1e-6)
    assert f.test.rss_amdahl == pytest.approx(0.0, abs=1e-6)


def test_exact_synthetic_data_recovers_parameters():
    n = np.arange(1, 17)
    x = usl.usl(n, 250.0, 0.04, 0.003)
    f = usl.fit(n, x)
    assert (f.gamma.value, f.alpha.value, f.beta.value) == pytest.approx((250.0, 0.04, 0.003), rel=1e-6)
    assert f.retrograde and f.peak_clients == pytest.approx(math.sqrt(0.96 / 0.003), rel=1e-6)


def test_amdahl_data_is_not_retrograde():
    n = np.arange(1, 13)
    f = usl.fit(n, usl.usl(n, 80.0, 0.1, 0.0))
    assert f.beta.value == pytest.approx(0.0, abs=1e-9)
    assert not f.retrograde


def test_fixing_a_parameter():
    n = np.array([2.0, 4.0, 8.0])
    f = usl.fit(n, usl.usl(n, 100.0, 0.0, 0.01), fixed={"alpha": 0.0})
    assert f.alpha.fixed and f.beta.value == pytest.approx(0.01, rel=1e-6)


@pytest.mark.parametrize("n, x, fixed, fragment", [
    ([4], [100.0], {}, "fewer than the 2 fit parameters"),  # fewer data points than fit parameters
    ([4, 4], [100.0, 101.0], {}, "different client counts"),
    ([1, 2, 3], [1.0, -2.0, 3.0], {}, "throughput must be > 0"),
    ([0, 2, 3], [1.0, 2.0, 3.0], {}, "clients must be >= 1"),
    ([1, 2, 3], [1.0, 2.0, 3.0], {"alpha": 2.0}, "out of bounds"),
    ([1, 2, 3], [1.0, 2.0, 3.0], {"beta": 0.0}, "cannot be fixed"),
    ([1, 2, 3], [1.0, 2.0, 3.0], {"delta": 0.0}, "no USL parameter"),
])
def test_bad_data_is_an_input_error(n, x, fixed, fragment):
    with pytest.raises(InputError, match=fragment):
        usl.fit(n, x, fixed=fixed)
