"""Each kind's formula text, evaluated by sympy at random parameter values drawn from the
parameters' own ranges (Param.problem), equals what its capacity and efficiency functions return
for floats.  The symbolic check (test_link_kinds) compares expressions; this one exercises the
numeric path the ceilings use, so a function that treats floats differently from symbols (a
branch, a rounding) is caught too.  Only our own formula strings are parsed."""

from __future__ import annotations

import math
import random

import pytest
import sympy

from pinchpoint.physics.linkkinds import KINDS, Param

DRAWS = 25
#: the per-transfer terms apply only where a profile states them: the formula texts leave them out
_TRANSFER = ("transfer_size", "transfer_cost")


def draw_value(p: Param, rng: random.Random) -> float:
    """A random valid value of ``p`` [SI], from its choices, bounds and kind of number."""
    if p.choices:
        value = rng.choice(p.choices)
    elif p.integer:
        lo = int(p.minimum) if p.minimum is not None else (1 if p.positive else 0)
        value = float(rng.randint(lo, int(p.maximum) if p.maximum is not None else 64))
    elif p.maximum is not None:  # a fraction or a bounded count
        lo = p.minimum if p.minimum is not None else 0.0
        value = rng.uniform(lo, p.maximum)
        if not p.maximum_included:
            value = min(value, p.maximum * 0.999)
        value = max(value, 1e-3) if p.positive else value
    else:  # a rate, size, clock or time: any order of magnitude (above its minimum)
        value = max(10 ** rng.uniform(-3, 11), p.minimum or 0.0)
    assert p.problem(value) is None, (p.name, value)
    return value


def _draws(kind, seed):
    rng = random.Random(seed)
    for _ in range(DRAWS):
        yield {p.name: draw_value(p, rng) for p in kind.params if p.name not in _TRANSFER}


def _evaluate(text: str, values: dict) -> float:
    syms = {name: sympy.Symbol(name, positive=True) for name in values}
    expr = sympy.sympify(text, locals=syms)
    return float(expr.subs({syms[k]: sympy.Float(v, 30) for k, v in values.items()}))


@pytest.mark.parametrize("name", sorted(KINDS))
def test_formula_text_gives_the_functions_value_at_random_values(name):
    kind = KINDS[name]
    for values in _draws(kind, seed=sum(map(ord, name))):
        got = float(kind.capacity(values))
        assert math.isclose(got, _evaluate(kind.formula, values), rel_tol=1e-12), (name, values)
        if kind.efficiency is not None:
            eff = float(kind.efficiency(values))
            assert math.isclose(eff, _evaluate(kind.efficiency_formula, values), rel_tol=1e-12), (name, values)
        if kind.read_efficiency is not None:  # reads: completions bring the data (PCIe)
            read = float(kind.read_efficiency(values))
            text = kind.read_efficiency_formula.replace("min(", "Min(")
            assert math.isclose(read, _evaluate(text, values), rel_tol=1e-12), (name, values)


def test_a_wrong_formula_text_is_caught():
    """The check can fail: a formula text off by a factor of two does not pass."""
    kind = KINDS["memory"]
    values = next(_draws(kind, seed=1))
    assert not math.isclose(float(kind.capacity(values)), _evaluate(kind.formula + "*2", values), rel_tol=1e-12)
