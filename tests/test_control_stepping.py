"""Capture stepping's geometry (kinemorph.control.stepping): the DCM prediction under a push, the
nominal DCM offset, the reach limits (no crossing) and the step planner's foothold and timing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kinemorph.control.preview import SupportPhase
from kinemorph.control.stepping import (
    CaptureStepper,
    SteppingConfig,
    nominal_offset,
    plan_step,
    predict_dcm,
    within_reach,
)
from kinemorph.control.support import support_polygon
from kinemorph.errors import ConfigError
from kinemorph.gait import GaitBody

BODY = GaitBody(pelvis_height=0.7, foot_spacing=0.24, heel=-0.055, toe=0.125, half_width=0.035)
W = math.sqrt(9.81 / 0.72)
LEFT, RIGHT = (0.0, 0.12, 0.0), (0.0, -0.12, 0.0)


def _lip(xi: np.ndarray, p: np.ndarray, d: np.ndarray, t: float, n: int = 20000) -> np.ndarray:
    """x'' = w^2 (x - p + d) integrated with small steps from x = xi, x' = 0 (so the DCM starts at xi)."""
    x, v, h = np.array(xi, float), np.zeros(2), t / n
    for _ in range(n):
        v = v + h * W * W * (x - p + d)
        x = x + h * v
    return x + v / W


def test_dcm_prediction_matches_the_pendulum_under_a_push() -> None:
    foot = support_polygon([RIGHT, RIGHT], [False, True], BODY, 0.008)
    d = np.array([0.0, -0.104])  # 1.5 N/kg from the left: pushed towards -y
    xi = np.array([0.03, -0.10])
    # ankle 0: the CoP at the sole centre moved into the push as far as the sole allows
    p = foot.project(foot.centre + d)
    assert np.allclose(predict_dcm(xi, d, foot, W, 0.3, 0.0), _lip(xi, p, d, 0.3), atol=1e-4)
    assert p[1] == pytest.approx(-0.12 - (BODY.half_width - 0.008))  # the outer edge: d is wider than the sole
    # the push carries the DCM further out than the pendulum alone
    assert predict_dcm(xi, d, foot, W, 0.3, 0.0)[1] < predict_dcm(xi, np.zeros(2), foot, W, 0.3, 0.0)[1] - 0.1
    # ankle 1: the CoP nearest xi + d; a DCM the sole can hold (xi + d inside it) stays where it is
    held = np.array([0.03, -0.12 + 0.104 - 0.01])
    assert np.allclose(predict_dcm(held, d, foot, W, 0.4, 1.0), held, atol=1e-9)


def test_nominal_offset_is_the_steady_lip_gait() -> None:
    period, length, width = 0.5, 0.1, 0.24
    b = nominal_offset(RIGHT, (length, 0.12, 0.0), 1, W, period)
    e = math.exp(W * period)
    assert b[0] == pytest.approx(length / (e - 1.0)) and b[1] == pytest.approx(-width / (e + 1.0))
    # steady alternation: from b at one touch-down, the pendulum on that foot gives b at the next
    xi0 = np.array([length, 0.12]) + b
    xi1 = (xi0 - np.array([length, 0.12])) * e + np.array([length, 0.12])
    right_b = nominal_offset((length, 0.12, 0.0), (2 * length, -0.12, 0.0), -1, W, period)
    assert np.allclose(xi1, np.array([2 * length, -0.12]) + right_b, atol=1e-9)
    turned = nominal_offset((0.0, 0.0, math.pi / 2), (-0.24, 0.1, math.pi / 2), 1, W, period)  # heading +y
    assert turned[1] == pytest.approx(length / (e - 1.0)) and turned[0] == pytest.approx(width / (e + 1.0))


