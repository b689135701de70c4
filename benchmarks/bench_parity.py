"""Parity with GMR: RMSE between the gmr engine and GMR's saved outputs.

    python benchmarks/bench_parity.py [--reference DIR] [--data DIR]

Runs the gmr engine with GMR's own config (bvh_to_g1.json) on GMR's own G1 model, with GMR's
settings (--compat gmr), on each clip GMR's outputs exist for, and prints a table and, as the
last line, JSON with dof_rmse_rad, root_pos_rmse_cm and root_rot_rmse_rad per clip. Defaults:
$KINEMORPH_DATA and $KINEMORPH_DATA/../reference/gmr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x))))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    data = Path(os.environ.get("KINEMORPH_DATA", "../shared/data"))
    ap.add_argument("--data", type=Path, default=data)
    ap.add_argument("--reference", type=Path, default=data.resolve().parent / "reference" / "gmr")
    args = ap.parse_args()

    from kinemorph import GmrConfig, Mapping, load_motion, load_robot, retarget
    from kinemorph.transforms import quat_angle

    robot = load_robot(args.reference / "g1_mocap_29dof.xml")
    mapping = Mapping.load(args.reference / "bvh_to_g1.json")
    out = {}
    for ref_file in sorted(args.reference.glob("*_unitree_g1.npz")):
        clip = ref_file.name.split("_unitree_g1")[0]
        motion = load_motion(args.data / "motions" / f"{clip}.bvh")
        ours = retarget(motion, robot, mapping, config=GmrConfig.gmr_compatible())
        ref = np.load(ref_file)
        out[clip] = {
            "frames": int(ours.num_frames),
            "dof_rmse_rad": rms(ref["dof_pos"] - ours.dof_pos),
            "dof_max_abs_rad": float(np.abs(ref["dof_pos"] - ours.dof_pos).max()),
            "root_pos_rmse_cm": 100 * rms(np.linalg.norm(ref["root_pos"] - ours.root_pos, axis=1)),
            "root_rot_rmse_rad": rms(quat_angle(ref["root_rot"][:, [3, 0, 1, 2]], ours.root_rot)),
        }
    print(
        f"{'clip':<8}{'frames':>8}{'DoF RMSE [rad]':>18}{'DoF max [rad]':>16}{'root RMSE [cm]':>16}"
        f"{'rot RMSE [rad]':>16}"
    )
    for clip, r in out.items():
        print(
            f"{clip:<8}{r['frames']:>8}{r['dof_rmse_rad']:>18.2e}{r['dof_max_abs_rad']:>16.2e}"
            f"{r['root_pos_rmse_cm']:>16.2e}{r['root_rot_rmse_rad']:>16.2e}"
        )
    print(json.dumps(out))
    return 0 if out else 1


if __name__ == "__main__":
    sys.exit(main())
