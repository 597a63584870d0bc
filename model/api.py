"""The functions a notebook needs, taking names or objects: ``pinchpoint.load_profile``,
``pinchpoint.all_ceilings``, ``pinchpoint.diagnose_rate``, ``pinchpoint.measure_signature``,
``pinchpoint.predict``, ``pinchpoint.sweep_ceiling`` ... (the package's ``__all__``, imported
lazily so that ``pinchpoint --version`` stays fast).

They are not named ``ceilings``, ``diagnose``, ``measure`` or ``sweep``: those are the modules
behind them, and importing a submodule binds its name on the package, which would hide a
function of the same name.

Each one is a thin layer over the orchestration modules (:mod:`pinchpoint.solve.ceilings`,
:mod:`pinchpoint.prediction.convolve`, :mod:`pinchpoint.solve.sweep`, :mod:`pinchpoint.measure.detect`) that accepts a
bundled name or a path wherever an object is expected, as the CLI does.
"""

from __future__ import annotations

from pathlib import Path


def load_signature(name_or_path):
    """A signature from a JSON path or a bundled name ("p690", "powermac-g5-xbench";
    ``pinchpoint signatures`` lists them).

    Raises
    ------
    SignatureError
        No such file or bundled name, or an invalid signature (file and key named).
    """
    from pinchpoint.inputs.signature import Signature, find_bundled
    from pinchpoint.inputs.signature import load_signature as _load

    if isinstance(name_or_path, Signature):
        return name_or_path
    path = Path(name_or_path)
    if path.exists() or path.suffix == ".json" or "/" in str(name_or_path):
        return _load(path)
    return _load(find_bundled(str(name_or_path)))


def all_ceilings(profile, flows=None):
    """Every flow's ceiling (or only ``flows``) of a profile given by name, path or object.

    Returns
    -------
    list of Ceiling
        ``ceiling_bytes_per_s`` [B/s], the binding links, the formula, the effective ceiling.
    """
    from pinchpoint.solve.ceilings import all_ceilings as _all_ceilings

    return _all_ceilings(_profile(profile), flows)


def flow_ceiling(profile, flow: str):
    """The ceiling of one flow (a :class:`~pinchpoint.solve.ceilings.Ceiling`)."""
    from pinchpoint.solve.ceilings import flow_ceiling as _flow_ceiling

    return _flow_ceiling(_profile(profile), flow)


def predict(signature, workload, *, profile=None, stat: str = "median", extrapolate: bool = False):
    """PMaC convolution: the predicted time of ``workload`` on the machine ``signature``
    measured (names, paths or objects); see :func:`pinchpoint.prediction.convolve.convolve`.

    Returns
    -------
    Prediction
        ``low_s`` (resources overlap) .. ``high_s`` (serial) [s], each resource's share, the
        binding resource.
    """
    from pinchpoint.prediction.convolve import convolve
    from pinchpoint.inputs.workload import Workload, load_workload

    wl = workload if isinstance(workload, Workload) else load_workload(workload)
    prof = _profile(profile) if profile is not None else None
    return convolve(load_signature(signature), wl, profile=prof, stat=stat, extrapolate=extrapolate)


def sweep_ceiling(profile, flow: str, *vary):
    """What-if grid of ``flow``'s ceiling: each ``vary`` is an Axis or the CLI's text
    ``"LINK.PARAM=LO..HI:N[:log]"`` (e.g. ``"pcix.clock=66MHz..266MHz:41"``).

    Returns
    -------
    SweepResult
        ``ceiling`` [B/s] over the grid and the binding link at each point.
    """
    from pinchpoint.solve.sweep import parse_vary
    from pinchpoint.solve.sweep import sweep as _sweep

    prof = _profile(profile)
    axes = [parse_vary(v, prof) if isinstance(v, str) else v for v in vary]
    return _sweep(prof, flow, axes)


