"""Where an STMR output's contact slip comes from: its touch-downs in the 1 kHz replay, and its foot slip.

    .venv/bin/python benchmarks/stmr_touchdowns.py OUTPUT.npz --robot unitree_go2
    .venv/bin/python benchmarks/stmr_touchdowns.py --clip dog_walk.bvh --start 60 --stop 150 [--set F=V]

The second form first runs STMR on frames [start, stop) of a clip at the source's timing (alpha 1,
one inner solve: no outer loop, no polish; ``--set`` overrides StmrConfig fields), ~10 s on Go2:
the cheap fixed-alpha case to compare inner-problem changes on (the outer loop's choice is chaotic).

Replays the output exactly as ``kinemorph simulate`` does (kinemorph.sim with its defaults, the
output's own controls) while recording, on every physics step, each paw's contact point (the
lowest point of its sphere): its velocity, and the floor's normal and tangential force on it.
Prints the verdict's slip, then per touch-down (a paw loaded over 1 N for at least 20 ms): its
horizontal and downward speed on the step before contact, its mean slip over the first 10 ms and
the next 30 ms, the median |tangential| / normal force over those 40 ms (the floor's friction is
0.8), and the settled stance's slip (40 ms away from either end of the stances that begin
with a touch-down: the clip's first standing is left out). Then kinemorph.quality's foot
slip split into the frames it counts as planted with the paw on the floor (within 3 mm) and
those with the paw above it (3 mm to 3 cm up, slower than 1 m/s), and by place in each planted
run. Needs MENAGERIE_ROOT.
"""

from __future__ import annotations

import argparse

import mujoco
import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("output", nargs="?", default=None, help="an STMR output (.npz with controls)")
    ap.add_argument("--robot", default="unitree_go2")
    ap.add_argument("--clip", default=None, help="a clip under $KINEMORPH_DATA/motions: run STMR at alpha 1 first")
    ap.add_argument("--start", type=int, default=0, help="first frame of the clip's slice")
    ap.add_argument("--stop", type=int, default=None, help="end frame of the clip's slice")
    ap.add_argument("--set", nargs="*", default=[], metavar="FIELD=VALUE", help="StmrConfig overrides")
    args = ap.parse_args()
    if (args.output is None) == (args.clip is None):
        ap.error("give an output file or --clip")

    from kinemorph.io import load
    from kinemorph.quality.foot_slip import foot_slip
    from kinemorph.retarget.stmr.floor_cost import foot_sphere
    from kinemorph.robots.geometry import lowest_points
    from kinemorph.robots.robot import load_robot
    from kinemorph.sim import simulate

    robot = load_robot(args.robot)
    motion = load(args.output) if args.output else fixed_alpha(args.clip, args.start, args.stop, robot, args.set)
    name = args.output or f"{args.clip}[{args.start}:{args.stop}] at alpha 1 {' '.join(args.set)}"
    log: list[np.ndarray] = []
    others: list[np.ndarray] = []  # per step: other bodies touching, their fastest contact point
    step = mujoco.mj_step
    cache: dict[str, object] = {}

    def recording_step(m: mujoco.MjModel, d: mujoco.MjData, *rest: object) -> None:
        step(m, d, *rest)
        if m.opt.timestep > 0.0015:  # only the replay's 1 kHz physics
            return
        if "geoms" not in cache:
            cache["geoms"] = [foot_sphere(m, f) for f in robot.feet]
            cache["floor"] = next(g for g in range(m.ngeom) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE)
        geoms, floor = cache["geoms"], cache["floor"]
        jac, f6, row, extra = np.zeros((3, m.nv)), np.zeros(6), np.zeros((len(geoms), 8)), np.zeros(2)
        for f, g in enumerate(geoms):  # type: ignore[arg-type]
            p = d.geom_xpos[g] - np.array([0.0, 0.0, m.geom_size[g, 0]])
            mujoco.mj_jac(m, d, jac, None, p, int(m.geom_bodyid[g]))
            row[f, :3], row[f, 3] = jac @ d.qvel, p[2]
        for i in range(d.ncon):
            c = d.contact[i]
            other = c.geom2 if c.geom1 == floor else c.geom1 if c.geom2 == floor else -1
            if other < 0:
                continue
            mujoco.mj_jac(m, d, jac, None, c.pos, int(m.geom_bodyid[other]))
            speed = float(np.linalg.norm((jac @ d.qvel)[:2]))  # as the verdict measures it
            if other in geoms:  # type: ignore[operator]
                mujoco.mj_contactForce(m, d, i, f6)
                f = geoms.index(other)  # type: ignore[attr-defined]
                row[f, 4] += f6[0]
                row[f, 5] += np.hypot(f6[1], f6[2])
                row[f, 6], row[f, 7] = 1.0, max(row[f, 7], speed)
            else:  # another body touching the floor
                extra[0] += 1.0
                extra[1] = max(extra[1], speed)
        log.append(row)
        others.append(extra)

    mujoco.mj_step = recording_step
    try:
        rep = simulate(motion, robot)
    finally:
        mujoco.mj_step = step
    rec = np.array(log)  # (steps, F, 6): contact-point velocity, height, normal and tangential force
    loaded = rec[:, :, 4] > 1.0
    slide = np.linalg.norm(rec[:, :, :2], axis=2)
    pre_h, pre_z, early, late, share, settled = [], [], [], [], [], []
    for f in range(rec.shape[1]):
        edges = np.diff(np.concatenate([[0], loaded[:, f].astype(int), [0]]))
        for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
            if b - a < 20 or a < 1:
                continue
            pre_h.append(slide[a - 1, f])
            pre_z.append(-rec[a - 1, f, 2])
            early.append(slide[a : a + 10, f].mean())
            late.append(slide[a + 10 : a + 40, f].mean())
            share.append(np.median(rec[a : a + 40, f, 5] / np.maximum(rec[a : a + 40, f, 4], 1e-9)))
            if b - a > 100:
                settled.extend(slide[a + 40 : b - 40, f])
    cm = 100.0
    base = cm * rep.base_position_rms_m
    print(
        f"{name}: verdict slip {rep.contact_slip_cm_s:.2f} cm/s, fell {rep.fell}, base {base:.1f} cm, "
        f"torque saturation {100 * rep.torque_saturation_fraction:.0f}% of steps"
    )
    if pre_h:
        print(
            f"replay touch-downs {len(pre_h)}: before contact {cm * np.mean(pre_h):.0f} cm/s sideways, "
            f"{cm * np.mean(pre_z):.0f} cm/s down; slip 0-10 ms {cm * np.mean(early):.1f}, 10-40 ms "
            f"{cm * np.mean(late):.1f} cm/s; median |f_t| / f_n over 0-40 ms {np.mean(share):.2f}"
        )
    if settled:
        mean, median = cm * np.mean(settled), cm * np.median(settled)
        print(f"settled stance (40 ms from either end, after a touch-down): mean {mean:.2f} cm/s, median {median:.2f}")
    print(
        "verdict slip by contact phase (cm/s, summing to about the verdict's): "
        + phases(rec, np.array(others), motion.fps)
    )
    fs = foot_slip(motion, robot)
    low = lowest_points(robot, motion.qpos, robot.feet)
    planted, speed = fs.planted, fs.speed_cm_s
    above = planted & (low > 0.003)
    print(
        f"quality foot slip {fs.mean_cm_s:.2f} cm/s: {planted.sum()} planted frames, {above.sum()} of them with "
        f"the paw 3 mm-3 cm above the floor ({speed[above].mean() if above.any() else 0:.1f} cm/s, "
        f"{speed[above].sum() / max(speed[planted].sum(), 1e-9):.0%} of the summed slip); on the floor "
        f"{speed[planted & ~above].mean():.1f} cm/s (median {np.median(speed[planted & ~above]):.2f})"
    )


