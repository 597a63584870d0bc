"""A probe record for people: an HTML section (and a page of its own) with everything ``--json`` holds.

Formatting only, from the plain dict that ``pinchpoint probe --json`` writes (checked by
:func:`pinchpoint.inputs.probe_record.check_probe_record`): the host's facts, each with its value
and where it came from, what was skipped and why, the run's figures (rate, retransmits, RTT,
cwnd), the TCP_INFO limit shares (the time the sender was held by the receiver's window, by its
own send buffer, and the rest of its busy time), every ceiling on the measured figure with its
raw and effective figure, the verdict with the limit TCP_INFO names, advice and notes.  Nothing
here judges: the verdict and the limit TCP_INFO names come in the record, as the diagnosis
wrote them.  Every value goes through :func:`html.escape`; the page loads nothing from the
network and is written atomically.
"""

from __future__ import annotations

import html
from pathlib import Path

from pinchpoint.paths import atomic_write
from pinchpoint.physics.units import format_quantity, format_rate, format_size

#: Style of the probe's own classes (the report page brings its tables' style).
CSS = """
.probe-verdict { border-left: 6px solid #888; padding: 0.6em 1em; background: #f8f8f8; }
.probe-verdict.at-ceiling { border-color: #2ca02c; } .probe-verdict.below-ceiling { border-color: #ff7f0e; }
.probe-verdict.far-below-all, .probe-verdict.nothing-arrived { border-color: #d62728; }
.probe-verdict.above-ceiling { border-color: #9467bd; }
.probe-verdict .big { font-size: 1.2em; font-weight: 700; }
.probe-skipped li { color: #8a4b00; }
"""

#: The standalone page's table style (the report page has its own).
_PAGE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; margin: 2em auto;
       max-width: 1180px; color: #222; line-height: 1.4; padding: 0 1em; }
table { border-collapse: collapse; width: 100%; font-size: 0.88em; margin: 0.6em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.5em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; } td.num { text-align: right; white-space: nowrap; }
tr.binding td { background: #fde0dd; font-weight: 600; }
"""

#: TCP_INFO's limit times (``ss -ti``), in the order shown, with what each one means.
LIMIT_ROWS = (
    ("busy", "busy_s", None, "time the sender had data to send (tcpi_busy_time)"),
    ("rwnd_limited", "rwnd_limited_s", "rwnd_limited_share", "held by the receiver's advertised window"),
    ("sndbuf_limited", "sndbuf_limited_s", "sndbuf_limited_share", "held by its own send buffer"),
)

#: Units of the TCP_INFO figures, by key.
_INFO_UNITS = {"rtt_s": "time", "rttvar_s": "time", "busy_s": "time", "rwnd_limited_s": "time",
               "sndbuf_limited_s": "time", "mss": "bytes", "advmss": "bytes", "pmtu": "bytes", "snd_wnd": "bytes",
               "rwnd_limited_share": "share", "sndbuf_limited_share": "share", "cwnd": "segments"}


def _e(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _num(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _net(value) -> str:
    return format_rate(value, "network") if _num(value) else "-"


def shown(value) -> str:
    """A JSON value as text: lists joined by spaces, objects as ``key value`` pairs."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {shown(v)}" for k, v in value.items())
    if isinstance(value, list):
        return " ".join(shown(v) for v in value)
    if isinstance(value, float):
        return f"{value:.6g}"
    return "-" if value is None else str(value)


def fact_value(name: str, value) -> str:
    """A fact's value with its unit where the name gives one (``speed_bits_per_s``, ``mtu_bytes``)."""
    if not _num(value):
        return shown(value)
    if name.endswith("_bits_per_s"):
        return format_rate(value / 8, "network")
    if name.endswith("_bytes_per_s"):
        return format_rate(value, "network")
    if name.endswith("_hz"):
        return format_quantity(value, "frequency")
    if name.endswith("_bytes"):
        return f"{value:.0f} B" if value < 1 << 20 else format_size(value)
    return shown(value)


