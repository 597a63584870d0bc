"""``pinchpoint plan``: margins computed by hand, the same figures as ``ceilings``, and properties.

The toy profile (tests/fixtures/profiles/toy.toml) by hand, raw capacities:
eth 1 Gbit/s = 125 MB/s; pci 32 bit x 33 MHz = 132 MB/s; ddr 64 bit x 100 MHz x 2 = 1.6 GB/s,
half duplex; fsb 64 bit x 100 MHz x 4 = 3.2 GB/s, half duplex.
- rx (net -> mem) is bound by eth: 125 MB/s.
- copy (mem -> cpu -> mem) crosses ddr twice (read and write share it): 1.6 GB/s / 2 = 800 MB/s;
  with ddr at 200 MHz, 1.6 GB/s.
- rx and copy at once, equal shares t: eth gives t <= 125 MB/s, ddr t + 2t <= 1.6 GB/s
  (t <= 533 MB/s), fsb 2t <= 3.2 GB/s: t = 125 MB/s.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pinchpoint as pp
from pinchpoint.errors import InputError
from pinchpoint.inputs.requirements import plan_from_document
from pinchpoint.planner.plan import pareto_front, plan
from pinchpoint.solve.ceilings import flow_ceiling

TOY = Path(__file__).resolve().parents[1] / "fixtures" / "profiles" / "toy.toml"

HAND = f"""
schema = 1
name = "toy purchase"
[[needs]]
name = "rx"
flows = "rx"
rate = "1 Gbit/s"
basis = "raw"
[[needs]]
name = "copy"
flows = "copy"
rate = "1 GB/s"
basis = "raw"
[[needs]]
name = "both"
flows = ["rx", "copy"]
rate = "100 MB/s"
basis = "raw"
[base]
profile = "{TOY}"
price = 1000
name = "toy"
[options.memory]
slow = {{}}
fast = {{ set = {{ "ddr.clock" = "200 MHz" }}, price = 200 }}
"""


def _write(tmp_path, text: str) -> Path:
    p = tmp_path / "plan.toml"
    p.write_text(text)
    return p


def test_hand_computed_margins_and_the_cheapest(tmp_path):
    result = plan(_write(tmp_path, HAND))
    slow, fast = result.row("toy/slow"), result.row("toy/fast")
    margins = {r.name: [o.margin for o in r.outcomes] for r in (slow, fast)}
    assert margins["toy/slow"] == pytest.approx([125e6 / 125e6 - 1, 800e6 / 1e9 - 1, 125e6 / 100e6 - 1])
    assert margins["toy/fast"] == pytest.approx([0.0, 1.6e9 / 1e9 - 1, 125e6 / 100e6 - 1])
    assert [o.met for o in slow.outcomes] == [True, False, True]
    assert slow.outcomes[1].binding == ("ddr",)
    assert result.cheapest == "toy/fast" and fast.price == 1200 and slow.price == 1000
    # the slow one is cheaper with less headroom, the fast one dearer with more: both on the front
    assert result.front == ("toy/slow", "toy/fast")
    assert "copy by 20% because ddr binds" in result.verdict()
    # the smallest change: ddr must carry 2 GB/s for a 1 GB/s copy: 100 MHz x 1.25 reaches it
    # exactly (a second channel or a fourth transfer per clock would overshoot by 60 %)
    fix = slow.fixes["copy"]
    assert fix.links == ("ddr",) and fix.param == "clock" and fix.after == "125 MHz"
    assert fix.relative == pytest.approx(0.0, abs=1e-3)


def test_fix_agrees_with_solve(tmp_path):
    """For one flow alone, the planner's smallest change is ``solve``'s answer."""
    from pinchpoint.solve.symbolic import solve

    text = HAND.replace('basis = "raw"', 'basis = "effective"')
    result = plan(_write(tmp_path, text))
    fix = result.row("toy/slow").fixes["copy"]
    toy = pp.load_profile(TOY)
    answer = solve(toy, "copy", 1e9, "ddr.clock")
    assert answer.reachable and fix.param == "clock"
    assert float(fix.after.split()[0]) * 1e6 == pytest.approx(answer.value_si, rel=1e-3)


@pytest.mark.parametrize("profile,flow", [("powermac-g5", "nic-rx"), ("hgx-h100-8gpu", "h2d-gpu0"),
                                          ("h100-pcie-host", "h2d")])
def test_margins_equal_what_ceilings_prints(tmp_path, profile, flow):
    prof = pp.load_profile(profile)
    need = 0.9 * flow_ceiling(prof, flow).effective_ceiling_bytes_per_s
    text = f'[[needs]]\nflows = "{flow}"\nrate = "{need!r} B/s"\n[[candidates]]\nprofile = "{profile}"\nprice = 1\n'
    row = plan(_write(tmp_path, text)).rows[0]
    expected = flow_ceiling(prof, flow).effective_ceiling_bytes_per_s
    assert row.outcomes[0].achieved == expected
    assert row.outcomes[0].margin == pytest.approx(expected / need - 1)


def test_a_pattern_covers_every_matching_flow_at_once(tmp_path):
    text = f'[[needs]]\nflows = "rx-nic*"\nrate = "1 GB/s"\n[[candidates]]\nprofile = "hgx-h100-8gpu"\n'
    row = plan(_write(tmp_path, text)).rows[0]
    prof = pp.load_profile("hgx-h100-8gpu")
    assert row.outcomes[0].flows == tuple(f for f in prof.flows if f.startswith("rx-nic"))
    assert len(row.outcomes[0].flows) == 8


BAD = [
    ('[[needs]]\nflows = "nope*"\nrate = "1 GB/s"\n[[candidates]]\nprofile = "powermac-g5"\n', "needs[0].flows",
     "no candidate has it"),
    ('[[needs]]\nflows = "nic-rx"\nrate = "1 GB/s"\n[[candidates]]\nprofile = "powermac-g5"\nprice = -3\n',
     "candidates[0].price", "greater than zero"),
    ('[[needs]]\nflows = "nic-rx"\nrate = "1 GB/s"\n[[candidates]]\nprofile = "powermac-g5"\nprice = "cheap"\n',
     "candidates[0].price", "not a number"),
    ('[[needs]]\nflows = "nic-rx"\nrate = "1 GB/s"\n[base]\nprofile = "powermac-g5"\n'
     '[options.x]\na = { set = { "nolink.clock" = "1 GHz" } }\n', "options.x.a.set.nolink.clock", "matches no link"),
    ('[[needs]]\nflows = "nic-rx"\nrate = "1 GB/s"\n[base]\nprofile = "powermac-g5"\n'
     '[options.x]\na = { set = { "pcix.nonsense" = 3 } }\n', "options.x.a", "nonsense"),
    ('[[needs]]\nscenario = "nope"\nrate = "1 GB/s"\n[[candidates]]\nprofile = "powermac-g5"\n',
     "needs[0].scenario", "no candidate has it"),
    ('[[needs]]\nflows = "nic-rx"\n[[candidates]]\nprofile = "powermac-g5"\n', "needs[0].rate", "either rate"),
    ('[[needs]]\nflows = "nic-rx"\nrate = "1 GB/s"\n[[candidates]]\nprofile = "no-such-machine"\n',
     "candidates[0].profile", "no bundled profile"),
]


@pytest.mark.parametrize("text,key,words", BAD)
def test_bad_plans_name_file_and_key(tmp_path, text, key, words):
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as err:
        plan(path)
    assert err.value.file == str(path) and err.value.key == key
    assert words in str(err.value)


def test_bad_plan_on_the_command_line_is_one_line(tmp_path, cli):
    path = _write(tmp_path, BAD[0][0])
    out = cli("plan", str(path))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "needs[0].flows" in out.stderr


def test_too_many_candidates_is_refused(tmp_path):
    sets = "".join(f"[options.o{i}]\n" + "".join(f"c{j} = {{}}\n" for j in range(10)) for i in range(6))
    text = f'[[needs]]\nflows = "nic-rx"\nrate = "1 GB/s"\n[base]\nprofile = "powermac-g5"\n{sets}'
    with pytest.raises(InputError, match="1,000,000 candidates"):
        plan(_write(tmp_path, text))


def test_cli_json_plot_and_html(tmp_path, cli):
    path = _write(tmp_path, HAND)
    out = cli("plan", str(path), "--json", "--plot", str(tmp_path / "front.svg"), "--html", str(tmp_path / "p.html"))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["cheapest"] == "toy/fast" and doc["pareto_front"] == ["toy/slow", "toy/fast"]
    copy = doc["candidates"][0]["needs"][1]
    assert copy["met"] is False and copy["binding"] == ["ddr"] and copy["fix"]["param"] == "clock"
    assert (tmp_path / "front.svg").read_text().lstrip().startswith("<?xml")
    assert "toy/fast meets every need" in (tmp_path / "p.html").read_text()


def test_probability_with_value_ranges(tmp_path):
    """A ddr clock of 100 MHz +- 20 % (uniform): copy reaches 1 GB/s where clock >= 125 MHz: never;
    700 MB/s where clock >= 87.5 MHz: (120 - 87.5) / 40 = 81.25 % of the draws."""
    prof = tmp_path / "spread.toml"
    prof.write_text(TOY.read_text().replace('clock = "100 MHz"\n', 'clock = "100 MHz +- 20 %"\n', 1)
                    .replace('name = "toy"', 'name = "toy-spread"'))
    text = (f'[[needs]]\nname = "copy"\nflows = "copy"\nrate = "700 MB/s"\nbasis = "raw"\n'
            f'[[candidates]]\nprofile = "{prof}"\nprice = 1\n')
    (tmp_path / "plan.toml").write_text(text)
    row = plan(tmp_path / "plan.toml").rows[0]
    assert row.probability["copy"] == pytest.approx(0.8125, abs=0.03)


@st.composite
def _option_space(draw):
    clocks = draw(st.lists(st.integers(50, 400), min_size=1, max_size=4))
    prices = draw(st.lists(st.integers(0, 500), min_size=len(clocks), max_size=len(clocks)))
    need = draw(st.integers(100, 2000))
    return clocks, prices, need


def _space_doc(clocks, prices, need):
    choices = {f"c{i}": {"set": {"ddr.clock": f"{c} MHz"}, "price": p} for i, (c, p) in enumerate(zip(clocks, prices))}
    return {"needs": [{"flows": "copy", "rate": f"{need} MB/s", "basis": "raw"}],
            "base": {"profile": str(TOY), "price": 1000}, "options": {"memory": choices}}


def _cheapest_price(result):
    return None if result.cheapest is None else result.row(result.cheapest).price


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_option_space(), st.integers(50, 800), st.integers(0, 500))
def test_a_more_capable_option_never_raises_the_cheapest_price(space, extra_clock, extra_price):
    clocks, prices, need = space
    before = plan(plan_from_document(_space_doc(clocks, prices, need)), fixes=False)
    better = max(clocks) + extra_clock  # more capable than every option so far
    after = plan(plan_from_document(_space_doc(clocks + [better], prices + [extra_price], need)), fixes=False)
    p0, p1 = _cheapest_price(before), _cheapest_price(after)
    if p0 is not None:
        assert p1 is not None and p1 <= p0
    # copy crosses ddr and fsb twice each: ddr gives clock x 16 B / 2, fsb 3.2 GB/s / 2
    for row, clock in zip(after.rows, clocks + [better]):
        assert row.outcomes[0].achieved == pytest.approx(min(clock * 1e6 * 8, 1.6e9))


class _Point:
    """A stand-in row with a given price and headroom (a Row computes headroom from outcomes)."""

    def __init__(self, name, price, headroom):
        self.name, self.price, self.headroom = name, price, headroom


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 50), st.floats(-1, 1, allow_nan=False)), min_size=1, max_size=12))
def test_pareto_front_is_exactly_the_undominated(points):
    rows = [_Point(f"r{i}", float(price), head) for i, (price, head) in enumerate(points)]
    front = pareto_front(rows)
    for r, (price, head) in zip(rows, points):
        dominated = any(p2 <= price and h2 >= head and (p2 < price or h2 > head) for p2, h2 in points)
        assert (r.name in front) == (not dominated)
    prices = {r.name: r.price for r in rows}
    assert [prices[n] for n in front] == sorted(prices[n] for n in front)  # cheapest first


def test_api_is_public(tmp_path):
    assert "plan" in pp.__all__
    assert pp.plan(_write(tmp_path, HAND)).cheapest == "toy/fast"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(33, 266), st.integers(50, 400), st.sampled_from([32, 64])),
                min_size=2, max_size=6),
       st.sampled_from(["raw", "effective"]), st.booleans())
def test_vectorised_needs_equal_the_solver(values, basis, together):
    """The batch path (one numpy pass over candidates of one structure) answers what the solver
    answers candidate by candidate: value, margin and binding links."""
    from pinchpoint.planner.batch import fast_outcomes
    from pinchpoint.planner.evaluate import rate_outcome
    from pinchpoint.inputs.requirements import Need

    toy = pp.load_profile(TOY)
    profiles = [toy.with_link_param("pci", "clock", pci * 1e6).with_link_param("ddr", "clock", ddr * 1e6)
                .with_link_param("pci", "width", width / 8) for pci, ddr, width in values]
    need = Need("n", flows=("rx", "copy"), rate_bytes_per_s=1e8, basis=basis, at_once=together)
    fast = fast_outcomes(profiles, need)
    assert fast is not None  # the toy's routes are unique: the batch path applies
    for p, f in zip(profiles, fast):
        slow = rate_outcome(p, need)
        assert f.achieved == pytest.approx(slow.achieved, rel=1e-9)
        assert set(f.binding) == set(slow.binding)
