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
