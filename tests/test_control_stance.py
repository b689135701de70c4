"""The speed stance (control/stance.py): a lower, narrower stance at speed for robots whose ankle
motors cannot hold the CoP at the toe, and the whole-body QP's constraints while it is engaged."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from conftest import robot_or_skip
from kinemorph.control import ControlConfig, SimulationConfig, simulate_gait
from kinemorph.control.backstep import fast_backward, step_excess
from kinemorph.control.mpc import MpcConfig
from kinemorph.control.stance import SpeedStance, StanceConfig, ankle_shortfall, lag_step
from kinemorph.control.support import ankle_sole
from kinemorph.errors import ConfigError
from kinemorph.gait import Commands, GaitBody, load_style
from kinemorph.gait.footsteps import min_separation
from kinemorph.gait.robot_table import robot_gait
from kinemorph.sim.model import build_torque_model

BODY = GaitBody(pelvis_height=0.53, foot_spacing=0.2125, heel=-0.1015, toe=0.1215, half_width=0.05)


def _shortfall(name: str) -> float:
    robot = robot_or_skip(name)
    tm, rg = build_torque_model(robot), robot_gait(robot)
    d = mujoco.MjData(tm.model)
    d.qpos[:] = robot.rest_qpos()
    mujoco.mj_forward(tm.model, d)
    feet = (robot.body_id(rg.feet[0]), robot.body_id(rg.feet[1]))
    held = ankle_sole(tm.model, d, rg, feet, tm.act_dof, tm.torque_limit, tm.mass * 9.81, share=1.0)
    return ankle_shortfall(rg.body, held)


def test_only_robots_whose_ankles_cannot_hold_the_toe_change_stance() -> None:
    assert _shortfall("unitree_g1") == 0.0  # 50 N m ankles hold its whole 12.5 cm toe
    assert 0.4 < _shortfall("booster_t1") < 0.55  # 20 N m pitch: 6.4 cm of its 12.2 cm toe


def test_stance_follows_the_forward_speed_within_the_soles_separation() -> None:
    cfg = StanceConfig()
    st = SpeedStance(cfg, BODY, 0.47)
    assert st.update(0.2) is BODY and not st.constrained  # below low_speed: unchanged
    half = st.update(-0.375)  # backward too, half way
    assert st.share == pytest.approx(0.5) and not st.constrained
    full = st.update(0.5)
    assert st.share == 1.0 and st.constrained
    spare = BODY.foot_spacing - min_separation(BODY, 0.0)
    assert BODY.pelvis_height - full.pelvis_height == pytest.approx(cfg.crouch * 0.47 * BODY.pelvis_height, abs=1e-3)
    assert BODY.foot_spacing - full.foot_spacing == pytest.approx(cfg.narrow * 0.47 * spare, abs=1e-3)
    assert full.pelvis_height < half.pelvis_height < BODY.pelvis_height
    assert full.foot_spacing > min_separation(BODY, 0.0)  # the soles stay apart
    assert (full.heel, full.toe, full.half_width) == (BODY.heel, BODY.toe, BODY.half_width)
    none = SpeedStance(cfg, BODY, 0.0)
    assert none.update(0.5) is BODY and not none.constrained  # strong ankles: nothing changes
    off = SpeedStance(StanceConfig(enabled=False), BODY, 0.47)
    assert off.update(0.5) is BODY and not off.constrained


def test_bad_stance_settings_are_refused() -> None:
    with pytest.raises(ConfigError, match="low_speed"):
        StanceConfig(low_speed=0.5, full_speed=0.3)
    with pytest.raises(ConfigError, match="crouch"):
        StanceConfig(crouch=0.6)


def test_t1_walks_fast_forward_with_the_speed_stance() -> None:
    """T1, neutral at 0.5 m/s: fell at 1.94 s on its standing foot's rolling ankle before the speed
    stance (README); 6 s here, the 20 s walk is in test_control.py's slow T1 tests."""
    t1 = robot_or_skip("booster_t1")
    sim = simulate_gait(load_style("neutral"), t1, Commands.constant([0.5, 0.0, 0.0]), 6.0,
                        config=SimulationConfig(raise_on_fall=False))  # fmt: skip
    assert not sim.fell
    moved = sim.motion.root_pos[-1, 0] - sim.motion.root_pos[0, 0]
    assert moved > 0.5 * 0.5 * (6.0 - 0.8)  # at least half the commanded distance after the settling
    low = sim.log.pelvis_height_ref[-200:].mean()
    assert low < robot_gait(t1).body.pelvis_height - 0.03  # walks crouched


