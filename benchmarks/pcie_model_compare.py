"""pinchpoint's PCIe write rates beside pcie-model's (Neugebauer et al., SIGCOMM 2018).

pcie-model (https://github.com/pcie-bench/pcie-model, Apache-2.0) is not bundled: give the folder of
a checkout and this script imports its ``model.pcie`` and ``model.mem_bw`` (their code is run, not
copied).  For PCIe generations 1-4, x1-x16, MPS 128/256/512 and writes of 64 B .. 4 KiB it prints
both effective rates and their ratio, then the range of the ratio per generation and width.

Both count ceil(size / MPS) TLPs of 24 bytes beside the data (framing, sequence number, 4DW header,
LCRC); they differ in what the data direction loses besides:
  - pcie-model subtracts 8 bytes per ACK latency limit and per FC update interval (the PCIe spec's
    tables, in symbol times) and SKP ordered sets from every direction's raw rate;
  - pinchpoint charges the data direction nothing for DLLPs (the ACK/FC DLLPs that answer a write
    travel the other way, ``acks_per_tlp`` per TLP, and cost only when that direction carries data
    too; see protocols.pcie_rates).
Within one generation, width and MPS the ratio is the same at every size: the TLP accounting agrees
and only the DLLP share differs.  Where it differs most (gen 1 x16, MPS 128: pinchpoint 1.43 x) the
cause is a unit: the spec's ACK latency limits and FC update intervals are in symbol times, which
pass on every lane at once; pcie-model divides the 8-byte DLLP by the limit as if it were bytes of the
whole link, so on an xN link it charges about N times the share the spec's rates imply (gen 3 x16,
MPS 256: an ACK per 168 symbol times is 8 of 2688 bytes, 0.3 %; pcie-model charges 8/168 = 4.8 %, as
much again for FC updates).  So pinchpoint's write rates lie above pcie-model's by its DLLP share.
Run: python3 benchmarks/pcie_model_compare.py PCIE_MODEL_DIR [--all]
"""

from __future__ import annotations

import sys
from pathlib import Path

from pinchpoint.physics import protocols
from pinchpoint.physics.linkkinds import PCIE_GENERATIONS

GENS = (1, 2, 3, 4)
LANES = (1, 2, 4, 8, 16)
MPSS = (128, 256, 512)
SIZES = (64, 128, 256, 512, 1024, 2048, 4096)


def theirs(pcie, mem_bw, gen: int, lanes: int, mps: int, size: int) -> float:
    """pcie-model's effective write rate [Gbit/s] (64-bit addresses, no ECRC, MRRS 512, RCB 64)."""
    cfg = pcie.Cfg(version=f"gen{gen}", lanes=f"x{lanes}", addr=64, ecrc=0, mps=mps, mrrs=512, rcb=64)
    spec = pcie.BW_Spec(cfg.TLP_bw, cfg.TLP_bw, pcie.BW_Spec.BW_RAW)
    return mem_bw.write(cfg, spec, size).tx_eff


def ours(gen: int, lanes: int, mps: int, size: int) -> float:
    g = PCIE_GENERATIONS[gen]
    raw = g.lane_rate * lanes * g.encoding / 8
    return float(protocols.pcie_rates(raw, float(size), mps=float(mps))["write"]) * 8 / 1e9


def main(argv: list[str]) -> int:
    if not argv or not (Path(argv[0]) / "model" / "mem_bw.py").is_file():
        print(__doc__)
        print("error: give the folder of a pcie-model checkout (it has model/mem_bw.py)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(argv[0]).resolve()))
    from model import mem_bw, pcie  # noqa: E402  (pcie-model's package is called 'model')

    show_all = "--all" in argv
    if show_all:
        print(f"{'gen':>3} {'lanes':>5} {'mps':>4} {'size':>5} {'pcie-model':>11} {'pinchpoint':>11} {'ratio':>6}")
    ranges: dict[tuple[int, int], list[float]] = {}
    for gen in GENS:
        for lanes in LANES:
            for mps in MPSS:
                for size in SIZES:
                    a, b = theirs(pcie, mem_bw, gen, lanes, mps, size), ours(gen, lanes, mps, size)
                    ranges.setdefault((gen, lanes), []).append(b / a)
                    if show_all:
                        print(f"{gen:>3} {lanes:>5} {mps:>4} {size:>5} {a:>11.3f} {b:>11.3f} {b / a:>6.3f}")
    print("pinchpoint / pcie-model, effective write rate (gen 1-4, MPS 128/256/512, 64 B - 4 KiB writes)")
    print(f"{'gen':>3} {'lanes':>5} {'min':>6} {'max':>6}")
    for (gen, lanes), r in sorted(ranges.items()):
        print(f"{gen:>3} {lanes:>5} {min(r):>6.3f} {max(r):>6.3f}")
    every = [x for r in ranges.values() for x in r]
    print(f"all: {min(every):.3f} .. {max(every):.3f} over {len(every)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
