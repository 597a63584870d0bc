"""Property tests: a signature survives to_dict/from_dict, JSON text and dump/load unchanged,
and its statistics are consistent with its repetitions."""

from __future__ import annotations

import json
import math
import statistics
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.inputs.signature import (PATTERNS, UNITS, KernelRun, Point, Result, Signature,
                                  dump_signature, load_signature, loads_signature)

finite = st.floats(min_value=0.0, max_value=1e15, allow_nan=False, allow_infinity=False)
names = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)


@st.composite
def results(draw):
    reps = draw(st.lists(finite, min_size=1, max_size=12))
    return Result.from_repetitions(draw(st.sampled_from(UNITS)), reps)


@st.composite
def points(draw):
    params = draw(st.dictionaries(
        names.filter(lambda n: n not in ("result", "pattern") and not n.endswith("_bytes")),
        st.one_of(text, st.integers(-10**12, 10**12), finite, st.booleans()), max_size=4))
    if draw(st.booleans()):
        params["pattern"] = draw(st.sampled_from(PATTERNS))
    if draw(st.booleans()):
        params["working_set_bytes"] = draw(st.integers(1, 2**40))
    return Point(params, draw(results()))


@st.composite
def signatures(draw):
    kernels = draw(st.dictionaries(
        names, st.builds(KernelRun,
                         st.one_of(st.none(), st.from_regex(r"[0-9a-f]{64}", fullmatch=True)),
                         st.lists(points(), max_size=5).map(tuple)), max_size=4))
    host = {"cpu_model": draw(text), "cores": draw(st.integers(1, 512)),
            "caches": [{"level": 1, "type": "Data", "size_bytes": draw(st.integers(1, 2**30))}]}
    compiler = {"name": draw(text), "version": draw(text),
                "flags": draw(st.lists(text, max_size=3))}
    return Signature(host, compiler, draw(text.filter(bool)), kernels)


@given(signatures())
@settings(max_examples=60, deadline=None)
def test_dict_round_trip(sig):
    assert Signature.from_dict(sig.to_dict()) == sig


@given(signatures())
@settings(max_examples=60, deadline=None)
def test_json_text_round_trip(sig):
    text = sig.to_json()
    again = loads_signature(text)
    assert again == sig
    assert again.to_json() == text  # a fixed point: dumping again changes nothing


@given(signatures())
@settings(max_examples=25, deadline=None)
def test_dump_load_round_trip(sig):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "sig.json"
        dump_signature(sig, path)
        assert load_signature(path) == sig
        assert [p.name for p in Path(d).iterdir()] == ["sig.json"]  # no temp file left


@given(st.sampled_from(UNITS), st.lists(finite, min_size=1, max_size=30))
def test_statistics_follow_repetitions(unit, reps):
    r = Result.from_repetitions(unit, reps)
    assert r.min == min(reps) and r.max == max(reps)
    assert r.median == statistics.median(reps)
    assert r.min <= r.median <= r.max
    assert r.repetitions == tuple(reps)
    assert r.spread >= 1.0 or math.isinf(r.spread) or r.max == 0


@given(signatures())
@settings(max_examples=30, deadline=None)
def test_points_filter_is_a_subset_match(sig):
    for name, run in sig.kernels.items():
        assert sig.points(name) == list(run.points)
        for p in run.points:
            assert p in sig.points(name, **p.params)
            json.dumps(p.to_dict())  # every point is plain JSON
