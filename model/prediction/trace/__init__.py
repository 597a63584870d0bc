"""Workloads from traced programs: Valgrind Callgrind, the disassembly, reductions, per-level traffic."""
