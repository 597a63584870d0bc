"""A profile may be a JSON file holding the TOML document (the fast form for generated fabrics)."""

from __future__ import annotations

import json
import tomllib

import pytest

from pinchpoint.solve.ceilings import all_ceilings
from pinchpoint.errors import ProfileError
from pinchpoint.inputs.profile_io import bundled_profiles, load_profile
from tests.conftest import run_cli


@pytest.mark.parametrize("name", ["powermac-g5", "hgx-h100-8gpu", "fat-tree-k4-r2"])
def test_json_profile_gives_the_toml_profiles_ceilings(tmp_path, name):
    doc = tomllib.loads(bundled_profiles()[name].read_text(encoding="utf-8"))
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    def table(profile):
        return [(c.name, c.ceiling_bytes_per_s, c.effective_ceiling_bytes_per_s, c.binding)
                for c in all_ceilings(profile)]

    want, got = table(load_profile(name)), table(load_profile(path))
    assert got == want and want


def test_json_profile_extends_a_bundled_one(tmp_path):
    path = tmp_path / "child.json"
    path.write_text(json.dumps({"extends": "powermac-g5", "name": "child",
                                "links": {"pcix": {"clock": "66 MHz"}}}), encoding="utf-8")
    child = load_profile(path)
    assert child.links["pcix"].params["clock"].si == 66e6
    assert child.links["pcix"].capacity_bytes_per_s < load_profile("powermac-g5").links["pcix"].capacity_bytes_per_s


@pytest.mark.parametrize("text,expected", [("{\"links\": ", "JSON syntax error"),
                                           ("[1, 2]", "expected a JSON object at the top")])
def test_bad_json_profile_is_a_clear_error(tmp_path, text, expected):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError, match=expected) as info:
        load_profile(path)
    assert info.value.file == str(path.resolve())
    r = run_cli("ceilings", str(path))
    assert r.returncode == 2 and expected in r.stderr and "Traceback" not in r.stderr
