"""The table of parsed unit strings (units_table.json) says exactly what pint says.

The table lets a process parse "133 MHz" without building pint's registry (0.4 s); these tests
keep it honest: the digest matches the installed pint, every entry is re-derived with pint, and
the fast path gives the same float (or leaves the string to pint) for many spellings of numbers.
Regenerate with ``PYTHONPATH=.pyshim python3 tools/generate_units_table.py``.
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import pytest

from pinchpoint.physics import units
from pinchpoint.errors import UnitError

ROOT = Path(__file__).resolve().parents[1]
TABLE = json.loads(units.TABLE_FILE.read_text(encoding="utf-8"))
FACTORS = TABLE["units"]

NUMBERS = ["0", "1", "5", "133", "-3", "+2", "-0", "-0.0", "6.4", ".5", "5.", "1e3", "2.5E-3", "1.7e300",
           "12345678901234567890123456789", "0.1234567890123456789", "9007199254740993", "007"]


def _same(a: float, b: float) -> bool:
    return math.copysign(1.0, a) == math.copysign(1.0, b) and (a == b or (math.isnan(a) and math.isnan(b)))


def test_table_was_made_from_the_installed_pint():
    assert units.definitions_digest() == TABLE["pint_definitions_sha256"], (
        "pint or the patches in units.py changed: run tools/generate_units_table.py")
    assert units._table() == FACTORS


def test_every_entry_is_what_pint_derives():
    for key, (dimension, factor) in FACTORS.items():
        derived = units.table_entry(key)
        assert derived is not None, key
        assert derived[0] == dimension, key
        assert type(derived[1]) is type(factor) and derived[1] == factor, (key, derived, factor)


@pytest.mark.parametrize("gap", [" ", ""])
def test_fast_path_gives_pints_float_or_steps_aside(gap):
    checked = 0
    for key, (dimension, _) in FACTORS.items():
        for number in NUMBERS:
            text = f"{number}{gap}{key}" if key else number
            for asked in {dimension, "size", "frequency"}:
                fast = units._from_table(text, asked)
                if fast is None:
                    continue
                checked += 1
                try:
                    slow = units._parse_with_pint(text, asked)
                except UnitError as exc:
                    pytest.fail(f"{text!r} as {asked}: table gives {fast!r}, pint raises {exc}")
                assert _same(fast, slow), (text, asked, fast, slow)
    assert checked > 5000


def test_numbers_without_units_match_pint():
    for value in (0, 3, -2, 2.5, -0.0, 10**30):
        assert _same(units._from_table(value, "dimensionless"), units._parse_with_pint(value, "dimensionless"))
    for value in (True, 10**400, math.inf, math.nan):
        assert units._from_table(value, "dimensionless") is None
    assert units._from_table(3, "size") is None  # "has no unit" comes from pint's path


def test_strings_outside_the_table_and_errors_still_go_to_pint():
    assert "kB/ms" not in FACTORS
    assert units.parse("2 kB/ms", "bandwidth") == 2e6
    assert units._from_table("64 bit", "frequency") is None
    with pytest.raises(UnitError, match="is not a frequency"):
        units.parse("64 bit", "frequency")
    with pytest.raises(UnitError, match="has no unit"):
        units.parse("133", "frequency")
    assert units._from_table("1e300 EB", "size") is None  # overflows: pint's error wording
    with pytest.raises(UnitError, match="not a finite"):
        units.parse("1e300 EB", "size")


def test_a_table_from_another_pint_is_not_used(monkeypatch, tmp_path):
    stale = tmp_path / "units_table.json"
    stale.write_text(json.dumps({**TABLE, "pint_definitions_sha256": "0" * 64}), encoding="utf-8")
    monkeypatch.setattr(units, "TABLE_FILE", stale)
    units._table.cache_clear()
    try:
        assert units._table() == {}
        assert units._from_table("133 MHz", "frequency") is None
        assert units._parse("133 MHz", "frequency") == 133e6
    finally:
        monkeypatch.undo()
        units._table.cache_clear()


def test_every_quantity_in_the_bundled_documents_is_in_the_table():
    missing = set()

    def walk(value, where):
        if isinstance(value, dict):
            for v in value.values():
                walk(v, where)
        elif isinstance(value, list):
            for v in value:
                walk(v, where)
        elif isinstance(value, str) and units._GRAMMAR.fullmatch(value):
            match = units._NUMBER_AND_UNIT.fullmatch(units._normalise(value))
            if match and match.group(2) not in FACTORS and units.table_entry(match.group(2)):
                missing.add((where.name, value))

    for path in (ROOT / "profiles").rglob("*"):
        if path.suffix == ".toml":
            walk(tomllib.loads(path.read_text(encoding="utf-8")), path)
        elif path.suffix == ".json":
            walk(json.loads(path.read_text(encoding="utf-8")), path)
    assert not missing, f"run tools/generate_units_table.py: {sorted(missing)}"
