"""A normal (non-editable) wheel carries the profiles and the kernels and works from anywhere."""

from __future__ import annotations

import configparser
import json
import os
import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_install_finds_bundled_data(tmp_path):
    dist = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                            "-w", str(dist), str(ROOT)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next(dist.glob("pinchpoint-*.whl"))
    env_dir = tmp_path / "venv"
    # The test environment's site-packages provide the dependencies; the wheel itself is new.
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    _see_test_site_packages(python)
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                              "--force-reinstall", str(wheel)], capture_output=True, text=True, timeout=600)
    if install.returncode != 0 and "no such option: --python" in install.stderr:
        pytest.skip("pip too old for --python")
    assert install.returncode == 0, install.stderr[-2000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run([str(python), "-c", "import pinchpoint, sys; print(pinchpoint.__file__)"],
                           cwd=elsewhere, capture_output=True, text=True, env=env)
    assert str(env_dir) in where.stdout, "the venv imported a pinchpoint other than the wheel's"
    out = subprocess.run([str(env_dir / "bin" / "pinchpoint"), "ceilings", "powermac-g5", "--json"],
                         cwd=elsewhere, capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    flows = {f["name"]: f for f in json.loads(out.stdout)["flows"]}
    assert flows["nic-rx"]["binding"] == ["pcix"]
    kernels = subprocess.run([str(python), "-c",
                              "from pinchpoint.paths import data_root; "
                              "print(sorted(p.name for p in data_root('kernels').glob('*.c')))"],
                             cwd=elsewhere, capture_output=True, text=True, env=env)
    assert "maps.c" in kernels.stdout, kernels.stdout + kernels.stderr
    table = subprocess.run([str(python), "-c", "from pinchpoint.physics import units; print(len(units._table()))"],
                           cwd=elsewhere, capture_output=True, text=True, env=env)
    assert int(table.stdout) > 100, table.stdout + table.stderr  # the wheel carries units_table.json
    assert str(env_dir) in subprocess.run(
        [str(python), "-c", "from pinchpoint.paths import data_root; print(data_root('profiles'))"],
        cwd=elsewhere, capture_output=True, text=True, env=env).stdout


def test_outer_site_packages_is_seen_from_the_nested_venv(tmp_path):
    """Run from inside a venv, ``system_site_packages`` would show the base interpreter's packages
    (no pint there): the nested venv must see this interpreter's own site-packages."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    _see_test_site_packages(python)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([str(python), "-c", "import pint, numpy; print(pint.__name__)"],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.strip() == "pint", out.stderr[-2000:]


def test_report_dependencies_are_core_dependencies():
    """``pinchpoint report`` and every ``--plot`` draw with matplotlib: a plain ``pip install .``
    must bring it."""
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    core = {line.split(">")[0].split("=")[0].strip().lower()
            for line in cfg["options"]["install_requires"].splitlines()
            if line.strip() and not line.strip().startswith("#")}
    assert "matplotlib" in core


def _see_test_site_packages(python: Path) -> None:
    """Put this interpreter's site-packages after the venv's own (a .pth file), whether or not it
    runs inside a venv itself."""
    dirs = [*site.getsitepackages(), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    unique = [d for i, d in enumerate(dirs) if d not in dirs[:i] and Path(d).is_dir()]
    (Path(purelib) / "_pinchpoint_test_deps.pth").write_text("\n".join(unique) + "\n")
