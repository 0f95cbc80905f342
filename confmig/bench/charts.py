"""Inline SVG charts for the HTML report: no script, no external file, no network.

Each chart is plain SVG markup (inline SVG in HTML5 needs no namespace declaration, so the
report contains no URL at all). Values are drawn with min–max whiskers over the repetitions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
WIDTH, HEIGHT = 530, 290
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 56, 192, 30, 45

Scale = Callable[[float], float]


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    low: float | None = None
    high: float | None = None


@dataclass
class Series:
    name: str
    points: list[Point] = field(default_factory=list)
    dashed: bool = False
    color: str | None = None


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high]."""
    if high <= low:
        high = low + 1.0
    raw = (high - low) / max(1, count)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    ticks = [round(math.floor(low / step) * step, 10)]
    while ticks[-1] < high - step * 1e-9:  # the last tick covers high
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _fmt(value: float) -> str:
    if value >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def _fmt_value(value: float) -> str:
    """``21.3k``, ``950``, ``0.42``: three significant figures at most."""
    if value >= 1000:
        return f"{value / 1000:.1f}k"
    return f"{value:.3g}"


def line_chart(title: str, series: Sequence[Series], x_label: str, y_label: str,
               log_x: bool = False) -> str:
    """A line chart with whiskers; x values are shown at their own positions (log scale for
    concurrency sweeps like 1, 2, 4, 10, 50)."""
    xs = sorted({p.x for s in series for p in s.points})
    ys = [v for s in series for p in s.points for v in (p.y, p.high or p.y)]
    if not xs or not ys:
        return ""
    y_ticks = nice_ticks(0.0, max(ys) * 1.05)
    y_max = y_ticks[-1]
    plot_w, plot_h = WIDTH - MARGIN_L - MARGIN_R, HEIGHT - MARGIN_T - MARGIN_B

    def fx(x: float) -> float:
        if len(xs) == 1:
            return MARGIN_L + plot_w / 2
        if log_x and xs[0] > 0:
            lo, hi = math.log(xs[0]), math.log(xs[-1])
            return MARGIN_L + (math.log(x) - lo) / (hi - lo) * plot_w
        return MARGIN_L + (x - xs[0]) / (xs[-1] - xs[0]) * plot_w

    def fy(y: float) -> float:
        return MARGIN_T + plot_h - (y / y_max) * plot_h

    out = [_open(title)]
    out += _axes(y_ticks, fy, x_label, y_label)
    for x in xs:
        out.append(f'<text x="{fx(x):.1f}" y="{MARGIN_T + plot_h + 16}" text-anchor="middle" '
                   f'class="tick">{_fmt(x)}</text>')
    for index, s in enumerate(series):
        color = s.color or PALETTE[index % len(PALETTE)]
        pts = sorted(s.points, key=lambda p: p.x)
        dash = ' stroke-dasharray="5,4"' if s.dashed else ""
        if len(pts) > 1:
            path = " ".join(f"{fx(p.x):.1f},{fy(p.y):.1f}" for p in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                       f'stroke-width="2"{dash}/>')
        for p in pts:
            out.extend(_marker(fx(p.x), p, fy, color))
        out.append(_legend(index, s.name, color, s.dashed))
    out.append("</svg>")
    return "\n".join(out)


