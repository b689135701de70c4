"""The CoM planner's movable footholds (kinemorph.control.landings): the landings of a preview, the
separation limits, and a receding-horizon pendulum that a sideways kick topples with fixed
footholds and that moved footholds catch."""

from __future__ import annotations

import numpy as np
import pytest

from kinemorph.control.landings import StepFreedom, find_landings, separation_rows
from kinemorph.control.mpc import MpcConfig, solve_mpc
from kinemorph.control.preview import SupportPhase, preview, time_to_touchdown
from kinemorph.errors import ConfigError
from kinemorph.gait import GaitBody, Planner, load_style
from kinemorph.gait.footsteps import min_separation

BODY = GaitBody(pelvis_height=0.7, foot_spacing=0.24, heel=-0.055, toe=0.125, half_width=0.035)
HEIGHT, G = 0.63, 9.81
MAX_WIDTH = 0.31


def _walking(velocity=(0.3, 0.0, 0.0), seconds: float = 2.4) -> Planner:
    planner = Planner(load_style("neutral"), BODY)
    planner.nominal_step(velocity, 0.0)
    for _ in range(round(seconds / 0.008)):
        planner.nominal_step(velocity, 0.008)
    return planner


def test_landings_number_each_touch_down_and_leave_the_standing_feet_fixed() -> None:
    phases = preview(_walking(), np.zeros((2, 2)), (0.3, 0.0, 0.0), 2.0)
    land = find_landings(phases)
    assert land.count >= 3
    assert np.all(land.index[0] == -1)  # the feet on the floor now do not move
    assert list(land.foot[:4]) == [int(land.foot[0]), 1 - int(land.foot[0])] * 2  # the feet alternate
    for j in range(land.count):
        i, f = int(land.first[j]), int(land.foot[j])
        assert phases[i].contacts[f] and not phases[i - 1].contacts[f]
        assert land.index[i, f] == j
    assert find_landings(phases, free=False).count == 0


def test_moved_footholds_keep_the_feet_apart_and_within_reach() -> None:
    """Whatever the plan wants, each landing stays between the feet's least separation and the reach."""
    planner = _walking()
    phases = preview(planner, np.zeros((2, 2)), (0.3, 0.0, 0.0), 2.0)
    centre = np.array(planner.path[:2])
    freedom = StepFreedom(weight=1e-3, reach=0.3, body=BODY, max_width=MAX_WIDTH)
    for vy in (-1.0, 1.0):  # a CoM running sideways fast: the plan moves the feet as far as it may
        state = np.array([[centre[0], 0.3], [centre[1], vy]])
        plan = solve_mpc(phases, state, centre, body=BODY, height=HEIGHT, gravity=G, config=MpcConfig(),
                         steps=freedom)  # fmt: skip
        assert plan.status == "solved" and plan.landings is not None
        land = plan.landings
        assert np.abs(plan.steps).max() > 0.05  # it does move them
        sx, sy, h = separation_rows(phases, land, freedom)
        assert np.all(sx @ plan.steps[:, 0] + sy @ plan.steps[:, 1] <= h + 1e-6)
        for j in range(land.count):
            i, f = int(land.first[j]), int(land.foot[j])
            other = phases[i].feet[1 - f]
            jo = int(land.index[i, 1 - f])
            po = np.array(other[:2]) + (plan.steps[jo] if jo >= 0 else 0.0)
            pf = np.array(phases[i].feet[f][:2]) + plan.steps[j]
            c, s = np.cos(other[2]), np.sin(other[2])
            lateral = (1 if f == 0 else -1) * (-s * (pf[0] - po[0]) + c * (pf[1] - po[1]))
            assert min_separation(BODY, phases[i].feet[f][2] - other[2]) - 1e-6 <= lateral <= MAX_WIDTH + 1e-6


