"""Where an STMR output's contact slip comes from: its touch-downs in the 1 kHz replay, and its foot slip.

    .venv/bin/python benchmarks/stmr_touchdowns.py OUTPUT.npz --robot unitree_go2

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
    ap.add_argument("output", help="an STMR output (.npz with controls)")
    ap.add_argument("--robot", default="unitree_go2")
    args = ap.parse_args()

    from kinemorph.io import load
    from kinemorph.quality.foot_slip import foot_slip
    from kinemorph.retarget.stmr.floor_cost import foot_sphere
    from kinemorph.robots.geometry import lowest_points
    from kinemorph.robots.robot import load_robot
    from kinemorph.sim import simulate

    motion, robot = load(args.output), load_robot(args.robot)
    log: list[np.ndarray] = []
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
        jac, f6, row = np.zeros((3, m.nv)), np.zeros(6), np.zeros((len(geoms), 6))
        for f, g in enumerate(geoms):  # type: ignore[arg-type]
            p = d.geom_xpos[g] - np.array([0.0, 0.0, m.geom_size[g, 0]])
            mujoco.mj_jac(m, d, jac, None, p, int(m.geom_bodyid[g]))
            row[f, :3], row[f, 3] = jac @ d.qvel, p[2]
        for i in range(d.ncon):
            c = d.contact[i]
            other = c.geom2 if c.geom1 == floor else c.geom1 if c.geom2 == floor else -1
            if other in geoms:  # type: ignore[operator]
                mujoco.mj_contactForce(m, d, i, f6)
                f = geoms.index(other)  # type: ignore[union-attr]
                row[f, 4] += f6[0]
                row[f, 5] += np.hypot(f6[1], f6[2])
        log.append(row)

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
    print(f"{args.output}: verdict slip {rep.contact_slip_cm_s:.2f} cm/s, fell {rep.fell}, base {base:.1f} cm")
    if pre_h:
        print(
            f"replay touch-downs {len(pre_h)}: before contact {cm * np.mean(pre_h):.0f} cm/s sideways, "
            f"{cm * np.mean(pre_z):.0f} cm/s down; slip 0-10 ms {cm * np.mean(early):.1f}, 10-40 ms "
            f"{cm * np.mean(late):.1f} cm/s; median |f_t| / f_n over 0-40 ms {np.mean(share):.2f}"
        )
    if settled:
        mean, median = cm * np.mean(settled), cm * np.median(settled)
        print(f"settled stance (40 ms from either end, after a touch-down): mean {mean:.2f} cm/s, median {median:.2f}")
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


if __name__ == "__main__":
    main()
