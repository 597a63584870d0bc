"""Profiles (and signatures) are frozen all the way down, hash by their contents and cannot be
built invalid: an earlier review ("data objects are frozen only on the surface")."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from pinchpoint.diagnose.resolve import flow_ceiling as cached_flow_ceiling
from pinchpoint.errors import PinchpointError, ProfileError
from pinchpoint.inputs.profile import Flow, Link, Scenario, Value, profile_from_document
from pinchpoint.inputs.profile_io import load_profile


@pytest.fixture(scope="module")
def g5():
    return load_profile("powermac-g5")


def test_a_profile_hashes_and_equal_profiles_hash_equal(g5):
    again = load_profile("powermac-g5")
    assert again is not g5 and again == g5 and hash(again) == hash(g5)
    assert g5.with_link_param("pcix", "burst", 4096.0) != g5
    assert {g5: 1}[again] == 1


def test_nothing_inside_a_loaded_profile_can_be_changed(g5):
    link = g5.links["pcix"]
    with pytest.raises(TypeError):
        link.params["clock"] = Value(1.0, "1 Hz")
    with pytest.raises(TypeError):
        g5.links["pcix"] = link
    with pytest.raises(TypeError):
        g5.flows["nic-rx"].passes["mem"] = 2.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        link.params = {}
    assert link.capacity_bytes_per_s == pytest.approx(1.064e9)


def test_a_what_if_out_of_range_names_link_parameter_and_range(g5):
    with pytest.raises(PinchpointError) as info:
        g5.with_link_param("pcix", "clock", -5.0)
    text = str(info.value)
    assert "links.pcix.clock" in text and "link 'pcix'" in text and "must be greater than zero" in text
    assert "-40" not in text


def test_a_link_cannot_be_built_invalid(g5):
    link = g5.links["pcix"]
    with pytest.raises(ProfileError, match=r"links\.pcix\.clock: clock = -5 must be greater than zero"):
        dataclasses.replace(link, params={**link.params, "clock": Value(-5.0, "-5 Hz")})
    with pytest.raises(ProfileError, match="has no parameter 'voltage'"):
        dataclasses.replace(link, params={**link.params, "voltage": Value(1.0, "1 V")})
    with pytest.raises(ProfileError, match=r"links\.pcix\.width: missing"):
        dataclasses.replace(link, params={k: v for k, v in link.params.items() if k != "width"})
    with pytest.raises(ProfileError, match="unknown link kind 'warp'"):
        dataclasses.replace(link, kind="warp")
    with pytest.raises(ProfileError, match="different components"):
        Link("x", "link", ("a", "a"), {"rate": Value(1e9, "1 GB/s")})
    with pytest.raises(ProfileError, match="only a shared"):
        Link("x", "link", ("a", "b", "c"), {"rate": Value(1e9, "1 GB/s"), "shared": Value(0.0, "0")})
    with pytest.raises(ProfileError, match=r"links\.pcix\.clock: clock = nan is not finite"):
        dataclasses.replace(link, params={**link.params, "clock": Value(float("nan"), "nan")})
    with pytest.raises(ProfileError, match=r"links\.pcix\.clock: clock = '133 MHz' is not a number"):
        dataclasses.replace(link, params={**link.params, "clock": Value("133 MHz", "133 MHz")})


def test_flows_scenarios_and_profiles_check_themselves(g5):
    with pytest.raises(ProfileError, match="source and sink are both"):
        Flow("f", (("a", "a"),))
    with pytest.raises(ProfileError, match="passes > 0"):
        Flow("f", (("a", "b"),), {"l": -1.0})
    with pytest.raises(ProfileError, match="2 positive numbers"):
        Scenario("s", ("a", "b"), (1.0,))
    with pytest.raises(ProfileError, match=r"flows\.f: no component 'nowhere'"):
        dataclasses.replace(g5, flows={"f": Flow("f", (("nic", "nowhere"),))})
    with pytest.raises(ProfileError, match=r"scenarios\.s\.flows: no flow 'missing'"):
        dataclasses.replace(g5, scenarios={"s": Scenario("s", ("missing",), (1.0,))})
    with pytest.raises(ProfileError, match=r"links\.other: is named 'pcix'"):
        dataclasses.replace(g5, links={**g5.links, "other": g5.links["pcix"]})


def test_copies_and_pickles_are_equal(g5):
    for other in (copy.deepcopy(g5), pickle.loads(pickle.dumps(g5))):
        assert other == g5 and hash(other) == hash(g5)
        assert other.links["pcix"].capacity_bytes_per_s == g5.links["pcix"].capacity_bytes_per_s


def test_diagnose_caches_on_the_profile_itself():
    a, b = load_profile("powermac-g5"), load_profile("powermac-g5")
    assert cached_flow_ceiling(a, "nic-rx") is cached_flow_ceiling(b, "nic-rx")  # equal profiles share it
    faster = a.with_link_param("pcix", "clock", 266e6)
    assert cached_flow_ceiling(faster, "nic-rx").ceiling_bytes_per_s > cached_flow_ceiling(a, "nic-rx").ceiling_bytes_per_s


def test_a_profile_keeps_no_copy_of_its_document():
    # the objects are the record: a parsed 98,304-link fabric (110 MiB as JSON, 243 MiB from
    # rtoml) kept beside them raised the peak of `ceilings` by as much
    doc = {"schema": 1, "components": {"a": {"kind": "device"}, "b": {"kind": "device"}},
           "links": {"l": {"kind": "link", "between": ["a", "b"], "rate": "1 GB/s"}}}
    profile = profile_from_document(doc)
    assert not hasattr(profile, "document")
    doc["links"]["l"]["between"].append("c")  # the caller's document stays the caller's
    assert profile.links["l"].between == ("a", "b")


def test_signatures_are_read_only_and_hash():
    from pinchpoint.inputs.signature import load_bundled

    sig = load_bundled(_a_bundled_signature())
    with pytest.raises(TypeError):
        sig.host["name"] = "other"
    with pytest.raises(TypeError):
        sig.kernels["x"] = None
    point = next(iter(sig.kernels.values())).points[0]
    with pytest.raises(TypeError):
        point.params["op"] = "other"
    assert hash(sig) == hash(load_bundled(_a_bundled_signature()))
    assert isinstance(sig.to_dict()["host"], dict)


def _a_bundled_signature() -> str:
    from pinchpoint.inputs.signature import bundled_signatures

    return sorted(bundled_signatures())[0]
