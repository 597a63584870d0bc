"""The functions a notebook needs, taking names or objects: ``pinchpoint.load_profile``,
``pinchpoint.all_ceilings``, ``pinchpoint.diagnose_rate``, ``pinchpoint.measure_signature``,
``pinchpoint.predict``, ``pinchpoint.sweep_ceiling`` ... (the package's ``__all__``), and the
functions the CLI commands call (one each: parse, call, print).

They are not named ``ceilings``, ``diagnose``, ``measure`` or ``sweep``: those are the modules
behind them, and importing a submodule binds its name on the package, which would hide a
function of the same name.

Each one is a thin layer over the orchestration modules (:mod:`pinchpoint.solve.ceilings`,
:mod:`pinchpoint.prediction.convolve`, :mod:`pinchpoint.solve.sweep`, :mod:`pinchpoint.measure.detect`) that accepts a
bundled name or a path wherever an object is expected, as the CLI does.

Those modules are imported inside the functions, on purpose: importing all of them costs about
0.22 s (measured: profile_io 38 ms, ceilings 60 ms, diagnose 60 ms, convolve 120 ms, sweep
126 ms, together 216 ms on the shared 2-core machine), and every CLI command reaches this module;
``pinchpoint ceilings`` needs only a quarter of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pinchpoint.errors import InputError, did_you_mean
from pinchpoint.paths import exists


def load_signature(name_or_path):
    """A signature from a JSON path or a bundled name ("p690", "powermac-g5-xbench";
    ``pinchpoint signatures`` lists them).

    Raises
    ------
    SignatureError
        No such file or bundled name, or an invalid signature (file and key named).
    """
    from pinchpoint.inputs.signature import resolve_signature

    return resolve_signature(name_or_path)


def load_workload(name_or_path):
    """A workload from a .toml path or a bundled name ("power4-memory-heavy"; ``pinchpoint
    workloads`` lists them); an unknown name is answered with the closest bundled names.

    Raises
    ------
    WorkloadError
        No such file or bundled name, or an invalid workload (file and key named).
    """
    from pinchpoint.inputs.workload import resolve_workload

    return resolve_workload(name_or_path)


def unknown_flow_error(profile, flow: str, *, key: str = "flow") -> InputError | None:
    """None when ``profile`` has ``flow``; else the error to raise, naming the closest flows."""
    if flow in profile.flows:
        return None
    return InputError(f"no flow {flow!r} in profile {profile.name!r}{did_you_mean(flow, profile.flows)} "
                      f"(flows: {', '.join(profile.flows) or 'none'})", key=key)


def unknown_target_error(profile, target: str, *, key: str = "target") -> InputError | None:
    """None when ``target`` is a link or a flow of ``profile``; else the error, naming the closest."""
    if target in profile.links or target in profile.flows:
        return None
    names = list(profile.links) + list(profile.flows)
    return InputError(f"no link or flow {target!r} in profile {profile.name!r}{did_you_mean(target, names)} "
                      f"(links: {', '.join(profile.links) or 'none'}; flows: {', '.join(profile.flows) or 'none'})",
                      key=key)


def unknown_parameter_error(profile, text: str, *, key: str = "vary") -> InputError | None:
    """For ``LINK.PARAM[=...]``: None when the link and its parameter exist (or the text has no
    ``.``, which the parser words itself); else the error, naming the closest link or parameter."""
    name = text.partition("=")[0].strip()
    link_id, dot, param = name.partition(".")
    if name.rpartition(".")[0] in profile.links:  # a link id with a dot in it
        link_id, dot, param = name.rpartition(".")
    if not dot or not link_id:
        return None  # no LINK.PARAM shape: the parser words that itself
    if link_id not in profile.links:
        return InputError(f"no link {link_id!r} in profile {profile.name!r}{did_you_mean(link_id, profile.links)} "
                          f"(links: {', '.join(profile.links)})", key=key)
    link = profile.links[link_id]
    params = [p.name for p in link.definition.params]
    if param in params or param in link.params:
        return None
    from pinchpoint.solve.generations import has_generation  # solve's what-if, not a link parameter

    if param == "generation" and has_generation(link):
        return None
    return InputError(f"link {link_id!r} has no parameter {param!r}{did_you_mean(param, params)} "
                      f"(it has: {', '.join(params)})", key=key)


def all_ceilings(profile, flows=None):
    """Every flow's ceiling (or only ``flows``) of a profile given by name, path or object.

    Returns
    -------
    list of Ceiling
        ``ceiling_bytes_per_s`` [B/s], the binding links, the formula, the effective ceiling.
    """
    from pinchpoint.solve.ceilings import all_ceilings as _all_ceilings

    return _all_ceilings(_profile(profile), flows)


def profile_ceilings(profile, flows=None) -> tuple[list, list, tuple[str, ...]]:
    """What ``pinchpoint ceilings`` shows: the flows' ceilings (or only ``flows``), every
    scenario's (all flows only), and the sentences that say why a profile without links or
    flows answers nothing (:func:`pinchpoint.solve.ceiling_gaps.ceiling_gaps`)."""
    from pinchpoint.solve.ceiling_gaps import ceiling_gaps
    from pinchpoint.solve.ceilings import all_ceilings as _all_ceilings
    from pinchpoint.solve.ceilings import scenario_ceilings

    prof = _profile(profile)
    for f in flows or ():
        prof.flow(f)  # an unknown flow (or scenario flow) is an error naming the profile's flows
    ceilings = _all_ceilings(prof, flows)
    scenarios = [] if flows else [c for name in prof.scenarios for c in scenario_ceilings(prof, name)]
    return ceilings, scenarios, ceiling_gaps(prof)


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

    wl = load_workload(workload)
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


@dataclass(frozen=True, eq=False)
class Scaling:
    """What ``pinchpoint scale`` shows: the series file, one USL fit per series, and the MVA
    model when service demands were given."""

    data: object  # SeriesFile
    fits: list = field(default_factory=list)  # USLFit, one per series
    mva: object = None  # MVAResult or None

    def to_dict(self) -> dict:
        return {"file": self.data.path, "unit": self.data.unit, "source": list(self.data.comments),
                "fits": [f.to_dict() for f in self.fits], "mva": self.mva.to_dict() if self.mva else None}


def fit_scaling(data, *, series=None, fixed=None, noise=None, queues=(), delays=(), think_s: float = 0.0,
                clients: int | None = None) -> Scaling:
    """Fit the universal scalability law to each series of a throughput-vs-clients data set and,
    with service demands, solve the closed queueing network by MVA.

    Parameters
    ----------
    data : str, Path or SeriesFile
        A CSV file, a bundled series name, or a parsed :class:`~pinchpoint.inputs.concurrency_io.SeriesFile`.
    series : list of str, optional
        Only these series (default: all).
    fixed : dict, optional
        USL parameters held at a value (``{"alpha": 0.0}``).
    noise : float, optional
        Relative measurement noise for the beta test when the data cannot estimate it.
    queues, delays : sequence of (name, seconds)
        Service demands [s] of queueing and delay centres for MVA.
    think_s : float
        Think time [s] for MVA.
    clients : int, optional
        MVA population (default: the largest measured).
    """
    from pinchpoint.physics import queueing, usl

    data = _series_file(data)
    chosen = _chosen_series(data, series)
    fits = []
    for s in chosen:
        try:
            fits.append(usl.fit(s.clients, s.throughput, series=s.name, fixed=dict(fixed or {}), noise=noise))
        except InputError as exc:
            raise InputError(exc.message, file=data.path, key=exc.key) from None
    queues, delays = list(queues), list(delays)
    if not (queues or delays):
        if clients is not None:
            raise InputError("a population needs service demands (it sets the MVA population)", key="clients")
        return Scaling(data, fits, None)
    top = clients or int(max(float(s.clients.max()) for s in chosen))
    mva = queueing.mva([d for _, d in queues + delays], top, think_time=think_s,
                       kinds=["queue"] * len(queues) + ["delay"] * len(delays),
                       names=[n for n, _ in queues + delays])
    return Scaling(data, fits, mva)


def _series_file(data):
    """A SeriesFile from a parsed one, a CSV path or a bundled series name (the closest names
    offered for an unknown one; a folder said to be one)."""
    from pinchpoint.inputs.concurrency_io import SeriesFile, bundled_series, read_series
    from pinchpoint.inputs.profile_io import is_dir

    if isinstance(data, SeriesFile):
        return data
    if is_dir(data):
        raise InputError("is a folder: expected a CSV file or a bundled series name", file=str(data))
    try:
        return read_series(data)
    except InputError as exc:
        if exc.file != str(data) or exists(data):
            raise
        raise InputError(exc.message + did_you_mean(str(data), bundled_series()), file=exc.file,
                         key=exc.key, line=exc.line) from None


def _chosen_series(data, series) -> list:
    """The series of ``data`` named in ``series`` (all when None), or an error naming the closest."""
    names = [s.name for s in data.series]
    for want in series or ():
        if want not in names:
            raise InputError(f"no series {want!r} in the file{did_you_mean(want, names)} "
                             f"(series: {', '.join(names)})", key="series")
    return [s for s in data.series if not series or s.name in series]
