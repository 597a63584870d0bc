"""``extends`` reaches bundled profiles and files under the profile's own folder, nothing else: it used to read /etc/passwd or ../x and echo their keys in errors."""

from __future__ import annotations

import pytest

from pinchpoint.errors import ProfileError
from pinchpoint.inputs.profile_io import load_profile, read_document

CHILD = 'schema = 1\nname = "child"\nextends = "{parent}"\n'


@pytest.mark.parametrize("parent", ["/etc/passwd", "../outside.toml", "../outside", "sub/../../outside.toml"])
def test_paths_outside_the_folder_are_refused(tmp_path, parent):
    (tmp_path / "outside.toml").write_text('schema = 1\nsecret = "do not echo"\n')
    folder = tmp_path / "profiles"
    folder.mkdir()
    (folder / "child.toml").write_text(CHILD.format(parent=parent))
    with pytest.raises(ProfileError) as err:
        load_profile(folder / "child.toml")
    assert "extends" in str(err.value)
    assert "secret" not in str(err.value) and "root:" not in str(err.value)


def test_a_symbolic_link_out_of_the_folder_is_refused(tmp_path):
    (tmp_path / "outside.toml").write_text('schema = 1\n')
    folder = tmp_path / "profiles"
    folder.mkdir()
    (folder / "parent.toml").symlink_to(tmp_path / "outside.toml")
    (folder / "child.toml").write_text(CHILD.format(parent="parent.toml"))
    with pytest.raises(ProfileError, match="outside this profile's folder"):
        load_profile(folder / "child.toml")


def test_files_beside_and_below_and_bundled_names_are_followed(tmp_path, toy_text):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "base.toml").write_text(toy_text)
    (tmp_path / "beside.toml").write_text('schema = 1\nextends = "sub/base.toml"\nname = "beside"\n')
    (tmp_path / "child.toml").write_text('schema = 1\nextends = "beside"\nname = "child"\n')
    assert load_profile(tmp_path / "child.toml").name == "child"
    (tmp_path / "g5.toml").write_text('schema = 1\nextends = "powermac-g5"\nname = "g5-variant"\n')
    assert "pcix" in load_profile(tmp_path / "g5.toml").links


def test_the_option_allows_more(tmp_path, toy_text):
    (tmp_path / "outside.toml").write_text(toy_text)
    folder = tmp_path / "profiles"
    folder.mkdir()
    (folder / "child.toml").write_text(CHILD.format(parent="../outside.toml"))
    doc = read_document(folder / "child.toml", allow_outside=True)
    assert doc["name"] == "child" and "links" in doc
