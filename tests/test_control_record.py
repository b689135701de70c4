"""A simulated walk carries its motor torques (Controls kind "torques") and `kinemorph simulate`
replays them on the floor they were made on: the consistency check of issue 17."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from conftest import robot_or_skip
from kinemorph.control import Push, simulate_gait
from kinemorph.control.record import WALK_FLOOR_SOLIMP
from kinemorph.errors import KinemorphError
from kinemorph.gait import Commands, load_style
from kinemorph.io import load, save
from kinemorph.sim import SimConfig, simulate


@pytest.fixture(scope="module")
def g1():  # type: ignore[no-untyped-def]
    return robot_or_skip("unitree_g1")


@pytest.fixture(scope="module")
def walk(g1):  # type: ignore[no-untyped-def]
    """3 s of the neutral style at 0.25 m/s under physics."""
    return simulate_gait(load_style("neutral"), g1, Commands.constant([0.25, 0.0, 0.0]), 3.0)


def test_the_walk_carries_its_torques_and_states(walk, g1) -> None:  # type: ignore[no-untyped-def]
    c = walk.motion.controls
    assert c is not None and c.kind == "torques" and c.gains is None
    m = g1.model
    assert c.values.shape == (round(3.0 / c.dt), m.nu)
    assert c.states is not None and c.states.shape == (c.values.shape[0] + 1, m.nq + m.nv)
    assert c.physics_dt == pytest.approx(0.001) and c.floor_solimp == WALK_FLOOR_SOLIMP
    assert c.floor_timeconst == pytest.approx(0.02)  # MuJoCo's default floor, kept for the replay
    np.testing.assert_array_equal(c.states[0, : m.nq], walk.motion.qpos[0])
    # every 10th control tick's end state (500 Hz -> 50 fps) is the next frame of the motion
    np.testing.assert_array_equal(c.states[10::10, : m.nq][: walk.motion.num_frames - 1], walk.motion.qpos[1:])


def test_simulate_judges_the_walks_own_output_feasible(walk, g1, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Through an npz file, as a user runs it: the torques reproduce the walk and every check passes."""
    back = load(save(walk.motion, tmp_path / "walk.npz"), robot_name=g1.name, dof_names=g1.dof_names)
    assert back.controls is not None and back.controls.floor_solimp == WALK_FLOOR_SOLIMP
    rep = simulate(back, g1)
    assert rep.feasible, rep.reasons
    assert rep.controller.startswith("own controls on the floor they were made on")
    assert rep.base_position_rms_m < 1e-4 and rep.joint_rms_rad < 1e-4
    assert rep.torque_saturation_fraction <= 0.2


def test_torques_that_did_not_make_the_walk_do_not_pass(walk, g1) -> None:  # type: ignore[no-untyped-def]
    """The check runs the torques: weakened by 30% they leave the recorded walk."""
    c = walk.motion.controls
    weak = dataclasses.replace(walk.motion, controls=dataclasses.replace(c, values=0.7 * c.values))
    rep = simulate(weak, g1)
    assert not rep.feasible and (rep.fell or rep.base_position_rms_m > 0.1)


def test_the_tracking_replay_stays_available(walk, g1) -> None:  # type: ignore[no-untyped-def]
    rep = simulate(walk.motion, g1, config=SimConfig(controller="tracking"))
    assert rep.controller == "tracking replay"


def test_a_pushed_walk_carries_no_controls(g1) -> None:  # type: ignore[no-untyped-def]
    """The push is not one of the robot's controls: replaying the torques alone would not be that walk."""
    pushed = simulate_gait(
        load_style("neutral"), g1, Commands.constant([0.2, 0.0, 0.0]), 1.2, pushes=[Push(0.3, 0.5, "front", 0.3)]
    )
    assert pushed.motion.controls is None


def test_pd_targets_without_gains_are_refused(walk, g1) -> None:  # type: ignore[no-untyped-def]
    c = dataclasses.replace(walk.motion.controls, kind="pd_targets")
    with pytest.raises(KinemorphError, match="without feedback gains"):
        simulate(dataclasses.replace(walk.motion, controls=c), g1)
