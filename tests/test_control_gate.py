"""The lift-off gate (kinemorph.control.gate) and the foothold limits of the step adjustment
(kinemorph.control.support.clamp_width)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kinemorph.control.gate import GateConfig, capture_out, gate_kappa
from kinemorph.control.support import clamp_width
from kinemorph.errors import ConfigError
from kinemorph.gait import GaitBody

BODY = GaitBody(pelvis_height=0.7, foot_spacing=0.24, heel=-0.055, toe=0.125, half_width=0.035)


def test_capture_point_behind_the_leading_heel_holds_the_double_support() -> None:
    cfg = GateConfig(lateral=0.08)
    lead, trail = (0.3, -0.12, 0.0), (0.0, 0.12, 0.0)  # walking forward: the right foot leads
    over = capture_out(np.array([0.32, -0.06]), lead, trail, BODY, cfg)
    assert over == 0.0 and gate_kappa(over, cfg) == 1.0
    behind = capture_out(np.array([0.2, -0.1]), lead, trail, BODY, cfg)
    assert behind == pytest.approx(0.3 + BODY.heel + cfg.margin - 0.2)
    assert gate_kappa(behind, cfg) == pytest.approx(max(cfg.floor, math.exp(-cfg.gain * behind)))
    assert gate_kappa(1.0, cfg) == cfg.floor  # never stops the gait
    # ahead of the toe (falling forward) is not the gate's business: the next step should come
    assert capture_out(np.array([0.6, -0.12]), lead, trail, BODY, cfg) == 0.0
    # walking backward the facing edge is the toe
    assert capture_out(np.array([0.6, -0.12]), (0.3, -0.12, 0.0), (0.5, 0.12, 0.0), BODY, cfg) > 0.1


def test_gate_lateral_allowance_and_heading() -> None:
    cfg = GateConfig(lateral=0.05)
    lead, trail = (0.0, 0.0, math.pi / 2), (0.24, 0.0, math.pi / 2)  # facing +y, trailing foot on its right
    # inner side (towards the trailing foot) is -y in the lead frame: world +x
    assert capture_out(np.array([BODY.half_width + 0.04, 0.0]), lead, trail, BODY, cfg) == 0.0
    assert capture_out(np.array([BODY.half_width + 0.07, 0.0]), lead, trail, BODY, cfg) == pytest.approx(0.02)
    with pytest.raises(ConfigError, match="floor"):
        GateConfig(floor=0.0)


def test_clamp_width_keeps_feet_apart_and_within_reach() -> None:
    stance = (0.0, -0.12, 0.0)
    assert clamp_width((0.1, 0.1), stance, 1, 0.3, 0.09) == (0.1, 0.1)
    x, y = clamp_width((0.1, -0.15), stance, 1, 0.3, 0.09)  # a left foot moved across the right one
    assert (x, y) == pytest.approx((0.1, -0.03))
    x, y = clamp_width((0.1, 0.4), stance, 1, 0.3, 0.09)
    assert (x, y) == pytest.approx((0.1, 0.18))
    x, y = clamp_width((-0.2, 0.2), (0.0, 0.0, math.pi / 2), -1, 0.3, 0.09)  # right foot of one facing +y
    assert (x, y) == pytest.approx((0.09, 0.2))


def test_gate_lets_a_capture_point_past_the_leading_toe_go() -> None:
    lead, trail = (0.3, -0.12, 0.0), (0.0, 0.12, 0.0)  # walking forward: the right foot leads
    cp = np.array([0.3 + BODY.toe + 0.02, 0.05])  # past the toe and 17 cm inside of the leading foot
    assert capture_out(cp, lead, trail, BODY, GateConfig()) == 0.0  # waiting would let the CoM run on
    held = capture_out(cp, lead, trail, BODY, GateConfig(ahead_free=False))
    assert held == pytest.approx(0.05 + 0.12 - BODY.half_width - GateConfig().lateral)


def test_a_swing_beyond_reach_moves_smoothly_to_the_limited_foothold() -> None:
    """FrameMaker limits the landing point of a strafing step, not the swing's current position:
    the swing L + s (T - L) becomes L + s (T' - L) with T' the foothold within reach, so it never
    stops at the limit mid-swing (which braked the leg within one tick)."""
    from types import SimpleNamespace

    from kinemorph.control.targets import FrameMaker
    from kinemorph.gait.sampler import f_soft

    stance, lift, land = (0.0, -0.12, 0.0), np.array([0.0, 0.0]), np.array([0.0, 0.4])  # 0.52 m wide
    maker = SimpleNamespace(lift_sole=np.array([lift, [0.0, 0.0]]), max_width=0.3, rg=SimpleNamespace(body=BODY),
                            SMOOTH_REACH=True)  # fmt: skip
    path = []
    for p in np.linspace(0.0, 1.0, 51):
        s = f_soft(float(p))
        sole = lift + s * (land - lift)
        path.append(sole + FrameMaker._reach_shift(maker, 0, sole, stance, 0.0, float(p)))  # type: ignore[arg-type]
    path = np.array(path)
    assert path[-1] == pytest.approx([0.0, -0.12 + 0.3])  # lands at the reach
    assert path[0] == pytest.approx(lift)
    target = lift + np.array([f_soft(float(p)) for p in np.linspace(0, 1, 51)])[:, None] * (path[-1] - lift)
    assert path == pytest.approx(target, abs=1e-9)  # the same smooth profile, to the limited foothold
    inside = np.array([0.0, 0.05])  # half way (s = 0.5) to a foothold 0.22 m wide: within reach
    assert FrameMaker._reach_shift(maker, 0, inside, stance, 0.0, 0.5) == pytest.approx([0.0, 0.0])  # type: ignore[arg-type]


def test_the_ankle_motors_bound_the_soles_of_t1_not_of_g1() -> None:
    """support.ankle_sole: T1's 20 N m ankle pitch and 15 N m roll motors hold the whole weight's CoP
    only within about 5 and 4 cm of the ankle; G1's 50 N m ankles keep nearly its whole sole."""
    import mujoco

    from conftest import robot_or_skip
    from kinemorph.control.support import ankle_sole
    from kinemorph.gait.robot_table import robot_gait
    from kinemorph.sim.model import build_torque_model

    out = {}
    for name in ("booster_t1", "unitree_g1"):
        robot = robot_or_skip(name)
        tm, rg = build_torque_model(robot), robot_gait(robot)
        d = mujoco.MjData(tm.model)
        d.qpos[:] = tm.model.key_qpos[0] if tm.model.nkey else tm.model.qpos0
        mujoco.mj_forward(tm.model, d)
        feet = (robot.body_id(rg.feet[0]), robot.body_id(rg.feet[1]))
        out[name] = (rg.body, ankle_sole(tm.model, d, rg, feet, tm.act_dof, tm.torque_limit, tm.weight, share=0.8),
                     tm.weight)  # fmt: skip
        assert ankle_sole(tm.model, d, rg, feet, tm.act_dof, tm.torque_limit, tm.weight, share=0.0) == rg.body
    full, cut, weight = out["booster_t1"]
    assert cut.toe == pytest.approx(0.8 * 20.0 / weight, abs=0.01) and cut.heel == pytest.approx(-cut.toe, abs=0.01)
    assert cut.half_width == pytest.approx(0.8 * 15.0 / weight, abs=0.005) and cut.half_width < full.half_width
    full, cut, _ = out["unitree_g1"]
    assert cut.heel == full.heel and cut.half_width == full.half_width and cut.toe > 0.95 * full.toe
