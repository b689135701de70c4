"""The feasibility table of STMR's stages: natural mode, spatial only (SMR), both stages (STMR).

    .venv/bin/python benchmarks/stmr_table.py --clips dog_walk.bvh dog_idle.bvh --robots unitree_go2 unitree_a1
    [--floor-timeconst T] [--friction-pass T] [--set FIELD=VALUE ...]

For each clip and robot, every output is replayed by kinemorph.sim (defaults of the check: STMR's
output with its own controls, the others with the tracking replay; all on the floor STMR's
rollouts are made on, StmrConfig.floor_timeconst and floor_friction_timeconst) and one Markdown
row printed:
verdict, controller, fell (at), base rms (and, for controls, that of the same controls replayed at
the check's own 1 kHz instead of the physics they name: a robustness check), torque saturation,
residual, slip in the replay (all contacts, and planted feet alone: kinemorph.sim's
planted_foot_slip_cm_s), the output's foot slip, penetration and joint jumps (kinemorph.quality),
the frames on which STMR's contact mask has a body other than a foot (a leg its rollout put on the floor),
STMR's rollout against its targets, alpha, duration and time; the verdict's reasons on stderr.
Needs MENAGERIE_ROOT and KINEMORPH_DATA.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path


def rows(
    clip: Path, robot_name: str, save: Path | None = None, floor: dict | None = None,
    friction_pass: float | None = None, settings: tuple[str, ...] = (),
) -> list[str]:  # fmt: skip
    """The three rows of one clip and robot; ``floor``: the floor_timeconst and floor_friction_timeconst
    of STMR's rollouts and of every replay (None: the defaults); ``friction_pass``: StmrConfig's;
    ``settings``: other StmrConfig fields of the STMR row, "field=value" (kinemorph.config_fields)."""
    from kinemorph.config_fields import apply_settings
    from kinemorph.motion import load_motion
    from kinemorph.quality import evaluate
    from kinemorph.retarget import QuadrupedConfig, StmrConfig, retarget
    from kinemorph.robots.robot import load_robot
    from kinemorph.sim import SimConfig, simulate

    motion = load_motion(clip)
    robot = load_robot(robot_name)
    floor = floor or {}
    out = []
    for stage, engine, cfg in (
        ("natural", "quadruped", QuadrupedConfig()),
        ("SMR", "stmr", StmrConfig(stages="spatial", verdict=False, **floor)),
        ("STMR", "stmr", apply_settings(StmrConfig(verdict=False, friction_pass=friction_pass, **floor), settings)),
    ):
        start = time.perf_counter()
        res = retarget(motion, robot, engine=engine, config=cfg)
        seconds = time.perf_counter() - start
        if save is not None:
            from kinemorph.io import save as save_motion

            save.mkdir(parents=True, exist_ok=True)
            save_motion(res, save / f"{robot_name}_{clip.stem}_{stage}.npz", force=True)
        v = simulate(res, robot, config=SimConfig(**floor))
        q = evaluate(res, robot)
        at_1khz = "-"
        if res.controls is not None:  # the same controls at the check's own 1 kHz: a robustness check
            other = replace(res, controls=replace(res.controls, physics_dt=None))
            k = simulate(other, robot)
            at_1khz = (f"fell {k.time_to_fall_s:.2f} s, " if k.fell else "") + f"{100 * k.base_position_rms_m:.1f}"

        feet = len(robot.feet)  # STMR's mask: the feet, then the legs its rollout put on the floor
        legs = "-" if res.controls is None else str(int(res.contacts[:, feet:].any(axis=1).sum()))
        fell = f"{v.time_to_fall_s:.2f} s" if v.fell else "no"
        alpha = " ".join(f"{a:.2f}" for a in res.info.get("alpha", [])) or "-"
        track = res.info.get("tracking_base_rms_m")
        rollout = "-" if track is None else f"{100 * track:.1f}{'' if res.info.get('upright') else ' tipped'}"
        out.append(
            f"| {robot_name} | {clip.name} | {stage} | {'feasible' if v.feasible else 'infeasible'} | "
            f"{v.controller.split(' on ')[0]} | {fell} | {100 * v.base_position_rms_m:.1f} | {at_1khz} | "
            f"{100 * v.torque_saturation_fraction:.0f} | {100 * v.residual_force_mean_fraction:.0f} | "
            f"{v.contact_slip_cm_s:.1f} | {v.planted_foot_slip_cm_s:.1f} | {q.foot_slip_mean_cm_s:.2f} | "
            f"{q.penetration_p95_cm:.2f} | {q.joint_jump_frames} | {legs} | {rollout} | {alpha} | "
            f"{res.num_frames / res.fps:.2f} | {seconds:.0f} |"
        )
        print(out[-1], flush=True)
        on_floor = res.info.get("floor_bodies")
        why = "; ".join(v.reasons) or "no reasons"
        legs_note = f"; legs on the floor: {on_floor}" if on_floor else ""
        if "friction_pass" in res.info:  # the choice and the pass: objective, replay
            last = [(round(h["objective"], 2), h["replay"]["reasons"]) for h in res.info["outer"][-2:]]
            legs_note += f"; friction pass: {res.info['friction_pass']}, {last}"
        print(f"  {stage}: {why}{legs_note}", file=sys.stderr, flush=True)
    return out


def main() -> None:
    from kinemorph.retarget import StmrConfig

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", nargs="+", default=["dog_walk.bvh", "dog_idle.bvh"])
    ap.add_argument("--robots", nargs="+", default=["unitree_go2", "unitree_a1"])
    ap.add_argument("--save", type=Path, default=None, help="folder to save each output in (ROBOT_CLIP_STAGE.npz)")
    ap.add_argument(
        "--floor-timeconst",
        type=float,
        default=None,
        help="the floor's contact time constant [s] for STMR's rollouts and every replay (None: MuJoCo's)",
    )
    ap.add_argument(
        "--floor-friction-timeconst",
        type=float,
        default=None,
        help="the time constant of its friction rows alone [s] (None: STMR's default)",
    )
    ap.add_argument(
        "--friction-pass",
        type=float,
        default=StmrConfig().friction_pass,
        help="StmrConfig.friction_pass [s]: the chosen alpha solved again on stiffer friction rows (default: STMR's)",
    )
    ap.add_argument("--set", nargs="*", default=[], metavar="FIELD=VALUE", help="StmrConfig fields of the STMR row")
    args = ap.parse_args()
    print(
        "| robot | clip | stage | verdict | replayed by | fell at | base rms [cm] | at 1 kHz: base rms [cm] "
        "| saturation [% steps] "
        "| residual mean [% weight] | slip in sim [cm/s] | planted slip in sim [cm/s] | foot slip [cm/s] "
        "| penetration p95 [cm] | joint jumps | frames with a leg on the floor "
        "| rollout vs targets [cm] | alpha | duration [s] | time [s] |"
    )
    print("|---" * 20 + "|")
    data = Path(os.environ.get("KINEMORPH_DATA", ".")) / "motions"
    for robot in args.robots:
        for clip in args.clips:
            friction = args.floor_friction_timeconst
            floor = {
                "floor_timeconst": args.floor_timeconst,
                "floor_friction_timeconst": StmrConfig().floor_friction_timeconst if friction is None else friction,
            }
            rows(data / clip, robot, args.save, floor, args.friction_pass, tuple(args.set))


if __name__ == "__main__":
    main()