def test_reach_keeps_the_feet_apart_and_within_the_legs() -> None:
    cfg = SteppingConfig(reach_forward=0.35, reach_back=0.3, reach_side=0.5)
    # the right foot asked to land left of the standing left foot: beside it instead, and crossing > 0
    land, inside = within_reach(np.array([0.05, 0.2]), LEFT, 0.0, -1, BODY, cfg)
    need = 2 * BODY.half_width + 0.02
    assert land[1] == pytest.approx(0.12 - need) and land[0] == pytest.approx(0.05)
    assert inside == pytest.approx(need + 0.08)
    land, inside = within_reach(np.array([-0.6, -0.7]), LEFT, 0.0, -1, BODY, cfg)  # too far back and out
    assert np.allclose(land, [-0.3, 0.12 - 0.5]) and inside < 0
    ok = np.array([0.1, -0.15])
    land, inside = within_reach(ok, LEFT, 0.0, -1, BODY, cfg)
    assert np.allclose(land, ok) and inside < 0


def _left_swing(remaining: float) -> list[SupportPhase]:
    """Standing on the right foot, the left landing in ``remaining`` s 0.1 m ahead, then both."""
    feet = (LEFT, RIGHT)
    landed = ((0.1, 0.12, 0.0), RIGHT)
    return [SupportPhase(0.0, remaining, feet, (False, True), (False, False)),
            SupportPhase(remaining, remaining + 0.1, landed, (True, True), (True, False))]  # fmt: skip


def test_planner_steps_back_from_a_front_push_and_sooner_when_out_of_reach() -> None:
    cfg = SteppingConfig(enabled=True, ankle=0.0, reach_back=0.3)
    quiet = plan_step(np.array([0.03, -0.05]), np.zeros(2), _left_swing(0.3), BODY, W, 0.008, 0.5, cfg)
    assert quiet is not None and quiet.foot == 0 and quiet.reachable and quiet.kappa == 1.0
    d = np.array([-0.104, 0.0])  # 1.5 N/kg from the front
    pushed = plan_step(np.array([-0.02, -0.05]), d, _left_swing(0.3), BODY, W, 0.008, 0.5, cfg)
    assert pushed is not None and pushed.landing[0] < quiet.landing[0] - 0.2  # behind the falling CoM
    assert pushed.landing[1] > -0.12 + 2 * BODY.half_width  # never across the standing foot
    far = plan_step(np.array([-0.12, -0.05]), d, _left_swing(0.3), BODY, W, 0.008, 0.5, cfg)
    assert far is not None and far.kappa > 1.0  # the step comes sooner: the nominal one is out of reach
    assert far.landing[0] >= -0.3 - 1e-9


def test_a_push_towards_the_standing_foot_makes_the_swinging_foot_land_early() -> None:
    cfg = SteppingConfig(enabled=True, ankle=0.0)
    d = np.array([0.0, -0.104])  # from the left: the left foot swings, the DCM runs to the right
    plan = plan_step(np.array([0.0, -0.12]), d, _left_swing(0.3), BODY, W, 0.008, 0.5, cfg)
    assert plan is not None and plan.crossing and plan.kappa == cfg.max_kappa
    assert plan.landing[1] == pytest.approx(-0.12 + 2 * BODY.half_width + 0.02)  # beside the right foot
    with pytest.raises(ConfigError, match="max_kappa"):
        SteppingConfig(max_kappa=0.5)
    with pytest.raises(ConfigError, match="min_push"):
        SteppingConfig(min_push=1.5, full_push=1.0)


def test_only_the_component_along_the_push_is_the_dcms() -> None:
    d = np.array([-0.104, 0.0])  # from the front: across it (sideways) the feedback's step stays
    xi = np.array([-0.02, -0.09])
    shift = np.array([0.01, 0.03])
    along = plan_step(xi, d, _left_swing(0.3), BODY, W, 0.008, 0.5, SteppingConfig(), shift)
    wider = plan_step(xi, d, _left_swing(0.3), BODY, W, 0.008, 0.5, SteppingConfig(), shift + np.array([0.0, 0.02]))
    assert along is not None and wider is not None
    assert along.landing[1] == pytest.approx(0.12 + shift[1])
    assert wider.landing[1] == pytest.approx(0.14 + shift[1])  # the feedback's step, whatever the DCM
    assert along.landing[0] == pytest.approx(wider.landing[0])  # along the push: the DCM's
    assert abs(along.landing[0] - (0.1 + shift[0])) > 0.01  # not the planner's step


