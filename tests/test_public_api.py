"""The documented Python API (issue 17): ``pinchpoint.__all__`` holds what a notebook needs,
imported lazily; it agrees with the modules behind it; results print with units; README.md
documents every name; the notebooks use nothing else."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import pinchpoint as pp

ROOT = Path(__file__).resolve().parents[1]
MODULES = {"tcp", "usl", "queueing", "detect", "plots_report", "plan_view"}


def test_every_public_name_resolves_and_is_not_hidden_by_a_submodule():
    import importlib
    import pkgutil

    # import every submodule: each binds its name on the package, which must hide no API name
    for info in pkgutil.iter_modules(pp.__path__):
        if not info.ispkg:
            importlib.import_module(f"pinchpoint.{info.name}")
    for name in pp.__all__:
        value = getattr(pp, name)
        assert isinstance(value, types.ModuleType) == (name in MODULES), name


def test_import_is_light():
    code = ("import sys, pinchpoint; heavy = [m for m in ('pint', 'numpy', 'networkx', 'scipy', 'sympy', "
            "'matplotlib') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nonesuch'"):
        pp.nonesuch  # noqa: B018


def test_api_agrees_with_the_modules_behind_it():
    from pinchpoint.solve.ceilings import all_ceilings
    from pinchpoint.prediction.convolve import convolve
    from pinchpoint.diagnose import DiagnoseInputs, diagnose
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.inputs.signature import load_bundled
    from pinchpoint.solve.sweep import parse_vary, sweep
    from pinchpoint.inputs.workload import load_workload

    g5 = load_profile("powermac-g5")
    assert [c.ceiling_bytes_per_s for c in pp.all_ceilings("powermac-g5")] == \
        [c.ceiling_bytes_per_s for c in all_ceilings(g5)]
    assert pp.predict("p690", "power4-memory-heavy").low_s == \
        convolve(load_bundled("p690"), load_workload("power4-memory-heavy")).low_s
    # AARNet's 2008 talk: 260 Mbit/s over 1 Gbit/s, RTT 44.5 ms, 64 KiB window, given with units
    a = pp.diagnose_rate("260 Mbit/s", link="1 Gbit/s", rtt="44.5 ms", window="64 KiB")
    b = diagnose(DiagnoseInputs(measured_bytes_per_s=260e6 / 8, line_bytes_per_s=1e9 / 8, rtt_s=44.5e-3,
                                window_bytes=65536.0))
    assert a.to_dict() == b.to_dict()
    s = pp.sweep_ceiling(g5, "nic-rx", "pcix.clock=66MHz..266MHz:5")
    assert s.ceiling.tolist() == sweep(g5, "nic-rx", [parse_vary("pcix.clock=66MHz..266MHz:5", g5)]).ceiling.tolist()


def test_results_print_with_units():
    g5 = pp.load_profile("powermac-g5")
    # PCI-X: 64 bit x 133 MHz = 8.512 Gbit/s = 1.064 GB/s (Visser and Hilster, G5 Performance Report, 2.1.1)
    assert repr(pp.flow_ceiling(g5, "nic-rx")).startswith("Ceiling(nic-rx: 1.064 GB/s = 8.512 Gbit/s, binding pcix")
    assert repr(g5.links["pcix"]) == "Link(pcix: pci-x nic <-> pcix-bridge, 1.064 GB/s = 8.512 Gbit/s)"
    assert "260 Mbit/s" in repr(pp.diagnose_rate("260 Mbit/s", link="1 Gbit/s"))
    assert re.search(r"Prediction\(power4-memory-heavy on p690: [\d.]+ s \(overlapped\) \.\. [\d.]+ s",
                     repr(pp.predict("p690", "power4-memory-heavy")))
    assert repr(pp.load_signature("p690")).startswith("Signature('p690': IBM POWER4 1.3 GHz")
    assert "Profile('powermac-g5': 7 components, 6 links" in repr(g5)
    # 66 MHz x 64 bit = 4.224 Gbit/s .. the 10 Gbit/s Ethernet line at 266 MHz
    assert repr(pp.sweep_ceiling(g5, "nic-rx", "pcix.clock=66MHz..266MHz:3")).endswith(
        "528 MB/s = 4.224 Gbit/s .. 1.25 GB/s = 10 Gbit/s)")


def test_readme_documents_every_public_name():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Python API", 1)[1].split("\n## ", 1)[0]
    missing = [n for n in pp.__all__ if f"`{n}" not in section]
    assert not missing, f"README's Python API section lacks {missing}"


def test_notebooks_use_only_the_public_api():
    allowed = set(pp.__all__)
    for nb_path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = json.loads(nb_path.read_text())
        code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        assert not re.search(r"from pinchpoint\.\w|import pinchpoint\.\w", code), nb_path.name
        for names in re.findall(r"from pinchpoint import (?:\(([\w\s,]+)\)|([\w ,]+)$)", code, flags=re.M):
            names = names[0] or names[1]
            used = {n.strip() for n in names.replace("\n", ",").split(",") if n.strip()}
            assert used <= allowed, (nb_path.name, used - allowed)
