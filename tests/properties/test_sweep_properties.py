"""Property: the vectorised symbolic sweep equals the numeric ceiling at every grid point."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.solve.ceilings import flow_ceiling
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.solve.sweep import parse_vary, sweep

# (flow, LINK.PARAM, unit, low, high) on the powermac-g5 profile
AXES = [
    ("pcix.clock", "MHz", 33.0, 533.0),
    ("pcix.width", "bit", (32.0, 64.0)),  # discrete: the values a PCI-X bus takes
    ("pcix.burst", "B", (512.0, 1024.0, 2048.0, 4096.0)),
    ("ht.clock", "MHz", 100.0, 1600.0),
    ("mem.clock", "MHz", 50.0, 400.0),
    ("ethernet.rate", "Gbit/s", 1.0, 40.0),
]


@functools.lru_cache(maxsize=1)
def g5():
    return load_profile("powermac-g5")


@settings(max_examples=30, deadline=None)
@given(flow=st.sampled_from(["nic-rx", "nic-tx", "tcp-rx-copy"]),
       picks=st.lists(st.sampled_from(range(len(AXES))), min_size=1, max_size=2, unique=True),
       data=st.data())
def test_sweep_point_equals_numeric_ceiling(flow, picks, data):
    profile = g5()
    axes = []
    for i in picks:
        name, unit, *bounds = AXES[i]
        draw = st.sampled_from(bounds[0]) if len(bounds) == 1 else st.floats(*bounds)
        a, b = data.draw(draw), data.draw(draw)
        lo_, hi_ = sorted((a, b))
        n = 3 if hi_ > lo_ * (1 + 1e-9) else 1
        if n == 1:
            hi_ = lo_
        axes.append(parse_vary(f"{name}={lo_!r} {unit}..{hi_!r} {unit}:{n}", profile))
    result = sweep(profile, flow, axes)
    index = tuple(data.draw(st.integers(0, a.values.size - 1)) for a in axes)
    varied = profile
    for a, k in zip(axes, index):
        varied = varied.with_link_param(a.link, a.param, float(a.values[k]))
    numeric = flow_ceiling(varied, flow)
    assert result.ceiling[index] == pytest.approx(numeric.ceiling_bytes_per_s, rel=1e-9)
    assert result.effective[index] == pytest.approx(numeric.effective_ceiling_bytes_per_s, rel=1e-9)
    # the raw ranking against the raw binding link, the one after overhead against binding
    assert result.binding_links()[index] in (numeric.raw_binding or numeric.binding)
    assert result.binding_links(effective=True)[index] in numeric.binding
    assert np.all(result.ceiling >= result.effective * (1 - 1e-12))
