"""The dataset report as one self-contained HTML page: inline SVG, inline CSS, no script, no
external resource."""

from __future__ import annotations

from html import escape

from .dataset import ClipResult, DatasetReport
from .perframe import ClipCurves
from .svg import histogram, line_plot
from .thresholds import METRICS

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:14px;margin:16px 0 6px}.muted{color:#666}
.cards{display:flex;gap:12px;flex-wrap:wrap}.card{border:1px solid #ddd;border-radius:6px;padding:8px 14px}
.card b{display:block;font-size:20px}.grid{display:flex;flex-wrap:wrap;gap:10px}
table{border-collapse:collapse;font-size:13px}
td,th{border-bottom:1px solid #eee;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f6f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#2a7d2a;font-weight:600}.fail{color:#c0392b;font-weight:600}
code{font-size:12px;background:#f4f4f4;padding:1px 4px}
"""


def _fmt(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.4g}"


def _verdict(ok: bool) -> str:
    return '<span class="pass">pass</span>' if ok else '<span class="fail">fail</span>'


def _physics_cell(clip: ClipResult, mode: str) -> str:
    v = clip.physics
    if v is None:
        return f'<span class="muted">{escape(clip.physics_note or "-")}</span>'
    fall = f", fell at {v.time_to_fall_s:.2f} s" if v.fell and v.time_to_fall_s is not None else ""
    return _verdict(v.passes(mode)) + escape(f" (dynamics {'ok' if v.dynamics_feasible else 'not ok'}{fall})")


def render_html(report: DatasetReport, *, worst: int = 3, version: str = "", curves: ClipCurves | None = None) -> str:
    """The page: summary, thresholds, a histogram per metric, the ``worst`` clips per thresholded
    metric with their per-frame curves, every clip's verdict."""
    curves = curves or ClipCurves(report.folder)
    clips = report.clips
    passing = len(report.passing)
    batch_failed = sum(c.status != "ok" for c in clips)
    out = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        '<link rel="icon" href="data:,">',
        f"<title>kinemorph dataset report: {escape(str(report.folder))}</title><style>{_CSS}</style></head><body>",
        "<h1>Dataset report</h1>",
        f'<p class="muted">{escape(str(report.folder))} &middot; kinemorph {escape(version)}</p>',
        '<section id="summary"><div class="cards">',
        f'<div class="card"><b>{len(clips)}</b>clips</div>',
        f'<div class="card"><b class="pass">{passing}</b>pass</div>',
        f'<div class="card"><b class="fail">{len(clips) - passing}</b>fail</div>',
        f'<div class="card"><b>{batch_failed}</b>failed in the batch</div>',
        *(
            [
                f'<div class="card"><b>{sum(c.physics is not None and c.physics.passes(report.physics) for c in clips)}'
                f"</b>physically feasible ({escape(report.physics)})</div>"
            ]
            if report.physics
            else []
        ),
        "</div></section>",
        '<section id="thresholds"><h2>Thresholds</h2><table><tr><th>metric</th><th>limit</th>'
        "<th>clips over it</th><th>undefined</th></tr>",
    ]
    for t in report.thresholds:
        values = [c.quality.get(t.metric) for c in clips if c.status == "ok"]
        over = sum(t.passes(v) is False for v in values)
        undefined = sum(t.passes(v) is None for v in values)
        out.append(
            f"<tr><td>{escape(METRICS.get(t.metric, t.metric))} <code>{t.metric}</code></td><td>{escape(t.text())}</td>"
            f'<td class="num">{over}</td><td class="num">{undefined}</td></tr>'
        )
    out.append("</table></section>")

    out.append('<section id="distributions"><h2>Distributions over clips</h2><div class="grid">')
    for m in report.metrics:
        limit = report.threshold(m)
        vals = [v for _, v in report.values(m)]
        out.append(
            histogram(
                vals,
                title=f"{METRICS.get(m, m)} (n={len(vals)})",
                limit_max=limit.max if limit else None,
                limit_min=limit.min if limit else None,
            )
        )
    out.append("</div></section>")

    out.append(f'<section id="worst"><h2>Worst {worst} clips per thresholded metric</h2>')
    for t in report.thresholds:
        if t.metric not in report.metrics:
            continue
        out.append(f"<h3>{escape(METRICS.get(t.metric, t.metric))} (limit {escape(t.text())})</h3>")
        out.append("<table><tr><th>clip</th><th>value</th><th>verdict</th><th>per frame</th></tr>")
        for clip, value in report.worst(t.metric, worst):
            c = curves.curves(clip.output, t.metric)
            picture = (
                f'<span class="muted">{escape(c)}</span>'
                if isinstance(c, str)
                else line_plot(c.series, fps=c.fps, title=c.title, limit=c.limit)
            )
            view = escape(f"kinemorph view {report.folder / clip.output}")
            out.append(
                f'<tr><td>{escape(clip.output)}<br><code>{view}</code></td><td class="num">{_fmt(value)}</td>'
                f"<td>{_verdict(t.passes(value) is not False)}</td><td>{picture}</td></tr>"
            )
        out.append("</table>")
    out.append("</section>")

    shown = [t.metric for t in report.thresholds if t.metric in report.metrics]
    out.append('<section id="clips"><h2>Every clip</h2><table><tr><th>clip</th><th>verdict</th><th>frames</th>')
    out += [f"<th>{escape(m)}</th>" for m in shown]
    if report.physics:
        out.append("<th>physics</th>")
    out.append("<th>why it fails</th></tr>")
    for clip in clips:
        cells = "".join(f'<td class="num">{_fmt(clip.quality.get(m))}</td>' for m in shown)
        if report.physics:
            cells += f"<td>{_physics_cell(clip, report.physics)}</td>"
        out.append(
            f"<tr><td>{escape(clip.output)}</td><td>{_verdict(clip.passed)}</td>"
            f'<td class="num">{clip.frames if clip.frames is not None else "-"}</td>{cells}'
            f"<td>{escape('; '.join(clip.failures))}</td></tr>"
        )
    out.append("</table></section></body></html>\n")
    return "".join(out)
