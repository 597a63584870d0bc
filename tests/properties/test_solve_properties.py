"""Properties of ``solve``: its answer reaches the target after protocol
overhead, and it is the least value that does."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.solve.ceilings import flow_ceiling
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.solve.symbolic import solve

FIX = Path(__file__).parent.parent / "fixtures" / "profiles"
GBIT = 1e9 / 8


@pytest.fixture(scope="module")
def g5():
    return load_profile("powermac-g5")


@pytest.fixture(scope="module")
def upi():
    return load_profile(FIX / "upi-3link.toml")


def _effective(profile, flow, vary, value):
    link, _, param = vary.partition(".")
    return flow_ceiling(profile.with_link_param(link, param, value), flow).effective_ceiling_bytes_per_s


@settings(max_examples=25, deadline=None)
@given(gbit=st.floats(0.5, 9.99))
def test_solved_clock_is_the_least_that_reaches(g5, gbit):
    s = solve(g5, "nic-rx", gbit * GBIT, "pcix.clock")
    assert s.reachable
    assert _effective(g5, "nic-rx", "pcix.clock", s.value_si) >= gbit * GBIT * (1 - 1e-9)
    assert _effective(g5, "nic-rx", "pcix.clock", s.value_si * (1 - 1e-4)) < gbit * GBIT


@settings(max_examples=25, deadline=None)
@given(gb=st.floats(45.0, 139.0))
def test_one_parallel_link_solves_with_its_siblings(upi, gb):
    # remote crosses three parallel UPI links (20.8 GB/s each) and a 140 GB/s DDR link
    s = solve(upi, "remote", gb * 1e9, "upi0.rate")
    assert s.reachable and s.value_si == pytest.approx(gb * 1e9 - 2 * 20.8e9, rel=1e-9)


@settings(max_examples=20, deadline=None)
@given(gbit=st.floats(1.0, 10.0))
def test_discrete_lanes_answer_a_valid_width(gbit):
    p = load_profile(FIX / "nic10g-pcie1x4.toml")
    s = solve(p, "rx", gbit * GBIT, "pcie.lanes")
    assert s.value_si in (1, 2, 4, 8, 12, 16, 32) and s.reachable
    smaller = [w for w in (1, 2, 4, 8, 12, 16, 32) if w < s.value_si]
    assert all(_effective(p, "rx", "pcie.lanes", w) < gbit * GBIT * (1 - 1e-9) for w in smaller)