def info_value(key: str, value) -> str:
    """A TCP_INFO figure with its unit."""
    unit = _INFO_UNITS.get(key)
    if not _num(value) or unit is None:
        return shown(value)
    if unit == "time":
        return format_quantity(value, "time")
    if unit == "share":
        return f"{value:.1%}"
    if unit == "bytes":
        return f"{value:.0f} B"
    return f"{value:.0f} {unit}"


def _table(table_id: str, header, rows, numeric=()) -> str:
    """Rows are (cells, marked); every cell is escaped here."""
    out = [f'<table id="{_e(table_id)}"><thead><tr>' + "".join(f"<th>{_e(h)}</th>" for h in header)
           + "</tr></thead><tbody>"]
    for cells, marked in rows:
        tds = "".join(f'<td class="num">{_e(c)}</td>' if i in numeric else f"<td>{_e(c)}</td>"
                      for i, c in enumerate(cells))
        out.append(f'<tr class="binding">{tds}</tr>' if marked else f"<tr>{tds}</tr>")
    return "".join(out) + "</tbody></table>"


def _items(values, css: str = "") -> str:
    cls = f' class="{_e(css)}"' if css else ""
    return f"<ul{cls}>" + "".join(f"<li>{_e(v)}</li>" for v in values) + "</ul>"


# --- parts ---------------------------------------------------------------------------------------

def verdict_part(record: dict) -> str:
    """The verdict, the limit TCP_INFO names, the causes (or why there is no verdict)."""
    v, bound = record.get("verdict"), record.get("tcp_info_bound")
    if v is None:
        why = ("no run against a peer (give --peer HOST)" if not record.get("iperf3_command")
               else "the run gave no verdict (see what was skipped below)")
        return f'<div id="probe-verdict" class="probe-verdict"><p class="big">no verdict: {_e(why)}</p></div>'
    b = v["binding"]
    protocol = str(v.get("protocol") or "").upper()
    side = f", {v['side']}'s figure" if v.get("side") else ""
    parts = [f'<div id="probe-verdict" class="probe-verdict {_e(v["verdict"])}">',
             f'<p class="big">{_e(v["verdict"])}: limited by {_e(v["limited_by"])}</p>',
             f"<p>measured {_e(_net(v['measured_bytes_per_s']))} ({_e(protocol + side)}) = "
             f"{_e(format(v['efficiency'], '.1%'))} of the binding ceiling, {_e(b['name'])} ({_e(b['kind'])}) "
             f"at {_e(_net(b['ceiling_bytes_per_s']))}</p>"]
    if bound:
        parts.append(f'<p id="probe-tcp-info-bound">per TCP_INFO, {_e(bound["what"])} bound the run: '
                     f"{_e(bound['limit'])} {_e(format(bound['share'], '.0%'))} of the busy time</p>")
    elif _num((record.get("tcp_info") or {}).get("busy_s")):
        parts.append('<p id="probe-tcp-info-bound">TCP_INFO names no limit (neither the receiver\'s window nor the '
                     "send buffer held the sender most of its busy time, and a paced sender's rest is no evidence): "
                     "the verdict rests on the model</p>")
    else:
        parts.append('<p id="probe-tcp-info-bound">no TCP_INFO limit times were sampled: the verdict rests on '
                     "the model alone</p>")
    if v.get("causes"):
        parts.append(_items(v["causes"]))
    return "\n".join(parts + ["</div>"])


def _cwnd(info: dict) -> str:
    text = f"{info['cwnd']:.0f} segments"
    return text + (f" = {format_size(info['cwnd'] * info['mss'])}" if _num(info.get("mss")) else "")


