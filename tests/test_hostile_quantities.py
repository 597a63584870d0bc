"""Tiny inputs that used to take the machine: quantity strings with operators
or exponents, numbers beyond double precision, YAML alias bombs, enormous counts, and values
echoed back at any length."""

from __future__ import annotations

import time

import pytest

from pinchpoint.physics import units
from pinchpoint.errors import MAX_MESSAGE, InputError, ProfileError, UnitError
from pinchpoint.importers import kerncraft
from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.inputs.yaml_safe import load_yaml


@pytest.mark.parametrize("text", ["9**9**9 Hz", "10 ** 400 Hz", "1/0 MHz", "2^64 Hz", "(1+1) GHz",
                                  "1e400 Hz", "inf Gbit/s", "nan Hz", "-inf B", "1 2 Hz", "x" * 10_000])
def test_refused_before_pint_evaluates_them(text):
    start = time.perf_counter()
    with pytest.raises(UnitError) as err:
        units.parse(text, "frequency" if "Hz" in text else "bandwidth", file="f.toml", key="k")
    assert time.perf_counter() - start < 2
    assert "f.toml: k:" in str(err.value)
    assert len(str(err.value)) < 400


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 10 ** 400])
def test_non_finite_numbers_are_refused(value):
    with pytest.raises(UnitError, match="not a finite"):
        units.parse(value, "dimensionless")


def test_a_result_beyond_double_precision_is_refused():
    with pytest.raises(UnitError, match="not a finite bandwidth"):
        units.parse("1e300 TB/s", "bandwidth")


@pytest.mark.parametrize("text,dimension,si", [
    ("133 MHz", "frequency", 133e6), ("66MHz", "frequency", 66e6), ("6.4 GB/s", "bandwidth", 6.4e9),
    ("2.5 GT/s", "frequency", 2.5e9), ("64 bit", "size", 8.0), ("1e-3 s", "time", 1e-3),
    ("2.6 Gflop/s", "flop_rate", 2.6e9), ("1 µs", "time", 1e-6), ("10 Gbit / s", "bandwidth", 1.25e9),
    (2, "dimensionless", 2.0), ("0.05", "dimensionless", 0.05)])
def test_ordinary_quantities_still_parse(text, dimension, si):
    assert units.parse(text, dimension) == pytest.approx(si)


def _bomb(levels=9):
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    lines.append(f"kerncraft version: *a{levels - 1}")
    return "\n".join(lines) + "\n"


def test_a_yaml_alias_bomb_is_refused_quickly():
    text = _bomb()
    assert len(text) < 700
    start = time.perf_counter()
    with pytest.raises(InputError, match="too large") as err:
        kerncraft.load_machine(text, file="bomb.yml")
    assert time.perf_counter() - start < 2
    assert len(str(err.value)) <= MAX_MESSAGE + 10


def test_a_small_alias_is_fine():
    assert load_yaml("a: &x [1, 2]\nb: *x\n") == {"a": [1, 2], "b": [1, 2]}


def test_deep_yaml_nesting_is_refused():
    with pytest.raises(InputError, match="nested deeper"):
        load_yaml("a: " + "[" * 5000 + "]" * 5000)


def test_a_recursive_alias_is_refused():
    with pytest.raises(InputError):
        load_yaml("a: &x [1, *x]\n")


def _kerncraft_text(**replace):
    from pathlib import Path

    path = Path(__file__).parent / "fixtures" / "kerncraft" / "zen-epyc-7451-small-0.8.3.yml"
    lines = path.read_text().splitlines()
    for key, value in replace.items():
        lines = [f"{key}: {value}" if ln.startswith(f"{key}:") else ln for ln in lines]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("value,match", [("10000000", "beyond any real machine"), ("null", "found null")])
def test_kerncraft_socket_counts_are_bounded(value, match):
    text = _kerncraft_text(sockets=value)
    machine = kerncraft.load_machine(text, file="k.yml")
    with pytest.raises(InputError, match=match):
        kerncraft.to_profile_document(machine, file="k.yml")


def test_error_messages_cut_long_values():
    doc = {"schema": 1, "name": "x" * 100_000, "components": {}}
    with pytest.raises(ProfileError) as err:
        profile_from_document(doc)
    assert len(str(err.value)) < 400
    long_key = {"schema": 1, "components": {"c": {"kind": "q" * 1_000_000}}}
    with pytest.raises(ProfileError) as err:
        profile_from_document(long_key)
    assert len(str(err.value)) <= MAX_MESSAGE + 10
