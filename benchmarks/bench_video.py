"""Video to motion: solver speed and accuracy on landmarks made from known clips; detection speed.

    python benchmarks/bench_video.py [--repeats 5] [--noise 0.01] [--video FILE --pose-model FILE.task]

Clips: the project's procedural walk (60 s at 30 fps, turning on a 4 m circle) and, with
KINEMORPH_DATA, LAFAN1 walk.bvh and dance.bvh. Each clip's joints become BlazePose landmarks
(kinemorph.video.synthetic: markers on the clip's own joints, a level camera, Gaussian noise of
--noise metres); the solver fits the LAFAN1 skeleton to them. Figures per clip:
- solver frames/s: the whole solve_landmarks (visibility fill, zero-lag One-Euro, bone aiming, joint
  limits, root height, image travel), best and median of --repeats after a warm-up;
- bone direction error [deg] of the BVH against the source clip (median and p95 over 14 bones:
  thighs, shanks, feet, clavicles, upper arms, forearms, hands, neck, head) and per bone the worst median;
- G1 limb direction error [deg] (with MENAGERIE_ROOT): the clip and its fitted BVH both retargeted onto
  unitree_g1 with the gmr engine; upper arms, forearms, thighs, shanks, feet and trunk compared
  (median, p95, worst limb median);
- travel error [m]: median distance of the fitted root path from the source's.
With --video and --pose-model: MediaPipe detection frames/s on this CPU.
Prints a table, then as its last line a JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np

from kinemorph.motion import Motion, load_motion
from kinemorph.motion.procedural import procedural_walk
from kinemorph.robots import load_robot
from kinemorph.video import solve_landmarks, synthetic_landmarks
from kinemorph.video.accuracy import BONES, bone_errors, limb_errors


def clips() -> dict[str, Motion]:
    out = {"procedural walk": procedural_walk(duration=60.0, turn_rate=0.3)}  # circles of 4 m radius
    root = os.environ.get("KINEMORPH_DATA")
    for name in ("walk", "dance"):
        path = Path(root or "") / "motions" / f"{name}.bvh"
        if root and path.is_file():
            out[f"LAFAN1 {name}"] = load_motion(path)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--noise", type=float, default=0.01, help="landmark noise [m]")
    ap.add_argument("--video", type=Path, help="a video of a person, for the detection speed")
    ap.add_argument("--pose-model", type=Path, help="MediaPipe Pose Landmarker .task file")
    args = ap.parse_args()
    robot_ok = bool(os.environ.get("MENAGERIE_ROOT"))
    robot = load_robot("unitree_g1") if robot_ok else None
    results: dict[str, dict[str, float]] = {}
    print(f"{'clip':16} {'frames':>6} {'fps best':>9} {'median':>8} | bone med p95 worst | G1 med p95 worst | travel")
    for name, motion in clips().items():
        clip = synthetic_landmarks(motion, noise=args.noise, seed=0)
        solve_landmarks(clip)  # warm-up
        rates = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            fit = solve_landmarks(clip)
            rates.append(clip.num_frames / (time.perf_counter() - t0))
        bones = bone_errors(motion, fit.motion)
        r: dict[str, float] = {
            "frames": clip.num_frames,
            "solver_fps_best": max(rates),
            "solver_fps_median": statistics.median(rates),
            "bone_median_deg": float(np.median(bones)),
            "bone_p95_deg": float(np.percentile(bones, 95)),
            "bone_worst_median_deg": float(np.median(bones, axis=0).max()),
            "worst_bone": BONES[int(np.argmax(np.median(bones, axis=0)))],  # type: ignore[dict-item]
            "rejected_frames": fit.report.rejected_frames,
        }
        src_path = motion.positions[:, 0, :2] - motion.positions[0, 0, :2]
        got_path = fit.motion.positions[:, 0, :2] - fit.motion.positions[0, 0, :2]
        r["travel_median_m"] = float(np.median(np.linalg.norm(got_path - src_path, axis=1)))
        if robot_ok:
            limbs = limb_errors(robot, motion, fit.motion)
            r["g1_limb_median_deg"] = float(np.median(limbs))
            r["g1_limb_p95_deg"] = float(np.percentile(limbs, 95))
            r["g1_limb_worst_median_deg"] = float(np.median(limbs, axis=0).max())
        results[name] = r
        g1 = (
            f"{r['g1_limb_median_deg']:5.2f} {r['g1_limb_p95_deg']:5.2f} {r['g1_limb_worst_median_deg']:5.2f}"
            if robot_ok
            else "  (no MENAGERIE_ROOT)"
        )
        print(
            f"{name:16} {clip.num_frames:6d} {r['solver_fps_best']:9.0f} {r['solver_fps_median']:8.0f} | "
            f"{r['bone_median_deg']:5.2f} {r['bone_p95_deg']:5.2f} {r['bone_worst_median_deg']:5.2f} | {g1} | "
            f"{r['travel_median_m']:.3f}"
        )
    if args.video and args.pose_model:
        from kinemorph.video import detect_video

        t0 = time.perf_counter()
        lm = detect_video(args.video, pose_model=args.pose_model)
        dt = time.perf_counter() - t0
        results["detection"] = {"frames": lm.num_frames, "detected": lm.num_detected, "fps": lm.num_frames / dt}
        print(f"detection: {lm.num_frames} frames ({lm.num_detected} with a person) at {lm.num_frames / dt:.1f} fps")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
