"""Long TOML files are parsed with rtoml where installed (input_text.toml_loads): the documents
must be the ones tomllib reads, and errors must stay tomllib's."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.inputs import input_text
from pinchpoint.errors import ProfileError
from pinchpoint.inputs.profile_io import load_profile

ROOT = Path(__file__).resolve().parents[2]
BUNDLED_TOML = sorted((ROOT / "profiles").rglob("*.toml"))

rtoml = pytest.importorskip("rtoml")


@pytest.fixture
def always_fast(monkeypatch):
    """Every text counts as long: rtoml parses even the bundled files."""
    monkeypatch.setattr(input_text, "FAST_TOML_CHARS", 0)


def test_the_bundled_files_are_read_alike(always_fast):
    assert len(BUNDLED_TOML) > 20
    for path in BUNDLED_TOML:
        text = path.read_text(encoding="utf-8")
        assert input_text.toml_loads(text) == tomllib.loads(text), path.name


_keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-0123456789", min_size=1, max_size=8)
_scalars = (st.integers(-2 ** 63, 2 ** 63 - 1) | st.floats(allow_nan=False) | st.booleans()
            | st.text(max_size=20))
_documents = st.recursive(st.dictionaries(_keys, _scalars, max_size=4),
                          lambda inner: st.dictionaries(_keys, inner | st.lists(_scalars, max_size=4), max_size=4),
                          max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(doc=_documents)
def test_any_document_reads_back_alike(doc):
    text = tomli_w.dumps(doc)
    saved = input_text.FAST_TOML_CHARS
    input_text.FAST_TOML_CHARS = 0  # not the fixture: hypothesis calls this body many times
    try:
        fast = input_text.toml_loads(text)
    finally:
        input_text.FAST_TOML_CHARS = saved
    assert fast == tomllib.loads(text) == doc


def test_a_long_file_with_a_syntax_error_is_worded_by_tomllib(tmp_path):
    body = "".join(f'[links.l{i}]\nkind = "link"\nbetween = ["a", "b"]\nrate = "1 Gbit/s"\n'
                   for i in range(20000))
    path = tmp_path / "broken.toml"
    path.write_text('schema = 1\nname = "x"\n' + body + "rate = = 3\n", encoding="utf-8")
    assert path.stat().st_size >= input_text.FAST_TOML_CHARS
    with pytest.raises(ProfileError) as err:
        load_profile(str(path))
    with pytest.raises(tomllib.TOMLDecodeError) as reference:
        tomllib.loads(path.read_text(encoding="utf-8"))
    assert str(reference.value) in str(err.value)
    assert "TOML syntax error" in str(err.value)


def test_without_rtoml_the_standard_library_reads_long_files(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "rtoml", None)  # import rtoml now raises ImportError
    text = tomli_w.dumps({f"k{i}": {"rate": f"{i} Gbit/s"} for i in range(40000)})
    assert len(text) >= input_text.FAST_TOML_CHARS
    assert input_text.toml_loads(text) == tomllib.loads(text)
