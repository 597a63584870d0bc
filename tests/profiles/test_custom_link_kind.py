"""A link kind registered from outside the package works end to end (as pyhf's
tests/test_custom_mods.py does for a custom modifier): a profile using it loads, ceilings give
its formula's value and it binds, explain shows its formula, what-if, solve and sweep vary its
parameters, a bad value is refused with a clear error, diagnose gives its advice and the property
tests' strategy draws it.  The fixture unregisters it, so other tests never see it."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import find

from pinchpoint.physics import linkkinds
from pinchpoint.solve.ceilings import flow_ceiling
from pinchpoint.cli import main
from pinchpoint.errors import ProfileError
from pinchpoint.physics.linkkinds import LinkKind, Param
from pinchpoint.inputs.profile import profile_from_document

KIND = "optical-bundle"
ADVICE = "light more fibres in the bundle"


def _capacity(p):
    return p["fibres"] * p["fibre_rate"]


def _efficiency(p):
    return 1 - p["fec"]


def _bound(values, raw, net):
    return f"the {values.get('fibres', 0):g}-fibre bundle binds at {net(raw or 0)} raw: {ADVICE}"


TOY = LinkKind(
    KIND, "a bundle of parallel fibres, each at one rate each way (a toy kind for this test)",
    (Param("fibres", "dimensionless", "fibres lit in the bundle", integer=True, minimum=1, maximum=64),
     Param("fibre_rate", "bandwidth", "data rate of one fibre, each way"),
     Param("fec", "dimensionless", "share of the line spent on forward error correction", default=0.0625,
           positive=False, maximum=1.0, maximum_included=False)),
    _capacity, "fibres*fibre_rate", efficiency=_efficiency, efficiency_formula="1 - fec",
    network=True, advice=ADVICE, bound_advice=_bound,
    example={"fibres": 4, "fibre_rate": "25 Gbit/s"},
)

DOC = {
    "schema": 1, "name": "toy-fabric",
    "components": {"host": {"kind": "memory"}, "nic": {"kind": "device"}, "switch": {"kind": "switch"}},
    "links": {
        "slot": {"kind": "pcie", "between": ["host", "nic"], "generation": 3, "lanes": 8},
        "bundle": {"kind": KIND, "between": ["nic", "switch"], "fibres": 2, "fibre_rate": "10 Gbit/s"},
    },
    "flows": {"out": {"source": "host", "sink": "switch"}},
}


@pytest.fixture
def toy_kind():
    linkkinds.register(TOY)
    try:
        yield TOY
    finally:
        linkkinds.unregister(KIND)


@pytest.fixture
def toy_file(toy_kind, tmp_path):
    import tomli_w

    path = tmp_path / "toy-fabric.toml"
    path.write_bytes(tomli_w.dumps(DOC).encode())
    return str(path)


def _cli(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_profile_using_it_loads_and_its_formula_gives_the_ceiling(toy_kind):
    profile = profile_from_document(DOC)
    link = profile.links["bundle"]
    assert link.capacity_bytes_per_s == pytest.approx(2 * 10e9 / 8)
    assert link.effective_capacity_bytes_per_s == pytest.approx(2 * 10e9 / 8 * (1 - 0.0625))
    c = flow_ceiling(profile, "out")
    assert c.ceiling_bytes_per_s == pytest.approx(2.5e9)
    assert c.binding == ("bundle",) or list(c.binding) == ["bundle"]


def test_ceilings_and_explain_on_the_command_line(toy_file, capsys):
    code, out, _ = _cli(capsys, "ceilings", toy_file, "--json")
    assert code == 0
    flow = json.loads(out)["flows"][0]
    assert flow["ceiling_bytes_per_s"] == pytest.approx(2.5e9)
    assert flow["binding"] == ["bundle"]
    assert "bundle.fibres*bundle.fibre_rate" in flow["formula"]
    code, out, _ = _cli(capsys, "explain", toy_file, "bundle")
    assert code == 0 and "fibres*fibre_rate" in out and "1 - fec" in out


def test_what_if_solve_and_sweep_vary_its_parameters(toy_file, capsys):
    profile = profile_from_document(DOC)
    wider = profile.with_link_param("bundle", "fibres", 4.0)
    assert flow_ceiling(wider, "out").ceiling_bytes_per_s == pytest.approx(5e9)
    code, out, _ = _cli(capsys, "sweep", toy_file, "--flow", "out", "--vary", "bundle.fibres=1..4:4", "--json")
    assert code == 0
    grid = json.loads(out)["grid"]
    assert [p["ceiling_bytes_per_s"] for p in grid] == pytest.approx([1.25e9, 2.5e9, 3.75e9, 5e9])
    assert {p["binding"] for p in grid} == {"bundle"}
    code, out, _ = _cli(capsys, "solve", toy_file, "--flow", "out", "--target", "30 Gbit/s",
                        "--vary", "bundle.fibre_rate", "--json")
    assert code == 0
    # solve reaches the target after protocol overhead: the kind's efficiency (1 - fec) counts
    assert json.loads(out)["value"] == pytest.approx(30e9 / 8 / 2 / (1 - 0.0625), rel=1e-6)


def test_a_bad_value_is_refused_with_the_link_parameter_and_range(toy_kind, toy_file, capsys):
    bad = json.loads(json.dumps(DOC))
    bad["links"]["bundle"]["fibres"] = 100
    with pytest.raises(ProfileError, match=r"links\.bundle\.fibres: fibres = 100 must be at most 64"):
        profile_from_document(bad)
    profile = profile_from_document(DOC)
    with pytest.raises(ProfileError, match=r"links\.bundle\.fec: link 'bundle' \(optical-bundle\): fec = 1(\.0)? "
                                           r"must be below 1"):
        profile.with_link_param("bundle", "fec", 1.0)
    code, _, err = _cli(capsys, "sweep", toy_file, "--flow", "out", "--vary", "bundle.fibre_rate=-1GB/s..1GB/s:3")
    assert code == 2 and "fibre_rate" in err and "Traceback" not in err


def test_diagnose_gives_the_kinds_own_advice(toy_file, capsys):
    code, out, _ = _cli(capsys, "diagnose", "--measured", "2.3 GB/s", "--profile", toy_file, "--flow", "out",
                        "--json")
    assert code == 0
    verdict = json.loads(out)
    assert any(ADVICE in a for a in verdict["advice"]), verdict["advice"]


def test_the_property_strategy_draws_it_and_its_tables_load(toy_kind):
    from tests.properties.strategies import link_tables

    table = find(link_tables("a", "b"), lambda t: t["kind"] == KIND)
    doc = {"schema": 1, "components": {"a": {"kind": "device"}, "b": {"kind": "device"}},
           "links": {"l": table}}
    assert math.isfinite(profile_from_document(doc).links["l"].capacity_bytes_per_s)


def test_unregistered_it_is_unknown_again(toy_kind):
    linkkinds.unregister(KIND)
    try:
        with pytest.raises(ProfileError, match="unknown link kind 'optical-bundle'"):
            profile_from_document(DOC)
    finally:
        linkkinds.register(TOY)  # the fixture unregisters it


def test_registering_twice_needs_replace(toy_kind):
    with pytest.raises(ValueError, match="already registered"):
        linkkinds.register(TOY)
    assert linkkinds.register(TOY, replace=True) is TOY