def bar_chart(title: str, bars: Sequence[tuple[str, Point]], y_label: str) -> str:
    """Vertical bars (one per target) with min–max whiskers."""
    if not bars:
        return ""
    y_ticks = nice_ticks(0.0, max(p.high or p.y for _, p in bars) * 1.05)
    y_max = y_ticks[-1]
    plot_w, plot_h = WIDTH - MARGIN_L - MARGIN_R, HEIGHT - MARGIN_T - MARGIN_B

    def fy(y: float) -> float:
        return MARGIN_T + plot_h - (y / y_max) * plot_h

    out = [_open(title)]
    out += _axes(y_ticks, fy, "", y_label)
    slot = plot_w / len(bars)
    width = min(60.0, slot * 0.6)
    for index, (name, p) in enumerate(bars):
        color = PALETTE[index % len(PALETTE)]
        cx = MARGIN_L + slot * (index + 0.5)
        out.append(f'<rect x="{cx - width / 2:.1f}" y="{fy(p.y):.1f}" width="{width:.1f}" '
                   f'height="{fy(0) - fy(p.y):.1f}" fill="{color}" opacity="0.85">'
                   f"<title>{escape(name)}: {p.y:,.0f}</title></rect>")
        if p.low is not None and p.high is not None:
            out.append(_whisker(cx, fy(p.low), fy(p.high)))
        out.append(f'<text x="{cx:.1f}" y="{fy(p.y) - 6:.1f}" text-anchor="middle" '
                   f'class="value">{_fmt_value(p.y)}</text>')
        out.append(_legend(index, name, color, False))
    out.append("</svg>")
    return "\n".join(out)


def _open(title: str) -> str:
    return (f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
            f'height="{HEIGHT}" role="img" aria-label="{escape(title)}">'
            f'<text x="{MARGIN_L}" y="18" class="title">{escape(title)}</text>')


def _axes(y_ticks: Sequence[float], fy: Scale, x_label: str, y_label: str) -> list[str]:
    plot_h = HEIGHT - MARGIN_T - MARGIN_B
    right = WIDTH - MARGIN_R
    out = []
    for tick in y_ticks:
        y = fy(tick)
        out.append(f'<line x1="{MARGIN_L}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" '
                   'class="grid"/>')
        out.append(f'<text x="{MARGIN_L - 6}" y="{y + 4:.1f}" text-anchor="end" '
                   f'class="tick">{_fmt(tick)}</text>')
    out.append(f'<line x1="{MARGIN_L}" x2="{MARGIN_L}" y1="{MARGIN_T}" '
               f'y2="{MARGIN_T + plot_h}" class="axis"/>')
    out.append(f'<line x1="{MARGIN_L}" x2="{right}" y1="{MARGIN_T + plot_h}" '
               f'y2="{MARGIN_T + plot_h}" class="axis"/>')
    if x_label:
        out.append(f'<text x="{(MARGIN_L + right) / 2:.1f}" y="{HEIGHT - 8}" '
                   f'text-anchor="middle" class="label">{escape(x_label)}</text>')
    out.append(f'<text x="16" y="{MARGIN_T + plot_h / 2:.1f}" text-anchor="middle" '
               f'class="label" transform="rotate(-90 16 {MARGIN_T + plot_h / 2:.1f})">'
               f"{escape(y_label)}</text>")
    return out


def _marker(x: float, p: Point, fy: Scale, color: str) -> list[str]:
    out = []
    if p.low is not None and p.high is not None and p.high > p.low:
        out.append(_whisker(x, fy(p.low), fy(p.high), color))
    out.append(f'<circle cx="{x:.1f}" cy="{fy(p.y):.1f}" r="3.5" fill="{color}">'
               f"<title>{_fmt(round(p.x, 2))}: {p.y:,.2f}</title></circle>")
    return out


def _whisker(x: float, y_low: float, y_high: float, color: str = "#333") -> str:
    return (f'<path d="M{x - 4:.1f},{y_low:.1f}H{x + 4:.1f}M{x:.1f},{y_low:.1f}V{y_high:.1f}'
            f'M{x - 4:.1f},{y_high:.1f}H{x + 4:.1f}" stroke="{color}" fill="none"/>')


def _legend(index: int, name: str, color: str, dashed: bool) -> str:
    x = WIDTH - MARGIN_R + 12
    y = MARGIN_T + 8 + index * 18
    dash = ' stroke-dasharray="5,4"' if dashed else ""
    return (f'<line x1="{x}" x2="{x + 18}" y1="{y}" y2="{y}" stroke="{color}" '
            f'stroke-width="3"{dash}/><text x="{x + 24}" y="{y + 4}" class="legend">'
            f"{escape(name)}</text>")
