"""Inline SVG pictures for the report: a histogram with its threshold, a per-frame line plot.
Plain strings, no plotting library; every text is escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

import numpy as np

PASS_COLOUR = "#4c78a8"
FAIL_COLOUR = "#e45756"
COLOURS = ("#4c78a8", "#f58518", "#54a24b", "#b279a2", "#9d755d", "#72b7b2")
MAX_POINTS = 600
"""Per-frame plots keep at most this many points per series (every k-th frame)."""


def _num(x: float) -> str:
    return f"{x:.4g}"


def _frame(width: int, height: int, body: str, title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">'
        f'<rect width="{width}" height="{height}" fill="#fff"/>{body}</svg>'
    )


def histogram(
    values: Sequence[float],
    *,
    title: str,
    limit_max: float | None = None,
    limit_min: float | None = None,
    bins: int = 20,
    width: int = 320,
    height: int = 150,
) -> str:
    """Counts of ``values`` in ``bins`` equal bins; bins past a limit drawn in red, limits dashed."""
    left, right, top, bottom = 34, 8, 18, 28
    v = np.asarray(values, dtype=np.float64)
    body = [f'<text x="{left}" y="12" font-size="11">{escape(title)}</text>']
    if v.size == 0:
        body.append(f'<text x="{left}" y="{height // 2}" font-size="11" fill="#888">no defined values</text>')
        return _frame(width, height, "".join(body), title)
    lo, hi = float(v.min()), float(v.max())
    for lim in (limit_max, limit_min):
        if lim is not None:
            lo, hi = min(lo, lim), max(hi, lim)
    if hi - lo < 1e-12:
        lo, hi = lo - 0.5, hi + 0.5
    counts, edges = np.histogram(v, bins=bins, range=(lo, hi))
    pw, ph = width - left - right, height - top - bottom
    peak = max(int(counts.max()), 1)

    def x(val: float) -> float:
        return left + (val - lo) / (hi - lo) * pw

    for k, c in enumerate(counts):
        if c == 0:
            continue
        mid = 0.5 * (edges[k] + edges[k + 1])
        bad = (limit_max is not None and mid > limit_max) or (limit_min is not None and mid < limit_min)
        h = c / peak * ph
        w = max(x(edges[k + 1]) - x(edges[k]) - 1, 1)
        body.append(
            f'<rect x="{x(edges[k]) + 0.5:.1f}" y="{top + ph - h:.1f}" width="{w:.1f}" '
            f'height="{h:.1f}" fill="{FAIL_COLOUR if bad else PASS_COLOUR}"><title>{int(c)} clips in '
            f"[{_num(edges[k])}, {_num(edges[k + 1])}]</title></rect>"
        )
    for lim in (limit_max, limit_min):
        if lim is not None:
            body.append(
                f'<line x1="{x(lim):.1f}" x2="{x(lim):.1f}" y1="{top}" y2="{top + ph}" stroke="#222" '
                f'stroke-dasharray="4 3"/>'
            )
    axis_y = top + ph
    body.append(f'<line x1="{left}" x2="{left + pw}" y1="{axis_y}" y2="{axis_y}" stroke="#999"/>')
    body.append(f'<text x="{left}" y="{axis_y + 14}" font-size="10">{_num(lo)}</text>')
    body.append(f'<text x="{left + pw}" y="{axis_y + 14}" font-size="10" text-anchor="end">{_num(hi)}</text>')
    body.append(f'<text x="{left - 4}" y="{top + 8}" font-size="10" text-anchor="end">{peak}</text>')
    body.append(f'<text x="{left - 4}" y="{axis_y}" font-size="10" text-anchor="end">0</text>')
    return _frame(width, height, "".join(body), title)


def line_plot(
    series: Mapping[str, np.ndarray],
    *,
    fps: float,
    title: str,
    limit: float | None = None,
    width: int = 420,
    height: int = 130,
) -> str:
    """One polyline per series over time [s]; NaN breaks a line; ``limit`` as a dashed red line."""
    left, right, top, bottom = 42, 8, 18, 26
    body = [f'<text x="{left}" y="12" font-size="11">{escape(title)}</text>']
    arrays = {k: np.asarray(s, dtype=np.float64) for k, s in series.items()}
    finite = [a[np.isfinite(a)] for a in arrays.values()]
    finite = [a for a in finite if a.size]
    if not finite:
        body.append(f'<text x="{left}" y="{height // 2}" font-size="11" fill="#888">no defined values</text>')
        return _frame(width, height, "".join(body), title)
    lo = min(float(a.min()) for a in finite)
    hi = max(float(a.max()) for a in finite)
    if limit is not None:
        lo, hi = min(lo, limit), max(hi, limit)
    if hi - lo < 1e-12:
        lo, hi = lo - 0.5, hi + 0.5
    n = max(len(a) for a in arrays.values())
    duration = max((n - 1) / fps, 1e-9)
    pw, ph = width - left - right, height - top - bottom
    step = max(1, int(np.ceil(n / MAX_POINTS)))

    def xy(i: int, val: float) -> str:
        return f"{left + i / fps / duration * pw:.1f},{top + (hi - val) / (hi - lo) * ph:.1f}"

    for k, (name, a) in enumerate(arrays.items()):
        colour = COLOURS[k % len(COLOURS)]
        points: list[str] = []
        for i in range(0, len(a), step):
            if np.isfinite(a[i]):
                points.append(xy(i, float(a[i])))
            elif points:
                body.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="{colour}" stroke-width="1.2"/>')
                points = []
        if points:
            body.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="{colour}" stroke-width="1.2"/>')
        if len(arrays) > 1:
            body.append(
                f'<text x="{left + pw}" y="{12 + 11 * k}" font-size="10" text-anchor="end" fill="{colour}">'
                f"{escape(name)}</text>"
            )
    if limit is not None:
        y = top + (hi - limit) / (hi - lo) * ph
        body.append(
            f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="{FAIL_COLOUR}" '
            f'stroke-dasharray="4 3"/>'
        )
    axis_y = top + ph
    body.append(f'<line x1="{left}" x2="{left + pw}" y1="{axis_y}" y2="{axis_y}" stroke="#999"/>')
    body.append(f'<text x="{left}" y="{axis_y + 14}" font-size="10">0 s</text>')
    body.append(f'<text x="{left + pw}" y="{axis_y + 14}" font-size="10" text-anchor="end">{duration:.1f} s</text>')
    body.append(f'<text x="{left - 4}" y="{top + 8}" font-size="10" text-anchor="end">{_num(hi)}</text>')
    body.append(f'<text x="{left - 4}" y="{axis_y}" font-size="10" text-anchor="end">{_num(lo)}</text>')
    return _frame(width, height, "".join(body), title)
