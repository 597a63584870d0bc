"""pinchpoint: analytical performance modelling and bottleneck prediction.

A machine profile becomes a graph of links; every link has a theoretical capacity with the
formula behind it; every flow through the graph has a ceiling and a binding link.  Measured
signatures from the bundled C kernels sit beside the theory.

The public API (``__all__``, documented in README.md under "Python API")::

    import pinchpoint as pp
    g5 = pp.load_profile("powermac-g5")
    pp.flow_ceiling(g5, "nic-rx")                      # Ceiling(nic-rx: 8.512 Gbit/s ...)
    pp.diagnose_rate("260 Mbit/s", link="1 Gbit/s", rtt="44.5 ms", window="2 MiB")
    pp.predict("p690", "power4-memory-heavy")          # Prediction(... 1.189 s .. 1.189 s)

This module stays import-light on purpose: ``pinchpoint --version`` must start in well under
0.2 s, so nothing heavy (pint, networkx, scipy, sympy) is imported here; each name is imported
on first use (PEP 562 module ``__getattr__``).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: public name -> (module, attribute); attribute None: the module itself.
_API = {
    # profiles and their ceilings
    "load_profile": ("pinchpoint.inputs.profile_io", "load_profile"),
    "bundled_profiles": ("pinchpoint.inputs.profile_io", "bundled_profiles"),
    "profile_from_document": ("pinchpoint.inputs.profile", "profile_from_document"),
    "Profile": ("pinchpoint.inputs.profile", "Profile"),
    "all_ceilings": ("pinchpoint.api", "all_ceilings"),
    "flow_ceiling": ("pinchpoint.api", "flow_ceiling"),
    "Ceiling": ("pinchpoint.solve.ceilings", "Ceiling"),
    # is a measured figure good?
    "diagnose_rate": ("pinchpoint.api", "diagnose_rate"),
    "DiagnoseInputs": ("pinchpoint.diagnose", "DiagnoseInputs"),
    "Verdict": ("pinchpoint.diagnose", "Verdict"),
    "Limit": ("pinchpoint.diagnose", "Limit"),
    # measuring and predicting
    "measure_signature": ("pinchpoint.api", "measure_signature"),
    "load_signature": ("pinchpoint.api", "load_signature"),
    "Signature": ("pinchpoint.inputs.signature", "Signature"),
    "KernelRun": ("pinchpoint.inputs.signature", "KernelRun"),
    "load_workload": ("pinchpoint.inputs.workload", "load_workload"),
    "predict": ("pinchpoint.api", "predict"),
    "Prediction": ("pinchpoint.prediction.convolve", "Prediction"),
    "PEAK_BYTES_PER_FLOP": ("pinchpoint.prediction.convolve", "PEAK_BYTES_PER_FLOP"),
    "last_level_cache_bytes": ("pinchpoint.measure.hostinfo", "last_level_cache_bytes"),
    # what-if, this machine, concurrency data
    "sweep_ceiling": ("pinchpoint.api", "sweep_ceiling"),
    "scenario_ceilings": ("pinchpoint.solve.scenarios", "scenario_ceilings"),
    "plan": ("pinchpoint.api", "plan"),
    "detected_profile": ("pinchpoint.api", "detected_profile"),
    "read_series": ("pinchpoint.inputs.concurrency_io", "read_series"),
    # formatting for people: rates in bit/s or B/s, quantities with prefixes, text tables
    "format_rate": ("pinchpoint.physics.units", "format_rate"),
    "format_quantity": ("pinchpoint.physics.units", "format_quantity"),
    "format_size": ("pinchpoint.physics.units", "format_size"),
    "format_flop_rate": ("pinchpoint.physics.units", "format_flop_rate"),
    "rate_units": ("pinchpoint.physics.units", "rate_units"),
    "table": ("pinchpoint.cli.output", "table"),
    "link_rows": ("pinchpoint.report.tables", "link_rows"),
    "flow_rows": ("pinchpoint.report.tables", "flow_rows"),
    # modules of published formulas and the plots
    "tcp": ("pinchpoint.physics.tcp", None),
    "usl": ("pinchpoint.physics.usl", None),
    "queueing": ("pinchpoint.physics.queueing", None),
    "detect": ("pinchpoint.measure.detect", None),
    "plots_report": ("pinchpoint.report.plots_report", None),
    "plan_view": ("pinchpoint.report.plan_view", None),
}

__all__ = ["__version__", *_API]


def __getattr__(name: str):
    try:
        module, attr = _API[name]
    except KeyError:
        raise AttributeError(f"module 'pinchpoint' has no attribute {name!r}") from None
    mod = importlib.import_module(module)
    value = mod if attr is None else getattr(mod, attr)
    if attr is not None:  # a submodule binds itself as an attribute on import
        globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))
