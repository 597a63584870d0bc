"""Generated (not mutated) hostile input, from the format definitions themselves:
every link kind's and component kind's parameters with any value hypothesis can think of, and
any quantity text.  Only PinchpointErrors may come out, and no NaN or infinity in the JSON."""

from __future__ import annotations

import json
import math
import time

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pinchpoint.solve import ceilings
from pinchpoint.physics import linkkinds, units
from pinchpoint.cli.output import to_json
from pinchpoint.errors import PinchpointError, UnitError
from pinchpoint.inputs.profile import COMPONENT_PARAMS, profile_from_document

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_UNITS = ["Hz", "MHz", "GHz", "B", "bit", "KiB", "GB/s", "Gbit/s", "s", "ms", "GT/s", "Gflop/s", "", "%", "**"]
NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(10 ** 30), 10 ** 30),
                    st.sampled_from([0, -1, 10 ** 400, 1e308, 5e-324]))
QUANTITY_TEXT = st.one_of(
    st.text(max_size=40),
    st.builds(lambda n, u: f"{n} {u}", NUMBERS, st.sampled_from(_UNITS)),
    st.builds(lambda a, op, b, u: f"{a}{op}{b} {u}", st.integers(0, 99), st.sampled_from(["**", "/", "*", "^", "e"]),
              st.integers(0, 999), st.sampled_from(_UNITS)),
)
VALUES = st.one_of(NUMBERS, QUANTITY_TEXT, st.booleans(), st.lists(st.integers(), max_size=2),
                   st.fixed_dictionaries({"value": QUANTITY_TEXT}))


@SETTINGS
@given(text=QUANTITY_TEXT, dimension=st.sampled_from(sorted(units.DIMENSIONS)))
def test_any_quantity_text_parses_to_a_finite_number_or_a_unit_error(text, dimension):
    start = time.perf_counter()
    try:
        value = units.parse(text, dimension)
    except UnitError as exc:
        assert len(str(exc)) < 1100
    else:
        assert math.isfinite(value)
    assert time.perf_counter() - start < 2


_GOOD = {"frequency": "100 MHz", "size": "8 B", "bandwidth": "1 GB/s", "time": "1 ms", "flop_rate": "1 Gflop/s",
         "dimensionless": 1}


def _value(draw, param):
    """Mostly a valid value (so that computations are reached), sometimes anything at all."""
    if draw(st.integers(0, 3)) == 0:
        return draw(VALUES)
    if param.dimension == "dimensionless":
        top = param.maximum if param.maximum is not None else 64
        return draw(st.integers(1, 64)) if param.integer else draw(st.floats(0, top, exclude_max=True))
    return _GOOD[param.dimension]


@st.composite
def hostile_profiles(draw):
    kind = draw(st.sampled_from(sorted(linkkinds.KINDS)))
    link = {"kind": kind, "between": ["a", "b"]}
    for p in linkkinds.kind(kind).params:
        if p.default is None and p.required or draw(st.booleans()):
            link[p.name] = _value(draw, p)
    if "generation" in linkkinds.kind(kind).text_keys:  # pcie, cxl: the registry says which take one
        link["generation"] = draw(st.one_of(st.integers(1, 6), st.integers(-2, 9), VALUES))
    ckind = draw(st.sampled_from(sorted(COMPONENT_PARAMS)))
    comp = {"kind": ckind}
    for p in COMPONENT_PARAMS[ckind]:
        if p.default is None and p.required or draw(st.booleans()):
            comp[p.name] = _value(draw, p)
    return {"schema": 1, "name": "h", "components": {"a": comp, "b": {"kind": "device"}},
            "links": {"l": link}, "flows": {"f": {"source": "a", "sink": "b"},
                                            "rt": {"legs": [["a", "b"], ["b", "a"]]}}}


@SETTINGS
@given(doc=hostile_profiles())
def test_any_parameter_value_gives_a_ceiling_or_a_clean_error(doc):
    try:
        profile = profile_from_document(doc, file="h.toml")
        result = [c.to_dict() for c in ceilings.all_ceilings(profile)]
    except PinchpointError as exc:
        assert str(exc).startswith("h.toml")
        event("refused")
        return
    event("ceilings computed")
    for c in result:
        assert math.isfinite(c["ceiling_bytes_per_s"]) and c["ceiling_bytes_per_s"] > 0
        assert c["effective_ceiling_bytes_per_s"] <= c["ceiling_bytes_per_s"] * (1 + 1e-12)
    json.loads(to_json(result))
