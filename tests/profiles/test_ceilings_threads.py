"""Flows with several passes are solved on threads (HiGHS releases the GIL): the answers, and
their order, are those of one thread."""

from __future__ import annotations

import os

import pytest

from pinchpoint.solve import ceilings
from pinchpoint.inputs.profile_io import bundled_profiles, load_profile


def _sequential(func, items):
    return [func(x) for x in items]


#: the bundled profiles with a flow of several passes (those run on threads)
SEVERAL_PASSES = [n for n in sorted(bundled_profiles())
                  if any(not f.single_pass for f in load_profile(n).flows.values())]


def test_some_bundled_profiles_have_flows_with_several_passes():
    assert len(SEVERAL_PASSES) >= 10


@pytest.mark.parametrize("name", SEVERAL_PASSES)
def test_threads_give_the_answers_of_one_thread(name, monkeypatch):
    profile = load_profile(name)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(4)), raising=False)
    threaded = ceilings.all_ceilings(profile)
    monkeypatch.setattr(ceilings, "_in_threads", _sequential)
    alone = ceilings.all_ceilings(load_profile(name))
    assert [c.name for c in threaded] == list(profile.flows)
    assert [c.to_dict() for c in threaded] == [c.to_dict() for c in alone]


def test_in_threads_keeps_the_order(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(3)), raising=False)
    assert ceilings._in_threads(lambda x: x * x, list(range(50))) == [x * x for x in range(50)]


def test_the_first_failing_flow_in_order_raises(monkeypatch):
    profile = load_profile("powermac-g5")
    names = list(profile.flows)
    failing = {names[1]: "first", names[-1]: "last"}
    real = ceilings.flow_ceiling

    def flaky(p, n, context=None):
        if n in failing:
            raise ValueError(failing[n])
        return real(p, n, context=context)

    monkeypatch.setattr(ceilings, "flow_ceiling", flaky)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(4)), raising=False)
    with pytest.raises(ValueError, match="first"):
        ceilings.all_ceilings(profile)