def _kicked(weight: float | None, kick: float, velocity=(0.3, 0.0, 0.0), seconds: float = 6.0) -> float:
    """Largest sideways distance [m] of the capture point from the planner's path over a walk on an
    exact pendulum (the CoM planner re-solved at 125 Hz) kicked sideways by ``kick`` [m/s] at 3 s;
    the moved footholds land where the plan put them."""
    planner = Planner(load_style("neutral"), BODY)
    planner.nominal_step(velocity, 0.0)
    cfg, dt, settle = MpcConfig(), 0.008, 0.8
    state, cop = np.zeros((2, 2)), np.zeros(2)
    offsets, moved, foot, worst = np.zeros((2, 2)), np.zeros(2), -1, 0.0
    for k in range(round(seconds / dt)):
        t = k * dt
        if abs(t - 3.0) < dt / 2:
            state[1, 1] += kick
        delay = max(0.0, settle - t)
        phases = [SupportPhase(0.0 if i == 0 else ph.start + delay, ph.end + delay, ph.feet, ph.contacts, ph.landed)
                  for i, ph in enumerate(preview(planner, offsets, velocity, cfg.preview))]  # fmt: skip
        freedom = None
        if weight is not None:
            late = time_to_touchdown(phases) < 0.05 and not all(phases[0].contacts)
            freedom = StepFreedom(weight, 0.15, BODY, MAX_WIDTH, moved if late and foot >= 0 else None)
        plan = solve_mpc(phases, state, cop, body=BODY, height=HEIGHT, gravity=G, config=cfg, steps=freedom)
        assert plan.status == "solved"
        x, v, _ = plan.com_at(dt)
        cop, state = plan.cop_at(dt), np.stack([x, v], axis=1)
        worst = max(worst, abs(x[1] + v[1] / plan.omega - planner.path[1]))
        if worst > 1.0:
            break
        if plan.landings is not None:
            foot, moved = int(plan.landings.foot[0]), plan.steps[0].copy()
        was = list(planner.contacts)
        if delay == 0.0:
            planner.nominal_step(velocity, dt)
        if foot >= 0 and planner.contacts[foot] and not was[foot]:
            offsets[foot] = moved  # the foot lands where the plan moved it
    return worst


@pytest.mark.parametrize("kick", [0.2, -0.2])
def test_moved_footholds_catch_a_sideways_kick_that_fixed_ones_cannot(kick: float) -> None:
    assert _kicked(None, 0.0) < 0.1  # undisturbed, both walk
    assert _kicked(30.0, 0.0) < 0.1
    assert _kicked(None, kick) > 1.0  # the kick topples the plan on fixed footholds
    assert _kicked(30.0, kick) < 0.3  # moved footholds catch it


def _moves_ctrl(step_when: str, time: float, engaged: bool, push: float = 1.0, walk: float = 0.0):  # type: ignore[no-untyped-def]
    """The parts of a GaitController that FootholdMoves.freedom reads."""
    from types import SimpleNamespace

    from kinemorph.control.feedback import FeedbackConfig
    from kinemorph.control.stepping import SteppingConfig

    mpc = MpcConfig(
        step_weight=100.0, step_when=step_when, step_demand=0.5, step_hold=0.3, step_push=0.8, walk_weight=walk
    )
    cfg = SimpleNamespace(mpc=mpc, feedback=FeedbackConfig(), stepping=SteppingConfig())
    observer = SimpleNamespace(fast_per_kg=lambda: push)  # the push estimate's size [N/kg]
    return SimpleNamespace(cfg=cfg, time=time, recovery=SimpleNamespace(engaged=engaged, observer=observer),
                           rg=SimpleNamespace(body=BODY), maker=SimpleNamespace(max_width=MAX_WIDTH))  # fmt: skip