def plan(requirements, candidates=(), **options):
    """The purchase answer: every candidate against every need of a plan file (or
    :class:`~pinchpoint.inputs.requirements.PlanSpec`), the cheapest candidate that meets them
    all and the cost-versus-headroom Pareto front.  ``candidates`` adds profiles (names, paths
    or objects) to those the plan file lists; ``fixes=False`` skips the smallest-change search.

    Returns
    -------
    Plan
        ``rows`` (one per candidate, each need's margin), ``cheapest``, ``front``, ``verdict()``.
    """
    from pinchpoint.planner.plan import plan as _plan

    return _plan(requirements, candidates, **options)


#: keyword -> (DiagnoseInputs field, dimension) for values that may be written with units.
_DIAGNOSE_UNITS = {"link": ("line_bytes_per_s", "bandwidth"), "rtt": ("rtt_s", "time"),
                   "window": ("window_bytes", "size"), "buffer": ("buffer_bytes", "size"),
                   "mtu": ("mtu_bytes", "size"), "mss": ("mss_bytes", "size"),
                   "clock": ("clock_hz", "frequency"), "mmrbc": ("mmrbc_bytes", "size")}


def diagnose_rate(measured, **given):
    """Is a measured throughput good?  Every ceiling, the binding one, the efficiency, a verdict.

    Parameters
    ----------
    measured : str, float or DiagnoseInputs
        The measured payload rate ("260 Mbit/s", or [B/s]); or complete inputs.
    **given
        ``link``, ``rtt``, ``window``, ``buffer``, ``mtu``, ``mss``, ``clock``, ``mmrbc`` as text
        with units ("1 Gbit/s", "44.5 ms", "64 KiB") or SI floats; ``profile`` (name, path or
        object) with ``flow``; any other :class:`~pinchpoint.diagnose.DiagnoseInputs` field.

    Returns
    -------
    Verdict
    """
    from pinchpoint.physics import units
    from pinchpoint.diagnose import DiagnoseInputs, diagnose

    if isinstance(measured, DiagnoseInputs):
        if given:
            raise TypeError("give DiagnoseInputs or keyword values, not both")
        return diagnose(measured)
    fields = {}
    for key, value in given.items():
        if key in _DIAGNOSE_UNITS:
            name, dim = _DIAGNOSE_UNITS[key]
            fields[name] = units.parse(value, dim, key=key) if isinstance(value, str) else value
        elif key == "profile" and value is not None:
            fields["profile"] = _profile(value)
        else:
            fields[key] = value
    rate = units.parse(measured, "bandwidth", key="measured") if isinstance(measured, str) else measured
    return diagnose(DiagnoseInputs(measured_bytes_per_s=rate, **fields))


def measure_signature(mode: str = "quick", kernels=None, **options):
    """Compile and run the bundled kernels; the :class:`~pinchpoint.inputs.signature.Signature`.

    ``kernels`` is "maps,stream" or an iterable of names (default: all); ``options`` go to
    :func:`pinchpoint.measure.session.measure` (cpus, pin, sizes, reps, cc, flags, progress).
    """
    from pinchpoint.measure.session import measure, parse_only

    only = parse_only(kernels) if isinstance(kernels, str) else kernels
    return measure(mode, only, **options)


def detected_profile(facts=None, signature=None, *, name: str | None = None):
    """A profile of this machine (or of ``facts`` from :func:`pinchpoint.measure.detect.detect`), with a
    measured memory link when ``signature`` has STREAM, MAPS or likwid-bench points."""
    from pinchpoint.measure import detect
    from pinchpoint.inputs.profile import profile_from_document

    facts = detect.detect() if facts is None else facts
    rate = source = None
    if signature is not None:
        rate, source = detect.memory_rate_from_signature(load_signature(signature))
    doc = detect.facts_to_profile_document(facts, name=name, memory_rate=rate, memory_source=source)
    return profile_from_document(doc)


def _profile(profile):
    from pinchpoint.inputs.profile import Profile
    from pinchpoint.inputs.profile_io import load_profile

    return profile if isinstance(profile, Profile) else load_profile(profile)
