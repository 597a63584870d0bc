"""The link graph's layout: rows by topology, deterministic, readable at 100 components."""

from __future__ import annotations

import random

from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.graph.names import natural_key
from pinchpoint.report.graph_layout import layout


def test_hgx_rows_follow_the_machine():
    hgx = load_profile("hgx-h100-8gpu")
    lay = layout(hgx)
    row = {c: i for i, r in enumerate(lay.rows) for c in r}
    assert row["mem0"] == row["mem1"] < row["cpu0"] == row["cpu1"] < row["pcisw0"] < row["gpu0"] == row["nic0"]
    assert row["hbm0"] == row["net0"] == row["gpu0"] + 1  # a GPU's HBM and a NIC's network just below them
    assert row["nvs0"] > row["hbm0"]  # the NVSwitches every GPU reaches: a row of their own
    x = {c: p[0] for c, p in lay.positions.items()}
    assert x["cpu0"] < x["cpu1"] and x["mem0"] == x["cpu0"]  # memory over its CPU
    assert x["hbm3"] == x["gpu3"]  # HBM straight below its GPU
    # each GPU sits nearer its own PCIe switch than any other switch
    for g, sw in (("gpu0", "pcisw0"), ("gpu2", "pcisw1"), ("gpu5", "pcisw2"), ("gpu7", "pcisw3")):
        assert min((abs(x[g] - x[s]), s) for s in ("pcisw0", "pcisw1", "pcisw2", "pcisw3"))[1] == sw


def test_the_same_picture_every_time():
    hgx = load_profile("hgx-h100-8gpu")
    assert layout(hgx) == layout(load_profile("hgx-h100-8gpu"))


def _fat_machine(n_gpus: int, seed: int) -> dict:
    """Two CPUs, a PCIe switch per 4 GPUs, a NIC per switch: about 2.5 components per GPU."""
    rng = random.Random(seed)
    cpu = {"kind": "cpu", "clock": "2 GHz", "cores": 8}
    comps = {"cpu0": cpu, "cpu1": dict(cpu), "mem0": {"kind": "memory"}}
    links = {"ddr": {"kind": "link", "between": ["cpu0", "mem0"], "rate": "100 GB/s"},
             "upi": {"kind": "link", "between": ["cpu0", "cpu1"], "rate": "40 GB/s"}}
    for s in range(n_gpus // 4):
        comps[f"sw{s}"] = {"kind": "switch"}
        links[f"up{s}"] = {"kind": "link", "between": [f"sw{s}", f"cpu{s % 2}"], "rate": "64 GB/s"}
        comps[f"nic{s}"] = {"kind": "device"}
        links[f"n{s}"] = {"kind": "link", "between": [f"nic{s}", f"sw{s}"], "rate": "64 GB/s"}
        for g in range(4 * s, 4 * s + 4):
            comps[f"gpu{g}"] = {"kind": "accelerator"}
            links[f"p{g}"] = {"kind": "link", "between": [f"gpu{g}", f"sw{s}"], "rate": f"{rng.randint(16, 64)} GB/s"}
            comps[f"hbm{g}"] = {"kind": "memory"}
            links[f"h{g}"] = {"kind": "link", "between": [f"gpu{g}", f"hbm{g}"], "rate": "3 TB/s"}
    order = list(comps.items())
    rng.shuffle(order)  # the file's order must not matter
    return {"schema": 1, "name": "big", "components": dict(order), "links": links,
            "flows": {"f": {"source": "mem0", "sink": "gpu0"}}}


def test_a_hundred_components_never_overlap():
    doc = _fat_machine(40, 1)
    profile = profile_from_document(doc)
    assert len(profile.components) >= 100
    lay = layout(profile)
    for row in lay.rows:
        xs = sorted(lay.positions[c][0] for c in row)
        assert all(b - a >= 1.0 - 1e-9 for a, b in zip(xs, xs[1:]))  # a column apart: labels never overlap
    shuffled = profile_from_document(_fat_machine(40, 2) | {"links": doc["links"]})
    assert layout(shuffled).rows == lay.rows  # another file order, the same rows


def test_natural_order():
    assert sorted(["cpu10", "cpu2", "cpu1"], key=natural_key) == ["cpu1", "cpu2", "cpu10"]
