"""TCP loss models: the ceiling a loss rate puts on TCP, picked by name.

A registry, as pyhf's modifiers (``pyhf.modifiers``, extended by ``tests/test_custom_mods.py``):
:data:`LOSS_MODELS` maps a name to a :class:`LossModel`, and :func:`register_loss_model` adds one
from anywhere.  As pvlib's ``Array.get_iam`` hands an IAM model (``pvlib.iam``) only the inputs its
signature declares, diagnose hands a loss model only the parameters it names, from
:data:`AVAILABLE_INPUTS`; a model that names anything else is refused when it is registered.
Each model is registered with the loss rates it is valid for; outside them the verdict says so.

The models, as Linux runs TCP:

- ``cubic`` (the default: Linux's congestion control since 2.6.19, and Windows' and macOS'
  today): RFC 9438's response function, never below Reno's; PFTK above 1 % loss;
- ``reno`` (alias ``mathis``): Mathis et al., PFTK above 1 % loss;
- ``pftk``: Padhye et al. with timeouts, at any loss rate;
- ``bbr``: not loss-based; its bound is the bottleneck rate (less what is lost) and the window
  (the BDP), not the loss rate (Cardwell et al. 2016).

References
----------
.. [1] M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The Macroscopic Behavior of the TCP Congestion
   Avoidance Algorithm", ACM SIGCOMM CCR 27(3), 1997.
.. [2] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
   its Empirical Validation" (PFTK), SIGCOMM 1998; the form of RFC 5348 section 3.1.
.. [3] RFC 9438, CUBIC for Fast and Long-Distance Networks, 2023, section 5.1.
.. [4] N. Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016.
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

DEFAULT_LOSS_MODEL = "cubic"


@dataclass(frozen=True)
class LossCeiling:
    """What a loss model returns: the ceiling on all streams together [B/s] and how it was worked out.

    ``warning`` (optional) becomes a note of the verdict, e.g. that a formula is used outside its
    validity range.  ``kind`` is the limit's kind: "loss", or "bottleneck" for a model whose
    bound is not the loss rate (BBR).
    """

    bytes_per_s: float
    formula: str
    note: str = ""
    warning: str | None = None
    kind: str = "loss"


@dataclass(frozen=True)
class LossModel:
    """One registered model: its name, function, declared inputs and valid loss rates (lo, hi]."""

    name: str
    function: Callable[..., LossCeiling | None]
    inputs: tuple[str, ...]
    valid_loss: tuple[float, float] = (0.0, 1.0)
    description: str = ""
    inverse: Callable[..., float] | None = None  # (rate, mss, rtt, streams) -> loss rate

    def __call__(self, available: dict) -> LossCeiling | None:
        result = self.function(**{k: available[k] for k in self.inputs})
        if result is not None and not isinstance(result, LossCeiling):
            raise TypeError(f"loss model {self.name!r} returned {type(result).__name__}, not a LossCeiling")
        return result

    def valid_for(self, loss: float) -> bool:
        lo, hi = self.valid_loss
        return lo < loss <= hi


#: name -> model; extend with :func:`register_loss_model`.
LOSS_MODELS: dict[str, LossModel] = {}


def register_loss_model(name: str, function: Callable[..., LossCeiling | None] | None = None, *,
                        replace: bool = False, valid_loss: tuple[float, float] = (0.0, 1.0),
                        description: str = "", inverse: Callable[..., float] | None = None):
    """Register ``function`` as the loss model ``name``; usable as a decorator.

    The function's parameters must all be among :data:`AVAILABLE_INPUTS`; it returns a
    :class:`LossCeiling` (or None when it puts no bound on the figure with these inputs).
    ``valid_loss`` is the range (lo, hi] of loss rates the model is valid for.  Registering a
    name twice needs ``replace=True``.
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
        lo, hi = valid_loss
        if not 0.0 <= lo < hi <= 1.0:
            raise ValueError(f"loss model {name!r}: valid_loss must be 0 <= lo < hi <= 1, got {valid_loss!r}")
        LOSS_MODELS[name] = LossModel(name, fn, params, (float(lo), float(hi)), description, inverse)
        return fn

    return add if function is None else add(function)


def _pftk(mss, rtt, p, c, n) -> float:
    b = 3 / (2 * c * c)  # PFTK's b matching this C: C = sqrt(3 / (2 b))
    return n * tcp.pftk_ceiling(mss, rtt, p, b=b)


def _pftk_formula(mss, rtt, p, c, n, value) -> str:
    stream_text = f"{n} x " if n > 1 else ""
    return (f"PFTK (RFC 5348): {stream_text}s / (R sqrt(2bp/3) + 4R 3 sqrt(3bp/8) p (1 + 32 p^2)), "
            f"s = {mss:g} B, R = {_time(rtt)}, p = {p:g}, b = {3 / (2 * c * c):.3g} = {_net(value)}")


def mathis_or_pftk(mss_bytes: float, rtt_s: float, loss: float, streams: int, mathis_c: float) -> LossCeiling:
    """Reno: Mathis et al. [1]_ within its validity range, PFTK [2]_ (b matching C) above it."""
    p, c, n, mss, rtt = loss, mathis_c, streams, mss_bytes, rtt_s
    ok, why = tcp.mathis_validity(p)
    mathis = tcp.mathis_ceiling(mss, rtt, p, c, n)
    pftk = _pftk(mss, rtt, p, c, n)
    stream_text = f"{n} x " if n > 1 else ""
    if ok:
        formula = (f"Mathis (Reno): {stream_text}(MSS / RTT) x C / sqrt(p) = {stream_text}({mss:g} B / "
                   f"{_time(rtt)}) x {c:g} / sqrt({p:g}) = {_net(mathis)}")
        note = f"{why}; PFTK with timeouts: {_net(pftk)}; CUBIC (RFC 9438): {_net(tcp.cubic_ceiling(mss, rtt, p, n))}"
        return LossCeiling(mathis, formula, note)
    note = f"Mathis not valid here ({why}); Mathis would give {_net(mathis)}"
    return LossCeiling(pftk, _pftk_formula(mss, rtt, p, c, n, pftk), note,
                       warning=f"Mathis' formula is outside its validity range: {why}")


