"""The workload format: every bundled file loads, and every validation rule fires."""

from __future__ import annotations

import pytest

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.workload import bundled_workloads, load_workload, loads_workload

BASE = '''schema = 1
name = "w"
[[phases]]
name = "p"
'''


def test_every_bundled_workload_loads():
    names = bundled_workloads()
    for want in ("stream-triad", "daxpy-l1", "daxpy-dram", "dot-l2", "pointer-chase",
                 "tcp-receive-one-copy", "ping-pong", "io-phase", "power4-compute-heavy",
                 "power4-memory-heavy", "power4-message-heavy"):
        assert want in names
    for name in names:
        w = load_workload(name)
        assert w.name == name and w.phases


def test_quantities_are_parsed_with_units():
    w = loads_workload(BASE + '''
[[phases.memory]]
ops = 1000
bytes_per_op = "64 bit"
working_set = "4 MiB"
[[phases.messages]]
count = 10
size = "1 KiB"
[[phases.io]]
bytes = "1 GB"
''')
    m = w.phases[0].memory[0]
    assert m.bytes == 8000.0 and m.working_set_bytes == 4 * 2 ** 20 and m.op == "load"
    assert w.phases[0].messages[0].size_bytes == 1024.0
    assert w.phases[0].io[0].bytes == 1e9


def test_daxpy_counts():
    # DAXPY n = 2^21: 2 loads + 1 store of 8 B and 2 flop per element (24 B per 2 flop)
    w = load_workload("daxpy-dram")
    n = 2 ** 21
    assert sum(m.bytes for m in w.phases[0].memory) == 24 * n
    assert w.phases[0].flops.total == 2 * n


@pytest.mark.parametrize("text, key, words", [
    ("schema = 2\n[[phases]]\n", "schema", "unsupported schema 2"),
    ("schema = true\n[[phases]]\n", "schema", "unsupported schema"),
    ("name = 'x'\n", "schema", "missing"),
    ("schema = 1\n", "phases", "missing"),
    ("schema = 1\ncolour = 1\n[[phases]]\n", "colour", "unknown key"),
    (BASE + "repeat = -1\n", "phases[0].repeat", "negative"),
    (BASE + "[[phases.memory]]\nops = -5\nworking_set = '1 MiB'\n", "phases[0].memory[0].ops", "negative"),
    (BASE + "[phases.flops]\nfma = -1e6\n", "phases[0].flops.fma", "negative"),
    (BASE + "[[phases.messages]]\ncount = -1\nsize = '8 B'\n", "phases[0].messages[0].count", "negative"),
    (BASE + "[[phases.messages]]\ncount = 1\nsize = '-8 B'\n", "phases[0].messages[0].size", "negative"),
    (BASE + "[[phases.memory]]\nops = 5\nworking_set = '1 MHz'\n", "phases[0].memory[0].working_set", "not a size"),
    (BASE + "[[phases.memory]]\nops = 5\nworking_set = 4096\n", "phases[0].memory[0].working_set", "string with a unit"),
    (BASE + "[[phases.memory]]\nops = 5\n", "phases[0].memory[0]", "give working_set, hit_rates or both"),
    (BASE + "[[phases.memory]]\nops = 5\nbytes = '1 MiB'\nworking_set = '1 MiB'\n", "phases[0].memory[0]", "not both"),
    (BASE + "[[phases.memory]]\nops = 5\nworking_set = '1 MiB'\npattern = 'strided'\n", "phases[0].memory[0].pattern", "not one of"),
    (BASE + "[[phases.memory]]\nops = 5\nhit_rates = {L1 = 0.5, memory = 0.2}\n", "phases[0].memory[0].hit_rates", "sum to 0.7"),
    (BASE + "[[phases.memory]]\nops = 5\nhit_rates = {L9 = 1.0}\n", "phases[0].memory[0].hit_rates.L9", "unknown key"),
    (BASE + "[[phases.memory]]\nops = 5\nworking_set = '1 MiB'\nin_place = true\n", "phases[0].memory[0].in_place", "only stores"),
    (BASE + "[[phases.io]]\nbytes = '1 MiB'\ntest = 'sideways'\n", "phases[0].io[0].test", "not one of"),
    (BASE + "[[phases.messages]]\ncount = 1\nsize = '8 B'\npattern = 'broadcast'\n", "phases[0].messages[0].pattern", "not one of"),
    (BASE + "[[phases.network]]\nbytes = '1 GB'\nmemory_passes = -2\n", "phases[0].network[0].memory_passes", "negative"),
    (BASE + "[phases.flops]\nloop_length = 10.5\n", "phases[0].flops.loop_length", "whole number"),
    (BASE + "[phases.flops]\nadd_multiply = 4\nchained_adds = 8\nchains = 2\n", "phases[0].flops.chained_adds", "more than the 4 add_multiply"),
    (BASE + "[phases.flops]\nfma = 4\nchained_fma = 4\n", "phases[0].flops.chains", "missing"),
    (BASE + "[phases.flops]\nfma = 4\nchained_fma = 6\nchains = 2\n", "phases[0].flops.chained_fma", "more than the 4 fma"),
    (BASE + "[phases.flops]\nfma = 4\nchained_fma = 4\nchains = 0\n", "phases[0].flops.chains", "at least 1"),
    (BASE + "[phases.flops]\nfma = 4\nchained_fma = 4\nchains = 2.5\n", "phases[0].flops.chains", "whole number"),
])
def test_validation_rules(text, key, words):
    with pytest.raises(WorkloadError) as exc:
        loads_workload(text, file="w.toml")
    assert exc.value.file == "w.toml"
    assert exc.value.key == key
    assert words in exc.value.message


def test_bad_toml_names_the_file():
    with pytest.raises(WorkloadError, match="w.toml.*not valid TOML"):
        loads_workload("schema = = 1", file="w.toml")


def test_unknown_bundled_name():
    with pytest.raises(WorkloadError, match="no bundled workload named 'nope'"):
        load_workload("nope")
