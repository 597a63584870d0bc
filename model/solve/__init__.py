"""Ceilings from the graph: max-flow and linear programs, symbolic formulas, sweeps, uncertainty, comparisons."""
