"""USL fits: the AnandTech 2005 MySQL series, exact synthetic data, bad input."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from pinchpoint.physics import usl
from pinchpoint.inputs.concurrency_io import read_series
from pinchpoint.errors import InputError

# J. De Gelas (AnandTech, "No More Apple Mysteries, Part Two", 2005-09-01, "The Xserve Server Platform"):
# MySQL on one dual 2.5 GHz G5, queries/s. "At 5 concurrent simulated users ... 411 versus 113 queries per
# second. It gets worse at 10 concurrent users: 443 queries per second on Linux versus 62 on Mac Os X."
ANANDTECH_MACOSX = {5: 113, 10: 62}
ANANDTECH_LINUX = {5: 411, 10: 443}
BUNDLED = "mysql-g5-anandtech-2005-09-01"
#: the usl R package's oracledb data set (S. Moeding, BSD 2-clause; tests/fixtures/usl)
ORACLEDB = Path(__file__).parent.parent / "fixtures" / "usl" / "oracledb-usl-r-package.csv"


def test_formula_and_peak():
    assert usl.usl(1, 100.0, 0.3, 0.01) == pytest.approx(100.0)  # X(1) = gamma
    # X(N) = 100 * 10 / (1 + 0.3 * 9 + 0.01 * 90) = 1000 / 4.6
    assert usl.usl(10, 100.0, 0.3, 0.01) == pytest.approx(1000 / 4.6)
    assert usl.peak_clients(0.19, 0.01) == pytest.approx(9.0)  # sqrt(0.81 / 0.01)
    assert math.isinf(usl.peak_clients(0.2, 0.0))


def test_bundled_file_holds_the_published_figures():
    data = read_series(BUNDLED)
    got = {s.name: dict(zip(s.clients.tolist(), s.throughput.tolist())) for s in data.series}
    assert got == {"macosx-server-10.4": ANANDTECH_MACOSX, "yellow-dog-linux-4.0.1": ANANDTECH_LINUX}
    assert data.unit == "queries/s"
    assert any("anandtech.com/show/1778" in c for c in data.comments)


def test_anandtech_macosx_is_retrograde():
    f = usl.fit(list(ANANDTECH_MACOSX), list(ANANDTECH_MACOSX.values()), series="macosx")
    assert f.retrograde
    assert "contention in software" in f.verdict
    # no beta = 0 curve can fall: the best one is flat at the mean, 87.5 q/s
    assert f.amdahl[0] * 1 == pytest.approx(87.5, rel=1e-6) and f.amdahl[1] == pytest.approx(1.0, abs=1e-6)


def test_anandtech_macosx_two_points_place_no_peak():
    # With alpha = 0 the USL through (5, 113) and (10, 62) solves by hand:
    # 10 (1 + 20 b) / (5 (1 + 90 b)) = 62 / 113  ->  b = (2 - r) / (90 r - 40), r = 62 / 113
    r = 62 / 113
    beta = (2 - r) / (90 * r - 40)
    gamma = 113 * (1 + 20 * beta) / 5
    f = usl.fit(list(ANANDTECH_MACOSX), list(ANANDTECH_MACOSX.values()), series="macosx")
    assert f.alpha_held == pytest.approx((gamma, 0.0, beta), rel=1e-6)
    # that curve is one of many through two points: no peak position is stated, nor a p-value
    # from an assumed noise; the verdict says what the points show (113 -> 62: -45 %)
    assert f.peak_clients is None and f.peak_throughput is None and not f.tested
    assert "falls from 113 at N = 5 to 62 at N = 10 (-45%)" in f.verdict
    assert "p =" not in f.verdict and "peak at" not in " ".join(f.notes)
    d = f.to_dict()
    assert d["peak_clients"] is None and d["beta_test"]["method"] == "none"


def test_one_point_is_a_reference_figure_not_an_error():
    f = usl.fit([100], [250.0], series="apache")
    assert not f.fitted and f.amdahl is None and not f.retrograde
    assert "nothing to fit" in f.verdict


@pytest.mark.parametrize("factor", [1e-300, 1e-150, 1.0, 1e150, 1e300])
def test_the_fit_does_not_depend_on_the_throughput_scale(factor):
    """Metamorphic: throughput times a constant scales gamma by it and leaves the rest alone
    (1e300 overflowed the sums of squares; 1e-300 divided by zero)."""
    n = np.arange(1, 13)
    x = usl.usl(n, 250.0, 0.04, 0.003)
    ref, f = usl.fit(n, x), usl.fit(n, x * factor)
    assert f.gamma.value == pytest.approx(ref.gamma.value * factor, rel=1e-6)
    assert (f.alpha.value, f.beta.value) == pytest.approx((ref.alpha.value, ref.beta.value), rel=1e-6, abs=1e-12)
    assert f.retrograde == ref.retrograde and f.test.p_value == pytest.approx(ref.test.p_value, rel=1e-6)


def test_anandtech_linux_is_not_retrograde():
    f = usl.fit(list(ANANDTECH_LINUX), list(ANANDTECH_LINUX.values()), series="linux")
    assert not f.retrograde
    # an Amdahl curve passes through both points: 2 (1 + 4 alpha) / (1 + 9 alpha) = 443 / 411
    alpha = (2 - 443 / 411) / (9 * 443 / 411 - 8)
    assert f.amdahl[1] == pytest.approx(alpha, rel=1e-6)
    assert f.test.rss_amdahl == pytest.approx(0.0, abs=1e-6)


def test_exact_synthetic_data_recovers_parameters():
    n = np.arange(1, 33)  # past the peak at sqrt(0.96 / 0.003) = 17.9: the data fall
    x = usl.usl(n, 250.0, 0.04, 0.003)
    f = usl.fit(n, x)
    assert (f.gamma.value, f.alpha.value, f.beta.value) == pytest.approx((250.0, 0.04, 0.003), rel=1e-6)
    assert f.retrograde and f.peak_clients == pytest.approx(math.sqrt(0.96 / 0.003), rel=1e-6)


def test_peak_beyond_the_measured_range_is_not_retrograde():
    # the same curve measured only up to N = 16 rises all the way: beta is significant, but
    # nothing measured falls
    n = np.arange(1, 17)
    f = usl.fit(n, usl.usl(n, 250.0, 0.04, 0.003))
    assert f.test.significant and f.peak_clients > 16
    assert not f.retrograde and "beyond the largest measured N = 16" in f.verdict


def test_jain_example_34_2_saturates_and_is_not_retrograde():
    # R. Jain, The Art of Computer Systems Performance Analysis (1991), Example 34.2: demands 2, 3
    # and 1 s, think time 4 s.  Exact MVA (Reiser and Lavenberg 1980), computed here with
    # fractions independently of pinchpoint.physics.queueing: X(N) rises to 1 / 3 and never falls.
    from fractions import Fraction

    demands, z = [Fraction(2), Fraction(3), Fraction(1)], Fraction(4)
    q = [Fraction(0)] * 3
    xs = []
    for n in range(1, 21):
        r = [d * (1 + qi) for d, qi in zip(demands, q)]
        x = n / (z + sum(r))
        q = [x * ri for ri in r]
        xs.append(x)
    assert all(b > a for a, b in zip(xs, xs[1:])) and xs[-1] < Fraction(1, 3)
    f = usl.fit(np.arange(1, 21), np.array([float(x) for x in xs]))
    assert f.test.significant  # a significant beta alone ...
    assert not f.retrograde  # ... is not retrograde
    assert "does not fall" in f.verdict


def test_oracledb_with_fewer_than_one_client_fits():
    # the usl R package's oracledb data set: 81 of 360 rows have db_time < 1 active session
    data = read_series(str(ORACLEDB))
    s = data.series[0]
    assert s.clients.size == 360 and int(np.sum(s.clients < 1)) == 81
    f = usl.fit(s.clients, s.throughput, series="oracledb")
    # an independent least-squares fit (scipy's curve_fit, Levenberg-Marquardt) agrees
    from scipy.optimize import curve_fit

    popt, _ = curve_fit(usl.usl, s.clients, s.throughput, p0=(3.0, 0.3, 0.03), maxfev=20000)
    assert (f.gamma.value, f.alpha.value, f.beta.value) == pytest.approx(tuple(popt), rel=1e-4)
    assert s.clients.min() < f.peak_clients < s.clients.max()


def test_clients_must_be_positive():
    with pytest.raises(InputError, match="must be > 0"):
        usl.fit([0.0, 1, 2], [1.0, 2, 3])


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
    ([4, 6], [100.0, 110.0], {"gamma": 1e308}, "out of range for throughputs"),
    ([1e10, 2e10], [1.0, 2.0], {}, "client counts must lie in"),
    ([4, 4], [100.0, 101.0], {}, "different client counts"),
    ([1, 2, 3], [1.0, -2.0, 3.0], {}, "throughput must be > 0"),
    ([0, 2, 3], [1.0, 2.0, 3.0], {}, "clients must be > 0"),
    ([1, 2, 3], [1.0, 2.0, 3.0], {"alpha": 2.0}, "out of bounds"),
    ([1, 2, 3], [1.0, 2.0, 3.0], {"beta": 0.0}, "cannot be fixed"),
    ([1, 2, 3], [1.0, 2.0, 3.0], {"delta": 0.0}, "no USL parameter"),
])
def test_bad_data_is_an_input_error(n, x, fixed, fragment):
    with pytest.raises(InputError, match=fragment):
        usl.fit(n, x, fixed=fixed)
