"""STMR's outer loop and rollout costs: a candidate whose replay stands is chosen over any that falls,
then one the whole verdict finds feasible over any it does not,
an earlier fall costs more, the friction pass replaces the choice only when it ranks better, and
the joint speed residual prices only the speed over the cap."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import robot_or_skip
from kinemorph.retarget import StmrConfig
from kinemorph.retarget.stmr.dynamics import servo_model
from kinemorph.retarget.stmr.speed_cost import JointSpeedResidual
from kinemorph.retarget.stmr.temporal import ReplayScore, TemporalResult, temporal_stage
from kinemorph.retarget.stmr.warp import segment_bounds
from test_quadruped import synthetic_trot


def test_joint_speed_residual_is_a_hinge_on_the_speed_over_the_cap() -> None:
    nv = 8
    res = JointSpeedResidual(nv, np.array([6, 7]), weight=4.0, limit=7.0)
    v = np.zeros(nv)
    v[6], v[7] = 6.9, -9.0
    r, jac = res(0, np.zeros(nv + 1), v)
    assert r.shape == (1,) and jac.shape == (1, 2 * nv)
    assert r[0] == pytest.approx(2.0 * -2.0)  # sqrt(4) sign(v) (|v| - 7)
    eps = 1e-6
    v2 = v.copy()
    v2[7] += eps
    r2, _ = res(0, np.zeros(nv + 1), v2)
    assert (r2[0] - r[0]) / eps == pytest.approx(jac[0, nv + 7], rel=1e-6)
    assert np.count_nonzero(jac) == 1
    v[7] = 3.0  # nothing over the cap: no rows, no pull
    r, jac = res(0, np.zeros(nv + 1), v)
    assert r.size == 0 and jac.shape == (0, 2 * nv)


def test_an_earlier_fall_costs_more() -> None:
    late = ReplayScore(True, 0.05, 5.0, 0.1, False, unsimulated=0.1)
    early = ReplayScore(True, 0.05, 5.0, 0.1, False, unsimulated=0.6)
    stood = ReplayScore(False, 0.05, 5.0, 0.1, False)
    assert stood.penalty() < late.penalty() < early.penalty()


def _outer_loop(judge, alternates=()):  # type: ignore[no-untyped-def]
    """The temporal stage on a 0.6 s synthetic trot onto Go2 (3 outer evaluations, 2 segments,
    one polish) scored by ``judge``, then solved on ``alternates`` (servo models)."""
    from kinemorph.retarget.stmr.reference import build_reference

    go2 = robot_or_skip("unitree_go2")
    motion = synthetic_trot(seconds=0.6)
    sm = servo_model(go2, dt=1 / 180, kp=40.0, kd=1.0)
    cfg = StmrConfig(outer_evaluations=3, outer_population=2, inner_iterations=1, final_iterations=1)
    ref = build_reference(motion, go2, cfg)
    feet = tuple(c[3] for c in ref.chains.bodies)
    bounds = segment_bounds(ref.contacts, 2)
    return temporal_stage(
        sm, ref.qpos, ref.contacts, bounds, fps=motion.fps, feet=feet, cfg=cfg, judge=judge, alternates=alternates
    )


def test_the_outer_loop_keeps_to_its_budget() -> None:
    """outer_evaluations is the number of inner solves over alpha (3 here: the source timing, the
    slowed guess, one of a CMA-ES generation of 2, cut short), then the polish; a generation that
    would overrun the budget is not evaluated whole."""
    out = _outer_loop(lambda candidate: ReplayScore(False, 0.01, 1.0, 0.0, True))
    assert [h.evaluation for h in out.history] == [1, 2, 3, 4]


def test_a_standing_candidate_wins_over_any_fall() -> None:
    """A judge that lets only the source timing (alpha 1, evaluated first) stand and makes every
    other candidate's fall nearly free: the outer loop still returns alpha 1."""
    seen: list[tuple[float, ...]] = []

    def judge(candidate: TemporalResult) -> ReplayScore:
        seen.append(tuple(candidate.alpha))
        first = np.allclose(candidate.alpha, 1.0) and len(seen) == 1
        if first:
            return ReplayScore(False, 0.5, 50.0, 0.9, False)  # stands, badly
        return ReplayScore(True, 0.0, 0.0, 0.0, False, unsimulated=0.0)  # falls at the very end

    out = _outer_loop(judge)
    assert len(seen) >= 3 and any(not np.allclose(a, 1.0) for a in seen)
    assert np.allclose(out.alpha, 1.0)
    fell = [h.replay.fell for h in out.history if h.replay is not None]
    assert fell[0] is False and all(fell[1:])


def test_a_feasible_candidate_wins_over_any_infeasible_one_that_stands() -> None:
    """All candidates stand; only the source timing (evaluated first) passes the whole verdict,
    with the worst replay figures: the outer loop returns it."""
    seen: list[tuple[float, ...]] = []

    def judge(candidate: TemporalResult) -> ReplayScore:
        seen.append(tuple(candidate.alpha))
        if np.allclose(candidate.alpha, 1.0) and len(seen) == 1:
            return ReplayScore(False, 0.09, 30.0, 0.19, True)  # feasible, with the worst figures
        return ReplayScore(False, 0.0, 0.0, 0.0, False)  # perfect figures, but infeasible

    out = _outer_loop(judge)
    assert len(seen) >= 3 and any(not np.allclose(a, 1.0) for a in seen)
    assert np.allclose(out.alpha, 1.0)


@pytest.mark.parametrize("better", [True, False])
def test_the_friction_pass_replaces_the_choice_only_when_the_verdict_ranks_it_better(better: bool) -> None:
    """After the polish the chosen alpha is solved once more on the alternate model (stiffer
    friction rows), warm-started; its solution (and its model, whose floor goes with the output's
    controls) is kept when it ranks better, else the choice stands and the pass is only recorded."""
    go2 = robot_or_skip("unitree_go2")
    stiff = servo_model(go2, dt=1 / 180, kp=40.0, kd=1.0, floor_friction_timeconst=0.003)
    seen: list[object] = []

    def judge(candidate: TemporalResult) -> ReplayScore:
        seen.append(candidate.servo)
        if candidate.servo is stiff:
            return ReplayScore(False, 0.0, 0.1, 0.0, better)
        return ReplayScore(False, 0.01, 3.0, 0.0, True)

    out = _outer_loop(judge, alternates=(stiff,))
    assert seen[-1] is stiff and all(s is not stiff for s in seen[:-1])
    assert len(out.history) == len(seen) and out.history[-1].replay is not None
    assert (out.servo is stiff) is better
    assert np.allclose(out.history[-1].alpha, out.alpha)  # the pass solved the chosen alpha
    # its objective is the lowest either way: an infeasible pass does not replace a feasible choice
    assert out.history[-1].objective == min(h.objective for h in out.history)