def run_part(record: dict) -> str:
    """The run's figures: rates and retransmits from iperf3, RTT and cwnd from TCP_INFO too."""
    run, info, v = record.get("run") or {}, record.get("tcp_info") or {}, record.get("verdict") or {}
    iperf3, sampled = "iperf3 -J (end of the run)", "TCP_INFO (ss -ti), last sample of the data socket"
    seconds = lambda x: format_quantity(x, "time")  # noqa: E731
    rows = [  # (figure, value, how it is shown, where it came from)
        ("measured rate", v.get("measured_bytes_per_s"), _net, f"the verdict's figure ({v.get('side') or 'one'} side)"),
        ("sender's rate", run.get("sent_bytes_per_s"), _net, iperf3),
        ("receiver's rate", run.get("received_bytes_per_s"), _net, iperf3),
        ("retransmits", run.get("retransmits"), shown, iperf3),
        ("retransmits (socket total)", info.get("retrans_total"), shown, sampled),
        ("retransmit rate", run.get("retransmit_rate"), lambda x: f"{x:.3g}", "retransmits / segments sent"),
        ("loss events", run.get("loss_events"), shown, "intervals whose retransmits rose and whose cwnd fell"),
        ("RTT", info.get("rtt_s"), seconds, sampled),
        ("RTT (iperf3's mean)", run.get("rtt_s"), seconds, iperf3),
        ("cwnd", info.get("cwnd"), lambda _: _cwnd(info), sampled),
        ("congestion control", info.get("congestion_control"), shown, sampled),
        ("duration", run.get("duration_s"), seconds, iperf3),
        ("streams", run.get("streams"), shown, iperf3)]
    body = [([name, fmt(value), source], False) for name, value, fmt, source in rows
            if _num(value) or (isinstance(value, str) and value)]
    command = record.get("iperf3_command")
    head = f"<p>command: <code>{_e(' '.join(command))}</code></p>" if command else ""
    if not body:
        return "<h3>The run</h3>" + head + "<p>no run against a peer.</p>"
    return "<h3>The run</h3>" + head + _table("probe-run", ["figure", "value", "from"], body, numeric=(1,))


def limits_part(record: dict) -> str:
    """TCP_INFO's limit times and their shares of the busy time; the row TCP_INFO names is marked."""
    info, bound = record.get("tcp_info") or {}, record.get("tcp_info_bound") or {}
    if not _num(info.get("busy_s")):
        return "<h3>TCP_INFO limits</h3><p>no limit times sampled (ss missing, or a kernel before Linux 4.9).</p>"
    rows = []
    for name, time_key, share_key, meaning in LIMIT_ROWS:
        share = info.get(share_key) if share_key else 1.0
        rows.append(([name, info_value(time_key, info.get(time_key)) if _num(info.get(time_key)) else "0 s",
                      info_value("rwnd_limited_share", share) if _num(share) else "-", meaning],
                     bound.get("limit") == name))
    rest = 1.0 - (info.get("rwnd_limited_share") or 0.0) - (info.get("sndbuf_limited_share") or 0.0)
    rows.append((["cwnd_limited (the rest)", "-", f"{max(0.0, rest):.1%}",
                  "neither: the congestion window (the path, a shaper or loss), or a BBR sender's pacer"],
                 bound.get("limit") == "cwnd_limited"))
    what = (f"<p>Marked: the limit TCP_INFO names ({_e(bound['what'])}).</p>" if bound.get("what") else "")
    return ("<h3>TCP_INFO limits</h3><p>How long the sender had data to send but was held, and by what "
            "(Linux 4.9 and later; cumulative over the connection).</p>" + what
            + _table("probe-limits", ["limit", "time", "share of busy time", "meaning"], rows, numeric=(1, 2)))


