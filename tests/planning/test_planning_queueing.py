"""Operational laws, asymptotic bounds and exact MVA against hand-computed cases.

The MVA recursion (Lazowska et al., *Quantitative System Performance*, 1984, Algorithm 6.1) is
written out step by step below in exact rational arithmetic for N = 1, 2, 3; the solver (a
loop in floating point) must agree to 1e-9.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from pinchpoint.physics import queueing
from pinchpoint.errors import InputError


def test_three_queueing_stations_by_hand():
    # Three load-independent queueing stations, no think time: D = 0.2, 0.1, 0.05 s.
    d1, d2, d3 = F(1, 5), F(1, 10), F(1, 20)
    # N = 1: R_k = D_k; X = 1 / sum R_k; Q_k = X R_k
    r = [d1, d2, d3]
    x1 = 1 / sum(r)  # 1 / 0.35 = 20/7
    q = [x1 * rk for rk in r]  # 4/7, 2/7, 1/7
    # N = 2: R_k = D_k (1 + Q_k(1))
    r = [d1 * (1 + q[0]), d2 * (1 + q[1]), d3 * (1 + q[2])]  # 2.2/7, 0.9/7, 0.4/7
    x2 = 2 / sum(r)  # 2 / 0.5 = 4
    q = [x2 * rk for rk in r]
    # N = 3
    r = [d1 * (1 + q[0]), d2 * (1 + q[1]), d3 * (1 + q[2])]  # 3.16/7, 1.06/7, 0.43/7
    r3 = sum(r)  # 4.65/7
    x3 = 3 / r3
    q3 = [x3 * rk for rk in r]
    assert x1 == F(20, 7) and x2 == 4 and r3 == F(465, 700)  # the values worked on paper

    res = queueing.mva([0.2, 0.1, 0.05], 3)
    np.testing.assert_allclose(res.throughput, [float(x1), float(x2), float(x3)], rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.response_time, [0.35, 0.5, float(r3)], rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.queue_length[:, 2], [float(v) for v in q3], rtol=0, atol=1e-9)
    # Little's law for the whole system with Z = 0: the customers are all in the stations.
    np.testing.assert_allclose(res.queue_length.sum(axis=0), [1, 2, 3], atol=1e-9)


def test_delay_station_and_think_time_by_hand():
    # Two queues (0.2 s, 0.1 s), one delay station (0.3 s), think time Z = 1 s.
    dq1, dq2, dd, z = F(1, 5), F(1, 10), F(3, 10), F(1)
    r = [dq1, dq2, dd]
    x1 = 1 / (z + sum(r))  # 1 / 1.6 = 0.625
    q = [x1 * v for v in r]
    r = [dq1 * (1 + q[0]), dq2 * (1 + q[1]), dd]  # 0.225, 0.10625, 0.3 (a delay station never queues)
    x2 = 2 / (z + sum(r))
    q = [x2 * v for v in r]
    r = [dq1 * (1 + q[0]), dq2 * (1 + q[1]), dd]
    x3 = 3 / (z + sum(r))
    assert x1 == F(5, 8) and sum([dq1 * F(9, 8), dq2 * F(17, 16), dd]) == F(505, 800)

    res = queueing.mva([0.2, 0.1, 0.3], 3, think_time=1.0, kinds=["queue", "queue", "delay"],
                       names=["cpu", "disk", "net"])
    np.testing.assert_allclose(res.throughput, [float(x1), float(x2), float(x3)], rtol=0, atol=1e-9)
    assert res.bottleneck == "cpu" and res.max_demand == pytest.approx(0.2)
    # interactive response time law R = N / X - Z
    np.testing.assert_allclose(queueing.response_time_law(res.clients, res.throughput, 1.0),
                               res.response_time, atol=1e-12)
    # Little: N = X (R + Z)
    np.testing.assert_allclose(queueing.little_population(res.throughput, res.response_time + 1.0),
                               res.clients, atol=1e-12)


def test_asymptotic_bounds_and_n_star():
    # D = 0.6 s, D_max = 0.2 s, Z = 1 s: N* = (0.6 + 1) / 0.2 = 8
    assert queueing.saturation_population(0.6, 0.2, 1.0) == pytest.approx(8.0)
    np.testing.assert_allclose(queueing.throughput_bound([1, 8, 20], 0.6, 0.2, 1.0), [1 / 1.6, 5.0, 5.0])
    np.testing.assert_allclose(queueing.response_bound([1, 20], 0.6, 0.2, 1.0), [0.6, 3.0])
    res = queueing.mva([0.2, 0.1, 0.3], 200, think_time=1.0, kinds=["queue", "queue", "queue"])
    bound = queueing.throughput_bound(res.clients, res.total_demand, res.max_demand, 1.0)
    assert np.all(res.throughput <= bound * (1 + 1e-12))
    assert res.throughput[-1] == pytest.approx(1 / 0.3, rel=1e-6)  # saturates at 1 / D_max
    assert np.all(np.diff(res.throughput) >= -1e-12)  # product-form throughput never falls
    # utilisation law
    np.testing.assert_allclose(res.utilisation[:, 0], queueing.utilisation(res.throughput[0], res.demands))
    assert res.utilisation.max() <= 1 + 1e-12
    d = res.to_dict()
    assert d["n_star"] == pytest.approx((0.6 + 1) / 0.3) and len(d["points"]) == 200


@pytest.mark.parametrize("kwargs, fragment", [
    ({"demands": [], "clients": 3}, "at least one"),
    ({"demands": [-0.1], "clients": 3}, ">= 0"),
    ({"demands": [0.1], "clients": 0}, "whole number >= 1"),
    ({"demands": [0.1], "clients": 3, "think_time": -1.0}, "think time"),
    ({"demands": [0.1], "clients": 3, "kinds": ["delay"]}, "queueing station"),
])
def test_bad_network_is_an_input_error(kwargs, fragment):
    with pytest.raises(InputError, match=fragment):
        queueing.mva(**kwargs)


def test_large_populations_keep_a_log_spaced_selection_of_the_exact_values():
    kept = queueing.mva([0.2, 0.1, 0.3], 500, think_time=1.0)
    assert kept.clients.size <= queueing.SHOWN and kept.clients[0] == 1 and kept.clients[-1] == 500
    # the same recursion: each kept population's throughput is the exact one (computed below)
    q, xs = np.zeros(3), {}
    for n in range(1, 501):
        r = np.array([0.2, 0.1, 0.3]) * (1 + q)
        x = n / (1.0 + r.sum())
        q = x * r
        xs[n] = x
    assert kept.method == "exact"
    assert kept.throughput == pytest.approx([xs[int(n)] for n in kept.clients], rel=1e-12)


@pytest.mark.parametrize("demands, z", [([1e-3], 0.0), ([1e-3, 0.8e-3, 0.5e-3], 2e-3), ([0.2, 0.1, 0.05], 0.0)])
def test_schweitzer_is_close_to_exact_and_exact_far_past_n_star(demands, z):
    """Schweitzer's approximation (Q(n-1) = (n-1)/n Q(n)) against exact MVA at the same
    populations: within 5 % everywhere (Lazowska et al. 1984, sec. 6.4.2, report errors of a few
    per cent), and the gap closes as N grows past N* (X -> 1 / D_max): below 1e-4 from 100 x N*, below
    1e-6 at 20,000 clients."""
    d = np.array(demands)
    exact = queueing.mva(demands, 20_000, think_time=z)
    approx = queueing._schweitzer(d, np.ones(d.size, bool), z, exact.clients, tuple("abc"[:d.size]),
                                  ("queue",) * d.size)
    assert np.all(np.abs(approx.throughput / exact.throughput - 1) < 0.05)
    far = exact.clients >= 100 * exact.n_star
    gap = np.abs(approx.throughput / exact.throughput - 1)
    assert np.all(gap[far] < 1e-4) and gap[-1] < 1e-6
    # Little's law holds in the approximation too: sum of Q_k + X Z = N
    assert approx.queue_length.sum(axis=0) + approx.throughput * z == pytest.approx(exact.clients, rel=1e-9)


def test_past_the_exact_limit_the_approximation_is_used_and_bounded():
    res = queueing.mva([1e-3, 0.5e-3], 10 ** 9)
    assert res.method.startswith("Schweitzer") and res.clients[-1] == 10 ** 9
    assert res.throughput[-1] == pytest.approx(1000.0, rel=1e-9)
    assert np.all(np.diff(res.throughput) >= -1e-9)  # throughput never falls in a product-form network
    with pytest.raises(InputError, match="at most"):
        queueing.mva([1e-3], 10 ** 13)
