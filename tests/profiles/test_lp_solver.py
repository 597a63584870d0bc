"""The ceilings' linear program goes to HiGHS through highspy: silently, and with the program
it was given (coordinates that repeat add up, as scipy.sparse's did)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from pinchpoint.solve import lp


def test_the_solver_prints_nothing():
    """highspy's Highs wrapper prints a banner on stdout when made: it would corrupt --json."""
    code = ("from pinchpoint.solve.lp import Coo as _Coo, highs as _highs\n"
            "import numpy as np\n"
            "a_ub = _Coo(np.array([0]), np.array([0]), np.array([1.0]), (1, 1))\n"
            "a_eq = _Coo(np.zeros(0, int), np.zeros(0, int), np.zeros(0), (0, 1))\n"
            "assert _highs(a_ub, np.array([2.0]), a_eq, 1)[0][0] == 2.0\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == ""


def test_repeated_coordinates_add_up():
    """Maximise x0 subject to (0.5 + 0.5) x0 + x1 <= 4 and x0 - x1 = 0: x0 = x1 = 2, and the
    capacity row's dual is d x0 / d b = 1 / 2."""
    a_ub = lp.Coo(np.array([0, 0, 0]), np.array([0, 0, 1]), np.array([0.5, 0.5, 1.0]), (1, 2))
    a_eq = lp.Coo(np.array([0, 0]), np.array([0, 1]), np.array([1.0, -1.0]), (1, 2))
    x, duals = lp.highs(a_ub, np.array([4.0]), a_eq, 2)
    assert x == pytest.approx([2.0, 2.0], rel=1e-6)
    assert duals == pytest.approx([0.5], rel=1e-6)
    assert (a_ub @ x) == pytest.approx([4.0], rel=1e-6)


def test_an_unbounded_program_is_no_answer():
    a_ub = lp.Coo(np.array([0]), np.array([1]), np.array([1.0]), (1, 2))  # x0 unconstrained
    a_eq = lp.Coo(np.zeros(0, int), np.zeros(0, int), np.zeros(0), (0, 2))
    assert lp.highs(a_ub, np.array([1.0]), a_eq, 2) is None
