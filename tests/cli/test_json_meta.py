"""Every JSON object the CLI prints says which tool wrote it, in which layout and when,
like iperf3's ``start`` block, and keeps its own keys."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from pinchpoint import __version__
from pinchpoint.cli import main
from pinchpoint.cli.output import JSON_SCHEMA_VERSION


@pytest.mark.parametrize("argv, own_key", [
    (["ceilings", "powermac-g5", "--json"], "flows"),
    (["explain", "powermac-g5", "pcix", "--json"], None),
    (["diagnose", "--measured", "260 Mbit/s", "--link", "1 Gbit/s", "--json"], None),
    (["predict", "--signature", "p690", "--workload", "power4-memory-heavy", "--json"], "resources"),
])
def test_json_objects_carry_version_schema_and_timestamp(capsys, argv, own_key):
    before = datetime.now(timezone.utc).replace(microsecond=0)
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    meta = doc["pinchpoint"]
    assert meta["version"] == __version__
    assert meta["schema_version"] == JSON_SCHEMA_VERSION
    stamp = datetime.fromisoformat(meta["timestamp"])
    assert stamp.tzinfo is not None and before <= stamp <= datetime.now(timezone.utc)
    if own_key:
        assert own_key in doc
    assert len(doc) > 1  # the command's own answer is still there


@pytest.mark.parametrize("command, key", [("profiles", "profiles"), ("workloads", "workloads"),
                                          ("signatures", "signatures")])
def test_listings_are_objects_with_the_block(capsys, command, key):
    assert main([command, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["pinchpoint"]["version"] == __version__
    assert doc[key] and all(set(row) == {"name", "description"} for row in doc[key])


def test_signature_json_output_loads_back_as_a_signature(capsys, tmp_path):
    from pinchpoint.inputs.signature import load_signature

    assert main(["signature", "show", "p690", "--json"]) == 0
    out = tmp_path / "p690.json"
    out.write_text(capsys.readouterr().out)
    assert "pinchpoint" in json.loads(out.read_text())
    assert "peak" in load_signature(out).kernels
