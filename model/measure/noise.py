"""Noise in repeated measurements: which points of a signature spread too much to trust.

A kernel measured several times on a quiet machine repeats within a few per cent; on a shared
VM the same MAPS point read 32.8, 41.7, 59.5 and 45.0 GB/s over four runs.
likwid-bench and STREAM report the best of their repetitions for bandwidth ("Best Rate MB/s",
McCalpin, STREAM FAQ) because interference only ever slows a transfer down; pinchpoint keeps
every repetition and flags a point whose max / min exceeds :data:`NOISE_LIMIT` so that nobody
reads a noisy median as a property of the machine.  Layer 3: pure.
"""

from __future__ import annotations

from dataclasses import dataclass

#: max / min over the repetitions of one point above which it is reported as noisy.
NOISE_LIMIT = 1.2


@dataclass(frozen=True)
class NoisyPoint:
    """One point whose repetitions spread more than the limit."""

    kernel: str
    params: dict
    spread: float  # max / min over the repetitions
    repetitions: int

    def describe(self) -> str:
        label = " ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.kernel} {label}: max/min {self.spread:.2f} over {self.repetitions} repetitions"

    def to_dict(self) -> dict:
        return {"kernel": self.kernel, "params": dict(self.params), "spread": self.spread,
                "repetitions": self.repetitions}


def noisy_points(signature, limit: float = NOISE_LIMIT) -> tuple[NoisyPoint, ...]:
    """Every point with at least two repetitions whose max / min exceeds ``limit`` (> 1);
    ``signature`` None only checks the limit."""
    if not limit > 1:
        from pinchpoint.errors import InputError
        raise InputError(f"the noise limit is a max/min ratio above 1, got {limit!r}", key="noise_limit")
    if signature is None:
        return ()
    out = []
    for kernel, run in signature.kernels.items():
        for p in run.points:
            r = p.result
            if len(r.repetitions) >= 2 and r.spread > limit:
                out.append(NoisyPoint(kernel, dict(p.params), r.spread, len(r.repetitions)))
    return tuple(out)


def noise_summary(points, limit: float = NOISE_LIMIT) -> str | None:
    """One sentence for a warning (None when nothing is noisy): how many points, the worst."""
    if not points:
        return None
    worst = max(points, key=lambda p: p.spread)
    return (f"{len(points)} point{'s' if len(points) != 1 else ''} spread more than max/min "
            f"{limit:g} over their repetitions (worst: {worst.describe()}): the machine was busy or "
            f"its clock changed; rerun on a quiet machine, pin the threads (measure --cpus), or predict "
            f"with --stat best (the fastest repetition)")
