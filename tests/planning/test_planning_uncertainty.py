"""Values with a spread, in profiles and on the command line; Monte Carlo ceilings."""

from __future__ import annotations

import numpy as np
import pytest

from pinchpoint.errors import InputError, ProfileError, UnitError
from pinchpoint.inputs.profile import Value
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.inputs.spread import parse_spread
from pinchpoint.solve.uncertainty import monte_carlo, parse_uncertain, profile_spreads


@pytest.mark.parametrize("text, dimension, nominal, spread", [
    ("6.4 GB/s +- 10 %", "bandwidth", 6.4e9, ("uniform", 5.76e9, 7.04e9)),
    ("6.4 GB/s ± 0.4 GB/s", "bandwidth", 6.4e9, ("uniform", 6.0e9, 6.8e9)),
    ("0.7 us .. 1.0 us", "time", 0.85e-6, ("uniform", 0.7e-6, 1.0e-6)),
    ("normal(133 MHz, 2 %)", "frequency", 133e6, ("normal", 133e6, 2.66e6)),
    ("64 bit +- 0 bit", "size", 8.0, ("uniform", 8.0, 8.0)),
])
def test_parse_spread(text, dimension, nominal, spread):
    got_nominal, got = parse_spread(text, dimension)
    assert got_nominal == pytest.approx(nominal)
    assert got[0] == spread[0] and got[1:] == pytest.approx(spread[1:])


@pytest.mark.parametrize("text, dimension, fragment", [
    ("1.0 us .. 0.7 us", "time", "empty range"),
    ("6.4 GB/s +- 10 MHz", "bandwidth", "not a bandwidth"),
    ("normal(6.4 GB/s, 0 %)", "bandwidth", "greater than zero"),
    ("6.4 GB/s plus 10 %", "bandwidth", "is not a range"),
])
def test_bad_spread(text, dimension, fragment):
    with pytest.raises(UnitError, match=fragment):
        parse_spread(text, dimension)


def _variant(tmp_path, old: str, new: str):
    text = load_profile("powermac-g5").path
    body = open(text).read()
    assert old in body
    path = tmp_path / "g5-uncertain.toml"
    path.write_text(body.replace(old, new))
    return path


def test_profile_value_with_a_spread_keeps_the_nominal(tmp_path):
    path = _variant(tmp_path, 'clock = { value = "133 MHz"', 'clock = { value = "133 MHz +- 10 %"')
    p = load_profile(path)
    v = p.links["pcix"].params["clock"]
    assert isinstance(v, Value) and v.si == 133e6
    assert v.spread[0] == "uniform" and v.spread[1:] == pytest.approx((119.7e6, 146.3e6))
    assert v.to_dict()["spread"][0] == "uniform"
    assert load_profile("powermac-g5").links["pcix"].params["clock"].spread is None
    assert [u.name for u in profile_spreads(p)] == ["pcix.clock"]


def test_profile_spread_below_zero_is_rejected(tmp_path):
    path = _variant(tmp_path, 'clock = { value = "133 MHz"', 'clock = { value = "133 MHz +- 150 %"')
    with pytest.raises(ProfileError, match="greater than zero over its whole range"):
        load_profile(path)


def test_monte_carlo_percentiles_and_binding_share(tmp_path):
    # pcix.clock ~ U(119.7, 146.3) MHz: nic-rx = 8 B x clock (PCI-X binds throughout, below 10 Gbit/s)
    path = _variant(tmp_path, 'clock = { value = "133 MHz"', 'clock = { value = "133 MHz +- 10 %"')
    p = load_profile(path)
    r = monte_carlo(p, "nic-rx", samples=200_000, seed=1)
    lo, hi = 119.7e6 * 8, 146.3e6 * 8
    assert r.percentiles[50.0] == pytest.approx((lo + hi) / 2, rel=2e-3)
    assert r.percentiles[5.0] == pytest.approx(lo + 0.05 * (hi - lo), rel=2e-3)
    assert lo <= r.low_bytes_per_s and r.high_bytes_per_s <= hi
    assert r.binding_share == {"pcix": 1.0}
    # a second uncertain value: HT binds when 4 B x ht.clock < 8 B x pcix.clock, i.e. ht.clock < 2 pcix.clock.
    # P = E[(2 c - 100 MHz) / 900 MHz] with c uniform around 133 MHz = (266 - 100) / 900
    ht = parse_uncertain("ht.clock=100 MHz .. 1000 MHz", p)
    r2 = monte_carlo(p, "nic-rx", [ht], samples=200_000, seed=2)
    expected = (266 - 100) / 900
    sigma = np.sqrt(expected * (1 - expected) / 200_000)
    assert abs(r2.binding_share["ht"] - expected) < 5 * sigma
    assert r2.binding_share["ht"] + r2.binding_share["pcix"] == pytest.approx(1.0)
    d = r2.to_dict()
    assert d["interval_90_bytes_per_s"][0] < d["nominal_ceiling_bytes_per_s"] < d["interval_90_bytes_per_s"][1] * 1.01


def test_normal_spread_is_truncated_positive():
    p = load_profile("powermac-g5")
    u = parse_uncertain("pcix.clock=normal(133 MHz, 80 %)", p)
    r = monte_carlo(p, "nic-rx", [u], samples=50_000, seed=3)
    assert r.low_bytes_per_s > 0


@pytest.mark.parametrize("text, fragment", [
    ("pcix.clock", "expected LINK.PARAM=SPREAD"),
    ("pcix.speed=133 MHz +- 1 %", "no parameter 'speed'"),
    ("pcix.clock=133 MHz +- 1 bit", "not a frequency"),
])
def test_bad_uncertain_flag(text, fragment):
    with pytest.raises(InputError, match=fragment):
        parse_uncertain(text, load_profile("powermac-g5"))


def test_nothing_uncertain_is_an_error():
    with pytest.raises(InputError, match="no value with a spread"):
        monte_carlo(load_profile("powermac-g5"), "nic-rx")
