"""The link-kind registry: every kind's formula text is its function, its example builds, its
ranges fire; the current-host kinds give the published figures."""

from __future__ import annotations

import pytest
import sympy

from pinchpoint.physics import linkkinds
from pinchpoint.errors import ProfileError
from pinchpoint.physics.linkkinds import KINDS
from pinchpoint.inputs.profile import profile_from_document


def _one_link(kind: str, table: dict, *, file: str = "gpu.toml"):
    doc = {"schema": 1, "name": "one", "components": {"a": {"kind": "device"}, "b": {"kind": "device"}},
           "links": {"l": {"kind": kind, "between": ["a", "b"], **table}}}
    return profile_from_document(doc, file=file).links["l"]


def _symbols(kind):
    return {p.name: sympy.Symbol(p.name, positive=True) for p in kind.params}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_formula_text_is_the_function(name):
    kind = KINDS[name]
    syms = _symbols(kind)
    assert sympy.simplify(sympy.sympify(kind.formula, locals=syms) - kind.capacity(syms)) == 0
    if kind.efficiency is not None:
        assert kind.efficiency_formula
        # the per-transfer terms apply only where a profile states them: without them the text is exact
        plain = {k: v for k, v in syms.items() if k not in ("transfer_size", "transfer_cost")}
        assert sympy.simplify(sympy.sympify(kind.efficiency_formula, locals=syms) - kind.efficiency(plain)) == 0


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_kind_has_an_example_advice_and_a_positive_capacity(name):
    kind = KINDS[name]
    assert kind.advice and kind.example, f"{name}: advice and example belong to the kind"
    link = _one_link(name, dict(kind.example))
    assert link.capacity_bytes_per_s > 0 and 0 < link.efficiency <= 1


def test_a_formula_that_drifts_from_its_function_is_caught():
    drifted = linkkinds.LinkKind("x", "", (linkkinds.Param("rate", "bandwidth", ""),), lambda p: p["rate"] * 2, "rate")
    syms = _symbols(drifted)
    assert sympy.simplify(sympy.sympify(drifted.formula, locals=syms) - drifted.capacity(syms)) != 0


# published figures, each from the source in the kind's docstring
H100_NVLINK_EACH_WAY = 450e9  # NVIDIA H100 whitepaper: 18 links, 900 GB/s in total
H100_HBM3 = 5120 / 8 * 2619e6 * 2  # 3.35 TB/s: 5120 bit x 2619 MHz x 2
GH200_C2C_EACH_WAY = 450e9  # Grace Hopper whitepaper: 900 GB/s in total
UPI_10_4_PER_LINK = 20.8e9  # Intel Xeon Scalable overview: 10.4 GT/s -> 20.8 GB/s per link and direction
XGMI3_X16_PER_LINK = 64e9  # AMD: x16 at 32 Gbit/s per lane = 64 GB/s per link and direction


@pytest.mark.parametrize("kind, table, expected", [
    ("nvlink", {"count": 18, "link_rate": "25 GB/s"}, H100_NVLINK_EACH_WAY),
    ("hbm", {"width": "5120 bit", "clock": "2619 MHz"}, H100_HBM3),
    ("nvlink-c2c", {"rate": "450 GB/s"}, GH200_C2C_EACH_WAY),
    ("upi", {"lane_rate": "10.4 GT/s"}, UPI_10_4_PER_LINK),
    ("xgmi", {"lane_rate": "32 GT/s"}, XGMI3_X16_PER_LINK),
])
def test_current_host_kinds_give_published_figures(kind, table, expected):
    assert _one_link(kind, table).capacity_bytes_per_s == pytest.approx(expected, rel=1e-12)


def test_hbm_is_shared_by_reads_and_writes_and_nvlink_is_full_duplex():
    assert _one_link("hbm", {"width": "5120 bit", "clock": "2619 MHz"}).duplex == "half"
    assert _one_link("nvlink", {"count": 4, "link_rate": "25 GB/s"}).duplex == "full"


def test_bonded_nvlink_scales_with_count():
    one = _one_link("nvlink", {"count": 1, "link_rate": "25 GB/s"}).capacity_bytes_per_s
    assert _one_link("nvlink", {"count": 6, "link_rate": "25 GB/s"}).capacity_bytes_per_s == pytest.approx(6 * one)