def _lipm_touchdown(omega: float, x0: float, v0: float, p: float, t: float) -> float:
    """The capture point at time t of a LIPM with the CoP held at p (closed form of x'' = w^2 (x - p))."""
    x = p + (x0 - p) * math.cosh(omega * t) + v0 / omega * math.sinh(omega * t)
    v = (x0 - p) * omega * math.sinh(omega * t) + v0 * math.cosh(omega * t)
    return x + v / omega


def test_lag_step_predicts_the_capture_point_and_shortens_only_a_lagging_step() -> None:
    omega, t_td, step_time, length = 4.0, 0.2, 0.45, 0.2
    h = np.array([1.0, 0.0])
    standing, cop = np.zeros(2), np.array([-0.04, 0.0])
    slack = length / math.expm1(omega * step_time)
    for x0, v0 in ((-0.08, 0.30), (-0.12, 0.15), (0.0, 0.5)):
        cp = np.array([x0 + v0 / omega, 0.0])
        xi_td = _lipm_touchdown(omega, x0, v0, cop[0], t_td)  # the simulated pendulum's capture point
        foothold = np.array([length, 0.0])
        lag = lag_step(cp=cp, cop=cop, omega=omega, to_touchdown=t_td, standing=standing, foothold=foothold,
                       heading=h, step_time=step_time)  # fmt: skip
        assert lag == pytest.approx(max(0.0, length - xi_td - slack), abs=1e-9)
    # a slow CoM (0.15 m/s, 12 cm behind the ankle) lags; a fast one does not
    slow = lag_step(cp=np.array([-0.12 + 0.15 / omega, 0.0]), cop=cop, omega=omega, to_touchdown=t_td,
                    standing=standing, foothold=np.array([length, 0.0]), heading=h, step_time=step_time)  # fmt: skip
    fast = lag_step(cp=np.array([0.05 + 0.5 / omega, 0.0]), cop=cop, omega=omega, to_touchdown=t_td,
                    standing=standing, foothold=np.array([length, 0.0]), heading=h, step_time=step_time)  # fmt: skip
    assert slow > 0.1 and fast == 0.0
    # walking backward: the same geometry mirrored gives the same lag
    back = lag_step(cp=np.array([0.12 - 0.15 / omega, 0.0]), cop=-cop, omega=omega, to_touchdown=t_td,
                    standing=standing, foothold=np.array([-length, 0.0]), heading=-h, step_time=step_time)  # fmt: skip
    assert back == pytest.approx(slow)
    # no step along the heading, or no time left: nothing to shorten
    assert lag_step(cp=np.zeros(2), cop=cop, omega=omega, to_touchdown=t_td, standing=standing,
                    foothold=np.array([0.0, 0.2]), heading=h, step_time=step_time) == 0.0  # fmt: skip
    assert lag_step(cp=np.zeros(2), cop=cop, omega=omega, to_touchdown=0.0, standing=standing,
                    foothold=np.array([length, 0.0]), heading=h, step_time=step_time) == 0.0  # fmt: skip


