"""Parity with GMR: the gmr engine, run with GMR's own config on GMR's own G1 model, reproduces
GMR's saved output for LAFAN1 walk and dance (the data is never committed; see ../shared)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import data_path, gmr_reference
from kinemorph.mapping.mapping import Mapping
from kinemorph.motion import load_motion
from kinemorph.retarget import GmrConfig, retarget
from kinemorph.robots import load_robot
from kinemorph.transforms import quat_angle


@pytest.mark.parametrize("clip", ["walk", "dance"])
def test_gmr_engine_reproduces_gmr_output(clip: str) -> None:
    ref_dir = gmr_reference()
    motion = load_motion(data_path(f"{clip}.bvh"))
    robot = load_robot(ref_dir / "g1_mocap_29dof.xml")
    mapping = Mapping.load(ref_dir / "bvh_to_g1.json")
    ours = retarget(motion, robot, mapping, engine="gmr", config=GmrConfig.gmr_compatible())
    ref = np.load(ref_dir / f"{clip}_unitree_g1.npz")

    assert list(ref["dof_names"]) == list(ours.dof_names)
    assert ref["dof_pos"].shape == ours.dof_pos.shape
    dof_rmse = float(np.sqrt(np.mean((ref["dof_pos"] - ours.dof_pos) ** 2)))
    root_rmse = float(np.sqrt(np.mean(np.sum((ref["root_pos"] - ours.root_pos) ** 2, axis=1))))
    rot_err = quat_angle(ref["root_rot"][:, [3, 0, 1, 2]], ours.root_rot)  # GMR stores xyzw
    assert dof_rmse <= 0.02, f"DoF RMSE {dof_rmse:.3g} rad"
    assert root_rmse <= 0.005, f"root position RMSE {root_rmse * 100:.3g} cm"
    assert float(np.sqrt(np.mean(rot_err**2))) <= 0.02
    # Not required, but what the implementation achieves: the same numbers to rounding.
    assert dof_rmse < 1e-6 and root_rmse < 1e-6