def test_pcie_gen6_flit_mode():
    # PCIe 6.0 FLIT: 236 of 256 bytes carry TLPs; a TLP pays its 16-byte header only, no DLLP share
    link = _one_link("pcie", {"generation": 6, "lanes": 16})
    assert link.capacity_bytes_per_s == pytest.approx(64e9 * 16 / 8)
    assert link.efficiency == pytest.approx(256 / (256 + 16) * 236 / 256)
    assert link.values()["acks_per_tlp"] == 0  # DLLPs ride in the FLIT's DLP bytes
    # a completion's 3DW header is 4 bytes shorter than a request's 4DW one
    assert link.costs("write")[1] == 0
    assert link.costs("read")[0] == pytest.approx((1 + 12 / 256) / (236 / 256))
    gen5 = _one_link("pcie", {"generation": 5, "lanes": 16})
    # below gen 6 a TLP pays framing, sequence, 4DW header and LCRC; the ACK/FC DLLPs are counted
    # per TLP on the other direction, not as a share of this one
    assert gen5.efficiency == pytest.approx(256 / 280)


@pytest.mark.parametrize("version, generation, eff", [
    ("1.1", 5, 64 / 68 * 0.8), ("2.0", 5, 64 / 68 * 0.8), ("3.0", 6, 240 / 256 * 0.8)])
def test_cxl_versions(version, generation, eff):
    link = _one_link("cxl", {"generation": generation, "version": version, "lanes": 16})
    assert link.efficiency == pytest.approx(eff)
    assert link.capacity_bytes_per_s == pytest.approx(generation_rate(generation) * 16 / 8)


def generation_rate(gen):
    g = linkkinds.PCIE_GENERATIONS[gen]
    return g.lane_rate * g.encoding


@pytest.mark.parametrize("kind, table, key, words", [
    ("nvlink", {"count": 0, "link_rate": "25 GB/s"}, "links.l.count", "greater than zero"),
    ("nvlink", {"count": 19, "link_rate": "25 GB/s"}, "links.l.count", "at most 18"),
    ("pcie", {"generation": 4, "lanes": 5}, "links.l.lanes", "expected one of 1, 2, 4, 8, 12, 16, 32"),
    ("pcie", {"generation": 7, "lanes": 16}, "links.l.generation", "generation 1..6, got 7"),
    ("pcie", {"generation": 4, "lanes": 16, "mps": "300 B"}, "links.l.mps", "expected one of 128"),
    ("cxl", {"generation": 4, "version": "2.0", "lanes": 16}, "links.l.generation", "generation 5..6"),
    ("cxl", {"generation": 6, "version": "2.0", "lanes": 16}, "links.l.generation", "runs on PCIe generation 5"),
    ("cxl", {"generation": 5, "version": "9", "lanes": 16}, "links.l.version", "expected a CXL version"),
    ("cxl", {"generation": 5, "lanes": 16}, "links.l.flit_size", "missing"),
    ("upi", {"lane_rate": "16 GT/s", "count": 7}, "links.l.count", "at most 6"),
    ("hbm", {"generation": 5, "width": "5120 bit", "clock": "1 GHz"}, "links.l.generation", "only pcie and cxl"),
])
def test_bad_values_name_file_and_key(kind, table, key, words):
    with pytest.raises(ProfileError) as err:
        _one_link(kind, table)
    msg = str(err.value)
    assert msg.startswith("gpu.toml: ") and key in msg and words in msg, msg


@pytest.mark.parametrize("change, words", [
    ('lanes = 16', "expected one of 1, 2, 4"),
    ('count = 0', "greater than zero"),
])
def test_cli_exits_2_with_one_line(cli, tmp_path, change, words):
    text = ('schema = 1\n[components.a]\nkind = "accelerator"\n[components.b]\nkind = "switch"\n'
            '[links.l]\nbetween = ["a", "b"]\n')
    text += ('kind = "pcie"\ngeneration = 5\nlanes = 5\n' if "lanes" in change
             else 'kind = "nvlink"\nlink_rate = "25 GB/s"\ncount = 0\n')
    path = tmp_path / "bad.toml"
    path.write_text(text)
    out = cli("ceilings", str(path))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    (line,) = out.stderr.strip().splitlines()
    assert str(path) in line and "links.l." in line and words in line
