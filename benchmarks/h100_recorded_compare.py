"""pinchpoint's PCIe model beside the transfers measured on a recorded H100 host.

Measured (the figures tests/profiles/test_pcie_behaviour.py also holds): NVIDIA H100 80GB HBM3 at PCIe 5.0 x16 in a KVM guest,
pinned host buffers, CUDA copy engines, fastest of 10.  The model: the h100-pcie-host profile's pcie
link (MPS 256, MRRS 512, one ACK/FC DLLP per TLP received, counted on the direction that carries
it), host -> GPU as device reads, GPU -> host as device writes, both at once as reads one way and
writes the other, with the 8 us per-transfer cost h100-pcie-host-1mib states (read off the 4 MiB
host -> GPU point).
Run: python3 benchmarks/h100_recorded_compare.py
"""

from __future__ import annotations

from pinchpoint.physics.linkkinds import pcie_link_rates
from pinchpoint.inputs.profile_io import load_profile

SIZES = (64 * 2**10, 256 * 2**10, 2**20, 4 * 2**20, 16 * 2**20, 64 * 2**20, 256 * 2**20, 2**30)
# GB/s, the recorded README's table
H2D = (3.99, 17.03, 38.82, 50.16, 53.85, 54.77, 54.55, 54.80)
D2H = (4.10, 17.69, 40.26, 50.80, 54.06, 54.34, 54.96, 55.02)
BOTH_TOTAL = (2.30, 8.88, 28.71, 60.40, 86.07, 94.16, 95.05, 94.61)
COST = 8e-6


def main() -> int:
    p = dict(load_profile("h100-pcie-host").links["pcie"].values(), transfer_cost=COST)
    print(f"{'size':>9}  {'H2D meas':>8} {'model':>6} {'err':>6}  {'D2H meas':>8} {'model':>6} {'err':>6}  "
          f"{'both meas':>9} {'model':>6} {'err':>6}")
    for s, h, d, b in zip(SIZES, H2D, D2H, BOTH_TOTAL):
        r = {k: v / 1e9 for k, v in pcie_link_rates(p, float(s)).items()}
        both = 2 * r["both"]
        print(f"{s:>9}  {h:>8.2f} {r['read']:>6.2f} {r['read'] / h - 1:>+6.1%}  {d:>8.2f} {r['write']:>6.2f} "
              f"{r['write'] / d - 1:>+6.1%}  {b:>9.2f} {both:>6.2f} {both / b - 1:>+6.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
