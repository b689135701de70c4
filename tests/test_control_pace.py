"""The controller's timing helpers for issue 17's transitions and strafing: the MPC preview of a
phase the time scaling slows (controller.stretch_first) and the gait clock's pace for sideways
commands (GaitController._pace)."""

from __future__ import annotations

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
