"""Every validation rule of the signature format fires, naming the file and the key path."""

from __future__ import annotations

import copy
import json

import pytest

from pinchpoint.errors import SignatureError
from pinchpoint.inputs.signature import (KernelRun, Point, Result, Signature, dump_signature,
                                  load_signature)


def good() -> dict:
    return {"schema": 1,
            "host": {"cpu_model": "Test CPU", "cores": 2},
            "compiler": {"name": "cc", "version": "1", "flags": ["-O3"]},
            "created": "2026-01-01T00:00:00+00:00",
            "kernels": {"maps": {"source_sha256": "a" * 64, "points": [
                {"op": "load", "pattern": "stride1", "threads": 1, "working_set_bytes": 4096,
                 "result": {"unit": "B/s", "min": 1.0, "median": 2.0, "max": 3.0,
                            "repetitions": [3.0, 1.0, 2.0]}}]}}}


def write(tmp_path, data) -> str:
    path = tmp_path / "sig.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def test_good_loads(tmp_path):
    sig = load_signature(write(tmp_path, good()))
    assert sig.value("maps", op="load") == 2.0
    assert sig.curve("maps", "working_set_bytes", op="load")[0][0] == 4096


def mutate(path_keys, value):
    d = good()
    target = d
    for k in path_keys[:-1]:
        target = target[k]
    if value is KeyError:
        del target[path_keys[-1]]
    else:
        target[path_keys[-1]] = value
    return d


P0 = ["kernels", "maps", "points", 0]

CASES = [
    (mutate(["schema"], 2), "schema", "unsupported schema"),
    (mutate(["host"], KeyError), "host", "missing"),
    (mutate(["extra"], 1), "extra", "unknown key"),
    (mutate(["host", "cpu_model"], 5), "host.cpu_model", "not a string"),
    (mutate(["created"], ""), "created", "non-empty"),
    (mutate(["kernels", "maps", "source_sha256"], "xyz"), "kernels.maps.source_sha256", "hex"),
    (mutate(["kernels", "maps", "points"], {}), "kernels.maps.points", "must be a list"),
    (mutate(P0 + ["pattern"], "diagonal"), "kernels.maps.points[0].pattern", "stride1"),
    (mutate(P0 + ["working_set_bytes"], -1), "kernels.maps.points[0].working_set_bytes",
     "negative"),
    (mutate(P0 + ["op"], [1]), "kernels.maps.points[0].op", "string, number or boolean"),
    (mutate(P0 + ["pad"], "8"), "kernels.maps.points[0].pad", "not a number"),
    (mutate(P0 + ["result"], KeyError), "kernels.maps.points[0].result", "missing"),
    (mutate(P0 + ["result", "unit"], "GB/s"), "kernels.maps.points[0].result.unit", "unknown unit"),
    (mutate(P0 + ["result", "median"], "2"), "kernels.maps.points[0].result.median",
     "not a number"),
    (mutate(P0 + ["result", "repetitions"], []), "kernels.maps.points[0].result.repetitions",
     "no repetitions"),
    (mutate(P0 + ["result", "repetitions"], [1.0, -3.0, 2.0]),
     "kernels.maps.points[0].result.repetitions[1]", "non-negative"),
    (mutate(P0 + ["result", "median"], 5.0), "kernels.maps.points[0].result", "min <= median"),
    (mutate(P0 + ["result", "max"], 2.5), "kernels.maps.points[0].result", "do not match"),
    (mutate(P0 + ["result", "mean"], 2.0), "kernels.maps.points[0].result.mean", "unknown key"),
]


@pytest.mark.parametrize("data,key,message", CASES)
def test_validation_rule_fires(tmp_path, data, key, message):
    path = write(tmp_path, data)
    with pytest.raises(SignatureError) as info:
        load_signature(path)
    err = info.value
    assert err.file == path
    assert err.key == key
    assert message in str(err)
    assert str(err).startswith(path + ": " + key)


def test_not_json(tmp_path):
    with pytest.raises(SignatureError, match="not valid JSON") as info:
        load_signature(write(tmp_path, '{"schema": 1,\n  oops}'))
    assert info.value.line == 2


def test_missing_file(tmp_path):
    with pytest.raises(SignatureError, match="cannot read"):
        load_signature(tmp_path / "nope.json")


def test_points_of_missing_kernel_named():
    sig = Signature.from_dict(good())
    with pytest.raises(SignatureError, match="no kernel 'peak'"):
        sig.points("peak")
    with pytest.raises(SignatureError, match="0 points match"):
        sig.value("maps", op="store")


def test_objects_validate_on_construction():
    with pytest.raises(SignatureError):
        Result("B/s", 2.0, 1.0, 3.0, (2.0, 1.0, 3.0))
    with pytest.raises(SignatureError):
        Point({"pattern": "zigzag"}, Result.from_repetitions("s", [1.0]))
    with pytest.raises(SignatureError):
        KernelRun("ABC", ())


def test_dump_is_atomic_and_leaves_old_file_on_error(tmp_path):
    path = tmp_path / "sig.json"
    sig = Signature.from_dict(good())
    dump_signature(sig, path)
    before = path.read_text()
    bad = copy.copy(sig)
    object.__setattr__(bad, "host", {"cpu_model": "x", "bad": float("nan")})
    with pytest.raises(ValueError):
        dump_signature(bad, path)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["sig.json"]
