"""The bundled fat-tree example: every host sending at once gets line rate / oversubscription.

profiles/machines/fat-tree-k4-r2.toml is a k = 4 fat tree (Al-Fares, Loukissas and Vahdat,
SIGCOMM 2008) with two hosts per edge uplink.  In its scenario every host sends to the host
half the fabric away, so every flow leaves its edge switch and its pod: an edge switch pushes
R * k/2 flows through k/2 uplinks and a pod R * k^2/4 flows through (k/2)^2 core links, and
splitting each flow evenly meets both bounds.  Each flow's ceiling is therefore line / R,
counted here from the profile's own structure, not from the solver.
"""

from __future__ import annotations

from collections import Counter

import pytest

from pinchpoint.solve.ceilings import all_ceilings, scenario_ceilings
from pinchpoint.inputs.profile_io import load_profile

NAME = "fat-tree-k4-r2"


@pytest.fixture(scope="module")
def profile():
    return load_profile(NAME)


def _oversubscription(profile) -> float:
    """Hosts per edge uplink, counted from the links: host-edge links over edge-aggregation links
    of one edge switch (edge switches are the switches that have hosts)."""
    kind = {c.id: c.kind for c in profile.components.values()}
    hosts_of, uplinks_of = Counter(), Counter()
    for link in profile.links.values():
        a, b = link.between
        if kind[a] == "nic" or kind[b] == "nic":
            hosts_of[b if kind[a] == "nic" else a] += 1
    for link in profile.links.values():
        a, b = link.between
        for edge, other in ((a, b), (b, a)):
            if edge in hosts_of and kind[other] == "switch" and other not in hosts_of:
                uplinks_of[edge] += 1
    ratios = {hosts_of[e] / uplinks_of[e] for e in hosts_of}
    assert len(ratios) == 1, "every edge switch has the same oversubscription"
    return ratios.pop()


def test_the_example_is_a_k4_fat_tree(profile):
    kinds = Counter(c.kind for c in profile.components.values())
    k, r = 4, 2
    assert kinds["switch"] == k * k + (k // 2) ** 2  # k pods of k switches, (k/2)^2 core
    assert kinds["nic"] == k ** 3 // 4 * r
    assert len(profile.links) == k ** 3 // 4 * r + k ** 3 // 2
    assert _oversubscription(profile) == r
    scenario = profile.scenarios["shift"]
    assert sorted(profile.flow(f).source for f in scenario.flows) == sorted(
        c.id for c in profile.components.values() if c.kind == "nic")  # every host sends


def test_every_host_at_once_gets_line_rate_over_oversubscription(profile):
    line = {l.capacity_bytes_per_s for l in profile.links.values()}
    effective = {l.effective_capacity_bytes_per_s for l in profile.links.values()}
    assert len(line) == 1 and len(effective) == 1  # one line rate everywhere
    line, effective = line.pop(), effective.pop()
    r = _oversubscription(profile)
    shared = scenario_ceilings(profile, "shift")
    assert len(shared) == len(profile.scenarios["shift"].flows)
    for c in shared:
        assert c.ceiling_bytes_per_s == pytest.approx(line / r, rel=1e-9), c.name
        assert c.effective_ceiling_bytes_per_s == pytest.approx(effective / r, rel=1e-9), c.name
    # alone, each flow gets the full line: the oversubscription binds only when hosts share
    for c in all_ceilings(profile):
        assert c.ceiling_bytes_per_s == pytest.approx(line, rel=1e-9), c.name


def test_a_scenario_the_solvers_cannot_answer_names_the_file(tmp_path):
    """One link at 1e-30 of the rest: too wide for floats, too large for exact arithmetic; the
    refusal comes from the solver, which knows no file, and is located on the way out."""
    from pathlib import Path

    from pinchpoint.errors import ProfileError

    text = (Path(__file__).resolve().parents[2] / "profiles" / "machines" / f"{NAME}.toml").read_text()
    at = text.rindex('rate = "1 Gbit/s"')
    case = tmp_path / "narrow.toml"
    case.write_text(text[:at] + 'rate = "1e-30 Gbit/s"' + text[at + len('rate = "1 Gbit/s"'):])
    profile = load_profile(case)
    with pytest.raises(ProfileError, match="no positive throughput") as caught:
        scenario_ceilings(profile, next(iter(profile.scenarios)))
    assert caught.value.file == str(case) and str(case) in str(caught.value)