def fixed_alpha(clip: str, start: int, stop: int | None, robot, overrides: list[str]):  # type: ignore[no-untyped-def]
    """STMR on frames [start, stop) of a clip at alpha 1: one inner solve (no outer loop)."""
    import os
    import time
    from pathlib import Path

    from kinemorph.config_fields import apply_settings
    from kinemorph.motion import load_motion
    from kinemorph.retarget import StmrConfig, retarget

    base = StmrConfig(outer_evaluations=1, final_iterations=0, outer_verdict=False, verdict=False)
    motion = load_motion(Path(os.environ.get("KINEMORPH_DATA", ".")) / "motions" / clip).slice(start, stop)
    t0 = time.perf_counter()
    out = retarget(motion, robot, engine="stmr", config=apply_settings(base, overrides))
    from kinemorph.quality import evaluate

    q = evaluate(out, robot)
    print(
        f"STMR at alpha 1 in {time.perf_counter() - t0:.0f} s: rollout vs targets "
        f"{100 * out.info['tracking_base_rms_m']:.1f} cm; output foot slip {q.foot_slip_mean_cm_s:.2f} cm/s, "
        f"penetration p95 {q.penetration_p95_cm:.2f} cm, joint jumps {q.joint_jump_frames}"
    )
    return out


def phases(rec: np.ndarray, others: np.ndarray, fps: float) -> str:
    """The verdict's slip (per output frame the mean over its contacts, averaged over the frames
    with contacts) split by each paw contact's phase; rec (steps, F, 8) and others (steps, 2:
    count, fastest speed [m/s]) of other bodies' contacts, at 1 ms (main)."""
    touch, speed = rec[:, :, 6] > 0.5, rec[:, :, 7]
    count_other, other_speed = others[:, 0], others[:, 1]
    age, left, length = (np.zeros(touch.shape, dtype=np.int64) for _ in range(3))
    for f in range(touch.shape[1]):
        edges = np.diff(np.concatenate([[0], touch[:, f].astype(int), [0]]))
        for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
            age[a:b, f], left[a:b, f], length[a:b, f] = np.arange(b - a), np.arange(b - a)[::-1], b - a
    long = length >= 20
    cats = {
        "under 20 ms": touch & ~long, "0-10 ms": touch & long & (age < 10),
        "10-40 ms": touch & long & (age >= 10) & (age < 40), "last 20 ms": touch & long & (age >= 40) & (left < 20),
        "settled": touch & long & (age >= 40) & (left >= 20),
    }  # fmt: skip
    sums = dict.fromkeys([*cats, "other bodies"], 0.0)
    frames = 0
    for s in (round(k / fps / 0.001) - 1 for k in range(1, int(len(rec) * 0.001 * fps) + 1)):
        count = touch[s].sum() + count_other[s]
        if count == 0:
            continue
        frames += 1
        for c, mask in cats.items():
            sums[c] += float((speed[s] * mask[s]).sum()) / count
        sums["other bodies"] += count_other[s] * other_speed[s] / count  # (an upper bound: their fastest)
    return ", ".join(f"{c} {100 * v / max(frames, 1):.2f}" for c, v in sums.items())


if __name__ == "__main__":
    main()