def ceilings_part(record: dict) -> str:
    """Every ceiling on the measured figure, raw and effective, the binding one marked."""
    v = record.get("verdict")
    if not v:
        return ""
    measured, binding = v["measured_bytes_per_s"], v["binding"]
    rows = []
    for c in v["ceilings"]:
        raw = c.get("raw_ceiling_bytes_per_s")
        share = f"{measured / c['ceiling_bytes_per_s']:.0%}" if c["ceiling_bytes_per_s"] else "-"
        rows.append(([c["name"], c["kind"], _net(c["ceiling_bytes_per_s"]), _net(raw) if raw is not None else "",
                      share, c.get("formula") or "", (c.get("note") or "") + (" (estimate)" if c.get("estimate")
                                                                              else "")],
                     c["name"] == binding["name"] and c["kind"] == binding["kind"]))
    out = ("<h3>Ceilings on the measured figure</h3><p>'effective' is the payload rate after framing and "
           "headers; 'raw' the figure before them, where the ceiling has one.  Marked: the binding one.</p>"
           + _table("probe-ceilings", ["ceiling", "kind", "effective", "raw", "measured / ceiling", "formula",
                                       "note"], rows, numeric=(2, 3, 4)))
    aside = v.get("set_aside") or []
    if aside:
        out += "<p>Set aside (estimates the figure refutes):</p>" + _items(
            f"{c['name']}: {_net(c['ceiling_bytes_per_s'])}" for c in aside)
    return out


def facts_part(record: dict) -> str:
    """The host's facts with where each came from, what may cost throughput, and what was skipped."""
    host = record["host"]
    rows = [([f["name"], fact_value(f["name"], f["value"]), f["source"]], False) for f in host["facts"]]
    out = [f"<h3>Host facts ({_e(len(rows))})</h3>",
           _table("probe-facts", ["fact", "value", "from"], rows) if rows else "<p>none gathered.</p>"]
    if host.get("findings"):
        out += ["<h4>What in the facts may cost throughput</h4>", _items(host["findings"])]
    out.append("<h4>Skipped</h4>")
    out.append(_items(host["warnings"], "probe-skipped") if host.get("warnings")
               else "<p>nothing: every source could be read.</p>")
    return "\n".join(out)


def notes_part(record: dict) -> str:
    v = record.get("verdict") or {}
    out = []
    if v.get("advice"):
        out += ["<h3>Advice</h3>", _items(v["advice"])]
    if v.get("notes"):
        out += ["<h3>Notes</h3>", _items(v["notes"])]
    info = record.get("tcp_info") or {}
    if info:
        rows = [([k, info_value(k, x)], False) for k, x in info.items() if x is not None]
        out += ["<h3>TCP_INFO sample (all figures)</h3>", _table("probe-tcp-info", ["field", "value"], rows,
                                                                 numeric=(1,))]
    return "\n".join(out)


# --- the section and the page --------------------------------------------------------------------

def section_html(record: dict) -> str:
    """The probe record as one HTML section (``<section id="probe">``)."""
    host, meta = record["host"], record.get("pinchpoint") or {}
    when = f" at {meta['timestamp']}" if isinstance(meta, dict) and meta.get("timestamp") else ""
    by = f" by pinchpoint {meta['version']}" if isinstance(meta, dict) and meta.get("version") else ""
    return "\n".join([
        '<section id="probe">', f"<h2>Probe: interface {_e(host.get('interface') or 'unknown')}</h2>",
        f'<p class="sub">gathered on the host{_e(when)}{_e(by)}</p>', verdict_part(record), run_part(record),
        limits_part(record), ceilings_part(record), notes_part(record), facts_part(record), "</section>"])


def page_html(record: dict, title: str | None = None) -> str:
    """A self-contained page (no scripts, nothing loaded from the network) with the probe's section."""
    title = title or f"pinchpoint probe: {record['host'].get('interface') or 'this host'}"
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{_e(title)}</title>\n<style>{_PAGE_CSS}{CSS}</style>\n</head>\n<body>\n"
            f"<h1>{_e(title)}</h1>\n{section_html(record)}\n</body>\n</html>\n")


def write_html(record: dict, path, *, key: str = "html") -> Path:
    """Write :func:`page_html` to ``path`` atomically (temporary file, then rename)."""
    path = Path(path)
    with atomic_write(path, "w", encoding="utf-8", key=key) as fh:
        fh.write(page_html(record))
    return path
