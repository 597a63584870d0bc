"""Every parameter's valid range is checked where the object is built.

The cases are generated from the parameter definitions themselves (linkkinds.KINDS and
profile.COMPONENT_PARAMS), so a kind added later is covered by the same rules: finite; rates,
sizes, clocks and counts above zero; the others at least zero; whole numbers where integer;
fractions below their maximum.
"""

from __future__ import annotations

import copy
import math

import pytest

from pinchpoint.physics import linkkinds
from pinchpoint.errors import ProfileError
from pinchpoint.inputs.profile import COMPONENT_PARAMS, profile_from_document

_GOOD = {"frequency": "100 MHz", "size": "8 B", "bandwidth": "1 GB/s", "time": "1 ms", "flop_rate": "1 Gflop/s"}
_UNIT = {"frequency": "Hz", "size": "B", "bandwidth": "B/s", "time": "s", "flop_rate": "flop/s"}


def _number(param, value: float):
    return value if param.dimension == "dimensionless" else f"{value!r} {_UNIT[param.dimension]}"


def _good(param):
    if param.dimension == "dimensionless":
        return 1 if param.maximum is None or param.maximum_included else param.maximum / 2
    return _GOOD[param.dimension]


def _bad_values(param):
    """(label, value) pairs that must be refused."""
    out = [("nan", float("nan")), ("inf", float("inf"))] if param.dimension == "dimensionless" else \
        [("1e400", f"1e400 {_UNIT[param.dimension]}")]
    out.append(("negative", _number(param, -1.0)))
    if param.positive:
        out.append(("zero", _number(param, 0.0)))
    if param.integer:
        out.append(("fraction", 1.5))
    if param.maximum is not None:
        out.append(("above maximum", _number(param, param.maximum + 1)))
        if not param.maximum_included:
            out.append(("at maximum", _number(param, param.maximum)))
    return out


def _link_doc(kind_name):
    kind = linkkinds.kind(kind_name)
    table = {"kind": kind_name, "between": ["a", "b"]}
    if kind.example:  # the kind's own valid table (kinds whose values hang together: CXL)
        table.update(kind.example)
        return {"schema": 1, "name": "r", "components": {"a": {"kind": "device"}, "b": {"kind": "device"}},
                "links": {"l": table}}
    for p in kind.params:
        if p.default is None and p.required:
            table[p.name] = _good(p)
    if kind_name == "pcie":
        table["generation"] = 3
    return {"schema": 1, "name": "r", "components": {"a": {"kind": "device"}, "b": {"kind": "device"}},
            "links": {"l": table}}


def _component_doc(kind_name):
    table = {"kind": kind_name}
    for p in COMPONENT_PARAMS[kind_name]:
        if p.default is None and p.required:
            table[p.name] = _good(p)
    return {"schema": 1, "name": "r", "components": {"c": table}}


def _link_cases():
    for kname, kind in linkkinds.KINDS.items():
        for p in kind.params:
            for label, value in _bad_values(p):
                yield pytest.param(kname, p.name, value, id=f"{kname}.{p.name}={label}")


def _component_cases():
    for kname, params in COMPONENT_PARAMS.items():
        for p in params:
            for label, value in _bad_values(p):
                yield pytest.param(kname, p.name, value, id=f"{kname}.{p.name}={label}")


@pytest.mark.parametrize("kind", sorted(linkkinds.KINDS))
def test_the_base_link_of_each_kind_is_valid(kind):
    profile_from_document(_link_doc(kind))


@pytest.mark.parametrize("kind,param,value", list(_link_cases()))
def test_out_of_range_link_parameters_are_refused(kind, param, value):
    doc = copy.deepcopy(_link_doc(kind))
    doc["links"]["l"][param] = value
    with pytest.raises(ProfileError) as err:
        profile_from_document(doc, file="r.toml")
    assert f"links.l.{param}" in str(err.value)


@pytest.mark.parametrize("kind,param,value", list(_component_cases()))
def test_out_of_range_component_parameters_are_refused(kind, param, value):
    doc = copy.deepcopy(_component_doc(kind))
    doc["components"]["c"][param] = value
    with pytest.raises(ProfileError) as err:
        profile_from_document(doc, file="r.toml")
    assert f"components.c.{param}" in str(err.value)


def test_every_default_is_in_its_own_range():
    for kind in linkkinds.KINDS.values():
        for p in kind.params:
            if p.default is not None:
                assert p.problem(p.default) is None, (kind.name, p.name)


def test_pcie_dllp_overhead_of_2_is_refused():
    """It gave an effective capacity of -14.4 GB/s."""
    doc = _link_doc("pcie")
    doc["links"]["l"]["dllp_overhead"] = 2
    with pytest.raises(ProfileError, match=r"links\.l\.dllp_overhead: dllp_overhead = 2 must be below 1"):
        profile_from_document(doc)


def test_what_if_values_are_checked_too():
    profile = profile_from_document(_link_doc("pcie"))
    with pytest.raises(ProfileError, match="dllp_overhead"):
        profile.with_link_param("l", "dllp_overhead", 1.5)
    with pytest.raises(ProfileError, match="lanes"):
        profile.with_link_param("l", "lanes", math.inf)
    assert profile.with_link_param("l", "dllp_overhead", 0.5).links["l"].effective_capacity_bytes_per_s > 0
