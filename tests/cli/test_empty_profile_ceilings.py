"""``ceilings`` on a profile that answers nothing (``detect`` on a VM: components, no capacities)
says why and what to add or measure, instead of two empty tables."""

from __future__ import annotations

import json
from pathlib import Path

from pinchpoint.solve.ceiling_gaps import ceiling_gaps
from pinchpoint.cli import main
from pinchpoint.inputs.profile_io import load_profile

HWLOC_XML = Path(__file__).resolve().parents[1] / "fixtures" / "hwloc" / "vm-amd-epyc-2core-lstopo-2.9.0.xml"


def _detected_vm(tmp_path, capsys) -> Path:
    """What `detect` writes from the VM's lstopo XML with nothing readable in /sys or /proc."""
    root = tmp_path / "root"
    (root / "sys").mkdir(parents=True)
    (root / "proc").mkdir()
    out = tmp_path / "vm.toml"
    assert main(["detect", "--hwloc-xml", str(HWLOC_XML), "--sysfs-root", str(root), "-o", str(out)]) == 0
    capsys.readouterr()
    return out


def test_detected_profile_without_capacities_explains_itself(tmp_path, capsys):
    path = _detected_vm(tmp_path, capsys)
    assert not load_profile(path).links  # the premise: detect found no capacity
    assert main(["ceilings", str(path)]) == 0
    out = capsys.readouterr().out
    assert "no ceilings" in out and "no links" in out and "no flows" in out
    assert "detect --measure" in out and "nic-eth0.line_rate is unknown" in out
    assert "link  kind  between" not in out  # no empty tables


def test_json_carries_the_gaps(tmp_path, capsys):
    path = _detected_vm(tmp_path, capsys)
    assert main(["ceilings", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["flows"] == [] and any("[flows.NAME]" in g for g in doc["gaps"])


def test_links_without_flows_asks_for_a_flow(tmp_path, capsys):
    p = tmp_path / "noflow.toml"
    p.write_text('schema = 1\nname = "noflow"\ndescription = "a link, no flow"\n'
                 '[components.cpu0]\nkind = "cpu"\nunknown = ["clock"]\n[components.memory]\nkind = "memory"\n'
                 '[links.mem]\nkind = "link"\nbetween = ["cpu0", "memory"]\nrate = "10 GB/s"\n')
    gaps = ceiling_gaps(load_profile(p))
    assert len(gaps) == 1 and "no flows" in gaps[0] and "no links" not in gaps[0]


def test_bundled_profiles_have_no_gaps():
    from pinchpoint.inputs.profile_io import bundled_profiles

    assert all(ceiling_gaps(load_profile(name)) == () for name in bundled_profiles())
