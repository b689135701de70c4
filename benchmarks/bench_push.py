"""Push recovery on G1 over the gait phase: a push-time matrix and a per-tick look at the standing feet.

    python benchmarks/bench_push.py                                   # 1.5 N/kg front + left at 4.0, 4.1, ..., 4.6 s
    python benchmarks/bench_push.py --variants default stepping       # named controller variants (VARIANTS)
    python benchmarks/bench_push.py --force 1.0 --sides front --times 4.0 4.3
    python benchmarks/bench_push.py --diagnose 1.5@4:front --variants stepping   # standing feet, tick by tick

The matrix prints one line per variant and side: the outcome per push time (ok, or the fall time)
and how many recovered (--stats: means over the push times of how far the standing feet slid
while loaded, how often the QP's force sat on its friction pyramid's edge, how often a standing
foot was unloaded against the plan, how often a motor was at its torque limit). The walk is
neutral at 0.2 m/s for 10 s (as bench_control.py --push).
The diagnosis prints, every 40 ms from the push to the fall, each foot the plan has standing:
MuJoCo's normal force vs the QP's, the horizontal-to-normal force ratio (floor friction 0.8,
the QP's pyramid 0.6), the foot's horizontal speed (slip), and the motors at their torque limit.
Needs MENAGERIE_ROOT. The machine is shared: one simulation at a time.
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from kinemorph.config_fields import apply_settings
from kinemorph.control import ControlConfig, SimulationConfig, parse_push, simulate_gait
from kinemorph.control.push import Push
from kinemorph.control.stepping import SteppingConfig
from kinemorph.control.wbc import WbcConfig
from kinemorph.errors import ConfigError
from kinemorph.gait import Commands, load_style
from kinemorph.robots import load_robot
from kinemorph.sim import build_torque_model


def _wbc(**kw: object) -> ControlConfig:
    return ControlConfig(wbc=dataclasses.replace(WbcConfig(), **kw))


def _step(latch: float = 0.0, max_kappa: float = 2.0, min_push: float = 1.1, min_time: float = 0.0,
          **kw: object) -> ControlConfig:  # fmt: skip
    stepping = SteppingConfig(enabled=True, latch=latch, max_kappa=max_kappa, min_push=min_push,
                              full_push=min_push + 0.2, min_time=min_time)  # fmt: skip
    return ControlConfig(stepping=stepping, wbc=dataclasses.replace(WbcConfig(), **kw))


VARIANTS = {
    "default": lambda: ControlConfig(),
    "stepping": lambda: _step(),
    "hard": lambda: _wbc(hard_contacts=True),
    "limits": lambda: _wbc(torque_limits=True),
    "hard+limits": lambda: _wbc(hard_contacts=True, torque_limits=True),
    "stance1000": lambda: _wbc(stance_weight=1000.0),
    "stepping+hard": lambda: _step(hard_contacts=True),
    "stepping+limits": lambda: _step(torque_limits=True),
    "stepping+hard+limits": lambda: _step(hard_contacts=True, torque_limits=True),
    "stepping+stance1000": lambda: _step(stance_weight=1000.0),
    "stepping+latch1": lambda: _step(latch=1.0),
    "stepping+hard+latch1": lambda: _step(latch=1.0, hard_contacts=True),
    "stepping+hard+latch1.5": lambda: _step(latch=1.5, hard_contacts=True),
    "stepping+hard+limits+latch1": lambda: _step(latch=1.0, hard_contacts=True, torque_limits=True),
    "stepping+hard+limits+latch1+min0.1": lambda: _step(
        latch=1.0, min_time=0.1, hard_contacts=True, torque_limits=True
    ),
    "stepping+hard+limits+kappa3": lambda: _step(max_kappa=3.0, hard_contacts=True, torque_limits=True),
    "stepping+latch1+pushc": lambda: _step(latch=1.0, push_constraints=True),
    "stepping1.25+hard+limits+latch1": lambda: _step(latch=1.0, min_push=1.25, hard_contacts=True, torque_limits=True),
    "friction0.75": lambda: _wbc(friction=0.75),
    "stepping+hard+friction0.75": lambda: _step(hard_contacts=True, friction=0.75),
}


def override(control: ControlConfig, settings: list[str]) -> ControlConfig:
    """``control`` with "part.field=value" settings (e.g. stepping.latch=1, wbc.hard_contacts=true);
    ConfigError names a bad one (kinemorph.config_fields.apply_settings, as ``kinemorph gait --control``)."""
    return apply_settings(control, settings)


def simulate(push: Push, control: ControlConfig, duration: float = 10.0):
    cfg = SimulationConfig(raise_on_fall=False, control=control)
    robot = load_robot("unitree_g1")
    return simulate_gait(load_style("neutral"), robot, Commands.constant([0.2, 0, 0]), duration, config=cfg,
                         pushes=[push])  # fmt: skip


def feet_stats(sim, push: Push, limit: np.ndarray) -> np.ndarray:
    """From the push to the fall (or 2 s after the push): how far the feet the plan has standing slid
    while loaded (> 50 N in MuJoCo) [cm, largest of the two], the share of their ticks with the QP's
    force at its pyramid's edge (ratio >= 0.59), the share unloaded against the plan (MuJoCo < 10 N
    while the QP has > 50 N), the share of ticks with a motor at its torque limit, and the slide
    up to 0.3 s before the fall (the collapse left out) [cm]. Shape: (5,)."""
    log = sim.log
    end = sim.fall_time if sim.fell else push.start + 2.0
    span = (log.time >= push.start) & (log.time <= end)
    dt = float(log.time[1] - log.time[0])
    vel = np.zeros(log.foot_pos.shape[:2])
    vel[1:] = np.linalg.norm(np.diff(log.foot_pos[..., :2], axis=0), axis=2) / dt
    fm, fq = log.contact_force[span], log.qp_force[span]
    stand = log.contacts_ref[span]
    loaded = stand & (fm[..., 2] > 50.0)
    slid = 100 * (vel[span] * loaded * dt).sum(axis=0).max()
    ratio = np.linalg.norm(fq[..., :2], axis=2) / np.maximum(fq[..., 2], 1e-6)
    n = max(int(stand.sum()), 1)
    bind = float((stand & (fq[..., 2] > 1.0) & (ratio >= 0.59)).sum()) / n
    unloaded = float((stand & (fm[..., 2] < 10.0) & (fq[..., 2] > 50.0)).sum()) / n
    sat = float((np.abs(log.torque[span]) >= 0.999 * limit).any(axis=1).mean())
    early = log.time[span] <= end - (0.3 if sim.fell else 0.0)
    before = 100 * (vel[span] * loaded * dt)[early].sum(axis=0).max()
    return np.array([slid, bind, unloaded, sat, before])


def matrix(variants: list[str], sides: list[str], times: list[float], force: float, duration: float,
           stats: bool = False, settings: tuple[str, ...] = ()) -> None:  # fmt: skip
    limit = build_torque_model(load_robot("unitree_g1")).torque_limit
    for name in variants:
        for side in sides:
            cells, rows = [], []
            for t in times:
                push = Push(force, t, side)
                sim = simulate(push, override(VARIANTS[name](), list(settings)), duration)
                cells.append(f"{sim.fall_time:.2f}" if sim.fell else "ok")
                rows.append(feet_stats(sim, push, limit))
            ok = sum(c == "ok" for c in cells)
            extra = ""
            if stats:
                m = np.mean(rows, axis=0)
                extra = (f"  | mean: standing foot slid {m[0]:.1f} cm ({m[4]:.1f} cm until 0.3 s before a fall), "
                         f"QP pyramid edge {100 * m[1]:.0f}%, unloaded {100 * m[2]:.0f}%, "
                         f"torque at limit {100 * m[3]:.0f}% of ticks")  # fmt: skip
            print(f"{name:24s} {force:g} N/kg {side:5s} " + " ".join(f"{c:>5s}" for c in cells)
                  + f"  recovered {ok}/{len(cells)}{extra}", flush=True)  # fmt: skip


def diagnose(spec: str, name: str, settings: tuple[str, ...] = ()) -> None:
    push = parse_push(spec)
    sim = simulate(push, override(VARIANTS[name](), list(settings)))
    log = sim.log
    limit = build_torque_model(load_robot("unitree_g1")).torque_limit
    dt = float(log.time[1] - log.time[0])
    vel = np.zeros_like(log.foot_pos[..., :2])
    vel[1:] = np.diff(log.foot_pos[..., :2], axis=0) / dt
    sat = np.abs(log.torque) >= 0.999 * limit
    print(f"{spec} {name}: " + (f"fell at {sim.fall_time:.2f} s" if sim.fell else "walked"))
    print("time   phase  foot  Fz_mj  Fz_qp  |Fxy|/Fz mj  qp   slip[m/s]  ref-err[cm]  saturated")
    end = sim.fall_time if sim.fell else push.start + 2.0
    for i in np.flatnonzero((log.time >= push.start - 0.1) & (log.time <= end)):
        if i % 5:
            continue
        names = ",".join(str(j) for j in np.flatnonzero(sat[i]))
        for f in range(2):
            if not log.contacts_ref[i, f]:
                continue
            fm, fq = log.contact_force[i, f], log.qp_force[i, f]
            rm = np.linalg.norm(fm[:2]) / max(fm[2], 1e-6)
            rq = np.linalg.norm(fq[:2]) / max(fq[2], 1e-6)
            err = 100 * np.linalg.norm(log.foot_pos[i, f, :2] - log.foot_pos_ref[i, f, :2])
            print(f"{log.time[i]:5.2f}  {log.phase[i]:5.3f}  {'LR'[f]:4s}  {fm[2]:5.0f}  {fq[2]:5.0f}  "
                  f"{rm:11.2f}  {rq:4.2f}  {np.linalg.norm(vel[i, f]):9.2f}  {err:11.1f}  {names}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variants", nargs="*", default=["default"], help=f"of {', '.join(VARIANTS)}")
    ap.add_argument("--sides", nargs="*", default=["front", "left"])
    ap.add_argument("--times", nargs="*", type=float, default=[4.0, 4.1, 4.2, 4.3, 4.4, 4.5, 4.6])
    ap.add_argument("--force", type=float, default=1.5, help="N/kg [1.5]")
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--stats", action="store_true", help="the standing feet's slide, force and torque figures")
    ap.add_argument("--diagnose", help="one push F@T:DIR: the standing feet per tick (first variant)")
    ap.add_argument("--set", nargs="*", default=[], help="settings on top of every variant: part.field=value, "
                    "e.g. stepping.min_time=0.1 wbc.hard_contacts=true")  # fmt: skip
    args = ap.parse_args()
    unknown = [v for v in args.variants if v not in VARIANTS]
    if unknown:
        ap.error(f"unknown variant(s) {', '.join(unknown)}; valid: {', '.join(VARIANTS)}")
    try:
        override(ControlConfig(), args.set)
    except ConfigError as exc:
        ap.error(str(exc))
    if args.diagnose:
        diagnose(args.diagnose, args.variants[0], tuple(args.set))
    else:
        matrix(args.variants, args.sides, args.times, args.force, args.duration, args.stats, tuple(args.set))


if __name__ == "__main__":
    main()
