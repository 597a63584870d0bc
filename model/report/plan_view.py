"""A plan for people: the candidates x needs table, the Pareto front as a plot, an HTML page.

Formatting only: the numbers come from :mod:`pinchpoint.planner.plan`.
"""

from __future__ import annotations

import html
import io
from pathlib import Path

from pinchpoint.paths import atomic_write
from pinchpoint.physics import units
from pinchpoint.report.plots_signature import pyplot


def figure(value: float | None, need) -> str:
    """A need's figure in the unit the need was written in (rates) or in seconds (deadlines)."""
    if value is None:
        return "-"
    if need.kind == "workload":
        return units.format_quantity(value, "time")
    return units.format_rate(value, need.convention)


def margin_text(outcome) -> str:
    if outcome.margin is None:
        return "n/a"
    return f"{outcome.margin:+.0%}" + ("" if outcome.met else " FAIL")


def price_text(price) -> str:
    return "-" if price is None else f"{price:,.0f}"


def rows(plan) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the candidates x needs table: each cell the achieved figure and margin."""
    header = ["candidate", "price", *(n.name for n in plan.needs), "headroom", ""]
    out = []
    for r in plan.rows:
        cells = [f"{figure(o.achieved, n)} ({margin_text(o)})" for n, o in zip(plan.needs, r.outcomes)]
        mark = "cheapest" if r.name == plan.cheapest else ("front" if r.name in plan.front else "")
        head = "-" if r.headroom == float("-inf") else f"{r.headroom:+.0%}"
        out.append([r.name, price_text(r.price), *cells, head, mark])
    return header, out


def failures(plan, limit: int = 12) -> list[str]:
    """Lines for the failing needs: what binds, the smallest change, the probability."""
    lines = []
    for r in plan.rows:
        for n, o in zip(plan.needs, r.outcomes):
            if o.met:
                continue
            if o.margin is None:
                lines.append(f"{r.name}: {n.name}: {o.note}")
                continue
            text = (f"{r.name}: {n.name} reaches {figure(o.achieved, n)} of {figure(o.required, n)} "
                    f"({o.margin:+.0%})" + (f", bound by {', '.join(o.binding)}" if o.binding else ""))
            fix = r.fixes.get(n.name)
            if fix is not None:
                text += f"; smallest change: {fix.text()}"
            lines.append(text)
            if len(lines) >= limit:
                return lines + ["..."]
    return lines


def probabilities(plan) -> list[str]:
    return [f"{r.name}: P({need} met) = {p:.0%}" for r in plan.rows for need, p in r.probability.items()]


def _draw_front(plan):
    plt = pyplot(key="plot")
    fig, ax = plt.subplots(figsize=(7, 4.2))
    priced = [r for r in plan.rows if r.price is not None and r.headroom > float("-inf")]
    for r in priced:
        colour = "tab:green" if r.meets_all else "tab:red"
        ax.scatter(r.price, 100 * r.headroom, color=colour, s=28, zorder=3,
                   edgecolors="black" if r.name in plan.front else "none")
    front = sorted((r for r in priced if r.name in plan.front), key=lambda r: r.price)
    if front:
        ax.step([r.price for r in front], [100 * r.headroom for r in front], where="post",
                color="tab:blue", lw=1.2, label="Pareto front")
        for r in front:
            ax.annotate(r.name, (r.price, 100 * r.headroom), fontsize=7, xytext=(4, 4),
                        textcoords="offset points")
    ax.axhline(0, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("price")
    ax.set_ylabel("headroom: smallest margin over the needs [%]")
    ax.set_title(f"{plan.name}: cost vs headroom (green: meets every need)", fontsize=10)
    if front:
        ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig, plt


def plot_front(plan, path) -> Path:
    """Draw the cost-versus-headroom plane to ``path`` (.png, .svg, .pdf), atomically."""
    fig, plt = _draw_front(plan)
    path = Path(path)
    with atomic_write(path, "wb", encoding=None, key="plot") as fh:
        fig.savefig(fh, format=path.suffix.lstrip(".").lower() or "png", bbox_inches="tight", dpi=120)
    plt.close(fig)
    return path


def _svg(plan) -> str:
    fig, plt = _draw_front(plan)
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def section_html(plan) -> str:
    """The plan as an HTML section (the table, the failures, the front)."""
    header, body = rows(plan)
    esc = html.escape
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    trs = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in body)
    fails = "".join(f"<li>{esc(x)}</li>" for x in failures(plan, limit=50))
    probs = "".join(f"<li>{esc(x)}</li>" for x in probabilities(plan))
    return (f"<section id='plan'><h2>Purchase plan: {esc(plan.name)}</h2>"
            f"<p class='verdict'>{esc(plan.verdict())}</p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{trs}</tbody></table>"
            + (f"<h3>Needs not met</h3><ul>{fails}</ul>" if fails else "")
            + (f"<h3>Probability with the profiles' value ranges</h3><ul>{probs}</ul>" if probs else "")
            + f"<h3>Cost versus headroom</h3>{_svg(plan)}</section>")


def write_html(plan, path) -> Path:
    """A self-contained page with the plan's section."""
    page = ("<!DOCTYPE html><html><head><meta charset='utf-8'>"
            f"<title>pinchpoint plan: {html.escape(plan.name)}</title><style>"
            "body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:3px 8px;font-size:90%}.verdict{font-weight:bold}"
            "</style></head><body>" + section_html(plan) + "</body></html>")
    with atomic_write(Path(path), "w", key="html") as fh:
        fh.write(page)
    return Path(path)