def cubic(mss_bytes: float, rtt_s: float, loss: float, streams: int, mathis_c: float) -> LossCeiling:
    """CUBIC [3]_: max(cubic window, Reno-friendly window) x MSS / RTT; PFTK above 1 % loss."""
    p, n, mss, rtt = loss, streams, mss_bytes, rtt_s
    value = tcp.cubic_ceiling(mss, rtt, p, n)
    w_cubic = tcp.cubic_window_segments(rtt, p)
    w_reno = tcp.C_MATHIS / p ** 0.5
    stream_text = f"{n} x " if n > 1 else ""
    region = "cubic" if w_cubic >= w_reno else "Reno-friendly"
    formula = (f"CUBIC (RFC 9438): {stream_text}max(1.054 RTT^0.75 / p^0.75, 1.22 / sqrt(p)) x MSS / RTT = "
               f"{stream_text}max({w_cubic:.4g}, {w_reno:.4g}) segments x {mss:g} B / {_time(rtt)} = {_net(value)}")
    reno = tcp.mathis_ceiling(mss, rtt, p, mathis_c, n)
    if p <= tcp.CUBIC_VALID_MAX_LOSS:
        return LossCeiling(value, formula, f"the {region} region binds; Reno (Mathis) would give {_net(reno)}")
    pftk = _pftk(mss, rtt, p, mathis_c, n)
    why = f"loss {p:.3g} is above {tcp.CUBIC_VALID_MAX_LOSS:g}: timeouts dominate"
    return LossCeiling(pftk, _pftk_formula(mss, rtt, p, mathis_c, n, pftk),
                       f"CUBIC's response function not valid here ({why}); it would give {_net(value)}",
                       warning=f"CUBIC's response function is outside its validity range: {why}, PFTK used")


def pftk(mss_bytes: float, rtt_s: float, loss: float, streams: int, mathis_c: float) -> LossCeiling:
    """PFTK [2]_ at any loss rate (timeouts included)."""
    value = _pftk(mss_bytes, rtt_s, loss, mathis_c, streams)
    return LossCeiling(value, _pftk_formula(mss_bytes, rtt_s, loss, mathis_c, streams, value),
                       "Reno with retransmission timeouts (RTO = 4 RTT)")


def bbr(loss: float, line_bytes_per_s: float | None) -> LossCeiling | None:
    """BBR [4]_: the bound is the bottleneck rate less what is lost, not a loss-driven window."""
    if line_bytes_per_s is None:
        return None
    value = tcp.bbr_ceiling(line_bytes_per_s, loss)
    formula = f"BBR: bottleneck x (1 - p) = {_net(line_bytes_per_s)} x (1 - {loss:g}) = {_net(value)}"
    note = ("BBR paces at the bottleneck rate and keeps up to 2 BDP in flight: its bounds are the "
            "bottleneck rate and the window (BDP), not the loss rate")
    warning = None
    if loss > tcp.BBR_VALID_MAX_LOSS:
        warning = (f"loss {loss:.3g} is above the {tcp.BBR_VALID_MAX_LOSS:.0%} BBR tolerates "
                   "(Cardwell et al. 2016): it backs off there too")
    return LossCeiling(value, formula, note, warning=warning, kind="bottleneck")


def _mathis_inverse(rate, mss, rtt, streams, c=tcp.C_MATHIS):
    return tcp.mathis_loss_for_rate(rate, mss, rtt, c, streams)


register_loss_model("cubic", cubic, valid_loss=(0.0, tcp.CUBIC_VALID_MAX_LOSS), inverse=tcp.cubic_loss_for_rate,
                    description="CUBIC, RFC 9438 (Linux's default); PFTK above 1 % loss")
register_loss_model("reno", mathis_or_pftk, valid_loss=(0.0, tcp.MATHIS_VALID_MAX_LOSS), inverse=_mathis_inverse,
                    description="Reno: Mathis et al. 1997; PFTK above 1 % loss")
register_loss_model("mathis", mathis_or_pftk, valid_loss=(0.0, tcp.MATHIS_VALID_MAX_LOSS), inverse=_mathis_inverse,
                    description="the same as reno")
register_loss_model("pftk", pftk, valid_loss=(0.0, 1.0), description="Padhye et al. 1998 (RFC 5348 form)")
register_loss_model("bbr", bbr, valid_loss=(0.0, tcp.BBR_VALID_MAX_LOSS),
                    description="BBR (Cardwell et al. 2016): bound by the bottleneck rate and the BDP, not loss")

#: The names a congestion control goes by (Linux's tcp_congestion_control, iperf3's
#: sender_tcp_congestion) -> the model of it.
CONGESTION_CONTROLS = {"cubic": "cubic", "reno": "reno", "newreno": "reno", "bbr": "bbr", "bbr2": "bbr",
                       "bbr3": "bbr"}


def model_for(congestion_control: str | None) -> str:
    """The loss model of a congestion control's name; CUBIC when it is unknown (Linux's default)."""
    return CONGESTION_CONTROLS.get((congestion_control or "").strip().lower(), DEFAULT_LOSS_MODEL)
