"""TCP loss models: the ceiling a loss rate puts on TCP, picked by name.

A registry, as pyhf's modifiers (``pyhf.modifiers``, extended by ``tests/test_custom_mods.py``):
:data:`LOSS_MODELS` maps a name to a :class:`LossModel`, and :func:`register_loss_model` adds one
from anywhere.  As pvlib's ``Array.get_iam`` hands an IAM model (``pvlib.iam``) only the inputs its
signature declares, diagnose hands a loss model only the parameters it names, from
:data:`AVAILABLE_INPUTS`; a model that names anything else is refused when it is registered.

``DiagnoseInputs(loss_model=...)`` picks one; the default ``"mathis"`` is Mathis et al. with
PFTK above 1 % loss (where timeouts dominate), as diagnose has always done.

References
----------
.. [1] M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The Macroscopic Behavior of the TCP Congestion
   Avoidance Algorithm", ACM SIGCOMM CCR 27(3), 1997.
.. [2] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
   its Empirical Validation" (PFTK), SIGCOMM 1998; the form of RFC 5348 section 3.1.
.. [3] RFC 9438, CUBIC for Fast and Long-Distance Networks, 2023.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable

from pinchpoint.physics import tcp
from pinchpoint.diagnose.wording import net as _net
from pinchpoint.diagnose.wording import time as _time

#: The parameters a loss model may declare, and what diagnose hands it: payload per segment
#: [B], round-trip time [s], loss probability, parallel streams, Mathis' C, raw line rate [B/s]
#: (None when unknown).
AVAILABLE_INPUTS = ("mss_bytes", "rtt_s", "loss", "streams", "mathis_c", "line_bytes_per_s")

DEFAULT_LOSS_MODEL = "mathis"


@dataclass(frozen=True)
class LossCeiling:
    """What a loss model returns: the ceiling on all streams together [B/s] and how it was worked out.

    ``warning`` (optional) becomes a note of the verdict, e.g. that a formula is used outside its
    validity range.
    """

    bytes_per_s: float
    formula: str
    note: str = ""
    warning: str | None = None


@dataclass(frozen=True)
class LossModel:
    """One registered model: its name, its function and the inputs its signature declares."""

    name: str
    function: Callable[..., LossCeiling]
    inputs: tuple[str, ...]

    def __call__(self, available: dict) -> LossCeiling:
        result = self.function(**{k: available[k] for k in self.inputs})
        if not isinstance(result, LossCeiling):
            raise TypeError(f"loss model {self.name!r} returned {type(result).__name__}, not a LossCeiling")
        return result


#: name -> model; extend with :func:`register_loss_model`.
LOSS_MODELS: dict[str, LossModel] = {}


def register_loss_model(name: str, function: Callable[..., LossCeiling] | None = None, *, replace: bool = False):
    """Register ``function`` as the loss model ``name``; usable as a decorator.

    The function's parameters must all be among :data:`AVAILABLE_INPUTS`; it returns a
    :class:`LossCeiling`.  Registering a name twice needs ``replace=True``.
    """
    def add(fn):
        if not name or not isinstance(name, str):
            raise ValueError(f"a loss model needs a name, got {name!r}")
        if name in LOSS_MODELS and not replace:
            raise ValueError(f"loss model {name!r} is already registered (replace=True to override)")
        params = tuple(inspect.signature(fn).parameters)
        unknown = [p for p in params if p not in AVAILABLE_INPUTS]
        if unknown:
            raise ValueError(f"loss model {name!r} declares {', '.join(unknown)}: a loss model may take "
                             f"{', '.join(AVAILABLE_INPUTS)}")
        LOSS_MODELS[name] = LossModel(name, fn, params)
        return fn

    return add if function is None else add(function)


@register_loss_model("mathis")
def mathis_or_pftk(mss_bytes: float, rtt_s: float, loss: float, streams: int, mathis_c: float) -> LossCeiling:
    """Mathis et al. [1]_ within its validity range, PFTK [2]_ (b matching C) above it; CUBIC [3]_ noted."""
    p, c, n, mss, rtt = loss, mathis_c, streams, mss_bytes, rtt_s
    ok, why = tcp.mathis_validity(p)
    mathis = tcp.mathis_ceiling(mss, rtt, p, c, n)
    cubic = tcp.cubic_ceiling(mss, rtt, p, n)
    b = 3 / (2 * c * c)  # PFTK's b matching this C: C = sqrt(3 / (2 b))
    pftk = n * tcp.pftk_ceiling(mss, rtt, p, b=b)
    stream_text = f"{n} x " if n > 1 else ""
    if ok:
        formula = (f"Mathis: {stream_text}(MSS / RTT) x C / sqrt(p) = {stream_text}({mss:g} B / {_time(rtt)})"
                   f" x {c:g} / sqrt({p:g}) = {_net(mathis)}")
        note = f"{why}; PFTK with timeouts: {_net(pftk)}; CUBIC (RFC 9438): {_net(cubic)}"
        return LossCeiling(mathis, formula, note)
    formula = (f"PFTK (RFC 5348): {stream_text}s / (R sqrt(2bp/3) + 4R 3 sqrt(3bp/8) p (1 + 32 p^2)), "
               f"s = {mss:g} B, R = {_time(rtt)}, p = {p:g}, b = {b:.3g} = {_net(pftk)}")
    note = f"Mathis not valid here ({why}); Mathis would give {_net(mathis)}"
    return LossCeiling(pftk, formula, note, warning=f"Mathis' formula is outside its validity range: {why}")
