"""The predict, classify, ceilings --signature and compare --workload commands."""

from __future__ import annotations

import json

import pytest

from pinchpoint.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_predict_json(capsys):
    code, out, _ = run(capsys, "predict", "--signature", "p690", "--workload", "power4-message-heavy", "--json")
    assert code == 0
    d = json.loads(out)
    assert set(d["predicted_s"]) == {"estimate", "low", "high"} and d["binding"] == "communication"
    assert d["predicted_s"]["low"] <= d["predicted_s"]["estimate"] <= d["predicted_s"]["high"]
    assert [r["name"] for r in d["resources"]][:2] == ["memory", "fp"]
    assert all({"name", "seconds", "share"} <= set(r) for r in d["resources"])


def test_predict_text(capsys):
    code, out, _ = run(capsys, "predict", "--signature", "p650", "--workload", "power4-compute-heavy")
    assert code == 0 and "binding: fp" in out and "overlapped" in out


@pytest.mark.parametrize("workload_text, words", [
    # a workload needing a kernel the signature lacks
    ("[[phases.memory]]\nops = 10\nworking_set = '1 MiB'\npattern = 'random'\n", "needs the 'maps' kernel"),
    # a working set outside the measured range (PEAK-derived: 16 KiB .. 64 MiB on the p690)
    ("[[phases.memory]]\nops = 10\nworking_set = '1 GiB'\n", "outside the measured range"),
    # negative counts
    ("[[phases.messages]]\ncount = -3\nsize = '8 B'\n", "negative"),
])
def test_bad_workloads_exit_2(capsys, tmp_path, workload_text, words):
    path = tmp_path / "bad.toml"
    path.write_text("schema = 1\n[[phases]]\n" + workload_text)
    code, out, err = run(capsys, "predict", "--signature", "p690", "--workload", str(path))
    assert code == 2 and out == ""
    assert err.startswith("pinchpoint: error: ") and str(path) in err and words in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_unknown_schema_exit_2(capsys, tmp_path):
    path = tmp_path / "future.toml"
    path.write_text("schema = 7\n[[phases]]\n")
    code, _, err = run(capsys, "predict", "--signature", "p690", "--workload", str(path))
    assert code == 2 and "schema: unsupported schema 7" in err


def test_unknown_signature_exit_2(capsys):
    code, _, err = run(capsys, "predict", "--signature", "nope", "--workload", "daxpy-l1")
    assert code == 2 and "no bundled signature named 'nope'" in err


def test_extrapolate_flag(capsys, tmp_path):
    path = tmp_path / "big.toml"
    path.write_text("schema = 1\n[[phases]]\n[[phases.memory]]\nbytes = '1 GiB'\nworking_set = '1 GiB'\n")
    code, out, _ = run(capsys, "predict", "--signature", "p690", "--workload", str(path), "--extrapolate", "--json")
    assert code == 0 and json.loads(out)["extrapolated"] is True


def test_compare_workload_side_by_side(capsys):
    code, out, _ = run(capsys, "compare", "--workload", "power4-message-heavy", "--signature", "p690", "p650",
                       "p655-1.3", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["fastest"] == ["p655-1.3"] and len(d["predictions"]) == 3
    code, out, _ = run(capsys, "compare", "--workload", "power4-compute-heavy", "--signature", "p690", "p650")
    assert code == 0 and "*p650" in out


def test_compare_profiles_unchanged(capsys):
    code, out, _ = run(capsys, "compare", "powermac-g5", "--flow", "nic-rx", "--json")
    assert code == 0 and json.loads(out)["flows"][0]["flow"] == "nic-rx"
    code, _, err = run(capsys, "compare")
    assert code == 2 and "at least one profile" in err
    code, _, err = run(capsys, "compare", "--signature", "p690")
    assert code == 2 and "--workload" in err


def test_ceilings_with_signature(capsys):
    code, out, _ = run(capsys, "ceilings", "powermac-g5", "--signature", "powermac-g5-xbench")
    assert code == 0 and "efficiency" in out and "xbench_memory" in out
    code, out, _ = run(capsys, "ceilings", "powermac-g5", "--signature", "powermac-g5-xbench", "--json")
    d = json.loads(out)
    assert d["measured"]["measured"][0]["name"] == "mem" and "flows" in d


def test_classify_command(capsys):
    code, out, _ = run(capsys, "classify", "powermac-g5", "--flow", "nic-rx", "--measured", "3.5 Gbit/s")
    assert code == 0 and "far-below-all (46% of" in out
    code, out, _ = run(capsys, "classify", "powermac-g5", "--flow", "nic-rx", "--measured", "7.8 Gbit/s", "--json")
    assert json.loads(out)["verdict"] == "at-ceiling"
    code, _, err = run(capsys, "classify", "powermac-g5", "--flow", "nic-rx", "--measured", "fast")
    assert code == 2 and "--measured" in err


def test_workloads_listing(capsys):
    code, out, _ = run(capsys, "workloads")
    assert code == 0 and "stream-triad" in out


def test_whole_process(cli):
    r = cli("predict", "--signature", "p655-1.3", "--workload", "power4-memory-heavy", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["binding"] == "memory"
    r = cli("predict", "--signature", "p690", "--workload", "pointer-chase")
    assert r.returncode == 2 and "maps" in r.stderr and "Traceback" not in r.stderr


def test_classify_figure_above_every_ceiling_is_not_hardware_bound(capsys):
    # 20 Gbit/s through the G5's PCI-X slot (8.5 Gbit/s raw) was "hardware-bound (264 %)"
    code, out, _ = run(capsys, "classify", "powermac-g5", "--flow", "nic-rx", "--measured", "20 Gbit/s")
    assert code == 0
    first = out.splitlines()[0]
    assert "above-ceiling" in first and "at-ceiling" not in first
    assert "must be wrong" in out


def test_a_signature_value_the_pricing_refuses_names_the_file(capsys, tmp_path):
    """A count the loader accepts as a number's place but the pricing cannot use (PEAK
    add_chains' instructions per chain, stated as a word): exit 2, the file and the key."""
    from synthetic_signature import synthetic_doc

    doc = synthetic_doc()
    for p in doc["kernels"]["peak"]["points"]:
        if p["op"] == "add_chains":
            p["instructions_per_chain"] = "many"
    sig = tmp_path / "sig.json"
    sig.write_text(json.dumps(doc))
    wl = tmp_path / "w.toml"
    wl.write_text("schema = 1\nname = 'w'\n[[phases]]\nname = 'p'\n[phases.flops]\nadd_multiply = 10\n"
                  "chained_adds = 10\nchains = 1\nchain_length = 8\n")
    code, out, err = run(capsys, "predict", "--signature", str(sig), "--workload", str(wl))
    assert code == 2 and out == ""
    assert f"{sig}: kernels.peak: PEAK add_chains: instructions_per_chain is 'many'" in err