def test_after_the_push_the_latched_step_stays_along_the_push_axis() -> None:
    """SteppingConfig.latch: with the push gone (d = 0) the foothold is still the DCM's only along
    the push's direction (``axis``); across it the feedback's step stays."""
    xi = np.array([-0.06, -0.09])  # the DCM the front push left behind, and a sideways drift
    shift = np.array([0.0, 0.02])
    axis = np.array([-1.0, 0.0])
    latched = plan_step(xi, np.zeros(2), _left_swing(0.3), BODY, W, 0.008, 0.5, SteppingConfig(), shift, axis)
    free = plan_step(xi, np.zeros(2), _left_swing(0.3), BODY, W, 0.008, 0.5, SteppingConfig(), shift)
    assert latched is not None and free is not None
    assert latched.landing[1] == pytest.approx(0.12 + shift[1])  # across the push: the planner's + the shift
    assert latched.landing[0] == pytest.approx(free.landing[0])  # along it: the DCM's
    assert latched.landing[0] < -0.1  # behind the standing foot, where the DCM goes
    assert abs(free.landing[1] - latched.landing[1]) > 0.01  # without the axis the whole DCM foothold


def test_a_short_peak_above_min_push_does_not_start_the_stepping() -> None:
    """SteppingConfig.min_time: a smaller push's estimate can pass min_push for a tick or two
    (0.75 N/kg from the left on G1 with hard contacts and torque limits); it must stay above it
    that long before the stepping acts, and once acting it goes on while above."""
    dt = 0.008
    stepper = CaptureStepper(SteppingConfig(enabled=True, min_push=1.1, min_time=0.1))
    peak = [1.0, 1.15, 1.2, 1.12, 1.0, 0.9]  # [N/kg] 24 ms above 1.1
    assert not any(stepper.gate(True, p, dt) for p in peak)
    on = [stepper.gate(True, 1.5, dt) for _ in range(20)]  # a sustained push
    first = on.index(True)
    assert not any(on[:first]) and all(on[first:])
    assert (first + 1) * dt == pytest.approx(0.1, abs=dt)  # the first tick with 0.1 s above
    stepper.active = True  # acting: no new wait after a dip below and back
    assert not stepper.gate(True, 1.0, dt) and stepper.gate(True, 1.2, dt)
    assert not stepper.gate(False, 1.5, dt)  # never while the push recovery is not engaged
    off = CaptureStepper(SteppingConfig(enabled=False, min_time=0.0))
    assert not any(off.gate(True, 2.0, dt) for _ in range(5))
    immediate = CaptureStepper(SteppingConfig(enabled=True, min_time=0.0))
    assert immediate.gate(True, 1.2, dt)


def _double_then_left_swing() -> list[SupportPhase]:
    feet = (LEFT, RIGHT)
    return [SupportPhase(0.0, 0.05, feet, (True, True), (False, False)),
            SupportPhase(0.05, 0.35, feet, (False, True), (False, False)),
            SupportPhase(0.35, 0.45, ((0.1, 0.12, 0.0), RIGHT), (True, True), (True, False))]  # fmt: skip


def test_a_double_support_ends_at_once_only_while_it_cannot_hold_the_push() -> None:
    """A double support whose polygon holds xi + d goes on at the gait's rate; one that cannot ends at
    the fastest clock (the brace hold of hold.py is what stops the walk there)."""
    d = np.array([0.0, -0.104])
    outside = np.array([0.03, -0.07])  # xi + d 2.7 cm beyond the right sole's outer edge
    inside = np.array([0.03, 0.0])
    cfg = SteppingConfig(ankle=0.0)
    for xi, kappa in ((outside, cfg.max_kappa), (inside, 1.0)):
        plan = plan_step(xi, d, _double_then_left_swing(), BODY, W, 0.008, 0.5, cfg)
        assert plan is not None and plan.kappa == pytest.approx(kappa)
