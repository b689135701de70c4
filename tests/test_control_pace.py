"""The controller's timing helpers for issue 17's transitions and strafing: the MPC preview of a
phase the time scaling slows (controller.stretch_first) and the gait clock's pace for sideways
commands (GaitController._pace)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from kinemorph.control.controller import ControlConfig, GaitController, stretch_first
from kinemorph.control.preview import SupportPhase
from kinemorph.gait import GaitBody

BODY = GaitBody(pelvis_height=0.7, foot_spacing=0.24, heel=-0.055, toe=0.125, half_width=0.035)
FEET = ((0.0, 0.12, 0.0), (0.0, -0.12, 0.0))


def test_a_slowed_phase_is_previewed_longer_and_the_later_phases_follow() -> None:
    phases = [SupportPhase(0.0, 0.05, FEET, (True, True), (False, False)),
              SupportPhase(0.05, 0.45, FEET, (True, False), (False, False)),
              SupportPhase(0.45, 0.55, FEET, (True, True), (False, True))]  # fmt: skip
    out = stretch_first(phases, 0.25)
    assert out[0].start == 0.0 and out[0].end == pytest.approx(0.2)  # 0.05 s at a quarter of real time
    assert [ph.end - ph.start for ph in out[1:]] == pytest.approx([0.4, 0.1])  # later phases keep their length
    assert out[1].start == pytest.approx(out[0].end) and out[2].feet == FEET


def _pace(vy: float, timing: list[float], share: float = 0.8) -> float:
    ctl = SimpleNamespace(cfg=ControlConfig(sideways_reach=share), maker=SimpleNamespace(max_width=0.31),
                          rg=SimpleNamespace(body=BODY))  # fmt: skip
    return GaitController._pace(ctl, np.array([0.0, vy, 0.0]), np.array(timing))  # type: ignore[arg-type]


def test_a_slow_cycle_strafes_on_a_faster_clock_within_the_phase_limits() -> None:
    reach = 0.8 * (0.31 - (2 * BODY.half_width + 0.02))  # max width less the feet's least separation
    slow = [0.55, 0.7, 1.25, 1.4]  # a 1.4 s cycle: 0.28 m per cycle at 0.2 m/s
    assert _pace(0.2, slow) == pytest.approx(0.2 * 1.4 / reach)
    assert _pace(-0.2, slow) == _pace(0.2, slow)  # either side
    assert _pace(0.05, slow) == 1.0 and _pace(0.0, slow) == 1.0  # steps within reach: as timed
    assert _pace(0.2, slow, share=0.0) == 1.0  # off
    short = [0.3, 0.5, 1.0, 1.3]  # a 0.3 s swing may run at most 0.3 / 0.25 faster
    assert _pace(0.2, short) == pytest.approx(0.3 / 0.25)


def test_the_reach_fixes_engage_for_strides_beyond_the_sideways_reach() -> None:
    """support.reach_share: |v_y| T over the reach per cycle (max width less the feet's least
    separation); ControlConfig.smooth_reach (0.5) engages the reach fixes above it (G1's relaxed and
    injured strafing at 0.2 m/s: 1.29 and 1.20, neutral 0.92; relaxed at 0.1 m/s 0.66, neutral 0.46)."""
    from kinemorph.control.support import reach_share

    reach = 0.31 - (2 * BODY.half_width + 0.02)
    slow, quick = np.array([0.55, 0.7, 1.25, 1.4]), np.array([0.4, 0.5, 0.9, 1.0])
    assert reach_share(0.31, BODY, 0.2, slow) == pytest.approx(0.2 * 1.4 / reach)
    assert reach_share(0.31, BODY, -0.2, slow) == reach_share(0.31, BODY, 0.2, slow)  # either side
    assert reach_share(0.31, BODY, 0.2, slow) > 1.0 > reach_share(0.31, BODY, 0.15, quick)
    assert reach_share(0.31, BODY, 0.0, slow) == 0.0 and reach_share(math.inf, BODY, 0.2, slow) == 0.0
    assert ControlConfig().smooth_reach == 0.5


def test_the_strafing_preview_keeps_every_landing_within_reach_of_the_other_foot() -> None:
    """controller._phases with the reach fixes (ControlConfig.smooth_reach, engaged here: relaxed's
    stride at 0.2 m/s is 1.29 times the reach): a moved foothold is limited against where
    the other foot will stand (its own moved foothold), not against the planner's raw one (as it is
    without the option): strafing with a cycle too slow for the
    reach, the raw path runs ahead of the feet and the preview planned landings up to 0.9 m beside
    the other foot (the MPC then drove G1's CoM off its feet). Checked to within 1 cm (0.315 m
    measured here against the 0.307 m limit, in the frames of the two standing feet)."""
    import mujoco

    from conftest import robot_or_skip
    from kinemorph.control.loop import _standing
    from kinemorph.gait import load_style
    from kinemorph.gait.robot_table import robot_gait
    from kinemorph.sim.model import build_torque_model

    robot = robot_or_skip("unitree_g1")
    style, command = load_style("relaxed"), np.array([0.0, 0.2, 0.0])
    tm, rg = build_torque_model(robot), robot_gait(robot)
    d = mujoco.MjData(tm.model)
    q0 = _standing(style, robot, rg, command)
    d.qpos[:] = q0
    mujoco.mj_forward(tm.model, d)
    ctl = GaitController(style, robot, rg, tm, q0[7:], ControlConfig())
    ctl.start(d, command)
    widest = 0.0
    for _ in range(int(6.0 * ctl.cfg.plan_rate)):  # the planner walks on while the robot stands
        ctl.plan_tick(d, command)
        for ph in ctl.phases:
            if all(ph.contacts):  # sideways distance in the frame of the foot it was limited against
                (xl, yl, al), (xr, yr, ar) = ph.feet
                side = [-math.sin(a) * (xl - xr) + math.cos(a) * (yl - yr) for a in (al, ar)]
                widest = max(widest, min(side))
    assert ctl.maker.sideways == 0.2  # the fixes engaged
    assert widest <= ctl.maker.max_width + 0.01, widest  # 0.31 m here (limit 0.307); 0.91 m without the fixes


def _strafe(style: str, vy: float, control: ControlConfig, turn: float = 0.0, seconds: float = 8.0):  # type: ignore[no-untyped-def]
    """G1 strafing at ``vy`` [m/s] (turning at ``turn`` [rad/s]) for ``seconds`` under ``control``
    (not stopped by a fall)."""
    from conftest import robot_or_skip
    from kinemorph.control import SimulationConfig, simulate_gait
    from kinemorph.gait import Commands, load_style

    g1 = robot_or_skip("unitree_g1")
    cfg = SimulationConfig(raise_on_fall=False, control=control)
    return simulate_gait(load_style(style), g1, Commands.constant([0.0, vy, turn]), seconds, config=cfg)


def _strafed(sim, vy: float) -> bool:  # type: ignore[no-untyped-def]
    """Standing after 8 s and at least half the commanded distance sideways after the settle."""
    return not sim.fell and sim.motion.root_pos[-1, 1] - sim.motion.root_pos[0, 1] > 0.5 * vy * (8.0 - 0.8)


@pytest.mark.slow
def test_g1_relaxed_strafes_slowly_with_the_reach_fixes() -> None:
    """G1 relaxed strafing at 0.15 m/s (a stride of 0.97 of its sideways reach): with the reach fixes
    only beyond the whole reach (smooth_reach 1) it fell at 3.66 s; from half of it (the default)
    it strafes (docs/WALKING.md, "Slow strafing")."""
    before = _strafe("relaxed", 0.15, ControlConfig(smooth_reach=1.0))
    assert before.fell and before.fall_time < 6.0
    assert _strafed(_strafe("relaxed", 0.15, ControlConfig()), 0.15)


@pytest.mark.slow
def test_g1_neutral_strafes_at_0_1_m_s_with_the_gate_holding_the_lift_off() -> None:
    """G1 neutral strafing at 0.1 m/s: with the lift-off gate's lateral allowance 0.4 s x |v_y|
    the trailing foot lifted with the capture point 6.7 cm inside the new standing foot and the walk
    fell at 5.69 s; with 0.2 s x |v_y| (the default) it strafes (docs/WALKING.md, "Slow strafing")."""
    from kinemorph.control.gate import GateConfig

    before = _strafe("neutral", 0.1, ControlConfig(gate=GateConfig(lateral_per_speed=0.4)))
    assert before.fell and before.fall_time < 7.0
    assert _strafed(_strafe("neutral", 0.1, ControlConfig()), 0.1)


@pytest.mark.slow
def test_g1_neutral_strafes_while_turning_with_free_footholds() -> None:
    """G1 neutral strafing at 0.1 m/s while turning at 0.2 rad/s: with the CoM planner's footholds
    fixed under every sideways command it fell at 6.54 s; free while turning too (MpcConfig.
    step_turning, the default) it walks the 20 s (docs/WALKING.md, "Strafing while turning")."""
    from kinemorph.control.mpc import MpcConfig

    fixed = _strafe("neutral", 0.1, ControlConfig(mpc=MpcConfig(step_turning=False)), turn=0.2, seconds=10.0)
    assert fixed.fell and fixed.fall_time < 8.0
    assert not _strafe("neutral", 0.1, ControlConfig(), turn=0.2, seconds=20.0).fell