def test_t1_lag_step_walks_the_speed_a_far_foothold_stopped() -> None:
    """T1, neutral at a constant 0.4 m/s, on the fixed footholds of the CoM planner: without the lag
    step the CoM stalls behind a foothold placed for its speed and falls at 3.32 s (README); with it
    the 5 s walk holds. The footholds the CoM planner may move while walking (MpcConfig.walk_weight,
    the default) catch it without the lag step too."""
    t1 = robot_or_skip("booster_t1")
    runs = {}
    for shorten, walk in ((0.0, 0.0), (1.0, 0.0), (0.0, MpcConfig().walk_weight)):
        control = ControlConfig(stance=StanceConfig(shorten=shorten), mpc=MpcConfig(walk_weight=walk))
        runs[shorten, walk] = simulate_gait(load_style("neutral"), t1, Commands.constant([0.4, 0.0, 0.0]), 5.0,
                                            config=SimulationConfig(raise_on_fall=False, control=control))  # fmt: skip
    fixed = runs[0.0, 0.0]
    assert fixed.fell and fixed.fall_time < 4.0
    for key in ((1.0, 0.0), (0.0, MpcConfig().walk_weight)):
        assert not runs[key].fell, key
        moved = runs[key].motion.root_pos[-1, 0] - runs[key].motion.root_pos[0, 0]
        assert moved > 0.5 * 0.4 * (5.0 - 0.8)  # it still walks: at least half the commanded distance


def test_back_step_excess_and_fast_backward_swing() -> None:
    back = np.array([-1.0, 0.0])
    stand = np.array([0.0, -0.1])
    # the first backward step from standing: 27.6 cm beyond the standing foot, capped at 16.5 cm
    assert step_excess(standing=stand, foothold=np.array([-0.276, 0.1]), heading=back, limit=0.165) == pytest.approx(
        0.111
    )
    assert step_excess(standing=stand, foothold=np.array([-0.15, 0.1]), heading=back, limit=0.165) == 0.0
    assert step_excess(standing=stand, foothold=np.array([0.1, 0.1]), heading=back, limit=0.165) == 0.0  # ahead
    injured, neutral = np.array([0.3, 0.45, 0.88, 1.1]), np.array([0.36, 0.45, 0.81, 0.9])  # T1 at -0.3 m/s
    assert fast_backward(-0.3, injured, 0.9)  # 0.33 m in its 0.3 s left swing: 1.10 m/s
    assert not fast_backward(-0.3, neutral, 0.9)  # 0.27 m in 0.36 s: 0.75 m/s
    assert not fast_backward(0.3, injured, 0.9) and not fast_backward(-0.3, injured, 0.0)  # forward, off
    st = SpeedStance(StanceConfig(), BODY, 0.47)
    st.update(-0.3, injured)
    assert st.fast_back and st.constrained and st.share == 0.0  # constrained below the stance's speeds
    st.update(-0.3, neutral)
    assert not st.constrained
    strong = SpeedStance(StanceConfig(), BODY, 0.0)
    strong.update(-0.3, injured)
    assert not strong.constrained  # G1's ankles: nothing changes


def test_t1_walks_injured_backward_with_the_back_step() -> None:
    """T1, injured at 0.3 m/s backward: fell at 2.47 s before backstep.py (its first step from
    standing too long and swung too fast); 5 s here, the 20 s walk in the T1 sweep (README)."""
    t1 = robot_or_skip("booster_t1")
    runs = {}
    for on in (False, True):
        stance = StanceConfig() if on else StanceConfig(back_step=0.0, back_swing_speed=0.0)
        config = SimulationConfig(raise_on_fall=False, control=ControlConfig(stance=stance))
        runs[on] = simulate_gait(load_style("injured"), t1, Commands.constant([-0.3, 0.0, 0.0]), 5.0, config=config)
    assert runs[False].fell and runs[False].fall_time < 3.0
    assert not runs[True].fell
    moved = runs[True].motion.root_pos[0, 0] - runs[True].motion.root_pos[-1, 0]
    assert moved > 0.5 * 0.3 * (5.0 - 0.8)  # backwards, at least half the commanded distance
    assert runs[True].log.step_adjust_engaged.any()


@pytest.mark.slow
def test_t1_walks_injured_backward_20_s() -> None:
    """The T1 sweep's cell that fell before backstep.py (2.47 s, left swing)."""
    t1 = robot_or_skip("booster_t1")
    sim = simulate_gait(load_style("injured"), t1, Commands.constant([-0.3, 0.0, 0.0]), 20.0,
                        config=SimulationConfig(raise_on_fall=False))  # fmt: skip
    assert not sim.fell