def test_footholds_are_free_only_when_step_when_asks_and_for_step_hold_after() -> None:
    from kinemorph.control.feedback import FeedbackState
    from kinemorph.control.footholds import FootholdMoves

    phases = preview(_walking(), np.zeros((2, 2)), (0.3, 0.0, 0.0), 2.0)
    calm = FeedbackState(1.0, np.zeros(2), np.zeros(2), False, False, False)
    sway = FeedbackState(1.0, np.array([0.0, 0.1]), np.zeros(2), False, True, False)  # 0.1 >= 0.5 * 0.15
    cmd = np.array([0.3, 0.0, 0.0])
    assert FootholdMoves().freedom(_moves_ctrl("always", 1.0, False), phases, cmd, calm) is not None
    for when in ("push", "sway"):
        moves = FootholdMoves()
        assert moves.freedom(_moves_ctrl(when, 1.0, False), phases, cmd, calm) is None
        assert moves.freedom(_moves_ctrl(when, 1.05, True, push=0.6), phases, cmd, calm) is None  # below step_push
        assert moves.freedom(_moves_ctrl(when, 1.1, True), phases, cmd, calm) is not None  # a push engaged
        assert moves.freedom(_moves_ctrl(when, 1.3, False), phases, cmd, calm) is not None  # held after it
        assert moves.freedom(_moves_ctrl(when, 1.5, False), phases, cmd, calm) is None  # step_hold passed
        swayed = moves.freedom(_moves_ctrl(when, 2.0, False), phases, cmd, sway)
        assert (swayed is not None) == (when == "sway")  # the step adjustment near its cap frees them
    assert FootholdMoves().freedom(_moves_ctrl("always", 1.0, False), phases, np.array([0.0, 0.2, 0.0]), calm) is None
    for bad in (
        {"step_when": "often"},
        {"step_demand": 1.5},
        {"step_hold": -1.0},
        {"step_push": -0.5},
        {"walk_weight": -1.0},
    ):
        with pytest.raises(ConfigError):
            MpcConfig(**bad)  # type: ignore[arg-type]


def test_walk_weight_frees_the_footholds_at_its_own_cost_outside_the_push_windows() -> None:
    from kinemorph.control.feedback import FeedbackState
    from kinemorph.control.footholds import FootholdMoves

    phases = preview(_walking(), np.zeros((2, 2)), (0.3, 0.0, 0.0), 2.0)
    calm = FeedbackState(1.0, np.zeros(2), np.zeros(2), False, False, False)
    cmd = np.array([0.3, 0.0, 0.0])
    moves = FootholdMoves()
    walking = moves.freedom(_moves_ctrl("push", 1.0, False, walk=300.0), phases, cmd, calm)
    assert walking is not None and walking.weight == 300.0  # no push: the walking cost
    pushed = moves.freedom(_moves_ctrl("push", 1.1, True, walk=300.0), phases, cmd, calm)
    assert pushed is not None and pushed.weight == 100.0  # pushed: step_weight's cost
    held = moves.freedom(_moves_ctrl("push", 1.3, False, walk=300.0), phases, cmd, calm)
    assert held is not None and held.weight == 100.0  # within step_hold of the push
    after = moves.freedom(_moves_ctrl("push", 1.5, False, walk=300.0), phases, cmd, calm)
    assert after is not None and after.weight == 300.0
    strafing = np.array([0.0, 0.2, 0.0])
    assert moves.freedom(_moves_ctrl("push", 2.0, False, walk=300.0), phases, strafing, calm) is None
    turning = np.array([0.0, 0.2, 0.3])  # strafing while turning: free (MpcConfig.step_turning)
    free = moves.freedom(_moves_ctrl("push", 2.0, False, walk=300.0), phases, turning, calm)
    assert free is not None and free.weight == 300.0


@pytest.mark.slow
def test_g1_started_at_0_3_m_s_walks_on_the_footholds_free_while_walking() -> None:
    """G1 neutral started from standing at 0.3 m/s: with the footholds fixed outside pushes
    (walk_weight 0) its lateral sway runs the step adjustment into its cap and it falls at 3.98 s
    (docs/WALKING.md, "Footholds free while walking"); free while walking (the default) it walks."""
    from conftest import robot_or_skip
    from kinemorph.control import ControlConfig, SimulationConfig, simulate_gait
    from kinemorph.gait import Commands

    g1 = robot_or_skip("unitree_g1")
    runs = {}
    for walk in (0.0, MpcConfig().walk_weight):
        control = ControlConfig(mpc=MpcConfig(walk_weight=walk))
        runs[walk] = simulate_gait(load_style("neutral"), g1, Commands.constant([0.3, 0.0, 0.0]), 8.0,
                                   config=SimulationConfig(raise_on_fall=False, control=control))  # fmt: skip
    assert runs[0.0].fell and runs[0.0].fall_time < 6.0
    free = runs[MpcConfig().walk_weight]
    assert not free.fell
    lateral = free.log.com[free.log.time > 3.0, 1]
    assert float(np.ptp(lateral)) < 0.2  # no sideways drift: it sways about its path
    assert free.motion.root_pos[-1, 0] - free.motion.root_pos[0, 0] > 0.5 * 0.3 * (8.0 - 0.8)
